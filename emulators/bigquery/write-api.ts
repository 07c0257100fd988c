/**
 * `google.cloud.bigquery.storage.v1.BigQueryWrite` over gRPC, on the emulator's one port beside
 * its REST API (server.ts tells the two apart by the connection's first bytes, as the Pub/Sub
 * emulator does): CreateWriteStream, AppendRows, GetWriteStream, FinalizeWriteStream,
 * BatchCommitWriteStreams, FlushRows. The semantics are write-streams.ts; this file reads the
 * calls, checks IAM (`bigquery.tables.updateData` on the stream's table, as BigQuery asks for
 * every call of the Write API), and answers in BigQuery's shapes: a refusal of a whole call or
 * connection is a gRPC status whose `…storageerror-bin` trailer holds the StorageError; an
 * append's own refusal (an offset, bad rows, no rows) is an in-stream `error` and the connection
 * goes on. The BigQueryRead half of the service is not emulated (UNIMPLEMENTED).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Caller, Enforcement, IdentityListeners } from '@eventbus/emulator-common/iam-enforce.ts';
import { UNAUTHENTICATED_MESSAGE } from '@eventbus/emulator-common/iam-enforce.ts';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { type Access, mayTable } from './access.ts';
import { ApiError } from './errors.ts';
import type { FieldSchema } from './schema.ts';
import type { Emulator } from './state.ts';
import {
  acceptRows,
  append,
  batchCommit,
  checkOffset,
  createWriteStream,
  fieldsOfTable,
  finalize,
  flushRows,
  isDefault,
  parseTable,
  storageSchema,
  streamOr404,
  type TableName,
  tableOfStream,
  WriteError,
  type WriterSchema,
  type WriteStatus,
  type WriteStreamRecord,
  writerSchema,
} from './write-streams.ts';
import {
  type AppendRequest,
  decodeAppendRequest,
  encodeStorageError,
  STORAGE_ERROR_TRAILER,
  STORAGE_ERROR_TYPE_URL,
} from './write-wire.ts';

/** A request of up to 10 MB is BigQuery's limit; larger ones reach the handler and are refused there. */
const MAX_APPEND_BYTES = 10 * 1024 * 1024;
export const WRITE_GRPC_MAX_MESSAGE = 64 * 1024 * 1024;

const CODES: Readonly<Record<WriteStatus, number>> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  OUT_OF_RANGE: grpc.status.OUT_OF_RANGE,
  UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
  INTERNAL: grpc.status.INTERNAL,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
};

type Obj = Record<string, unknown>;

let cached: grpc.ServiceDefinition | undefined;

/** The service from the protos that ship with @google-cloud/bigquery-storage. */
function loadService(): grpc.ServiceDefinition {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const main = require.resolve('@google-cloud/bigquery-storage');
  const root = join(dirname(main), '..', '..');
  const gax = join(dirname(createRequire(main).resolve('google-gax')), '..', 'protos');
  const def = protoLoader.loadSync(['google/cloud/bigquery/storage/v1/storage.proto'], {
    includeDirs: [join(root, 'build', 'protos'), gax],
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    google: { cloud: { bigquery: { storage: { v1: Record<string, { service: grpc.ServiceDefinition }> } } } };
  };
  const write = {
    ...(pkg.google.cloud.bigquery.storage.v1['BigQueryWrite'] as { service: grpc.ServiceDefinition }).service,
  };
  const appendRows = write['AppendRows'] as grpc.MethodDefinition<unknown, unknown>;
  // Read by hand: the writer's descriptor and rows stay bytes (write-wire.ts).
  write['AppendRows'] = { ...appendRows, requestDeserialize: (buf: Buffer) => buf };
  cached = write;
  return cached;
}

/** A thrown error as gRPC's status, with the StorageError trailer when there is one. */
function toStatus(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof WriteError) {
    const metadata = new grpc.Metadata();
    if (err.storage) metadata.add(STORAGE_ERROR_TRAILER, encodeStorageError(err.storage));
    return { code: CODES[err.status], details: err.message, metadata };
  }
  if (err instanceof ApiError) {
    const code =
      err.code === 403
        ? grpc.status.PERMISSION_DENIED
        : err.code === 401
          ? grpc.status.UNAUTHENTICATED
          : err.code === 404
            ? grpc.status.NOT_FOUND
            : err.code < 500
              ? grpc.status.INVALID_ARGUMENT
              : grpc.status.INTERNAL;
    return { code, details: err.message };
  }
  return {
    code: grpc.status.INTERNAL,
    details: `Internal error in the emulator: ${(err as Error)?.message ?? err}`,
  };
}

/** An in-stream `error` (google.rpc.Status) with the StorageError as its detail. */
function inStreamError(err: WriteError): Obj {
  return {
    code: CODES[err.status],
    message: err.message,
    details: err.storage
      ? [
          {
            type_url: STORAGE_ERROR_TYPE_URL,
            typeUrl: STORAGE_ERROR_TYPE_URL,
            value: encodeStorageError(err.storage),
          },
        ]
      : [],
  };
}

const timestamp = (ms: number): Obj => ({ seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });

function streamResource(em: Emulator, s: WriteStreamRecord, full: boolean): Obj {
  return {
    name: s.name,
    type: s.type,
    createTime: timestamp(s.createTime),
    ...(s.commitTime !== undefined ? { commitTime: timestamp(s.commitTime) } : {}),
    ...(full ? { tableSchema: { fields: storageSchema(fieldsOfTable(em, s.table)) } } : {}),
    writeMode: 'INSERT',
    location: 'US',
  };
}

export interface WriteAccessOptions {
  readonly enforcement: Enforcement;
  /** Set once the identity ports listen. */
  identities(): IdentityListeners | undefined;
}

/** The BigQueryWrite service, added to a grpc-js server. */
export function addWriteService(
  server: grpc.Server,
  em: Emulator,
  iam: WriteAccessOptions | undefined,
): void {
  const accessOf = (call: { metadata: grpc.Metadata }): Access | undefined => {
    if (!iam) return undefined;
    const auth = call.metadata.get('authorization')[0];
    const bound = iam.identities()?.memberOfCall(call);
    const caller: Caller | undefined = iam.enforcement.callerOf(
      typeof auth === 'string' ? auth : undefined,
      bound,
    );
    if (caller === undefined) throw new WriteError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
    return { enforcement: iam.enforcement, caller };
  };
  const mayWrite = (access: Access | undefined, t: TableName): void =>
    mayTable(access, 'bigquery.tables.updateData', t);

  const unary =
    (fn: (req: Obj, access: Access | undefined) => Promise<Obj> | Obj): grpc.handleUnaryCall<Obj, unknown> =>
    (call, callback) => {
      void (async () => fn(call.request, accessOf(call)))().then(
        (res) => callback(null, res),
        (err: unknown) => callback(toStatus(err)),
      );
    };

  server.addService(loadService(), {
    CreateWriteStream: unary((req, access) => {
      const parent = String(req['parent'] ?? '');
      mayWrite(access, parseTable(parent));
      const type = String((req['writeStream'] as Obj | undefined)?.['type'] ?? 'TYPE_UNSPECIFIED');
      return streamResource(em, createWriteStream(em, parent, type), false);
    }),
    GetWriteStream: unary((req, access) => {
      const name = String(req['name'] ?? '');
      mayWrite(access, tableOfStream(name));
      return streamResource(em, streamOr404(em, name), req['view'] === 'FULL');
    }),
    FinalizeWriteStream: unary((req, access) => {
      const name = String(req['name'] ?? '');
      mayWrite(access, tableOfStream(name));
      return { rowCount: String(finalize(streamOr404(em, name))) };
    }),
    BatchCommitWriteStreams: unary(async (req, access) => {
      const parent = String(req['parent'] ?? '');
      mayWrite(access, parseTable(parent));
      const names = Array.isArray(req['writeStreams']) ? req['writeStreams'].map(String) : [];
      const r = await batchCommit(em, parent, names);
      return {
        ...(r.commitTime !== undefined ? { commitTime: timestamp(r.commitTime) } : {}),
        streamErrors: r.streamErrors,
      };
    }),
    FlushRows: unary(async (req, access) => {
      const name = String(req['writeStream'] ?? '');
      mayWrite(access, tableOfStream(name));
      const offset = (req['offset'] as Obj | undefined)?.['value'];
      const to = await flushRows(
        em,
        streamOr404(em, name),
        offset === undefined ? undefined : BigInt(String(offset)),
      );
      return { offset: String(to) };
    }),
    AppendRows: (call: grpc.ServerDuplexStream<Buffer, Obj>) => appendRows(em, call, accessOf, mayWrite),
  });
}

/**
 * One AppendRows connection: the first request names the stream and carries the writer's schema,
 * later ones may omit both. Each request is checked and placed at once (so pipelined appends keep
 * their order and offsets); answers go out in request order, each when its rows are where the
 * stream type puts them.
 */
function appendRows(
  em: Emulator,
  call: grpc.ServerDuplexStream<Buffer, Obj>,
  accessOf: (call: grpc.ServerDuplexStream<Buffer, Obj>) => Access | undefined,
  mayWrite: (access: Access | undefined, t: TableName) => void,
): void {
  let stream: WriteStreamRecord | undefined;
  let schema: WriterSchema | undefined;
  let access: Access | undefined;
  let ended = false;
  let answers: Promise<void> = Promise.resolve();
  const schemas = new Map<string, WriterSchema>();
  /** The table's columns when the connection began, or when it last told the writer of a change. */
  let seenFields: string | undefined;
  /**
   * The table's schema once it has changed since the connection saw it (BigQuery's
   * `updated_schema`, so the writer can add the new columns to its own), then not again.
   */
  const schemaChange = (fields: readonly FieldSchema[]): readonly FieldSchema[] | undefined => {
    const now = JSON.stringify(fields);
    if (seenFields === undefined || seenFields === now) {
      seenFields = now;
      return undefined;
    }
    seenFields = now;
    return fields;
  };

  /** Ends the connection with a status; later requests are ignored. */
  const fail = (err: unknown): void => {
    if (ended) return;
    ended = true;
    call.emit('error', toStatus(err));
  };
  const send = (res: Obj): void => {
    if (!ended) call.write(res);
  };

  const handle = (buf: Buffer): Promise<Obj> => {
    if (buf.length > MAX_APPEND_BYTES)
      throw new WriteError(
        'INVALID_ARGUMENT',
        `AppendRows request too large: ${buf.length} limit ${MAX_APPEND_BYTES}`,
      );
    let req: AppendRequest;
    try {
      req = decodeAppendRequest(buf);
    } catch (e) {
      throw new WriteError('INVALID_ARGUMENT', `Invalid AppendRowsRequest: ${(e as Error).message}`);
    }
    if (stream === undefined) {
      if (req.writeStream === '')
        throw new WriteError('INVALID_ARGUMENT', 'Write stream must be specified in the first request.');
      access = accessOf(call);
      mayWrite(access, tableOfStream(req.writeStream));
      stream = streamOr404(em, req.writeStream);
    } else if (req.writeStream !== '' && req.writeStream !== stream.name)
      throw new WriteError(
        'INVALID_ARGUMENT',
        `Cannot switch the stream of a connection from ${stream.name} to ${req.writeStream}.`,
      );
    if (req.arrow)
      throw new WriteError(
        'UNIMPLEMENTED',
        `Arrow rows are not supported by the emulator. Entity: ${stream.name}`,
      );
    const fields = fieldsOfTable(em, stream.table);
    if (req.descriptor) {
      const key = Buffer.from(req.descriptor).toString('base64');
      schema = schemas.get(key) ?? writerSchema(req.descriptor, fields, stream.name);
      schemas.set(key, schema);
    }
    if (!schema)
      throw new WriteError(
        'INVALID_ARGUMENT',
        `Proto schema must be specified in the first request. Entity: ${stream.name}`,
      );
    const s = stream;
    // From here on a refusal is the append's own: an in-stream error, the connection goes on.
    try {
      if (!req.protoRows || req.rows.length === 0)
        throw new WriteError('INVALID_ARGUMENT', `Rows must be specified. Entity: ${s.name}`);
      checkOffset(s, req.offset);
    } catch (e) {
      if (e instanceof WriteError) return Promise.resolve({ error: inStreamError(e), writeStream: s.name });
      throw e;
    }
    const { rows, problems } = acceptRows(schema, fields, req.rows, {
      byColumn: req.missing,
      otherwise: req.defaultMissing,
    });
    if (problems.length > 0)
      return Promise.resolve({
        error: inStreamError(
          new WriteError(
            'INVALID_ARGUMENT',
            `Errors found while processing rows. Please refer to the row_errors field for details. The list may not be complete because of the size limitations. Entity: ${s.name}`,
          ),
        ),
        rowErrors: problems.map((p) => ({
          index: String(p.index),
          code: 'FIELDS_ERROR',
          message: p.message,
        })),
        writeStream: s.name,
      });
    const plan = append(em, s, rows);
    const updated = schemaChange(fields);
    return plan.done.then(() => ({
      appendResult: isDefault(s) ? {} : { offset: { value: String(plan.offset) } },
      ...(updated ? { updatedSchema: { fields: storageSchema(updated) } } : {}),
      writeStream: s.name,
    }));
  };

  call.on('data', (buf: Buffer) => {
    if (ended) return;
    // Settled at once (no rejection waits unobserved), answered in request order.
    let settled: Promise<{ res: Obj } | { err: unknown }>;
    try {
      settled = handle(buf).then(
        (res) => ({ res }),
        (err: unknown) => ({ err }),
      );
    } catch (err) {
      // The request itself is wrong (the stream, the schema): BigQuery ends the connection.
      settled = Promise.resolve({ err });
    }
    answers = answers.then(() => settled).then((r) => ('res' in r ? send(r.res) : fail(r.err)));
  });
  call.on('end', () => {
    void answers.then(() => {
      if (!ended) {
        ended = true;
        call.end();
      }
    });
  });
  call.on('error', () => {
    ended = true;
  });
  call.on('cancelled', () => {
    ended = true;
  });
}
