/**
 * Running BigQuery SQL on DuckDB, shared by query jobs and views: translate it (or answer
 * BigQuery's error), check that the tables it names exist, run it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ApiError } from './errors.ts';
import { fillPartitions } from './expiration.ts';
import {
  InvalidSqlError,
  qualifiedName,
  type TableRef,
  type TranslateOptions,
  type Translation,
  translate,
  UnsupportedSqlError,
} from './sql.ts';
import { cleanDuckMessage, type Emulator, fieldsOf, LOCATION } from './state.ts';

/** What a wildcard table's prefix matches in a dataset of the emulator (sql-from.ts). */
export function wildcardMatches(em: Emulator): NonNullable<TranslateOptions['wildcard']> {
  return (projectId, datasetId, prefix) => {
    if (!em.store.dataset(projectId, datasetId)) return undefined;
    return em.store
      .tablesOf(projectId, datasetId)
      .filter((t) => t.tableId.startsWith(prefix))
      .map((t) => {
        const type = t.resource['type'];
        return {
          tableId: t.tableId,
          type: type === 'TABLE' || type === 'VIEW' ? type : 'OTHER',
          created: Number(t.resource['creationTime'] ?? 0),
          columns: fieldsOf(t).map((f) => f.name),
        };
      });
  };
}

export function translateOrThrow(
  em: Emulator,
  sql: string,
  projectId: string,
  defaultDataset: { projectId?: string; datasetId: string } | undefined,
  params: {
    named: Record<string, string>;
    positional: string[];
    temp?: ReadonlyMap<string, string> | undefined;
  },
): Translation {
  try {
    return translate(sql, {
      projectId,
      defaultDataset,
      named: params.named,
      positional: params.positional,
      ...(params.temp ? { temp: params.temp } : {}),
      wildcard: wildcardMatches(em),
    });
  } catch (e) {
    if (e instanceof UnsupportedSqlError || e instanceof InvalidSqlError)
      throw new ApiError('invalidQuery', e.message);
    // The translator is not a full parser: text it cannot follow is the caller's syntax error, not a 500.
    throw new ApiError('invalidQuery', `Syntax error: ${(e as Error).message}`);
  }
}

/**
 * Every table a statement reads exists, in a dataset of the job's location when the job names
 * one (BigQuery runs a job in one location: a dataset elsewhere is not found there).
 */
export function checkTablesExist(
  em: Emulator,
  tables: readonly TableRef[],
  creating?: TableRef,
  location?: string,
): void {
  const where = location ?? LOCATION;
  for (const r of tables) {
    if (
      creating &&
      r.projectId === creating.projectId &&
      r.datasetId === creating.datasetId &&
      r.tableId === creating.tableId
    )
      continue;
    const ds = em.store.dataset(r.projectId, r.datasetId);
    const elsewhere =
      location !== undefined &&
      typeof ds?.resource['location'] === 'string' &&
      ds.resource['location'].toUpperCase() !== location.toUpperCase();
    if (!ds || elsewhere)
      throw new ApiError(
        'notFound',
        `Not found: Dataset ${r.projectId}:${r.datasetId} was not found in location ${where}`,
      );
    if (!em.store.table(r.projectId, r.datasetId, r.tableId))
      throw new ApiError(
        'notFound',
        `Not found: Table ${r.projectId}:${r.datasetId}.${r.tableId} was not found in location ${where}`,
      );
  }
}

export async function runSql(em: Emulator, conn: DuckDBConnection, sql: string) {
  try {
    await fillPartitions(em, conn, sql);
    return await conn.runAndReadAll(sql);
  } catch (e) {
    throw new ApiError('invalidQuery', cleanDuckMessage((e as Error).message));
  }
}

/** A backticked name ending in `*` in a view's query: a wildcard table. */
const WILDCARD_NAME = /`[^`]*\*`/;
/** Per emulator, the DuckDB query each wildcard view was last made of. */
const madeOf = new WeakMap<Emulator, Map<string, string>>();

/**
 * BigQuery resolves a view's wildcard table when the view is queried, so tables made (or dropped)
 * after the view count; a DuckDB view is bound to the tables it named when made. Before a query
 * runs, each view over a wildcard table is made again when its matches changed. A view whose
 * wildcard now fails (no match) is left as it was: querying it answers DuckDB's missing table.
 */
export async function refreshWildcardViews(em: Emulator, conn: DuckDBConnection): Promise<void> {
  const made = madeOf.get(em) ?? new Map<string, string>();
  madeOf.set(em, made);
  for (const v of em.store.views()) {
    const query = (v.resource['view'] as { query?: unknown } | undefined)?.query;
    if (typeof query !== 'string' || !WILDCARD_NAME.test(query)) continue;
    let sql: string;
    try {
      sql = translateOrThrow(em, query, v.projectId, undefined, { named: {}, positional: [] }).sql;
    } catch {
      continue;
    }
    const name = qualifiedName(v);
    if (made.get(name) === sql) continue;
    await conn.run(`CREATE OR REPLACE VIEW ${name} AS ${sql}`);
    made.set(name, sql);
  }
}
