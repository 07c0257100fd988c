/**
 * A page of a finished query job's results, as jobs.getQueryResults answers it (and jobs.query,
 * under its own kind): the schema, the rows from the page token on in the `{f: [{v}]}` form with
 * timestamps in the format asked, DML statistics, the next page's token.
 */
import type { DuckDBType } from '@duckdb/node-api';
import { type Cell, encodeValue } from './result-encoding.ts';
import {
  dmlStats,
  type Emulator,
  etag,
  type Json,
  pageSize,
  pageStart,
  type QueryResult,
  timestampFormat,
} from './state.ts';

export function resultsPage(
  _em: Emulator,
  projectId: string,
  jobId: string,
  location: string,
  result: QueryResult,
  query: URLSearchParams,
): Json {
  const start = pageStart(query);
  const max = pageSize(query);
  const fmt = timestampFormat(query);
  const slice = result.rows.slice(start, start + max);
  const next = start + slice.length < result.rows.length ? String(start + slice.length) : undefined;
  const out: Json = {
    kind: 'bigquery#getQueryResultsResponse',
    etag: etag(),
    jobReference: { projectId, jobId, location },
    jobComplete: true,
    totalRows: String(result.rows.length),
    totalBytesProcessed: '0',
    cacheHit: false,
  };
  if (result.fields.length > 0) {
    out['schema'] = { fields: result.fields };
    out['rows'] = slice.map((r) => ({
      f: r.map((v, i): { v: Cell } => ({ v: encodeValue(v, result.types[i] as DuckDBType, fmt) })),
    }));
  }
  if (result.dmlAffected !== undefined) {
    out['numDmlAffectedRows'] = String(result.dmlAffected);
    out['dmlStats'] = dmlStats(result);
    out['totalRows'] = '0';
  }
  if (next) out['pageToken'] = next;
  return out;
}
