/**
 * Warehouse rows through BigQuery's Storage Write API (docs/storage.md, "How rows are written"):
 * each table's `_default` stream, one gRPC connection per table kept open, appends pipelined on
 * it through Google's managed writer (`@google-cloud/bigquery-storage`), rows encoded as protocol
 * buffers straight from their JSON (adapters/proto-rows.ts) with a descriptor made from the table's
 * schema (GetWriteStream, FULL view). It is an
 * `InsertAll` (adapters/bigquery-rest.ts), so the batching writer (adapters/bigquery-writer.ts)
 * groups rows exactly as before: one append per micro-batch.
 *
 * Why the default stream and not a committed stream per writer with offsets: `store` instances
 * come and go, and a crash (the retry that matters) loses the instance's stream with it, so its
 * redelivery lands on another stream where offsets prove nothing; exactly-once across that is the
 * identity claim's (adapters/identity-claims.ts: the first copy back after a crash asks `events`
 * before writing). Within one instance nothing is retried (one attempt; a failed append fails the
 * push and Pub/Sub redelivers), so offsets would protect no retry here. The default stream also
 * costs no CreateWriteStream per instance (Google advises against frequent stream creation).
 *
 * The only difference from production is the endpoint: with BIGQUERY_EMULATOR_HOST set, the
 * emulator's own port (plaintext, no token), as the BigQuery client does for REST.
 *
 * A request with a row BigQuery refuses writes none of its rows: the refused rows are rejections
 * (`invalid`), the others `stopped`, which the batching writer sends again without them, as it does
 * for insertAll. Any other failure rejects (nothing may be acknowledged) and drops the table's
 * connection, so the next write opens a new one.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type bigqueryStorageModule from '@google-cloud/bigquery-storage';
import type { InsertRow, RowRejection } from '../core/warehouse/rows.ts';
import {
  type BatchingOptions,
  type BatchingWriter,
  createBatchingWriter,
  type InsertAll,
} from './bigquery-writer.ts';
import type { Encoder, RowDescriptor } from './proto-rows.ts';

type Storage = typeof bigqueryStorageModule;
type WriterClient = InstanceType<Storage['managedwriter']['WriterClient']>;
type RawWriter = InstanceType<Storage['managedwriter']['Writer']>;

/**
 * Google's Write API client, grpc-js and the row encoder (with protobufjs), loaded on first use: a
 * function bundle keeps the first two external and a module that only names the writer (the
 * ledger's) does not pay for any of them at load.
 */
let loaded:
  | Promise<{ storage: Storage; insecure: () => unknown; rows: typeof import('./proto-rows.ts') }>
  | undefined;
const load = () =>
  (loaded ??= Promise.all([
    import('@google-cloud/bigquery-storage'),
    import('@grpc/grpc-js'),
    import('./proto-rows.ts'),
  ]).then(([storage, grpc, rows]) => ({
    storage: (storage.default ?? storage) as Storage,
    insecure: () => (grpc.default ?? grpc).credentials.createInsecure(),
    rows,
  })));

export interface WriteApiOptions {
  readonly project: string;
  readonly dataset: string;
  /** `http://host:port` of the BigQuery emulator (BIGQUERY_EMULATOR_HOST); absent in production. */
  readonly emulatorHost?: string | undefined;
}

/** The Write API's client: Google's endpoint and credentials, or the emulator's port. */
export async function writeApiClient(project: string, emulatorHost?: string): Promise<WriterClient> {
  const { storage, insecure } = await load();
  const { managedwriter } = storage;
  // A lost connection is tried again within seconds, not grpc-js's default two minutes at most:
  // a push waits for it, and Pub/Sub's own backoff is the retry that counts.
  const channel = { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 5_000 };
  if (!emulatorHost) return new managedwriter.WriterClient({ projectId: project, ...channel });
  const url = new URL(emulatorHost.includes('://') ? emulatorHost : `http://${emulatorHost}`);
  return new managedwriter.WriterClient({
    projectId: project,
    servicePath: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port),
    sslCreds: insecure() as never,
    ...channel,
  });
}

/** GetWriteStream when a table's connection opens (tried once: see open()). */
const OPEN_TIMEOUT_MS = 10_000;
/** One append, as insertAll's whole call was bounded (adapters/bigquery-rest.ts). */
const APPEND_TIMEOUT_MS = 60_000;

/** `p`, or a rejection once `ms` have passed (the late answer is dropped with the connection). */
function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

interface TableWriter {
  readonly writer: RawWriter;
  /** The table's rows as the writer's protocol buffer messages. */
  readonly encoder: Encoder;
}

/** What the Write API adds to an `InsertAll`: opening a table's connection ahead of its first rows. */
export interface WriteApiTables {
  /**
   * Opens the table's connection now (the client's load, GetWriteStream, the stream), so that its
   * first rows are not the ones that wait for it. Rejects as a first write would; a table that
   * could not be opened is opened again by its next write.
   */
  open(table: string): Promise<void>;
  /** Ends every connection. */
  close(): void;
}

/** The batching writer's `InsertAll` over the Storage Write API. */
export function writeApiInsertAll(o: WriteApiOptions): InsertAll & WriteApiTables {
  let client: Promise<WriterClient> | undefined;
  const tables = new Map<string, Promise<TableWriter>>();

  const open = (table: string): Promise<TableWriter> => {
    let w = tables.get(table);
    if (!w) {
      const parent = `projects/${o.project}/datasets/${o.dataset}/tables/${table}`;
      w = (async () => {
        const { storage, rows } = await load();
        const { adapt, managedwriter } = storage;
        client ??= writeApiClient(o.project, o.emulatorHost);
        const c = await client;
        // Bounded and not retried here: gax would retry UNAVAILABLE for the whole timeout, holding
        // the push while the warehouse is away; the push must fail at once, so Pub/Sub's own retry
        // policy (and its dead letter after max attempts) decides when it comes back, as with insertAll.
        const stream = await c.getWriteStream(
          { streamId: `${parent}/streams/_default`, view: 2 as never },
          { timeout: OPEN_TIMEOUT_MS, maxRetries: 0 },
        );
        const schema = stream.tableSchema ?? { fields: [] };
        const connection = await c.createStreamConnection({
          streamId: managedwriter.DefaultStream,
          destinationTable: parent,
        });
        const protoDescriptor = adapt.convertStorageSchemaToProto2Descriptor(schema, 'root');
        const fields = schema.fields ?? [];
        // Without a listener the connection's 'error' event would throw; a failed append is
        // answered through its own result (rejected), which drops the connection.
        connection.onConnectionError(() => undefined);
        return {
          writer: new managedwriter.Writer({ connection, protoDescriptor }),
          encoder: rows.rowEncoder(fields, protoDescriptor as RowDescriptor),
        };
      })();
      tables.set(table, w);
      // A table that could not be opened is tried afresh by the next write.
      w.catch(() => tables.delete(table));
    }
    return w;
  };

  const drop = (table: string, w: TableWriter): void => {
    tables.delete(table);
    try {
      w.writer.close();
    } catch {
      // already closed
    }
  };

  const insertAll = async (table: string, rows: readonly InsertRow[]): Promise<readonly RowRejection[]> => {
    const w = await open(table);
    // Fields the table lacks and values of no form: refused here by the encoder, as insertAll
    // refuses them (the Write API would refuse the whole connection for an extra field in the
    // writer's schema, and protocol buffers have no way to say a timestamp that is no time).
    const encoded = w.encoder.encodeAll(rows.map((r) => r.json));
    const unknown: RowRejection[] = encoded.refused.map((r) => ({ ...r, reason: 'invalid' }));
    if (unknown.length > 0) {
      encoded.release();
      return stopTheRest(rows.length, unknown);
    }
    let result: Awaited<ReturnType<ReturnType<RawWriter['appendRows']>['getResult']>>;
    try {
      result = await withDeadline(
        w.writer.appendRows({ serializedRows: encoded.rows }).getResult(),
        APPEND_TIMEOUT_MS,
        `Storage Write API append to ${table}`,
      );
    } catch (err) {
      // The request may still wait to be written: its rows' buffer is left to the collector.
      drop(table, w);
      throw err;
    }
    // Answered, so written (and never written again: the writer retries nothing once answered).
    encoded.release();
    if (!result.error) return [];
    const rowErrors = result.rowErrors ?? [];
    if (rowErrors.length === 0) {
      drop(table, w);
      throw new Error(
        `Storage Write API append to ${table} failed: ${result.error.message ?? result.error.code}`,
      );
    }
    return stopTheRest(
      rows.length,
      rowErrors.map((e) => ({ index: Number(e.index), reason: 'invalid', message: String(e.message ?? '') })),
    );
  };
  return Object.assign(insertAll, {
    open: async (table: string) => {
      await open(table);
    },
    close: () => {
      void client?.then((c) => c.close());
      tables.clear();
    },
  });
}

/** The refused rows, and every other row of the request `stopped` (nothing of it was written). */
function stopTheRest(count: number, refused: readonly RowRejection[]): RowRejection[] {
  const bad = new Set(refused.map((r) => r.index));
  const stopped: RowRejection[] = [];
  for (let index = 0; index < count; index++)
    if (!bad.has(index)) stopped.push({ index, reason: 'stopped', message: '' });
  return [...refused, ...stopped];
}

/**
 * The store path's writer (and the ledger's): micro-batched appends to each table's default
 * stream in one dataset, with the BigQuery client's project and endpoint: Google's (TLS and the
 * application's credentials), or an emulator's plaintext origin (BIGQUERY_EMULATOR_HOST or
 * `apiEndpoint`), whose port serves the Write API too.
 */
export function createWriteApiWriter(
  bigquery: BigQuery,
  dataset: string,
  options: BatchingOptions = {},
): BatchingWriter & Pick<WriteApiTables, 'open'> {
  const base = bigquery.baseUrl;
  const emulatorHost = base.startsWith('http:') ? new URL(base).origin : undefined;
  const tables = writeApiInsertAll({ project: bigquery.projectId, dataset, emulatorHost });
  return Object.assign(createBatchingWriter(tables, options), { open: tables.open });
}
