/**
 * Writes warehouse rows through BigQuery's insertAll, micro-batching concurrent writers:
 * rows that arrive within a few milliseconds of each other share one request (under the
 * 10 MB / 50,000-row limits of insertAll), and each caller is answered as soon as the
 * request carrying its rows is answered, never later.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { InsertRow, RowRejection, RowWriter } from '../core/warehouse/rows.ts';
import { TABLES } from '../core/warehouse/warehouse.ts';
import { insertAllThrough, type RestInsertAll, type RestInsertAllOptions } from './bigquery-rest.ts';

/** One insertAll request (adapters/bigquery-rest.ts); tests and the refusal recorder pass their own. */
export type InsertAll = RestInsertAll;

export interface BatchingOptions {
  /** How long the first row of a batch waits for company; 0 coalesces only the same turn. */
  readonly windowMs?: number;
  /** insertAll accepts 50,000 rows per request. */
  readonly maxRows?: number;
  /** insertAll accepts 10 MB per request; the default leaves room for the envelope. */
  readonly maxBytes?: number;
  /**
   * Requests per table allowed in flight at once. A batch whose window has passed while
   * this many are in flight keeps gathering rows and goes out as soon as one is answered
   * (group commit): under load, fewer and larger requests, each paying the client's and the
   * warehouse's per-request cost once; when idle, nothing changes.
   */
  readonly maxInFlight?: number;
  /** A request in flight longer than this no longer holds the next batch back (a stuck call). */
  readonly maxHoldMs?: number;
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
  maxInFlight: 1,
  maxHoldMs: 1_000,
});

interface Pending {
  readonly rows: readonly InsertRow[];
  /** Each row's JSON text: measured for the size limit once, and sent as is. */
  readonly texts: readonly string[];
  readonly resolve: (rejections: readonly RowRejection[]) => void;
  readonly reject: (err: unknown) => void;
}

interface Batch {
  items: Pending[];
  rows: number;
  bytes: number;
  timer?: NodeJS.Timeout | undefined;
  /** The window has passed; the batch waits for a request of its table to be answered. */
  due?: boolean;
}

/** Rows BigQuery refused only because another row of the same request was invalid. */
const COLLATERAL = 'stopped';

/** A RowWriter that groups concurrent writes per table into fewer insertAll requests. */
export function createBatchingWriter(insertAll: InsertAll, options: BatchingOptions = {}): BatchingWriter {
  const { windowMs, maxRows, maxBytes, maxInFlight, maxHoldMs } = { ...DEFAULT_BATCHING, ...options };
  const batches = new Map<string, Batch>();
  const inFlight = new Set<Promise<void>>();
  /** Per table: when each request in flight was sent. */
  const sentAt = new Map<string, number[]>();
  let requests = 0;

  const send = (
    table: string,
    rows: readonly InsertRow[],
    texts?: readonly string[],
  ): Promise<readonly RowRejection[]> => {
    requests++;
    return insertAll(table, rows, texts);
  };

  /** One request for a batch; rows stopped by another row's error are sent again without it. */
  const sendBatch = async (table: string, items: readonly Pending[]): Promise<void> => {
    const rows = items.length === 1 ? (items[0] as Pending).rows : items.flatMap((p) => p.rows);
    const texts = items.length === 1 ? (items[0] as Pending).texts : items.flatMap((p) => p.texts);
    let rejections: readonly RowRejection[];
    try {
      rejections = await send(table, rows, texts);
      const stopped = rejections.filter((r) => r.reason === COLLATERAL).map((r) => r.index);
      if (stopped.length > 0) {
        // The second request holds only rows that were not themselves invalid.
        const retried = await send(
          table,
          stopped.map((i) => rows[i] as InsertRow),
          stopped.map((i) => texts[i] as string),
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
      const mine =
        rejections.length === 0
          ? rejections
          : rejections
              .filter((r) => r.index >= offset && r.index < end)
              .map((r) => ({ ...r, index: r.index - offset }));
      p.resolve(mine);
      offset = end;
    }
  };

  /** Requests of a table in flight that still hold the next batch back. */
  const holding = (table: string): number => {
    const times = sentAt.get(table);
    if (!times) return 0;
    const young = Date.now() - maxHoldMs;
    let n = 0;
    for (const t of times) if (t > young) n++;
    return n;
  };

  const flushTable = (table: string): void => {
    const batch = batches.get(table);
    if (!batch || batch.items.length === 0) return;
    batches.delete(table);
    if (batch.timer) clearTimeout(batch.timer);
    let times = sentAt.get(table);
    if (!times) {
      times = [];
      sentAt.set(table, times);
    }
    const at = Date.now();
    times.push(at);
    const done = sendBatch(table, batch.items).finally(() => {
      inFlight.delete(done);
      const list = sentAt.get(table);
      list?.splice(list.indexOf(at), 1);
      if (list?.length === 0) sentAt.delete(table);
      // The batch that gathered meanwhile goes now.
      if (batches.get(table)?.due) flushTable(table);
    });
    inFlight.add(done);
  };

  /** The window of a batch has passed: send it, or let it gather until a request is answered. */
  const windowPassed = (table: string): void => {
    const batch = batches.get(table);
    if (!batch) return;
    batch.timer = undefined;
    if (holding(table) < maxInFlight) {
      flushTable(table);
      return;
    }
    batch.due = true;
    // Bounded: a request that never answers does not hold this batch beyond maxHoldMs.
    batch.timer = setTimeout(() => flushTable(table), maxHoldMs);
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
    else if (!batch.timer && !batch.due) batch.timer = setTimeout(() => windowPassed(table), windowMs);
  };

  const write = (table: string, rows: readonly InsertRow[]): Promise<readonly RowRejection[]> => {
    if (rows.length === 0) return Promise.resolve([]);
    // Serialised once: the text both sizes the request and becomes its body.
    const texts = rows.map((r) => JSON.stringify(r));
    const sizes = texts.map((t) => Buffer.byteLength(t) + 1);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (rows.length <= maxRows && total <= maxBytes) {
      // The usual case (one push, one row): one part, no re-indexing.
      return new Promise((resolve, reject) =>
        enqueue(table, { rows, texts, resolve, reject }, rows.length, total),
      );
    }
    // A write larger than one request is split; its parts are answered together.
    const parts: { rows: InsertRow[]; texts: string[]; start: number; bytes: number }[] = [];
    let current: (typeof parts)[number] | undefined;
    rows.forEach((row, i) => {
      const size = sizes[i] as number;
      if (!current || current.rows.length >= maxRows || current.bytes + size > maxBytes) {
        current = { rows: [], texts: [], start: i, bytes: 0 };
        parts.push(current);
      }
      current.rows.push(row);
      current.texts.push(texts[i] as string);
      current.bytes += size;
    });
    return Promise.all(
      parts.map((part) =>
        new Promise<readonly RowRejection[]>((resolve, reject) => {
          enqueue(
            table,
            { rows: part.rows, texts: part.texts, resolve, reject },
            part.rows.length,
            part.bytes,
          );
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

/**
 * insertAll with the BigQuery client's endpoint, project and credentials, rows as
 * `{insertId, json}` (insertId = the event's digest), the body made of the texts the batcher
 * already serialised: over our own HTTP client (adapters/bigquery-rest.ts), not the client's
 * request stack.
 */
export function bigQueryInsertAll(
  bigquery: BigQuery,
  dataset: string,
  options: Pick<RestInsertAllOptions, 'attempts'> = {},
): InsertAll {
  const insert = insertAllThrough(bigquery, dataset, options);
  return (table, rows, texts) =>
    WRITE_API_ONLY.has(table)
      ? Promise.reject(
          new Error(
            `${table} is written through the Storage Write API only (adapters/bigquery-write-api.ts, docs/storage.md), never insertAll`,
          ),
        )
      : insert(table, rows, texts);
}

/**
 * The tables every writer fills through the Storage Write API (`createWriteApiWriter`, and
 * `createLedgerBigQueryWriter` for the ledger), whichever path wrote the row: `store`, a re-drive,
 * `eventbus replay`, the schedule's jobs. insertAll refuses them here, the one door of insertAll
 * into a dataset, so no path writes them at insertAll's price and best-effort de-duplication.
 */
export const WRITE_API_ONLY: ReadonlySet<string> = new Set([
  TABLES.events,
  TABLES.invalidEvents,
  TABLES.deliveries,
  TABLES.hookFailures,
]);

/** Micro-batched insertAll into one dataset, for the tables not in WRITE_API_ONLY (ops, syncs). */
export function createBigQueryWriter(
  bigquery: BigQuery,
  dataset: string,
  options: BatchingOptions = {},
  insert: Pick<RestInsertAllOptions, 'attempts'> = {},
): BatchingWriter {
  return createBatchingWriter(bigQueryInsertAll(bigquery, dataset, insert), options);
}
