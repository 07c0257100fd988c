/**
 * What the receiver's two OTLP/HTTP endpoints share (traces.ts, metrics.ts): reading a JSON body,
 * OTLP's JSON encoding of key/value lists, answering JSON, and asking the IAM gate first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './read-body.ts';
import type { TraceGate } from './trace-access.ts';

/** What an OTLP store of the receiver is made with. */
export interface OtlpStoreOptions {
  /** Who may write and read what it keeps (absent: anyone). */
  readonly gate?: TraceGate;
  /** The project exports are written to: OTLP's request names none (Google takes the caller's). */
  readonly project?: string;
}

/** A field of a JSON object, or undefined for anything else. */
export function field(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
}

/** A JSON array, or an empty one for anything else. */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** OTLP's key/value list as an object (string, int, double and bool values). */
export function attributesOf(kvs: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list(kvs)) {
    const key = field(kv, 'key');
    const v = field(kv, 'value');
    if (typeof key !== 'string') continue;
    const s = field(v, 'stringValue');
    const i = field(v, 'intValue');
    const d = field(v, 'doubleValue');
    const b = field(v, 'boolValue');
    if (typeof s === 'string') out[key] = s;
    else if (i !== undefined) out[key] = Number(i);
    else if (typeof d === 'number') out[key] = d;
    else if (typeof b === 'boolean') out[key] = b;
  }
  return out;
}

export function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The body parsed as JSON; rejects past `max` bytes or when it is not JSON. */
export function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  return readBody(req, max).then((text) => {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new Error(`not JSON: ${(err as Error).message}`);
    }
  });
}

/**
 * Whether the gate lets the request on `projects/<project>`; a refusal is answered here (the body
 * is not read: the connection is closed after the answer, as a refusal's is).
 */
export function allowed(
  gate: TraceGate | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  permission: string,
  project: string,
): boolean {
  const refused = gate?.(req, permission, `projects/${project}`);
  if (refused === undefined) return true;
  res.setHeader('connection', 'close');
  answer(res, refused.code, refused.body);
  return false;
}

/**
 * Handles an OTLP/HTTP export in its JSON encoding: the gate, the content type (415 for any
 * other, protobuf included: the SDK's `-http` exporters send JSON), the body (400 when it is not
 * JSON), then `take`.
 */
export function takeExport(
  req: IncomingMessage,
  res: ServerResponse,
  options: { readonly gate: TraceGate | undefined; readonly permission: string; readonly project: string },
  max: number,
  take: (body: unknown) => void,
): void {
  if (!allowed(options.gate, req, res, options.permission, options.project)) return;
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    // Protobuf (the `-proto` exporters' encoding) included: the body is not read.
    res.setHeader('connection', 'close');
    answer(res, 415, { error: 'this receiver takes OTLP/HTTP in its JSON encoding only' });
    return;
  }
  readJson(req, max).then(
    (body) => {
      take(body);
      answer(res, 200, {});
    },
    (err: unknown) => answer(res, 400, { error: (err as Error).message }),
  );
}
