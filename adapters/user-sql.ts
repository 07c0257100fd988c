/**
 * Queries people write (the CLI's `sql`, saved queries, scheduled rules, syncs): a single SELECT,
 * checked by a dry run before anything runs, under a bytes-billed cap; the console's (`/sql`,
 * `eventbus sql`) also confined to the environment's own datasets (core/console/sql-scope.ts);
 * which failures are the query writer's to fix; and the client's typed values turned into plain
 * JSON ones.
 */
import type { BigQuery, Query } from '@google-cloud/bigquery';
import {
  informationSchemaOutside,
  type ReferencedName,
  referenceOutside,
  type SqlScope,
} from '../core/console/sql-scope.ts';
import type { Plan } from '../core/plan.ts';
import type { ResourceSql } from '../core/registry/resources.ts';
import type { FieldViolation } from '../core/validation.ts';

/** Turns the client's typed values (timestamps, big numbers, bytes, JSON) into printable ones. */
export function plainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(plainValue);
  if (typeof value === 'object') {
    const v = value as { value?: unknown; constructor?: { name?: string } };
    // BigQueryTimestamp / BigQueryDate / BigQueryInt / Big: wrappers with a `value`, or toString.
    if ('value' in v && Object.keys(v).length === 1) return plainValue(v.value);
    if (v.constructor?.name === 'Big') return String(value);
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, plainValue(x)]));
  }
  return value;
}

/** The bytes one query may bill unless `warehouse.max_bytes_billed` says otherwise (10 GiB). */
export const DEFAULT_MAX_BYTES_BILLED = 10 * 1024 ** 3;

/** Raised for a query that is not a single SELECT; nothing was run. */
export class NotASelectError extends Error {
  override name = 'NotASelectError';
}

/** Raised for a console query that reads outside the environment's datasets; nothing was run. */
export class OutsideEnvironmentError extends Error {
  override name = 'OutsideEnvironmentError';
}

interface DryRunStatistics {
  readonly statementType?: string;
  readonly referencedTables?: readonly ReferencedName[];
  readonly referencedRoutines?: readonly ReferencedName[];
}

/** A dry run's (not billed) query statistics; BigQuery's refusal of the SQL is thrown. */
async function dryRun(bigquery: BigQuery, options: Query): Promise<DryRunStatistics | undefined> {
  const { maxResults: _, ...probeOptions } = options;
  const [probe] = await bigquery.createQueryJob({ ...probeOptions, dryRun: true });
  return (probe.metadata as { statistics?: { query?: DryRunStatistics } })?.statistics?.query;
}

function assertSelect(statistics: DryRunStatistics | undefined): void {
  const statementType = statistics?.statementType;
  if (statementType !== 'SELECT')
    throw new NotASelectError(`only a single SELECT may run here; this is ${statementType ?? 'not a query'}`);
}

/** Throws NotASelectError unless a dry run (not billed) says the query is a single SELECT. */
export async function assertSingleSelect(bigquery: BigQuery, options: Query): Promise<void> {
  assertSelect(await dryRun(bigquery, options));
}

/** What the console may read: the environment's project, its plan's dataset and the ops dataset. */
export function environmentScope(project: string, p: Pick<Plan, 'dataset' | 'ops'>): SqlScope {
  return { project, datasets: [p.dataset, p.ops.dataset] };
}

/**
 * Throws unless the query is a single SELECT reading only the scope's datasets: its text first
 * (INFORMATION_SCHEMA, which a dry run does not list), then a dry run's referenced tables and
 * routines (an unqualified name as BigQuery resolved it, a view as itself). Nothing runs.
 */
export async function assertConfinedSelect(
  bigquery: BigQuery,
  options: Query,
  scope: SqlScope,
): Promise<void> {
  const byText = informationSchemaOutside(String(options.query ?? ''), scope);
  if (byText) throw new OutsideEnvironmentError(byText);
  const statistics = await dryRun(bigquery, options);
  assertSelect(statistics);
  const byReference = referenceOutside(
    [...(statistics?.referencedTables ?? []), ...(statistics?.referencedRoutines ?? [])],
    scope,
  );
  if (byReference) throw new OutsideEnvironmentError(byReference);
}

/** BigQuery's reasons for a failure of the service rather than of the query: answered as an outage. */
const OUTAGE_REASONS = new Set([
  'backendError',
  'internalError',
  'rateLimitExceeded',
  'quotaExceeded',
  'jobRateLimitExceeded',
  'tableUnavailable',
  'jobBackendError',
  'jobInternalError',
]);

/** Its reasons for a query it refused, also on a failed job, which carries no HTTP status. */
const QUERY_REASONS = new Set([
  'invalid',
  'invalidQuery',
  'notFound',
  'accessDenied',
  'duplicate',
  'bytesBilledLimitExceeded',
  'billingTierLimitExceeded',
  'resourcesExceeded',
  'responseTooLarge',
]);

/**
 * Why a query failed when it is its writer's to fix, in the words of whoever refused it: ours
 * (not a single SELECT, outside the environment) or BigQuery's (a 400, 403 or 404, or a failed
 * job's reason: a syntax error, a table or column that does not exist, no access, over the bytes
 * cap). Undefined for an outage (unreachable, a backend error, a rate limit or quota, a 401 of
 * the caller's own credentials): retried, not blamed on the query.
 */
export function queryProblem(err: unknown): string | undefined {
  const e = (err ?? {}) as { name?: string; code?: unknown; message?: string; errors?: unknown };
  const message = e.message ?? String(err);
  if (e.name === 'NotASelectError' || e.name === 'OutsideEnvironmentError') return message;
  const reasons = (Array.isArray(e.errors) ? (e.errors as { reason?: unknown }[]) : []).map((x) =>
    String(x?.reason ?? ''),
  );
  if (reasons.some((r) => OUTAGE_REASONS.has(r))) return undefined;
  if (e.code === 400 || e.code === 403 || e.code === 404 || reasons.some((r) => QUERY_REASONS.has(r)))
    return message;
  return undefined;
}

/**
 * Why SQL a resource holds may not be stored, from BigQuery's dry run (not billed): anything but
 * a single SELECT (DML, DDL, scripts, `EXPORT DATA`), a table of another project, or an error
 * BigQuery finds in it (a syntax error, a table that does not exist). Undefined when it is fine.
 * A failure of the service itself (not a 4xx about the SQL) is thrown: the apply is retried.
 */
export async function selectProblem(bigquery: BigQuery, options: Query): Promise<string | undefined> {
  let statistics: DryRunStatistics | undefined;
  try {
    statistics = await dryRun(bigquery, options);
  } catch (err) {
    const problem = queryProblem(err);
    if (problem !== undefined) return problem.split('\n')[0];
    throw err;
  }
  if (statistics?.statementType !== 'SELECT')
    return `must be a single SELECT; this is ${statistics?.statementType ?? 'not a query'}`;
  const foreign = (statistics.referencedTables ?? []).find((t) => t.projectId !== bigquery.projectId);
  if (foreign)
    return `reads ${foreign.projectId}.${foreign.datasetId}.${foreign.tableId}: only tables of ${bigquery.projectId} may be read`;
  return undefined;
}

/**
 * The violations of the SQL of an apply's documents (core/registry/resources.ts resourceSql), each dry
 * run as it will run: in the events dataset by default.
 */
export async function resourceSqlViolations(
  bigquery: BigQuery,
  p: Pick<Plan, 'dataset' | 'location'>,
  items: readonly ResourceSql[],
): Promise<FieldViolation[]> {
  const problems = await Promise.all(
    items.map((item) =>
      selectProblem(bigquery, {
        query: item.sql,
        useLegacySql: false,
        defaultDataset: { projectId: bigquery.projectId, datasetId: p.dataset },
        location: p.location,
      }),
    ),
  );
  return items.flatMap((item, i) => {
    const why = problems[i];
    return why ? [{ field: item.field, description: why }] : [];
  });
}

/**
 * Runs a query that holds SQL someone wrote (a whole query, or a `--where` inside ours) only if
 * a dry run says it is a single SELECT, and caps what it may bill. Returns the client's rows.
 */
export async function selectOnly(
  bigquery: BigQuery,
  options: Query,
  maxBytesBilled: number = DEFAULT_MAX_BYTES_BILLED,
): Promise<Record<string, unknown>[]> {
  await assertSingleSelect(bigquery, options);
  const [rows] = await bigquery.query({ ...options, maximumBytesBilled: String(maxBytesBilled) });
  return rows as Record<string, unknown>[];
}

/**
 * Runs one query people wrote in the console (`/sql`, `eventbus sql`) and returns its rows as
 * plain objects. It must be a single SELECT reading only the environment's datasets
 * (assertConfinedSelect: its text, then a dry run, which BigQuery does not bill), so an INSERT,
 * DELETE, DDL, a script or a read of another dataset or project never runs. The run itself is
 * capped at `maxBytesBilled`: BigQuery fails the query rather than bill more.
 */
export async function runQuery(
  bigquery: BigQuery,
  p: Pick<Plan, 'dataset' | 'location' | 'ops'>,
  query: string,
  maxRows: number,
  maxBytesBilled: number = DEFAULT_MAX_BYTES_BILLED,
): Promise<Record<string, unknown>[]> {
  const options: Query = {
    query,
    useLegacySql: false,
    defaultDataset: { projectId: bigquery.projectId, datasetId: p.dataset },
    location: p.location,
  };
  await assertConfinedSelect(bigquery, options, environmentScope(bigquery.projectId, p));
  const [rows] = await bigquery.query({
    ...options,
    maxResults: maxRows,
    maximumBytesBilled: String(maxBytesBilled),
  });
  return (rows as Record<string, unknown>[])
    .slice(0, maxRows)
    .map((r) => plainValue(r) as Record<string, unknown>);
}
