/**
 * `store`'s first sighting of an event identity (core/store/store.ts, ClaimIdentity), as a claim
 * `identities/<identity digest>` in the claim store (core/claims/claim-store.ts): created only if
 * absent by the first copy, with its event_time and message. A producer's copy (a vendor's late
 * retry, a browser's retry: a new message with the same identity) finds it held and learns the
 * first copy's time and message, so it is recognised as a copy; the first message itself, back
 * after a crash, finds its own claim and asks the warehouse before writing again. A claim older
 * than the window (IDENTITY_CLAIM_DAYS, the bucket's lifecycle deletes it) counts as absent: a
 * copy that late is a new event (docs/storage.md, "One event, one row"). Never overwritten.
 */
import type { ClaimStore } from '../core/claims/claim-store.ts';
import { IDENTITY_CLAIM_DAYS } from '../core/plan.ts';
import type { ClaimAnswer, ClaimIdentity } from '../core/store/copies.ts';

const WINDOW_MS = IDENTITY_CLAIM_DAYS * 86_400_000;

export function createIdentityClaims(
  store: ClaimStore,
  opts: { readonly now?: () => number } = {},
): ClaimIdentity {
  const now = opts.now ?? Date.now;
  return async (c): Promise<ClaimAnswer> => {
    const at = now();
    const key = { space: 'identities', id: c.digest } as const;
    const mine = { event_time: c.event_time, message_id: c.message_id, claimed_at: at };
    const answer = await store.create(key, mine, at + WINDOW_MS);
    if (answer.created) return { first: true };
    // A document no identity claim of ours could be: replaced from the claim store alone (it tells
    // nothing of a first copy), so one bad record never fails every copy of the event.
    if (answer.held.malformed !== undefined) {
      if ((await store.replace(key, answer.held.version, mine, at + WINDOW_MS)) !== undefined)
        return { first: true };
      throw new Error(`identities/${c.digest} changed while its malformed claim was replaced`);
    }
    const { fields, expireAt } = answer.held;
    if (expireAt <= at) return { first: true };
    const { event_time, message_id, claimed_at } = fields;
    if (typeof event_time !== 'string' || typeof message_id !== 'string' || typeof claimed_at !== 'number')
      throw new Error(`identities/${c.digest} is not an identity claim`);
    return { first: false, event_time, message_id, claimed_at };
  };
}
