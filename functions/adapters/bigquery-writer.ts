/**
 * Writes warehouse rows through BigQuery's insertAll, micro-batching concurrent writers:
 * rows that arrive within a few milliseconds of each other share one request (under the
 * 10 MB / 50,000-row limits of insertAll), and each caller is answered as soon as the
 * request carrying its rows is answered, never later.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { InsertRow, RowRejection, RowWriter } from '../core/rows.ts';

/**
 * One insertAll request. Resolves with the per-row errors BigQuery returned (indices into
 * `rows`, including `stopped` rows that failed only because another row was invalid);
 * rejects when the request as a whole failed.
 */
export type InsertAll = (table: string, rows: readonly InsertRow[]) => Promise<readonly RowRejection[]>;

export interface BatchingOptions {
  /** How long the first row of a batch waits for company; 0 coalesces only the same turn. */
  readonly windowMs?: number;
  /** insertAll accepts 50,000 rows per request. */
  readonly maxRows?: number;
  /** insertAll accepts 10 MB per request; the default leaves room for the envelope. */
  readonly maxBytes?: number;
}

export interface BatchingWriter extends RowWriter {
  /** Sends whatever is waiting now (used on shutdown and by tests). */
  flush(): Promise<void>;
  /** Number of insertAll requests sent so far (for tests and benchmarks). */
  readonly requests: number;
}

export const DEFAULT_BATCHING: Required<BatchingOptions> = Object.freeze({
  windowMs: 5,
  maxRows: 50_000,
  maxBytes: 9_000_000,
});

interface Pending {
  readonly rows: readonly InsertRow[];
  readonly sizes: readonly number[];
  readonly resolve: (rejections: readonly RowRejection[]) => void;
  readonly reject: (err: unknown) => void;
}

interface Batch {
  items: Pending[];
  rows: number;
  bytes: number;
  timer?: NodeJS.Timeout | undefined;
}

/** Rows BigQuery refused only because another row of the same request was invalid. */
const COLLATERAL = 'stopped';

/** A RowWriter that groups concurrent writes per table into fewer insertAll requests. */
export function createBatchingWriter(insertAll: InsertAll, options: BatchingOptions = {}): BatchingWriter {
  const { windowMs, maxRows, maxBytes } = { ...DEFAULT_BATCHING, ...options };
  const batches = new Map<string, Batch>();
  const inFlight = new Set<Promise<void>>();
  let requests = 0;

  const send = async (table: string, rows: readonly InsertRow[]): Promise<readonly RowRejection[]> => {
    requests++;
    return insertAll(table, rows);
  };

  /** One request for a batch; rows stopped by another row's error are sent again without it. */
  const sendBatch = async (table: string, items: readonly Pending[]): Promise<void> => {
    const rows = items.flatMap((p) => p.rows);
    let rejections: readonly RowRejection[];
    try {
      rejections = await send(table, rows);
      const stopped = rejections.filter((r) => r.reason === COLLATERAL).map((r) => r.index);
      if (stopped.length > 0) {
        // The second request holds only rows that were not themselves invalid.
        const retried = await send(
          table,
          stopped.map((i) => rows[i] as InsertRow),
        );
        const again = retried.map((r) => ({ ...r, index: stopped[r.index] as number }));
        if (again.some((r) => r.reason === COLLATERAL)) {
          throw new Error(`insertAll into ${table} kept stopping valid rows: ${again[0]?.message ?? ''}`);
        }
        rejections = [...rejections.filter((r) => r.reason !== COLLATERAL), ...again];
      }
    } catch (err) {
      for (const p of items) p.reject(err);
      return;
    }
    let offset = 0;
    for (const p of items) {
      const end = offset + p.rows.length;
      const mine = rejections
        .filter((r) => r.index >= offset && r.index < end)
        .map((r) => ({ ...r, index: r.index - offset }));
      p.resolve(mine);
      offset = end;
    }
  };

  const flushTable = (table: string): void => {
    const batch = batches.get(table);
    if (!batch || batch.items.length === 0) return;
    batches.delete(table);
    if (batch.timer) clearTimeout(batch.timer);
    const done = sendBatch(table, batch.items).finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  const enqueue = (table: string, item: Pending, rows: number, bytes: number): void => {
    let batch = batches.get(table);
    if (batch && (batch.rows + rows > maxRows || batch.bytes + bytes > maxBytes)) {
      flushTable(table);
      batch = undefined;
    }
    if (!batch) {
      batch = { items: [], rows: 0, bytes: 0 };
      batches.set(table, batch);
    }
    batch.items.push(item);
    batch.rows += rows;
    batch.bytes += bytes;
    if (batch.rows >= maxRows || batch.bytes >= maxBytes) flushTable(table);
    else if (!batch.timer) batch.timer = setTimeout(() => flushTable(table), windowMs);
  };

  const write = (table: string, rows: readonly InsertRow[]): Promise<readonly RowRejection[]> => {
    if (rows.length === 0) return Promise.resolve([]);
    const sizes = rows.map((r) => Buffer.byteLength(JSON.stringify(r)) + 1);
    // A write larger than one request is split; its parts are answered together.
    const parts: { rows: InsertRow[]; sizes: number[]; start: number }[] = [];
    let current: { rows: InsertRow[]; sizes: number[]; start: number; bytes: number } | undefined;
    rows.forEach((row, i) => {
      const size = sizes[i] as number;
      if (!current || current.rows.length >= maxRows || current.bytes + size > maxBytes) {
        current = { rows: [], sizes: [], start: i, bytes: 0 };
        parts.push(current);
      }
      current.rows.push(row);
      current.sizes.push(size);
      current.bytes += size;
    });
    return Promise.all(
      parts.map((part) =>
        new Promise<readonly RowRejection[]>((resolve, reject) => {
          const bytes = part.sizes.reduce((a, b) => a + b, 0);
          enqueue(table, { rows: part.rows, sizes: part.sizes, resolve, reject }, part.rows.length, bytes);
        }).then((rejections) => rejections.map((r) => ({ ...r, index: r.index + part.start }))),
      ),
    ).then((all) => all.flat());
  };

  return {
    write,
    async flush() {
      for (const table of [...batches.keys()]) flushTable(table);
      await Promise.allSettled([...inFlight]);
    },
    get requests() {
      return requests;
    },
  };
}

/** Options given to every insertAll: all-or-nothing per request, unknown fields are errors. */
const INSERT_OPTIONS = Object.freeze({
  raw: true,
  skipInvalidRows: false,
  ignoreUnknownValues: false,
  // The client's own partial retries would resend invalid rows too; the batcher retries
  // only the rows that were stopped by others.
  partialRetries: 0,
});

interface PartialFailure {
  readonly name: string;
  readonly errors?: readonly {
    readonly row?: unknown;
    readonly errors?: readonly { readonly reason?: string; readonly message?: string }[];
  }[];
}

/** insertAll through the BigQuery client, with `{insertId, json}` rows so insertId = event_id. */
export function bigQueryInsertAll(bigquery: BigQuery, dataset: string): InsertAll {
  return async (table, rows) => {
    try {
      await bigquery
        .dataset(dataset)
        .table(table)
        .insert(rows as InsertRow[], INSERT_OPTIONS);
      return [];
    } catch (err) {
      const failure = err as PartialFailure;
      if (failure?.name !== 'PartialFailureError' || !failure.errors) throw err;
      // The client reports the row object itself; map it back to its index.
      const indexOf = new Map<unknown, number>(rows.map((r, i) => [r, i]));
      const rejections = failure.errors.map((e) => {
        const first = e.errors?.[0];
        return {
          index: indexOf.get(e.row) ?? -1,
          reason: first?.reason ?? 'invalid',
          message: first?.message ?? 'row rejected',
        };
      });
      // A rejection we cannot pin to a row cannot be answered per caller: fail the request.
      if (rejections.some((r) => r.index < 0)) throw err;
      return rejections;
    }
  };
}

/** The store path's writer: micro-batched insertAll into one dataset. */
export function createBigQueryWriter(
  bigquery: BigQuery,
  dataset: string,
  options: BatchingOptions = {},
): BatchingWriter {
  return createBatchingWriter(bigQueryInsertAll(bigquery, dataset), options);
}
