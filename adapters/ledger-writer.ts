/**
 * Writes ledger rows to the `deliveries` table through the store path's micro-batching
 * writer: concurrent forwards share insertAll requests, and each row keeps its own
 * deterministic insertId so a retried write does not duplicate it.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { LedgerEntry } from '../core/delivery/ledger.ts';
import type { InsertRow, RowRejection, RowWriter } from '../core/warehouse/rows.ts';
import {
  type BatchingOptions,
  type BatchingWriter,
  createBatchingWriter,
  type InsertAll,
} from './bigquery-writer.ts';

/** The ledger table's name in the environment's dataset. */
export const LEDGER_TABLE = 'deliveries';

/**
 * How long the first ledger row of a batch waits for company. The ledger is written after the
 * platform call, so this delays only the acknowledgement, never the delivery; at 1k pushes/s
 * it turns ~1000 insertAll requests a second into ~40.
 */
export const LEDGER_WINDOW_MS = 25;

export interface LedgerWriter {
  /**
   * Resolves once every row is written or permanently refused (returned, for the log);
   * rejects when the warehouse is unavailable, so the caller answers non-2xx.
   */
  write(entries: readonly LedgerEntry[]): Promise<readonly RowRejection[]>;
}

/** A ledger writer over any RowWriter (the BigQuery batching writer in production). */
export function createLedgerWriter(rows: RowWriter, table = LEDGER_TABLE): LedgerWriter {
  return {
    write: (entries) =>
      rows.write(
        table,
        entries.map((e) => ({ insertId: e.insertId, json: e.row as unknown as Record<string, unknown> })),
      ),
  };
}

/** The ledger's BigQuery writer: micro-batched, through `ledgerInsertAll`. */
export function createLedgerBigQueryWriter(
  bigquery: BigQuery,
  dataset: string,
  options: BatchingOptions = {},
): BatchingWriter {
  return createBatchingWriter(ledgerInsertAll(bigquery, dataset), { windowMs: LEDGER_WINDOW_MS, ...options });
}

interface InsertAllResponse {
  readonly insertErrors?: readonly {
    readonly index?: number;
    readonly errors?: readonly { readonly reason?: string; readonly message?: string }[];
  }[];
}

/**
 * tabledata.insertAll through the BigQuery client's authenticated request (same endpoint,
 * credentials, emulator host and retries as `table.insert`), with the body serialised here.
 *
 * Why not `table.insert`: it deep-copies every row (`extend`) and then walks every key and
 * string of the body looking for `{{projectId}}` tokens to replace (projectify); in the
 * forward function that was ~0.15 ms CPU per ledger row, more than the webhook call itself.
 * A string body is passed through untouched.
 */
export function ledgerInsertAll(bigquery: BigQuery, dataset: string): InsertAll {
  return async (table, rows) => {
    const body = JSON.stringify({
      rows: rows.map((r: InsertRow) => ({ insertId: r.insertId, json: r.json })),
      // All-or-nothing per request, unknown fields are errors (as the store path's writer).
      skipInvalidRows: false,
      ignoreUnknownValues: false,
    });
    const [resp] = (await bigquery
      .dataset(dataset)
      .table(table)
      .request({
        method: 'POST',
        uri: '/insertAll',
        body,
        headers: { 'content-type': 'application/json' },
      })) as unknown as [InsertAllResponse];
    // Anything but a JSON answer is not a confirmation that the rows were written.
    if (resp === null || typeof resp !== 'object')
      throw new Error(`insertAll into ${table}: unexpected answer`);
    const rejections = (resp.insertErrors ?? []).map((e) => {
      const first = e.errors?.[0];
      return {
        index: e.index ?? -1,
        reason: first?.reason ?? 'invalid',
        message: first?.message ?? 'row rejected',
      };
    });
    // A rejection we cannot pin to a row cannot be answered per caller: fail the request.
    const bad = rejections.find((r) => !Number.isInteger(r.index) || r.index < 0 || r.index >= rows.length);
    if (bad) throw new Error(`insertAll into ${table}: ${bad.reason}: ${bad.message}`);
    return rejections;
  };
}
