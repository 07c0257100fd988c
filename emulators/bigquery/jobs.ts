/**
 * The emulator's `jobs` and `queries` resources: query jobs translated to DuckDB, dry runs, copy,
 * load and extract jobs, and results. Every function takes the emulator's state (state.ts) first;
 * with `--iam`, the request's `Access` last (each statement authorized: access.ts). The job
 * records (RUNNING until their work settles, then DONE) and the job list are in job-records.ts;
 * how long calls wait and result pages in job-waits.ts and results-page.ts.
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { type Access, creatorOf, mayRun, mayTransfer, mayWriteInto } from './access.ts';
import { tableBytes } from './bytes.ts';
import { copyTables } from './copy.ts';
import { ApiError } from './errors.ts';
import { markStreamed } from './expiration.ts';
import { doneJob, jobResource, keepJob, keepRunning, validLabels } from './job-records.ts';
import { atLeast, delay, settledWithin, timeoutOf } from './job-waits.ts';
import { createShadows, planMasking } from './masking.ts';
import { type QueryParameter, renderParameters } from './params.ts';
import { fieldForType, type OutputField } from './result-encoding.ts';
import { resultsPage } from './results-page.ts';
import type { FieldSchema } from './schema.ts';
import { isScript, runScript, splitStatements } from './script.ts';
import {
  InvalidSqlError,
  qualifiedName,
  type TableRef,
  type Translation,
  UnsupportedSqlError,
} from './sql.ts';
import { applyOption, type OptionValue } from './sql-table-options.ts';
import {
  cleanDuckMessage,
  type Emulator,
  emptyResult,
  etag,
  type Json,
  LOCATION,
  outName,
  type QueryResult,
  STATEMENT_TYPES,
} from './state.ts';
import { checkTablesExist, refreshWildcardViews, runSql, translateOrThrow } from './statements.ts';
import { checkBuffer, guardBuffer } from './streaming-buffer.ts';
import { checkLayout, createView, tableResource } from './tables.ts';
import { extractTable, loadTable } from './transfer.ts';

/** Whitespace and comments (line comments with -- or #, block comments) before the first word. */
const LEADING_COMMENTS = /^(?:\s+|--[^\n]*(?:\n|$)|#[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;

export function parameters(
  _em: Emulator,
  cfg: Json,
): { named: Record<string, string>; positional: string[] } {
  const list = cfg['queryParameters'];
  if (list !== undefined && !Array.isArray(list))
    throw new ApiError('invalid', 'queryParameters must be an array');
  try {
    return renderParameters(list as QueryParameter[] | undefined, cfg['parameterMode'] as string | undefined);
  } catch (e) {
    throw new ApiError('invalid', (e as Error).message);
  }
}

/**
 * Runs one query configuration (jobs.query or a query job); `extra` adds named parameters. With
 * `access`, each statement is authorized before it runs (access.ts, `mayRun`).
 */
export async function runQuery(
  em: Emulator,
  projectId: string,
  cfg: Json,
  extra: Readonly<Record<string, string>> = {},
  location?: string,
  temp?: ReadonlyMap<string, string>,
  access?: Access,
): Promise<QueryResult> {
  const sql = cfg['query'];
  if (typeof sql !== 'string' || sql.trim() === '')
    throw new ApiError('required', 'Required parameter is missing: query');
  if (cfg['useLegacySql'] === true)
    throw new ApiError(
      'invalidQuery',
      'Legacy SQL is not supported by the emulator; set useLegacySql: false',
    );
  const given = parameters(em, cfg);
  const params = { named: { ...given.named, ...extra }, positional: given.positional };
  const dd = cfg['defaultDataset'] as { projectId?: string; datasetId?: string } | undefined;
  const defaultDataset =
    dd && typeof dd.datasetId === 'string'
      ? { ...(dd.projectId ? { projectId: dd.projectId } : {}), datasetId: dd.datasetId }
      : undefined;
  const statements = splitStatements(sql);
  if (isScript(statements)) {
    // A script: its statements one by one, its variables and temporary functions in DuckDB.
    const result = await runScript<QueryResult>(statements, {
      run: (statement, named, temp) =>
        runQuery(em, projectId, { ...cfg, query: statement }, { ...extra, ...named }, location, temp, access),
      createTemp: async (duck, query, named, temp) => {
        const tr = translateOrThrow(em, query, projectId, defaultDataset, {
          named: { ...params.named, ...named },
          positional: params.positional,
          temp,
        });
        if (tr.kind !== 'select') throw new ApiError('invalidQuery', 'CREATE TEMP TABLE … AS needs a query');
        mayRun(em, access, tr);
        const masking = planMasking(em, access, query, tr);
        await em.store.exclusive(async (conn) => {
          checkTablesExist(em, tr.tables, undefined, location);
          await createShadows(conn, masking);
          await runSql(em, conn, `CREATE OR REPLACE TEMP TABLE ${duck} AS ${masking.sql}`);
        });
      },
      translate: (select, named) => {
        const tr = translateOrThrow(em, select, projectId, defaultDataset, {
          named: { ...params.named, ...named },
          positional: params.positional,
        });
        mayRun(em, access, tr);
        // A script's expression is translated, not run here: one reading masked columns is refused.
        if (planMasking(em, access, select, tr).shadows.length > 0)
          throw new ApiError(
            'accessDenied',
            'Access Denied: the BigQuery emulator does not mask columns read in a script expression',
          );
        return tr.sql;
      },
      raw: (duck) =>
        em.store.exclusive(async (conn) => {
          try {
            await conn.run(duck);
          } catch (e) {
            throw new ApiError('invalidQuery', cleanDuckMessage((e as Error).message));
          }
        }),
      empty: emptyResult('SCRIPT'),
    });
    return { ...result, statementType: 'SCRIPT' };
  }
  const tr = translateOrThrow(em, sql, projectId, defaultDataset, { ...params, ...(temp ? { temp } : {}) });
  mayRun(em, access, tr);
  const masking = planMasking(em, access, sql, tr);
  return em.store.exclusive(async (conn) => {
    await refreshWildcardViews(em, conn);
    statementTablesExist(em, tr, location);
    const tableOptions = await evaluateOptions(conn, tr);
    if (tr.kind === 'create_view' && tr.target) {
      const exists = em.store.table(tr.target.projectId, tr.target.datasetId, tr.target.tableId);
      // Read the statement's head past any leading comments (a saved query often starts with one).
      const head = sql.replace(LEADING_COMMENTS, '');
      const replace = /^CREATE\s+OR\s+REPLACE/i.test(head);
      if (exists && !replace) {
        if (/^CREATE\s+VIEW\s+IF\s+NOT\s+EXISTS/i.test(head)) return emptyResult('CREATE_VIEW');
        throw new ApiError(
          'duplicate',
          `Already Exists: Table ${tr.target.projectId}:${tr.target.datasetId}.${tr.target.tableId}`,
        );
      }
      await createView(
        em,
        conn,
        tr.target.projectId,
        tr.target.datasetId,
        tr.target.tableId,
        { ...tableOptions },
        { query: tr.viewQuery ?? '' },
        replace,
      );
      return emptyResult('CREATE_VIEW');
    }
    const statementType = STATEMENT_TYPES[tr.kind] ?? 'SELECT';
    if (tr.kind !== 'select') {
      await conn.run('BEGIN');
      try {
        const target =
          tr.target && em.store.table(tr.target.projectId, tr.target.datasetId, tr.target.tableId);
        const guard = await guardBuffer(em, conn, tr.kind, target);
        await createShadows(conn, masking);
        const r = await runSql(em, conn, masking.sql);
        await checkBuffer(conn, guard);
        if (tr.target)
          await syncCatalog(em, conn, tr.target, tr.kind, {
            ...tr,
            ...(tableOptions ? { tableOptions } : {}),
          });
        await conn.run('COMMIT');
        if (target) markStreamed(target); // rows written: its partitions are swept before the next read
        const isDml =
          tr.kind === 'insert' ||
          tr.kind === 'update' ||
          tr.kind === 'delete' ||
          tr.kind === 'truncate' ||
          tr.kind === 'merge';
        return { ...emptyResult(statementType), ...(isDml ? { dmlAffected: r.rowsChanged } : {}) };
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    }
    await createShadows(conn, masking);
    const r = await runSql(em, conn, masking.sql);
    const types = r.columnTypes();
    const fields = r.columnNames().map((n, i) => fieldForType(outName(n, i), types[i] as DuckDBType));
    return { fields, types, rows: r.getRows(), statementType };
  });
}

/**
 * The tables a statement reads exist (in `location`, when the job names one), and the dataset of
 * the table it creates or drops; the table it creates, if any.
 */
function statementTablesExist(
  em: Emulator,
  tr: Translation,
  location: string | undefined,
): TableRef | undefined {
  const creating = tr.kind === 'create_table' || tr.kind === 'create_view' ? tr.target : undefined;
  const dropping = tr.kind === 'drop_table' || tr.kind === 'drop_view';
  checkTablesExist(
    em,
    tr.tables.filter((r) => !(dropping && r === tr.target)),
    creating,
    location,
  );
  if (dropping && tr.target) em.datasetOr404(tr.target.projectId, tr.target.datasetId);
  if (creating) em.datasetOr404(creating.projectId, creating.datasetId);
  return creating;
}

/**
 * What jobs.insert checks of a query job before it answers, as BigQuery does: the statement
 * translates and parses, its parameters are valid, the caller may run it, and the tables it reads
 * exist in the job's location (a script's statements are checked as they run). What fails here is the
 * answer; what fails later is the job's.
 */
async function checkQueryJob(
  em: Emulator,
  projectId: string,
  cfg: Json,
  location: string | undefined,
  access: Access | undefined,
): Promise<void> {
  const sql = cfg['query'];
  if (typeof sql !== 'string' || sql.trim() === '')
    throw new ApiError('required', 'Required parameter is missing: query');
  if (cfg['destinationTable']) destinationOf(em, projectId, cfg);
  if (isScript(splitStatements(sql))) return;
  const dd = cfg['defaultDataset'] as { datasetId: string } | undefined;
  const tr = translateOrThrow(em, sql, projectId, dd, parameters(em, cfg));
  mayRun(em, access, tr);
  statementTablesExist(em, tr, location);
  try {
    await em.store.parse(tr.sql);
  } catch (e) {
    throw new ApiError('invalidQuery', cleanDuckMessage((e as Error).message));
  }
}

/** DuckDB types read as numbers when an option's expression is evaluated. */
const NUMBER_TYPES =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/;

/**
 * A CREATE TABLE / VIEW's options with those whose values are constant expressions
 * (`TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 7 DAY)`) evaluated by DuckDB, as BigQuery
 * evaluates them when the statement runs, and checked as literal ones are. 400 invalidQuery
 * when an expression fails or its type does not fit the option.
 */
async function evaluateOptions(
  conn: DuckDBConnection,
  tr: Pick<Translation, 'tableOptions' | 'optionExpressions'>,
): Promise<Translation['tableOptions']> {
  const exprs = tr.optionExpressions ?? [];
  if (exprs.length === 0) return tr.tableOptions;
  const out = structuredClone(tr.tableOptions ?? {});
  for (const { name, sql, view } of exprs) {
    let value: OptionValue;
    try {
      const type = String((await conn.runAndReadAll(`SELECT typeof((${sql}))`)).getRows()[0]?.[0]);
      const read = /^(TIMESTAMP|DATE)/.test(type)
        ? `CAST(epoch_ms((${sql})${type === 'DATE' ? '::TIMESTAMP' : ''}) AS VARCHAR)`
        : `CAST((${sql}) AS VARCHAR)`;
      const raw = (await conn.runAndReadAll(`SELECT ${read}`)).getRows()[0]?.[0];
      const text = raw === null || raw === undefined ? null : String(raw);
      if (text === null || type === '"NULL"') value = null;
      else if (/^(TIMESTAMP|DATE)/.test(type)) value = new Date(Number(text)).toISOString();
      else if (type === 'VARCHAR') value = text;
      else if (type === 'BOOLEAN') value = text === 'true';
      else if (NUMBER_TYPES.test(type)) value = Number(text);
      else throw new ApiError('invalidQuery', `OPTIONS(${name}) does not take a value of type ${type}`);
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError('invalidQuery', `OPTIONS(${name}): ${cleanDuckMessage((e as Error).message)}`);
    }
    try {
      applyOption(name, value, out, view);
    } catch (e) {
      if (e instanceof InvalidSqlError || e instanceof UnsupportedSqlError)
        throw new ApiError('invalidQuery', e.message);
      throw e;
    }
  }
  return out;
}

/**
 * After DDL run as SQL, bring the stored table resources in line with DuckDB's catalog; a new
 * table gets what its PARTITION BY, CLUSTER BY and OPTIONS set (`tr`), checked as tables.insert
 * checks them (a refusal rolls the statement back).
 */
export async function syncCatalog(
  em: Emulator,
  conn: DuckDBConnection,
  ref: TableRef,
  kind: string,
  tr?: Pick<Translation, 'tableOptions' | 'columnDescriptions'>,
): Promise<void> {
  if (kind === 'drop_table' || kind === 'drop_view') {
    await em.store.deleteTable(conn, ref.projectId, ref.datasetId, ref.tableId);
    return;
  }
  if (kind !== 'create_table') return;
  const probe = await conn.runAndReadAll(`SELECT * FROM ${qualifiedName(ref)} LIMIT 0`);
  const described = tr?.columnDescriptions ?? {};
  const fields = probe.columnNames().map((n, i) => {
    const f = fieldForType(n, probe.columnType(i));
    const description = described[n];
    return description === undefined ? f : { ...f, description };
  });
  const options: Json = { ...tr?.tableOptions };
  checkLayout(em, options, fields as FieldSchema[]);
  const resource = tableResource(em, ref.projectId, ref.datasetId, ref.tableId, options, 'TABLE', fields);
  await em.store.putTable(conn, { ...ref, resource });
}

export async function jobsQuery(em: Emulator, projectId: string, body: Json, access?: Access): Promise<Json> {
  const jobId = `job_${randomUUID().replaceAll('-', '_')}`;
  const location = typeof body['location'] === 'string' ? body['location'] : LOCATION;
  const labels = validLabels(body['labels']);
  const cfg: Json = { ...body };
  for (const k of [
    'formatOptions',
    'requestId',
    'maxResults',
    'labels',
    'location',
    'jobCreationMode',
    'timeoutMs',
  ])
    delete cfg[k];
  if (body['dryRun'] === true) {
    const probe = await dryRun(em, projectId, cfg, access);
    return {
      kind: 'bigquery#queryResponse',
      jobReference: { projectId, location },
      schema: { fields: probe.fields },
      jobComplete: true,
      totalBytesProcessed: String(probe.bytes),
    };
  }
  const named = typeof body['location'] === 'string' ? body['location'] : undefined;
  const run = atLeast(em, runQuery(em, projectId, cfg, {}, named, undefined, access));
  if ((await settledWithin(run, timeoutOf(body['timeoutMs']))) !== 'done') {
    // Still running when timeoutMs ran out: answered as BigQuery does (jobComplete false, the job's
    // reference); the job finishes on its own, and jobs.get / getQueryResults see it then.
    keepRunning(em, { projectId, jobId, location }, cfg, labels, run, access);
    return {
      kind: 'bigquery#queryResponse',
      jobReference: { projectId, jobId, location },
      jobComplete: false,
      queryId: jobId,
    };
  }
  const result = await run;
  keepJob(em, jobId, {
    resource: jobResource(em, projectId, jobId, cfg, result, undefined, location, labels),
    result,
    ...creatorOf(access),
  });
  const fmt = body['formatOptions'] as Json | undefined;
  const params = new URLSearchParams();
  if (fmt?.['useInt64Timestamp'] !== undefined)
    params.set('formatOptions.useInt64Timestamp', String(fmt['useInt64Timestamp']));
  if (typeof fmt?.['timestampOutputFormat'] === 'string')
    params.set('formatOptions.timestampOutputFormat', fmt['timestampOutputFormat']);
  if (body['maxResults'] !== undefined) params.set('maxResults', String(body['maxResults']));
  // jobs.query answers a QueryResponse (the same page, its own kind) with the query's id.
  return {
    ...resultsPage(em, projectId, jobId, location, result, params),
    kind: 'bigquery#queryResponse',
    queryId: jobId,
  };
}

/** The tables a statement names (its target too), once each, as a dry run's `referencedTables`. */
function referenced(tables: readonly TableRef[]): TableRef[] {
  const out = new Map<string, TableRef>();
  for (const { projectId, datasetId, tableId } of tables)
    out.set(qualifiedName({ projectId, datasetId, tableId }), { projectId, datasetId, tableId });
  return [...out.values()];
}

/** Checks a query without running it: its output fields and statement type (as BigQuery's dry run). */
export async function dryRun(
  em: Emulator,
  projectId: string,
  cfg: Json,
  access?: Access,
): Promise<{ fields: OutputField[]; statementType: string; bytes: number; referencedTables: TableRef[] }> {
  const sql = String(cfg['query'] ?? '');
  const params = parameters(em, cfg);
  // A script is not run to be checked: BigQuery's dry run says SCRIPT (not a single SELECT).
  if (isScript(splitStatements(sql)))
    return { fields: [], statementType: 'SCRIPT', bytes: 0, referencedTables: [] };
  const tr = translateOrThrow(
    em,
    sql,
    projectId,
    cfg['defaultDataset'] as { datasetId: string } | undefined,
    params,
  );
  mayRun(em, access, tr);
  const masking = planMasking(em, access, sql, tr);
  checkTablesExist(em, tr.tables);
  const statementType = STATEMENT_TYPES[tr.kind] ?? 'SELECT';
  const referencedTables = referenced(tr.tables);
  return em.store.exclusive(async (conn) => {
    // Every table the statement reads, once (an upper bound of what BigQuery would bill).
    const seen = new Set<string>();
    let bytes = 0;
    for (const ref of tr.tables) {
      const key = qualifiedName(ref);
      if (
        seen.has(key) ||
        em.tableOr404(ref.projectId, ref.datasetId, ref.tableId).resource['type'] !== 'TABLE'
      )
        continue;
      seen.add(key);
      bytes += await tableBytes(conn, ref);
    }
    if (tr.kind !== 'select') return { fields: [], statementType, bytes, referencedTables };
    await createShadows(conn, masking);
    const r = await runSql(em, conn, `SELECT * FROM (${masking.sql}) LIMIT 0`);
    const fields = r.columnNames().map((n, i) => fieldForType(outName(n, i), r.columnType(i)));
    return { fields, statementType, bytes, referencedTables };
  });
}

/**
 * jobs.insert; `upload` is the file of a load job sent with it (the client's multipart upload to
 * `/upload/bigquery/v2/projects/{p}/jobs`). A statement refused by IAM is a 403 (the failed job
 * kept, as for bad SQL).
 */
export async function jobsInsert(
  em: Emulator,
  projectId: string,
  body: Json,
  upload?: Buffer,
  access?: Access,
): Promise<Json> {
  const conf = (body['configuration'] ?? {}) as Json;
  const ref = (body['jobReference'] ?? {}) as Json;
  const jobId = typeof ref['jobId'] === 'string' ? ref['jobId'] : `job_${randomUUID().replaceAll('-', '_')}`;
  const location = typeof ref['location'] === 'string' ? ref['location'] : LOCATION;
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(jobId)) throw new ApiError('invalid', `Invalid job ID "${jobId}"`);
  if (em.jobs.has(jobId))
    throw new ApiError('duplicate', `Already Exists: Job ${projectId}:${location}.${jobId}`);
  const cfg = conf['query'] as Json | undefined;
  if (conf['copy'] || conf['load'] || conf['extract'])
    return transferJob(em, projectId, jobId, body, upload, access);
  if (!cfg) {
    const kind = Object.keys(conf).find((k) => ['load', 'extract', 'copy'].includes(k)) ?? 'unknown';
    throw new ApiError(
      'invalid',
      `Unsupported in the BigQuery emulator: ${kind} jobs (only query jobs are supported)`,
    );
  }
  if (conf['dryRun'] === true) {
    const { fields, statementType, bytes, referencedTables } = await dryRun(em, projectId, cfg, access);
    return {
      kind: 'bigquery#job',
      jobReference: { projectId, location },
      configuration: { query: cfg, dryRun: true, jobType: 'QUERY' },
      status: { state: 'DONE' },
      statistics: {
        totalBytesProcessed: String(bytes),
        query: {
          totalBytesProcessed: String(bytes),
          schema: { fields },
          statementType,
          referencedTables,
        },
      },
    };
  }
  const labels = validLabels(conf['labels']);
  try {
    const named = typeof ref['location'] === 'string' ? ref['location'] : undefined;
    await checkQueryJob(em, projectId, cfg, named, access);
    // BigQuery answers jobs.insert at once and the job runs on: RUNNING until its work settles,
    // then DONE with its result or its error, as jobs.get and getQueryResults show it.
    const work = cfg['destinationTable']
      ? queryInto(em, projectId, cfg, access)
      : runQuery(em, projectId, cfg, {}, named, undefined, access);
    return keepRunning(em, { projectId, jobId, location }, cfg, labels, atLeast(em, work), access).resource;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    // Keep the failed job so jobs.get shows its errorResult, and answer like BigQuery does for bad SQL.
    const resource = jobResource(em, projectId, jobId, cfg, undefined, e, location, labels);
    keepJob(em, jobId, { resource, error: e, ...creatorOf(access) });
    // A table or dataset not found (in the job's location) fails the job BigQuery has created:
    // the answer is the job, DONE with its errorResult, so the caller holds a job object.
    if (e.reason === 'notFound') return resource;
    throw e;
  }
}

/**
 * A copy, load or extract job, run at once. A table, dataset or object not found (in the job's
 * location) is a 404 and a request missing a required part a 400, as BigQuery answers jobs.insert;
 * a failure while running (a non-empty destination, another schema, a bad row) is the job's:
 * answered as the DONE job with its errorResult.
 */
async function transferJob(
  em: Emulator,
  projectId: string,
  jobId: string,
  body: Json,
  upload: Buffer | undefined,
  access: Access | undefined,
): Promise<Json> {
  const conf = (body['configuration'] ?? {}) as Json;
  const given = (body['jobReference'] as Json | undefined)?.['location'];
  const location = typeof given === 'string' ? given : LOCATION;
  const explicit = typeof given === 'string' ? given : undefined;
  const labels = validLabels(conf['labels']);
  const kind = conf['copy'] ? 'copy' : conf['load'] ? 'load' : 'extract';
  const cfg = conf[kind] as Json;
  const configuration = { jobType: kind.toUpperCase(), [kind]: cfg, ...(labels ? { labels } : {}) };
  const ref = { projectId, jobId, location };
  mayTransfer(em, access, projectId, kind, cfg);
  let resource: Json;
  try {
    let statistics: Json;
    if (kind === 'copy') {
      const rows = await copyTables(em, projectId, cfg, explicit);
      statistics = { copy: { copiedRows: String(rows), copiedLogicalBytes: '0' } };
    } else if (kind === 'load') {
      const rows = await loadTable(em, projectId, cfg, upload, explicit);
      statistics = {
        load: {
          outputRows: String(rows),
          inputFiles: '1',
          inputFileBytes: String(upload?.length ?? 0),
          outputBytes: '0',
        },
      };
    } else {
      const rows = await extractTable(em, projectId, cfg, explicit, access);
      statistics = {
        extract: { destinationUriFileCounts: ['1'], inputBytes: '0' },
        totalBytesProcessed: String(rows),
      };
    }
    resource = doneJob(em, ref, configuration, statistics, undefined);
  } catch (e) {
    if (!(e instanceof ApiError) || e.reason === 'required' || e.reason === 'notFound') throw e;
    resource = doneJob(em, ref, configuration, {}, e);
  }
  keepJob(em, jobId, { resource, ...creatorOf(access) });
  return resource;
}

/**
 * A query job's `destinationTable` and dispositions, checked: its dataset exists, and so does the
 * table under CREATE_NEVER (else 404).
 */
function destinationOf(
  em: Emulator,
  projectId: string,
  cfg: Json,
): { p: string; d: string; t: string; write: string; exists: boolean } {
  const dest = cfg['destinationTable'] as Json;
  const p = typeof dest['projectId'] === 'string' ? dest['projectId'] : projectId;
  const d = dest['datasetId'];
  const t = dest['tableId'];
  if (typeof d !== 'string' || typeof t !== 'string')
    throw new ApiError('invalid', 'destinationTable needs datasetId and tableId');
  em.datasetOr404(p, d);
  const write = String(cfg['writeDisposition'] ?? 'WRITE_EMPTY').toUpperCase();
  const create = String(cfg['createDisposition'] ?? 'CREATE_IF_NEEDED').toUpperCase();
  if (!['WRITE_EMPTY', 'WRITE_TRUNCATE', 'WRITE_APPEND'].includes(write))
    throw new ApiError('invalid', `Invalid writeDisposition ${write}`);
  const exists = em.store.table(p, d, t) !== undefined;
  if (!exists && create === 'CREATE_NEVER') throw new ApiError('notFound', `Not found: Table ${p}:${d}.${t}`);
  return { p, d, t, write, exists };
}

/**
 * A query job with a `destinationTable`: its rows written to the table as `writeDisposition` says
 * (WRITE_EMPTY, the default: only into a missing or empty table; WRITE_TRUNCATE: replaced;
 * WRITE_APPEND: added), the table created unless `createDisposition` is CREATE_NEVER. The job's
 * results are the table's rows, as BigQuery reads them from the destination.
 */
async function queryInto(
  em: Emulator,
  projectId: string,
  cfg: Json,
  access: Access | undefined,
): Promise<QueryResult> {
  const { p, d, t, write, exists } = destinationOf(em, projectId, cfg);
  const ref = `\`${p}.${d}.${t}\``;
  const select = String(cfg['query']);
  if (access) {
    // What the job writes is checked as a destination (not as the CREATE or INSERT run below).
    mayWriteInto(em, access, { projectId: p, datasetId: d, tableId: t });
    const dd = cfg['defaultDataset'] as { datasetId: string } | undefined;
    mayRun(em, access, translateOrThrow(em, select, projectId, dd, parameters(em, cfg)));
  }
  const base: Json = { ...cfg };
  delete base['destinationTable'];
  delete base['writeDisposition'];
  delete base['createDisposition'];
  if (exists && write === 'WRITE_EMPTY') {
    const [row] = (await runQuery(em, projectId, { ...base, query: `SELECT COUNT(*) AS n FROM ${ref}` }))
      .rows;
    if (Number(row?.[0] ?? 0) > 0)
      throw new ApiError(
        'duplicate',
        `Already Exists: Table ${p}:${d}.${t} is not empty (writeDisposition WRITE_EMPTY)`,
      );
  }
  const statement =
    exists && write === 'WRITE_APPEND'
      ? `INSERT INTO ${ref} SELECT * FROM (${select})`
      : `CREATE OR REPLACE TABLE ${ref} AS ${select}`;
  await runQuery(em, projectId, { ...base, query: statement });
  return {
    ...(await runQuery(em, projectId, { ...base, query: `SELECT * FROM ${ref}` })),
    statementType: 'SELECT',
  };
}

/**
 * jobs.getQueryResults: a running job is waited for up to `timeoutMs`; still running then, the
 * answer is `jobComplete: false` with the job's reference, as BigQuery answers.
 */
export async function getQueryResults(
  em: Emulator,
  projectId: string,
  jobId: string,
  query: URLSearchParams,
): Promise<Json> {
  const job = em.jobOr404(projectId, jobId, query);
  if (job.running) {
    const first = await Promise.race([
      job.running.then(() => 'done' as const),
      delay(timeoutOf(query.get('timeoutMs') ?? undefined)),
    ]);
    if (first !== 'done') {
      const location = String((job.resource['jobReference'] as Json)['location'] ?? LOCATION);
      return {
        kind: 'bigquery#getQueryResultsResponse',
        etag: etag(),
        jobReference: { projectId, jobId, location },
        jobComplete: false,
      };
    }
  }
  if (job.error) throw job.error;
  const location = String((job.resource['jobReference'] as Json)['location'] ?? LOCATION);
  return resultsPage(em, projectId, jobId, location, job.result ?? emptyResult('SELECT'), query);
}
