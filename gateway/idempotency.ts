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
 * folds into the same events and a vendor's honest retry is never turned into an error.
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
  // A Map iterates in insertion order: re-inserting on use keeps the oldest first.
  const seen = new Map<string, { digest: string; at: number }>();
  return {
    admit(scope, key, body, now) {
      const name = `${scope}\u0000${key}`;
      const digest = createHash('sha256').update(body).digest('base64');
      const known = seen.get(name);
      if (known && now - known.at < ttlMs && known.digest !== digest) return false;
      if (known && now - known.at < ttlMs) return true;
      seen.delete(name);
      seen.set(name, { digest, at: now });
      if (seen.size > max) seen.delete(seen.keys().next().value as string);
      return true;
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
  const seen = new Map<string, number>();
  return {
    seen(scope, delivery, now, windowMs) {
      const name = `${scope}\u0000${delivery}`;
      const first = seen.get(name);
      // The window runs from the first sight: replays do not keep a delivery remembered forever.
      if (first !== undefined && now - first < windowMs) return first;
      seen.delete(name);
      seen.set(name, now);
      if (seen.size > max) seen.delete(seen.keys().next().value as string);
      return undefined;
    },
    get size() {
      return seen.size;
    },
  };
}
