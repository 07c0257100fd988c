/**
 * The claim store (core/claims/claim-store.ts) on Cloud Storage objects in the registry bucket:
 * `identities/<id>` and `sends/<id>`, whose lifecycle rule deletes them after their window
 * (core/plan.ts). A claim is created with `ifGenerationMatch=0` (only if absent), replaced and
 * released with `ifGenerationMatch=<generation>`; the generation is the version. Calls go through
 * our own keep-alive sender with the Storage client's endpoint and credentials (only over TLS: an
 * emulator gets none, as the client sends it none), not the client's `file.save`, whose request
 * stack cost about a millisecond of CPU per call.
 *
 * One class A operation per claim created or replaced; a release (delete) and the lifecycle's
 * deletes are free; a read of a held claim is class B. docs/scale.md prices it.
 */
import type { Bucket } from '@google-cloud/storage';
import {
  type ClaimFields,
  type ClaimKey,
  type ClaimStore,
  type CreateAnswer,
  checkClaimKey,
  claimName,
} from '../core/claims/claim-store.ts';
import { IDENTITY_CLAIM_DAYS } from '../core/plan.ts';
import type { InboundResponse } from '../core/platforms/driver.ts';
import { cachedCredentials } from './google-credentials.ts';
import { createHttpSender, type Sender } from './http-sender.ts';

/** One call's whole time; a slower one fails the push, which Pub/Sub brings back. */
const CALL_TIMEOUT_MS = 10_000;

type StorageInternals = Bucket['storage'] & {
  apiEndpoint: string;
  authClient: Parameters<typeof cachedCredentials>[0];
};

interface Stored extends Record<string, string | number | boolean> {
  expire_at: number;
}

export function createStorageClaimStore(
  bucket: () => Bucket | Promise<Bucket>,
  opts: { readonly send?: Sender } = {},
): ClaimStore {
  const send = opts.send ?? createHttpSender();
  let base: Promise<{ call: Call }> | undefined;
  const calls = (): Promise<{ call: Call }> => {
    base ??= Promise.resolve(bucket()).then((b) => ({ call: caller(b, send) }));
    return base;
  };

  const write = async (key: ClaimKey, generation: string, fields: ClaimFields, expireAt: number) => {
    checkClaimKey(key);
    const { call } = await calls();
    const body: Stored = { ...fields, expire_at: expireAt };
    const answer = await call(
      'POST',
      `/upload/storage/v1/b/{bucket}/o?uploadType=media&ifGenerationMatch=${generation}&name=${encodeURIComponent(claimName(key))}`,
      JSON.stringify(body),
    );
    if (answer.status === 200) return String((JSON.parse(answer.body) as { generation: string }).generation);
    if (answer.status === 412) return undefined;
    throw new Error(`writing claim ${claimName(key)}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
  };

  return {
    async create(key, fields, expireAt): Promise<CreateAnswer> {
      // Two rounds: a claim deleted (released, or by the lifecycle) between the create and the read.
      for (let round = 0; round < 2; round++) {
        const version = await write(key, '0', fields, expireAt);
        if (version !== undefined) return { created: true, version };
        const read = await readClaim(await bucket(), claimName(key));
        if (read === undefined) continue;
        const { generation, stored } = read;
        // An identity claim of an older release has no expire_at: its window runs from claimed_at.
        const expire = stored.expire_at ?? legacyExpiry(stored);
        if (typeof expire !== 'number') throw new Error(`claim ${claimName(key)} is not a claim`);
        const { expire_at: _e, ...rest } = stored as Stored;
        const held = expire;
        return { created: false, held: { fields: rest, version: generation, expireAt: held } };
      }
      throw new Error(`claim ${claimName(key)} kept vanishing between create and read`);
    },
    replace: (key, version, fields, expireAt) => write(key, version, fields, expireAt),
    async release(key, version) {
      checkClaimKey(key);
      const { call } = await calls();
      const answer = await call(
        'DELETE',
        `/storage/v1/b/{bucket}/o/${encodeURIComponent(claimName(key))}?ifGenerationMatch=${encodeURIComponent(version)}`,
      );
      if (answer.status === 204 || answer.status === 200) return true;
      if (answer.status === 412 || answer.status === 404) return false;
      throw new Error(
        `releasing claim ${claimName(key)}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`,
      );
    },
  };
}

type Answered = Extract<InboundResponse, { kind: 'response' }>;
type Call = (method: 'POST' | 'DELETE', path: string, body?: string) => Promise<Answered>;

/** Calls the JSON API of the bucket's endpoint, `{bucket}` in the path standing for its name. */
function caller(bucket: Bucket, send: Sender): Call {
  const storage = bucket.storage as StorageInternals;
  const endpoint = storage.apiEndpoint.replace(/\/+$/, '');
  const credentials = endpoint.startsWith('https:') ? cachedCredentials(storage.authClient) : undefined;
  const name = encodeURIComponent(bucket.name);
  return async (method, path, body) => {
    const url = `${endpoint}${path.replace('{bucket}', name)}`;
    const auth = credentials ? await credentials.headers() : {};
    const answer = await send(
      {
        method,
        url,
        redactedUrl: url,
        headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body ?? '',
      },
      CALL_TIMEOUT_MS,
    );
    if (answer.kind !== 'response') throw new Error(`${method} ${path.split('?')[0]}: ${answer.message}`);
    if (answer.status === 401) credentials?.invalidate();
    return answer;
  };
}

/** claimed_at plus the identity window, for a claim written before claims carried their expiry. */
function legacyExpiry(stored: Partial<Stored>): number | undefined {
  const at = stored['claimed_at'];
  return typeof at === 'number' ? at + IDENTITY_CLAIM_DAYS * 86_400_000 : undefined;
}

const statusOf = (err: unknown): unknown => (err as { code?: unknown }).code;

/**
 * A held claim with its generation, read with the client (the rare path: a copy). Undefined when
 * it is gone (released, or deleted by the lifecycle) between the calls.
 */
async function readClaim(
  bucket: Bucket,
  name: string,
): Promise<{ generation: string; stored: Partial<Stored> } | undefined> {
  try {
    const [meta] = await bucket.file(name).getMetadata();
    const generation = String(meta.generation);
    const [bytes] = await bucket.file(name, { generation: Number(generation) }).download();
    return { generation, stored: JSON.parse(bytes.toString('utf8')) as Partial<Stored> };
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw err;
  }
}
