/**
 * Copy jobs (`configuration.copy`): one or more source tables into a destination table, as
 * BigQuery runs them: the destination is created with the first source's schema unless
 * `createDisposition` is CREATE_NEVER; `writeDisposition` WRITE_EMPTY (the default) copies only
 * into a missing or empty table, WRITE_TRUNCATE replaces its rows, WRITE_APPEND adds to them;
 * every source must have the destination's schema; views cannot be copied; rows still in a
 * source's streaming buffer are left out (streaming-buffer.ts). The rows are copied
 * in one DuckDB transaction, so a failed copy leaves the destination as it was.
 */
import { ApiError } from './errors.ts';
import { columnDefinitions, type FieldSchema } from './schema.ts';
import { qualifiedName } from './sql.ts';
import type { Emulator, Json } from './state.ts';
import { checkTablesExist } from './statements.ts';
import { releaseSettled, settledRows } from './streaming-buffer.ts';
import { tableResource } from './tables.ts';

export interface TableRef {
  projectId: string;
  datasetId: string;
  tableId: string;
}

/** A job's table reference (`sourceTable`, `destinationTable`), its project defaulting to the job's. */
export function jobTableRef(raw: unknown, projectId: string, what: string): TableRef {
  if (raw === undefined || raw === null)
    throw new ApiError('required', `Required parameter is missing: ${what}`);
  const r = raw as Json;
  if (typeof r['datasetId'] !== 'string' || typeof r['tableId'] !== 'string')
    throw new ApiError('invalid', `${what} needs datasetId and tableId`);
  return {
    projectId: typeof r['projectId'] === 'string' ? r['projectId'] : projectId,
    datasetId: r['datasetId'],
    tableId: r['tableId'],
  };
}

const name = (t: TableRef): string => `${t.projectId}:${t.datasetId}.${t.tableId}`;

/** A schema's shape (names, types, modes, nested), for comparing sources with the destination. */
function shape(fields: readonly FieldSchema[]): string {
  return JSON.stringify(
    fields.map((f) => [f.name.toLowerCase(), f.type, f.mode ?? 'NULLABLE', shape(f.fields ?? [])]),
  );
}

/**
 * Runs a copy configuration; the number of rows copied. A job that names its location reads
 * tables of datasets there only (another location's table is not found, as BigQuery).
 */
export async function copyTables(
  em: Emulator,
  projectId: string,
  cfg: Json,
  location: string | undefined,
): Promise<number> {
  const list = Array.isArray(cfg['sourceTables']) ? cfg['sourceTables'] : [cfg['sourceTable']];
  if (list.length === 0 || list[0] === undefined)
    throw new ApiError('required', 'Required parameter is missing: sourceTable');
  const sources = list.map((s) => jobTableRef(s, projectId, 'sourceTable'));
  const dest = jobTableRef(cfg['destinationTable'], projectId, 'destinationTable');
  const write = String(cfg['writeDisposition'] ?? 'WRITE_EMPTY').toUpperCase();
  const create = String(cfg['createDisposition'] ?? 'CREATE_IF_NEEDED').toUpperCase();
  if (!['WRITE_EMPTY', 'WRITE_TRUNCATE', 'WRITE_APPEND'].includes(write))
    throw new ApiError('invalid', `Invalid writeDisposition ${write}`);
  if (!['CREATE_IF_NEEDED', 'CREATE_NEVER'].includes(create))
    throw new ApiError('invalid', `Invalid createDisposition ${create}`);
  checkTablesExist(em, sources, undefined, location);
  const schemas = sources.map((s) => {
    const t = em.tableOr404(s.projectId, s.datasetId, s.tableId);
    if (t.resource['type'] !== 'TABLE')
      throw new ApiError(
        'invalid',
        `Cannot copy ${name(s)}: it is a ${String(t.resource['type'])}, not a table`,
      );
    return ((t.resource['schema'] as Json | undefined)?.['fields'] ?? []) as FieldSchema[];
  });
  const first = schemas[0] as FieldSchema[];
  em.datasetOr404(dest.projectId, dest.datasetId);
  return em.store.exclusive(async (conn) => {
    const existing = em.store.table(dest.projectId, dest.datasetId, dest.tableId);
    if (!existing && create === 'CREATE_NEVER')
      throw new ApiError('notFound', `Not found: Table ${name(dest)}`);
    const target = existing
      ? (((existing.resource['schema'] as Json | undefined)?.['fields'] ?? []) as FieldSchema[])
      : first;
    for (const [i, fields] of schemas.entries())
      if (shape(fields) !== shape(target))
        throw new ApiError(
          'invalid',
          `Provided Schema does not match Table ${name(dest)}: source ${name(sources[i] as TableRef)} has another schema`,
        );
    const into = qualifiedName(dest);
    await conn.run('BEGIN');
    try {
      if (!existing) {
        await conn.run(`CREATE TABLE ${into} (${columnDefinitions(first)})`);
        const resource = tableResource(em, dest.projectId, dest.datasetId, dest.tableId, {}, 'TABLE', first);
        await em.store.putTable(conn, { ...dest, resource });
      } else if (write === 'WRITE_TRUNCATE') {
        await conn.run(`DELETE FROM ${into}`);
      } else if (write === 'WRITE_EMPTY') {
        const r = await conn.runAndReadAll(`SELECT COUNT(*) FROM ${into}`);
        if (Number(r.getRows()[0]?.[0] ?? 0) > 0)
          throw new ApiError(
            'duplicate',
            `Already Exists: Table ${name(dest)} is not empty (writeDisposition WRITE_EMPTY)`,
          );
      }
      let copied = 0;
      for (const s of sources) {
        // Rows still in the source's streaming buffer are not copied, as BigQuery leaves them out.
        const from = await settledRows(em, conn, em.tableOr404(s.projectId, s.datasetId, s.tableId));
        const r = await conn.run(`INSERT INTO ${into} SELECT * FROM ${from}`);
        await releaseSettled(conn);
        copied += Number(r.rowsChanged);
      }
      await conn.run('COMMIT');
      return copied;
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
  });
}
