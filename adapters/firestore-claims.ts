/**
 * The claim store (core/claims/claim-store.ts) on Firestore: one document per claim, in the
 * collection named by its space (`identities`, `sends`) with the claim id as document id, in the
 * environment's claims database (core/plan.ts, `claims`). Firestore's own preconditions make it
 * atomic:
 *
 * - create → `createDocument?documentId=<id>`: 409 ALREADY_EXISTS when the document exists (an
 *   expired claim still does until TTL removes it), then read it (`held`);
 * - replace → `patch` (the whole document) with `currentDocument.updateTime=<version>`;
 * - release → `delete` with the same precondition;
 *
 * A failed precondition is FAILED_PRECONDITION (a newer update time) or NOT_FOUND (released
 * meanwhile): someone else's now. The version is the document's `updateTime` as Firestore wrote
 * it (microseconds, strictly increasing per document; a replace that changes nothing keeps it,
 * as Firestore's WriteResult documents, so the same version comes back). Fields are stored as typed values, plus
 * the timestamp `expire_at`, the field of the TTL policy (infra: the claims database), so
 * Firestore deletes a claim some time (typically within a day) after it expires; the store never
 * relies on that, since `expireAt` says when a claim stops counting.
 *
 * Sent by our own keep-alive sender (adapters/http-sender.ts), as adapters/bigquery-rest.ts does:
 * `https://firestore.googleapis.com` with application-default credentials, or the emulator at
 * FIRESTORE_EMULATOR_HOST (`host:port`, plaintext; credentials go only over TLS). A refusal or a
 * network error rejects: the caller fails the push and Pub/Sub brings the message back.
 */
import { GoogleAuth } from 'google-auth-library';
import {
  type ClaimFields,
  type ClaimKey,
  type ClaimStore,
  type CreateAnswer,
  checkClaimKey,
  type HeldClaim,
} from '../core/claims/claim-store.ts';
import { cachedCredentials, type HeaderSource } from './google-credentials.ts';
import type { CallCredentials } from './grpc-unary.ts';
import { createHttpSender, type Sender } from './http-sender.ts';

/** The TTL field of every claim document: a timestamp (infra declares the policy on it). */
export const EXPIRE_AT_FIELD = 'expire_at';
const API = 'https://firestore.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/datastore';

export interface FirestoreClaimOptions {
  readonly project: string;
  /** The database id (core/plan.ts, `claims.database`). */
  readonly database: string;
  /** FIRESTORE_EMULATOR_HOST: `host:port` of an emulator (plaintext, no credentials). */
  readonly emulatorHost?: string;
  /** What authorizes a call to Firestore itself (default: application-default credentials). */
  readonly auth?: HeaderSource;
  readonly send?: Sender;
  /** One call's limit (default 10 s): a slower one fails the push, which Pub/Sub brings back. */
  readonly timeoutMs?: number;
}

type Value = Readonly<Record<string, unknown>>;

function toValue(v: string | number | boolean): Value {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { booleanValue: v };
  return Number.isSafeInteger(v) ? { integerValue: String(v) } : { doubleValue: v };
}

function fromValue(v: Value, name: string): string | number | boolean {
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.booleanValue === 'boolean') return v.booleanValue;
  if (typeof v.integerValue === 'string') return Number(v.integerValue);
  if (typeof v.doubleValue === 'number') return v.doubleValue;
  if (typeof v.doubleValue === 'string') return Number(v.doubleValue);
  throw new Error(`claim field ${name} is not a flat value: ${JSON.stringify(v)}`);
}

/** The document body of a claim: its fields as typed values, and the TTL timestamp. */
export function claimDocument(fields: ClaimFields, expireAt: number): { fields: Record<string, Value> } {
  if (EXPIRE_AT_FIELD in fields) throw new Error(`${EXPIRE_AT_FIELD} is the claim store's own field`);
  if (!Number.isFinite(expireAt)) throw new Error(`not an expiry: ${expireAt}`);
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = toValue(v);
  out[EXPIRE_AT_FIELD] = { timestampValue: new Date(expireAt).toISOString() };
  return { fields: out };
}

/**
 * A claim as read from its document. A document this code could not have written (a field that is
 * not a flat value, no expiry) comes back `malformed`, with its version, so the caller replaces it
 * rather than failing every attempt on it; only a document without its update time throws.
 */
export function heldOf(doc: { fields?: Record<string, Value>; updateTime?: unknown }): HeldClaim {
  if (typeof doc.updateTime !== 'string') throw new Error('a claim document without its update time');
  const fields: Record<string, string | number | boolean> = {};
  let expireAt = Number.NaN;
  try {
    for (const [k, v] of Object.entries(doc.fields ?? {})) {
      if (k === EXPIRE_AT_FIELD) expireAt = Date.parse(String(v?.timestampValue));
      else fields[k] = fromValue(v ?? {}, k);
    }
  } catch (err) {
    return { fields: {}, version: doc.updateTime, expireAt: 0, malformed: (err as Error).message };
  }
  if (Number.isNaN(expireAt))
    return { fields: {}, version: doc.updateTime, expireAt: 0, malformed: `no ${EXPIRE_AT_FIELD} timestamp` };
  return { fields, version: doc.updateTime, expireAt };
}

interface Answer {
  readonly status: number;
  /** The Google error status (`ALREADY_EXISTS`…), when the answer is an error. */
  readonly error: string | undefined;
  readonly body: Record<string, unknown>;
}

function parse(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A NOT_FOUND for the database itself, not for a document: the same status, told apart by its
 * message only, which names the database ("The database <id> does not exist for project <p>",
 * as the emulator says too; earlier "The project <p> does not exist or it does not contain an
 * active Cloud Datastore or Cloud Firestore database"). Taken for a missing document, a database
 * that is not there would read every claim as absent and lose every replace and release; it is
 * refused instead, as the Bigtable store refuses a missing table.
 */
export function noDatabase(a: {
  readonly error: string | undefined;
  readonly body: Record<string, unknown>;
}): boolean {
  if (a.error !== 'NOT_FOUND') return false;
  const message = String((a.body.error as { message?: unknown } | undefined)?.message ?? '');
  return /\bdatabase \S+ does not exist for project\b|does not contain an active Cloud (Datastore|Firestore)/.test(
    message,
  );
}

export function createFirestoreClaimStore(opts: FirestoreClaimOptions): ClaimStore {
  const send = opts.send ?? createHttpSender();
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const base = opts.emulatorHost ? `http://${opts.emulatorHost}` : API;
  const credentials: CallCredentials | undefined = opts.emulatorHost
    ? undefined
    : cachedCredentials(opts.auth ?? new GoogleAuth({ scopes: [SCOPE] }));
  const root = `${base}/v1/projects/${encodeURIComponent(opts.project)}/databases/${encodeURIComponent(opts.database)}/documents`;
  const fixed = {
    'content-type': 'application/json',
    'x-goog-api-client': `gl-node/${process.versions.node} eventbus/1`,
  };

  const call = async (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body = '',
  ): Promise<Answer> => {
    for (let reauthorised = false; ; reauthorised = true) {
      const auth = credentials ? await credentials.headers() : undefined;
      const answer = await send(
        { method, url, redactedUrl: url, headers: auth ? { ...fixed, ...auth } : fixed, body },
        timeoutMs,
      );
      if (answer.kind !== 'response') throw new Error(`Firestore ${method} ${url}: ${answer.message}`);
      if (answer.status === 401 && credentials && !reauthorised) {
        credentials.invalidate();
        continue;
      }
      const parsed = parse(answer.body);
      const error = (parsed.error as { status?: unknown } | undefined)?.status;
      return { status: answer.status, error: typeof error === 'string' ? error : undefined, body: parsed };
    }
  };
  const fail = (what: string, a: Answer): Error => {
    const message = (a.body.error as { message?: unknown } | undefined)?.message;
    return new Error(`Firestore ${what}: HTTP ${a.status} ${a.error ?? ''} ${String(message ?? '')}`.trim());
  };
  const docUrl = (key: ClaimKey) => `${root}/${key.space}/${key.id}`;
  /** A precondition that failed because the document moved on or is gone (not its database). */
  const lost = (a: Answer) =>
    a.error === 'FAILED_PRECONDITION' || (a.error === 'NOT_FOUND' && !noDatabase(a));
  const at = (version: string) => `currentDocument.updateTime=${encodeURIComponent(version)}`;

  const create = async (
    key: ClaimKey,
    fields: ClaimFields,
    expireAt: number,
    tries: number,
  ): Promise<CreateAnswer> => {
    checkClaimKey(key);
    const body = JSON.stringify(claimDocument(fields, expireAt));
    const made = await call('POST', `${root}/${key.space}?documentId=${key.id}`, body);
    if (made.status === 200) return { created: true, version: String(made.body.updateTime) };
    if (made.error !== 'ALREADY_EXISTS') throw fail(`create ${key.space}/${key.id}`, made);
    const read = await call('GET', docUrl(key));
    if (read.status === 200) return { created: false, held: heldOf(read.body) };
    // Released or swept between the create and the read: claim it again, once.
    if (read.error === 'NOT_FOUND' && tries > 0) return create(key, fields, expireAt, tries - 1);
    throw fail(`read ${key.space}/${key.id}`, read);
  };

  return {
    create: (key, fields, expireAt) => create(key, fields, expireAt, 1),
    async replace(key, version, fields, expireAt) {
      checkClaimKey(key);
      const a = await call(
        'PATCH',
        `${docUrl(key)}?${at(version)}`,
        JSON.stringify(claimDocument(fields, expireAt)),
      );
      if (a.status === 200) return String(a.body.updateTime);
      if (lost(a)) return undefined;
      throw fail(`replace ${key.space}/${key.id}`, a);
    },
    async read(key) {
      checkClaimKey(key);
      const a = await call('GET', docUrl(key));
      if (a.status === 200) return heldOf(a.body);
      if (a.error === 'NOT_FOUND' && !noDatabase(a)) return undefined;
      throw fail(`read ${key.space}/${key.id}`, a);
    },
    async release(key, version) {
      checkClaimKey(key);
      const a = await call('DELETE', `${docUrl(key)}?${at(version)}`);
      if (a.status === 200) return true;
      if (lost(a)) return false;
      throw fail(`release ${key.space}/${key.id}`, a);
    },
  };
}
