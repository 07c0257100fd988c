/**
 * Idempotency-Key memory (the IETF httpapi Idempotency-Key draft): a key reused with a different
 * body is refused with 422 where the gateway can know it. Gateway instances share nothing, so this
 * is a per-instance memory — key → SHA-256 of the body, at most MAX_KEYS keys for 24 hours, in
 * memory only, lost at restart. Where it cannot know (another instance, after a restart), the
 * translator's ids come from the key and the body's digest (core/translate/index.ts), so another
 * body gets other event ids and is stored and delivered consistently as other events.
 *
 * Beside it, the replay memory of signed deliveries (docs/senders.md, "Replays"): each verified
 * delivery's name (the vendor's delivery id, or the digest of the signed bytes) for the
 * signature's tolerance window, per instance too. A delivery seen again inside it is a replay:
 * answered as the first was, with the same event ids (the signed body decides them), so it
 * folds into the same events and a vendor's honest retry is never turned into an error. Both are
 * one mechanism (firstSeen, below): bounded, oldest first out, a window from the first sight.
 */
import { createHash } from 'node:crypto';

/** How long a key is remembered (Stripe's idempotency keys also live 24 hours). */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** Keys remembered at most (~120 bytes each: about 12 MB at the bound); the oldest go first. */
export const MAX_KEYS = 100_000;

export interface IdempotencyMemory {
  /**
   * Remembers `key` with `body`'s digest, scoped to `scope` (the translator): true when the key is
   * new, expired, or was seen with the same body; false when it was seen with another body.
   */
  admit(scope: string, key: string, body: Uint8Array, now: number): boolean;
  readonly size: number;
}

export function createIdempotencyMemory(max = MAX_KEYS, ttlMs = KEY_TTL_MS): IdempotencyMemory {
  const seen = firstSeen<string>(max);
  return {
    admit(scope, key, body, now) {
      const digest = createHash('sha256').update(body).digest('base64');
      const known = seen.note(`${scope}\u0000${key}`, digest, now, ttlMs);
      return known === undefined || known.value === digest;
    },
    get size() {
      return seen.size;
    },
  };
}

/** Deliveries remembered at most by the replay memory; the oldest go first. */
export const MAX_DELIVERIES = 100_000;

export interface ReplayMemory {
  /**
   * Notes a verified delivery of `scope` (the translator): when it was first seen, if that was
   * less than `windowMs` ago (a replay), else undefined (and it is remembered from now).
   */
  seen(scope: string, delivery: string, now: number, windowMs: number): number | undefined;
  readonly size: number;
}

export function createReplayMemory(max = MAX_DELIVERIES): ReplayMemory {
  const seen = firstSeen<undefined>(max);
  return {
    seen: (scope, delivery, now, windowMs) =>
      seen.note(`${scope}\u0000${delivery}`, undefined, now, windowMs)?.at,
    get size() {
      return seen.size;
    },
  };
}

/**
 * The mechanism under both memories: names with when they were first seen and a value, at most
 * `max` (the oldest go first). `note` answers a name seen less than `windowMs` ago (the window
 * runs from the first sight: seeing it again does not extend it), else remembers it from now.
 */
function firstSeen<V>(max: number) {
  // A Map iterates in insertion order: an entry is re-inserted only when it starts anew, so the
  // oldest is first.
  const seen = new Map<string, { readonly at: number; readonly value: V }>();
  return {
    note(name: string, value: V, now: number, windowMs: number): { at: number; value: V } | undefined {
      const known = seen.get(name);
      if (known !== undefined && now - known.at < windowMs) return known;
      seen.delete(name);
      seen.set(name, { at: now, value });
      if (seen.size > max) seen.delete(seen.keys().next().value as string);
      return undefined;
    },
    get size() {
      return seen.size;
    },
  };
}
