/**
 * Queries people write (the CLI's `sql`, saved queries, scheduled rules, syncs): a single SELECT,
 * checked by a dry run before anything runs, under a bytes-billed cap; and the client's typed
 * values turned into plain JSON ones.
 */
import type { BigQuery, Query } from '@google-cloud/bigquery';
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

/** Throws NotASelectError unless a dry run (not billed) says the query is a single SELECT. */
export async function assertSingleSelect(bigquery: BigQuery, options: Query): Promise<void> {
  const { maxResults: _, ...probeOptions } = options;
  const [probe] = await bigquery.createQueryJob({ ...probeOptions, dryRun: true });
  const statementType = (probe.metadata as { statistics?: { query?: { statementType?: string } } })
    ?.statistics?.query?.statementType;
  if (statementType !== 'SELECT')
    throw new NotASelectError(`only a single SELECT may run here; this is ${statementType ?? 'not a query'}`);
}

interface DryRunStatistics {
  readonly statementType?: string;
  readonly referencedTables?: readonly { projectId?: string; datasetId?: string; tableId?: string }[];
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
    const [probe] = await bigquery.createQueryJob({ ...options, dryRun: true });
    statistics = (probe.metadata as { statistics?: { query?: DryRunStatistics } })?.statistics?.query;
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === 400 || code === 403 || code === 404) return String((err as Error).message).split('\n')[0];
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
 * Runs one query people wrote and returns its rows as plain objects. It must be a single
 * SELECT: a dry run (which BigQuery does not bill) checks the statement type first, so an
 * INSERT, DELETE, DDL or a multi-statement script never runs. The run itself is capped at
 * `maxBytesBilled`: BigQuery fails the query rather than bill more.
 */
export async function runQuery(
  bigquery: BigQuery,
  p: Plan,
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
  const rows = await selectOnly(bigquery, { ...options, maxResults: maxRows }, maxBytesBilled);
  return rows.slice(0, maxRows).map((r) => plainValue(r) as Record<string, unknown>);
}
