/**
 * The first sighting of an identity, as an object in the registry bucket (`identities/<digest>`,
 * core/store/store.ts, ClaimIdentity): `store` creates it only if absent (`ifGenerationMatch=0`)
 * for an event whose time the server stamped and whose id the producer gave. The first copy's
 * create succeeds; a producer's retry of the same body (a new message with the same identity
 * digest) is refused with 412 and reads the first copy's time and message instead, so its row
 * would be the first one's and it is recognised as a copy. The bucket's lifecycle rule deletes
 * the objects after IDENTITY_CLAIM_DAYS (core/plan.ts, infra/registry.ts): a retry later than that is a new
 * event (docs/storage.md, "One event, one row").
 *
 * One create per such event (about $5 per million at Cloud Storage's class A list price); events
 * with a producer's time, or without a producer's id, never come here.
 */
import type { Bucket } from '@google-cloud/storage';
import { IDENTITY_CLAIMS_PREFIX } from '../core/plan.ts';
import type { ClaimAnswer, ClaimIdentity, IdentityClaim } from '../core/store/store.ts';
import { cachedCredentials } from './google-credentials.ts';
import { createHttpSender, type Sender } from './http-sender.ts';

const statusOf = (err: unknown): unknown => (err as { code?: unknown }).code;
const DIGEST = /^[0-9a-f]{64}$/;
/** The create's whole call; a slower one fails the push, which Pub/Sub brings back. */
const CREATE_TIMEOUT_MS = 10_000;

interface Stored {
  readonly event_time: string;
  readonly message_id: string;
  readonly claimed_at: number;
}

function isStored(v: unknown): v is Stored {
  const o = v as Partial<Stored> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.event_time === 'string' &&
    typeof o.message_id === 'string' &&
    typeof o.claimed_at === 'number'
  );
}

/**
 * Creates `name` with `text` only if absent: true when created, false when it exists (412). A
 * media upload over the JSON API, sent by our own keep-alive client with the Storage client's
 * endpoint and credentials (only over TLS: an emulator gets none, as the client sends it none).
 * Not the client's `file.save`: its request stack (retries, validation, multipart) cost about a
 * millisecond of CPU per create, on every event this path sees.
 */
function createOnce(bucket: Bucket, send: Sender): (name: string, text: string) => Promise<boolean> {
  const storage = bucket.storage as Bucket['storage'] & {
    apiEndpoint: string;
    authClient: Parameters<typeof cachedCredentials>[0];
  };
  const base = storage.apiEndpoint.replace(/\/+$/, '');
  const credentials = base.startsWith('https:') ? cachedCredentials(storage.authClient) : undefined;
  const url = `${base}/upload/storage/v1/b/${encodeURIComponent(bucket.name)}/o?uploadType=media&ifGenerationMatch=0&name=`;
  return async (name, text) => {
    const auth = credentials ? await credentials.headers() : {};
    const answer = await send(
      {
        method: 'POST',
        url: `${url}${encodeURIComponent(name)}`,
        redactedUrl: `${url}${encodeURIComponent(name)}`,
        headers: { ...auth, 'content-type': 'application/json' },
        body: text,
      },
      CREATE_TIMEOUT_MS,
    );
    if (answer.kind !== 'response') throw new Error(`creating ${name}: ${answer.message}`);
    if (answer.status === 200) return true;
    if (answer.status === 412) return false;
    if (answer.status === 401) credentials?.invalidate();
    throw new Error(`creating ${name}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
  };
}

export function createIdentityClaims(
  bucket: () => Bucket | Promise<Bucket>,
  opts: { readonly now?: () => number; readonly send?: Sender } = {},
): ClaimIdentity {
  const now = opts.now ?? Date.now;
  const send = opts.send ?? createHttpSender();
  let create: ((name: string, text: string) => Promise<boolean>) | undefined;
  const attempt = async (c: IdentityClaim, tries: number): Promise<ClaimAnswer> => {
    if (!DIGEST.test(c.digest)) throw new Error(`not an identity digest: ${JSON.stringify(c.digest)}`);
    const b = await bucket();
    create ??= createOnce(b, send);
    const name = `${IDENTITY_CLAIMS_PREFIX}${c.digest}`;
    const record: Stored = { event_time: c.event_time, message_id: c.message_id, claimed_at: now() };
    if (await create(name, JSON.stringify(record))) return { first: true };
    // A copy (rare): the first one's claim, read with the client.
    try {
      const [bytes] = await b.file(name).download();
      const first: unknown = JSON.parse(bytes.toString('utf8'));
      if (!isStored(first)) throw new Error(`${name} is not a claim`);
      return { first: false, ...first };
    } catch (err) {
      // Deleted between the create and the read (its lifecycle ran out): claim it again, once.
      if (statusOf(err) === 404 && tries > 0) return attempt(c, tries - 1);
      throw err;
    }
  };
  return (claim) => attempt(claim, 1);
}
