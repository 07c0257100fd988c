/**
 * Running BigQuery SQL on DuckDB, shared by query jobs and views: translate it (or answer
 * BigQuery's error), check that the tables it names exist, run it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ApiError } from './errors.ts';
import { fillPartitions } from './expiration.ts';
import { InvalidSqlError, type TableRef, type Translation, translate, UnsupportedSqlError } from './sql.ts';
import { cleanDuckMessage, type Emulator, LOCATION } from './state.ts';

export function translateOrThrow(
  _em: Emulator,
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
