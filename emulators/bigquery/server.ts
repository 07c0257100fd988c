/**
 * Local BigQuery emulator: Google's REST API (docs/google-wire.md §4) over an embedded DuckDB
 * file, served with and without the `/bigquery/v2` prefix so that both
 * `BIGQUERY_EMULATOR_HOST` and `apiEndpoint` work with the unchanged client; and on the same port
 * the Storage Write API over gRPC (write-api.ts), told apart by each connection's first bytes
 * (emulators/common/protocol-split.ts). With `iam`, each call is authorized first (access.ts), and
 * each identity port's connections act as its member.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { listenOn } from '@eventbus/emulator-common/cli.ts';
import {
  Enforcement,
  type IdentityListeners,
  type IdentityPort,
  listenAsIdentities,
  localPortInterceptor,
} from '@eventbus/emulator-common/iam-enforce.ts';
import { exchangeToken, STS_PATH } from '@eventbus/emulator-common/local-sts.ts';
import { splitProtocols } from '@eventbus/emulator-common/protocol-split.ts';
import * as grpc from '@grpc/grpc-js';
import { type Access, accessOf, authorize, heldOnTable, holdsDataset, jobsVisibleTo } from './access.ts';
import { deleteDataset, insertDataset, listDatasets, patchDataset } from './datasets.ts';
import { ApiError } from './errors.ts';
import { expireDue } from './expiration.ts';
import { cancelJob, listJobs } from './job-records.ts';
import { getQueryResults, jobsInsert, jobsQuery } from './jobs.ts';
import { cleanDuckMessage, Emulator, type Json, MAX_REQUEST_BYTES } from './state.ts';
import { Store } from './store.ts';
import { ageStreamingBuffer, DEFAULT_STREAMING_BUFFER_MS } from './streaming-buffer.ts';
import { insertAll, listTableData } from './tabledata.ts';
import { deleteTable, getTable, insertTable, listTables, patchTable } from './tables.ts';
import { addWriteService, WRITE_GRPC_MAX_MESSAGE } from './write-api.ts';

export interface BigQueryEmulatorOptions {
  host?: string;
  port?: number;
  dataDir: string;
  /** Every query job lasts at least this long, as BigQuery's do (default 0: as long as DuckDB takes). */
  jobLatencyMs?: number;
  /**
   * How long insertAll rows stay in the streaming buffer, where UPDATE, DELETE and MERGE may not
   * touch them (streaming-buffer.ts; default 30 s, 0: no buffer).
   */
  streamingBufferMs?: number;
  /** Enforce IAM with this access file; each identity port's connections act as its member. */
  iam?: { file: string; identities?: readonly IdentityPort[] };
}

export interface BigQueryEmulator {
  port: number;
  url: string;
  /** Member → the identity port it took (empty without `iam`). */
  readonly identityPorts: ReadonlyMap<string, number>;
  /** Ages every streamed row by `ms` (all of them out of the streaming buffer when omitted). */
  ageStreamingBuffer(ms?: number): void;
  close(): Promise<void>;
}

/**
 * The emulator's own endpoint (no BigQuery counterpart): `POST` ages every streamed row by
 * `?ageMs=` (out of the streaming buffer when omitted), so tests need not wait for it.
 */
export const STREAMING_BUFFER_PATH = '/emulator/streaming-buffer:age';

async function route(
  em: Emulator,
  method: string,
  path: string,
  query: URLSearchParams,
  body: Json,
  access: Access | undefined,
): Promise<[number, unknown]> {
  if (path === '/health' && method === 'GET')
    return [200, { status: 'ok', jobLatencyMs: em.jobLatencyMs, cancelledJobs: em.cancelledJobs }];
  if (path === STREAMING_BUFFER_PATH && method === 'POST') {
    const ms = query.get('ageMs');
    if (ms !== null && !/^\d+$/.test(ms)) throw new ApiError('invalid', `Invalid ageMs: ${ms}`);
    ageStreamingBuffer(em, ms === null ? undefined : Number(ms));
    return [200, {}];
  }
  const p = path.replace(/^\/bigquery\/v2(?=\/)/, '');
  let seg: string[];
  try {
    seg = p
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
  } catch {
    throw new ApiError('invalid', `Malformed path: ${path}`);
  }
  if (seg[0] !== 'projects' || seg.length < 3) throw new ApiError('notFound', `Not found: ${method} ${path}`);
  if (access) authorize(em, access, { method, projectId: seg[1] as string, seg: seg.slice(2), query, body });
  // Expired tables and partitions go before anything reads or changes data (expiration.ts); the
  // streaming path (insertAll) does not pay for it.
  if (seg[5] !== 'insertAll') await expireDue(em);
  const projectId = seg[1] as string;
  const coll = seg[2];
  const a = seg[3];
  const b = seg[4];
  const c = seg[5];
  const d = seg[6];
  if (coll === 'datasets') {
    if (a === undefined) {
      if (method === 'GET')
        return [
          200,
          listDatasets(em, projectId, query, (d) =>
            holdsDataset(access, 'bigquery.datasets.get', projectId, d),
          ),
        ];
      if (method === 'POST') return [200, await insertDataset(em, projectId, body)];
    } else if (b === undefined) {
      if (method === 'GET') return [200, em.datasetOr404(projectId, a).resource];
      if (method === 'PATCH' || method === 'PUT') return [200, await patchDataset(em, projectId, a, body)];
      if (method === 'DELETE') {
        await deleteDataset(em, projectId, a, query.get('deleteContents') === 'true');
        return [204, undefined];
      }
    } else if (b === 'tables') {
      if (c === undefined) {
        if (method === 'GET') return [200, listTables(em, projectId, a, query)];
        if (method === 'POST') return [200, await insertTable(em, projectId, a, body)];
      } else if (d === undefined) {
        if (method === 'GET') return [200, await getTable(em, projectId, a, c, query.get('view'))];
        if (method === 'PATCH' || method === 'PUT') return [200, await patchTable(em, projectId, a, c, body)];
        if (method === 'DELETE') {
          await deleteTable(em, projectId, a, c);
          return [204, undefined];
        }
      } else if (d === 'insertAll' && method === 'POST') {
        return [200, await insertAll(em, projectId, a, c, body)];
      } else if (d === 'data' && method === 'GET') {
        return [200, await listTableData(em, projectId, a, c, query)];
      }
      const tested = /^(.+):testIamPermissions$/.exec(c ?? '');
      if (tested && d === undefined && method === 'POST') {
        const table = { projectId, datasetId: a, tableId: tested[1] as string };
        const asked = Array.isArray(body['permissions']) ? body['permissions'].map(String) : [];
        return [200, { permissions: heldOnTable(access, table, asked) }];
      }
    }
  } else if (coll === 'queries') {
    if (a === undefined && method === 'POST') return [200, await jobsQuery(em, projectId, body, access)];
    if (a !== undefined && method === 'GET') return [200, await getQueryResults(em, projectId, a, query)];
  } else if (coll === 'jobs') {
    if (a === undefined && method === 'POST')
      return [200, await jobsInsert(em, projectId, body, undefined, access)];
    if (a === undefined && method === 'GET')
      return [200, listJobs(em, projectId, query, jobsVisibleTo(access, projectId))];
    if (a !== undefined && b === undefined && method === 'GET')
      return [200, em.jobOr404(projectId, a, query).resource];
    if (a !== undefined && b === 'cancel' && method === 'POST')
      return [200, cancelJob(em.jobOr404(projectId, a, query))];
    if (a !== undefined && b === 'delete' && method === 'DELETE') {
      em.jobOr404(projectId, a, query);
      em.jobs.delete(a);
      // Google's client hands the body back: BigQuery's is an empty object.
      return [200, {}];
    }
  }
  throw new ApiError('notFound', `Not found: ${method} ${path}`);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) {
      tooLarge = true;
      if (size > 4 * MAX_REQUEST_BYTES) break;
      continue;
    }
    chunks.push(chunk as Buffer);
  }
  if (tooLarge)
    throw new ApiError('invalid', `Request payload size exceeds the limit: ${MAX_REQUEST_BYTES} bytes.`);
  return Buffer.concat(chunks);
}

/** DuckDB's error classes, as its messages start ("Binder Error: …"). */
const DUCKDB_ERROR =
  /^(Binder|Parser|Conversion|Invalid Input|Catalog|Constraint|Out of Range|Not implemented|Mismatch Type|Invalid type|Dependency|Serialization) Error: /;

/**
 * What an error that is not an ApiError is answered as: a DuckDB error that reached the server
 * unmapped is still the query's (`invalidQuery` in BigQuery's words, never DuckDB's); anything
 * else is the emulator's bug (`backendError`).
 */
export function unexpectedError(e: unknown): ApiError {
  const message = e instanceof Error ? e.message : String(e);
  return DUCKDB_ERROR.test(message)
    ? new ApiError('invalidQuery', cleanDuckMessage(message))
    : new ApiError('backendError', `Internal error in the emulator: ${message}`);
}

/**
 * The two parts of a `multipart/related` upload body: the job resource (JSON), then the file.
 * Only multipart uploads are served (the client's default for a load from a file).
 */
export function splitMultipart(
  raw: Buffer,
  contentType: string | undefined,
  query: URLSearchParams,
): { metadata: Json; data: Buffer } {
  const type = query.get('uploadType') ?? 'multipart';
  if (type !== 'multipart')
    throw new ApiError(
      'invalid',
      `Unsupported in the BigQuery emulator: uploadType=${type} (multipart only)`,
    );
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const mark = boundary?.[1] ?? boundary?.[2];
  if (!mark)
    throw new ApiError('invalid', 'A load upload needs Content-Type: multipart/related with a boundary.');
  const delimiter = Buffer.from(`--${mark}`);
  const parts: Buffer[] = [];
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    // A part: CRLF, its headers, a blank line, its bytes, then the CRLF before the next delimiter.
    const part = raw.subarray(start, next);
    const headEnd = part.indexOf('\r\n\r\n');
    const end =
      part.length >= 2 && part.subarray(part.length - 2).toString() === '\r\n'
        ? part.length - 2
        : part.length;
    parts.push(headEnd < 0 ? Buffer.alloc(0) : part.subarray(headEnd + 4, Math.max(headEnd + 4, end)));
    at = next;
  }
  if (parts.length < 2)
    throw new ApiError('invalid', 'The multipart body needs the job resource and the file.');
  let metadata: unknown;
  try {
    metadata = JSON.parse((parts[0] as Buffer).toString('utf8'));
  } catch (e) {
    throw new ApiError('parseError', `Invalid JSON payload received. ${(e as Error).message}`);
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new ApiError('parseError', 'Invalid JSON payload received. Expected an object.');
  return { metadata: metadata as Json, data: parts[1] as Buffer };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (status === 204 || body === undefined) {
    res.writeHead(204).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Starts the emulator on `host:port` (port 0 picks a free port) over `<dataDir>/bigquery.duckdb`. */
export async function startBigQueryEmulator(opts: BigQueryEmulatorOptions): Promise<BigQueryEmulator> {
  const store = await Store.open(opts.dataDir);
  const emu = new Emulator(store);
  emu.jobLatencyMs = opts.jobLatencyMs ?? 0;
  emu.streamingBufferMs = opts.streamingBufferMs ?? DEFAULT_STREAMING_BUFFER_MS;
  const enforcement = opts.iam ? new Enforcement(opts.iam.file) : undefined;
  let identities: IdentityListeners | undefined;
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const raw = req.method === 'GET' || req.method === 'DELETE' ? Buffer.alloc(0) : await readBody(req);
        if (url.pathname === STS_PATH && req.method === 'POST') {
          // The token exchange of a local credentials file (common/local-sts.ts): no caller yet.
          const [status, out] = exchangeToken(enforcement, new URLSearchParams(raw.toString('utf8')));
          send(res, status, out);
          return;
        }
        // After the body: a refused client still reads its answer rather than a reset connection.
        const access = enforcement ? accessOf(enforcement, req, identities) : undefined;
        const upload = /^\/upload\/bigquery\/v2\/projects\/([^/]+)\/jobs$/.exec(url.pathname);
        if (upload && req.method === 'POST') {
          // A load job with its file (the client's `table.load(path)`): metadata and bytes in one body.
          const projectId = decodeURIComponent(upload[1] as string);
          if (access)
            authorize(emu, access, {
              method: 'POST',
              projectId,
              seg: ['jobs'],
              query: url.searchParams,
              body: {},
            });
          const { metadata, data } = splitMultipart(raw, req.headers['content-type'], url.searchParams);
          send(res, 200, await jobsInsert(emu, projectId, metadata, data, access));
          return;
        }
        let body: Json = {};
        if (raw.length > 0) {
          try {
            const parsed: unknown = JSON.parse(raw.toString('utf8'));
            if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
              throw new ApiError('parseError', 'Invalid JSON payload received. Expected an object.');
            body = parsed as Json;
          } catch (e) {
            if (e instanceof ApiError) throw e;
            throw new ApiError('parseError', `Invalid JSON payload received. ${(e as Error).message}`);
          }
        }
        const [status, out] = await route(
          emu,
          req.method ?? 'GET',
          url.pathname,
          url.searchParams,
          body,
          access,
        );
        send(res, status, out);
      } catch (e) {
        if (e instanceof ApiError) {
          send(res, e.code, e.body());
          if (!req.complete) req.destroy();
          return;
        }
        const err = unexpectedError(e);
        send(res, err.code, err.body());
      }
    })();
  });
  // Idle keep-alive connections stay open as Google's front ends keep them (and as the other
  // emulators do): with Node's 5 s default a client reusing an idle socket as the server closed it
  // got ECONNRESET on a POST, which the client libraries do not retry (a CI run's `sync run`).
  server.keepAliveTimeout = 65_000;
  const host = opts.host ?? '127.0.0.1';
  // The Storage Write API on the same port: HTTP/2 connections go to grpc-js.
  const grpcServer = new grpc.Server({
    // Who a call is, on an identity port: known by the local port it came in on.
    interceptors: [localPortInterceptor],
    'grpc.max_receive_message_length': WRITE_GRPC_MAX_MESSAGE,
    'grpc.max_send_message_length': WRITE_GRPC_MAX_MESSAGE,
  });
  addWriteService(grpcServer, emu, enforcement ? { enforcement, identities: () => identities } : undefined);
  const injector = grpcServer.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const split = splitProtocols(injector, server);
  const listener = net.createServer(split.onSocket);
  let port: number;
  try {
    port = await listenOn(listener, opts.port ?? 0, host);
    if (opts.iam) identities = await listenAsIdentities(host, opts.iam.identities ?? [], split.onSocket);
  } catch (e) {
    listener.close();
    grpcServer.forceShutdown();
    injector.destroy();
    await store.close();
    throw e;
  }
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  emu.baseUrl = url;
  let closing: Promise<void> | undefined;
  return {
    port,
    url,
    identityPorts: identities?.ports ?? new Map(),
    ageStreamingBuffer: (ms) => ageStreamingBuffer(emu, ms),
    close() {
      closing ??= (async () => {
        await identities?.close();
        const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
        server.closeAllConnections();
        grpcServer.forceShutdown();
        injector.destroy();
        split.destroyAll();
        await closed;
        await store.close();
      })();
      return closing;
    },
  };
}
