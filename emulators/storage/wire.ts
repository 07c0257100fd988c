/**
 * HTTP helpers of the JSON API: reading bounded JSON bodies, answering JSON and errors, and the
 * generation preconditions (`ifGenerationMatch` and its kin) every write and read may carry.
 */
import type http from 'node:http';
import type { Caller, Enforcement } from '@eventbus/emulator-common/iam-enforce.ts';
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { preconditionFailed, StorageError } from './errors.ts';
import { parseFields, selectFields } from './fields.ts';
import type { ObjectState } from './records.ts';

export interface Ctx {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  query: URLSearchParams;
  /** `http://host:port` as the client addressed us, for links and upload session URIs. */
  base: string;
  /** The caller and their policies, with `--iam` only (access.ts). */
  access?: Access;
}

/** The caller of one request, and the policies it is checked against. */
export interface Access {
  readonly enforcement: Enforcement;
  readonly caller: Caller;
  /** The policy set on a bucket through setIamPolicy, checked with the access file's (bucket-iam.ts). */
  readonly bucketPolicy?: (bucket: string) => IamPolicy | undefined;
  /**
   * What the ACLs allow where IAM refuses (acl.ts: aclAllows), and whether a bucket enforces
   * public access prevention (then nothing is granted to `allUsers`).
   */
  readonly acls?: {
    allows(principal: string, permission: string, bucket: string, object?: string): boolean;
    publicPrevented(bucket: string): boolean;
  };
}

const MAX_JSON_BYTES = 2 << 20;

export async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new StorageError('invalid', `The request body is over ${limit} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function parseJson(buf: Buffer): unknown {
  if (buf.length === 0) return undefined;
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    throw new StorageError('badRequest', 'The request body is not valid JSON.');
  }
}

export async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const v = parseJson(await readBody(req, MAX_JSON_BYTES));
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new StorageError('invalid', 'The request body must be a JSON object.');
  return v as Record<string, unknown>;
}

/** The `fields` selection of each request being answered (set by the server, read by sendJson). */
export const requestedFields = new WeakMap<http.ServerResponse, string>();

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const fields = status < 300 ? requestedFields.get(res) : undefined;
  const text = JSON.stringify(fields ? selectFields(body, parseFields(fields)) : body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: http.ServerResponse, err: unknown): void {
  const e =
    err instanceof StorageError
      ? err
      : new StorageError(
          'backendError',
          `Backend error: ${err instanceof Error ? err.message : String(err)}`,
        );
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (e.code === 304) {
    res.writeHead(304);
    res.end();
    return;
  }
  sendJson(res, e.code, e.body());
}

/** A non-negative integer query parameter, or undefined when absent. */
export function intParam(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw new StorageError('invalid', `Invalid value for ${key}: ${v}`);
  return Number(v);
}

export type Preconditions = Record<string, string>;

const PRECONDITION_KEYS = [
  'ifGenerationMatch',
  'ifGenerationNotMatch',
  'ifMetagenerationMatch',
  'ifMetagenerationNotMatch',
] as const;

/** The preconditions of a request, optionally with a prefix (`ifSource...`, for copy sources). */
export function preconditions(q: URLSearchParams, source = false): Preconditions {
  const out: Preconditions = {};
  for (const key of PRECONDITION_KEYS) {
    const name = source ? `ifSource${key.slice(2)}` : key;
    const v = q.get(name);
    if (v === null || v === '') continue;
    if (!/^\d+$/.test(v)) throw new StorageError('invalid', `Invalid value for ${name}: ${v}`);
    out[key] = v;
  }
  return out;
}

/**
 * Checks preconditions against the current generation (undefined = no live object). Writes fail
 * with 412; reads fail a `...NotMatch` with 304 Not Modified, as Cloud Storage answers.
 */
export function checkPreconditions(
  current: ObjectState | undefined,
  pre: Preconditions,
  mode: 'read' | 'write',
): void {
  const gen = current ? String(current.generation) : '0';
  const meta = current ? String(current.metageneration) : undefined;
  const match = pre.ifGenerationMatch;
  if (match !== undefined && match !== gen) throw preconditionFailed();
  const metaMatch = pre.ifMetagenerationMatch;
  if (metaMatch !== undefined && metaMatch !== meta) throw preconditionFailed();
  const notModified = (): StorageError =>
    mode === 'read' ? new StorageError('notModified', 'Not Modified') : preconditionFailed();
  if (pre.ifGenerationNotMatch !== undefined && pre.ifGenerationNotMatch === gen) throw notModified();
  if (pre.ifMetagenerationNotMatch !== undefined && pre.ifMetagenerationNotMatch === meta)
    throw notModified();
}
