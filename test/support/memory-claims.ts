/**
 * The claim store (core/claims/claim-store.ts) in memory, for tests of what uses it: the same
 * answers as the Cloud Storage one (create only if absent, replace and release at a version),
 * with a version per write and a count of the writes made.
 */
import type { ClaimFields, ClaimStore, HeldClaim } from '../../core/claims/claim-store.ts';
import { checkClaimKey, claimName } from '../../core/claims/claim-store.ts';
import type { SendRequest } from '../../core/claims/send-once.ts';

/** When the send-once tests' first attempt is made. */
export const CLAIMS_T0 = Date.parse('2026-11-25T10:00:00Z');

/** A send-once request for `id`: message m1's first attempt at CLAIMS_T0, with `over` on top. */
export function sendRequest(
  id: string,
  over: Partial<SendRequest> & Pick<SendRequest, 'store'>,
): SendRequest {
  return {
    id,
    holder: 'm1',
    attempt: 1,
    now: CLAIMS_T0,
    timeoutMs: 10_000,
    force: false,
    privileged: false,
    horizon: undefined,
    ...over,
  };
}

export interface MemoryClaims extends ClaimStore {
  readonly records: Map<string, HeldClaim>;
  /** Creates and replaces that wrote a record (what a real store bills). */
  writes: number;
}

export function memoryClaims(): MemoryClaims {
  const records = new Map<string, HeldClaim>();
  let version = 0;
  const put = (name: string, fields: ClaimFields, expireAt: number): string => {
    const v = String(++version);
    records.set(name, { fields: { ...fields }, version: v, expireAt });
    store.writes++;
    return v;
  };
  const store: MemoryClaims = {
    records,
    writes: 0,
    async create(key, fields, expireAt) {
      checkClaimKey(key);
      const name = claimName(key);
      const held = records.get(name);
      if (held) return { created: false, held };
      return { created: true, version: put(name, fields, expireAt) };
    },
    async replace(key, at, fields, expireAt) {
      const name = claimName(key);
      if (records.get(name)?.version !== at) return undefined;
      return put(name, fields, expireAt);
    },
    async read(key) {
      return records.get(claimName(key));
    },
    async release(key, at) {
      const name = claimName(key);
      if (records.get(name)?.version !== at) return false;
      records.delete(name);
      return true;
    },
  };
  return store;
}
