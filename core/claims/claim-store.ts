/**
 * The one durable primitive behind "send once" (docs/delivery.md, "One event, one delivery"): a
 * claim is a small record under a key that exactly one writer can create, that a writer holding
 * its version can replace or release, and that expires. Two key spaces use it:
 *
 * - `identities/<identity digest>`: `store`'s first sighting of an event identity, so a
 *   producer's copy (a vendor's late retry, a browser's retry, a crash's redelivery) is one row.
 * - `sends/<delivery id>`: `forward`'s claim on (event identity, destination), taken before the
 *   platform is called, so a copy is one delivery whatever path brought it.
 * - `pending/<page view digest>`: `store`'s events of a page view decided before its consent
 *   platform answered, kept for a later answer (core/delivery/consent-wait.ts).
 *
 * The adapters (Cloud Storage objects created with `ifGenerationMatch=0`; a version is the
 * object's generation) implement it; core/claims/send-once.ts and core/store/store.ts decide what
 * a held claim means. Pure types: no I/O here.
 */

/** The two key spaces; each is a prefix (Cloud Storage) or a collection. */
export type ClaimSpace = 'identities' | 'sends' | 'pending';

export interface ClaimKey {
  readonly space: ClaimSpace;
  /** 64 lower-case hex characters (a SHA-256): names are uniform, never a producer's text. */
  readonly id: string;
}

/** What a claim records: flat, JSON-able values only (a document's fields, an object's JSON). */
export type ClaimFields = Readonly<Record<string, string | number | boolean>>;

/** A claim that exists, as read: its fields and the version a replace or release must name. */
export interface HeldClaim {
  readonly fields: ClaimFields;
  /** Opaque: the store's own version of this record (a generation, an update time). */
  readonly version: string;
  /** When the record stops counting (epoch ms): past it, it is as if absent (replace it). */
  readonly expireAt: number;
  /**
   * Set when the record exists but is not a claim this code writes (a field of another type, no
   * expiry): why. Its fields and expiry are then empty and 0; the version still names it, so a
   * caller replaces it from the claim store alone (a fault of ours never wedges a delivery).
   */
  readonly malformed?: string;
}

export type CreateAnswer =
  | { readonly created: true; readonly version: string }
  | { readonly created: false; readonly held: HeldClaim };

export interface ClaimStore {
  /**
   * Creates the claim only if no record exists under the key (an expired one still exists: the
   * answer is `held`, and the caller replaces it). Rejects when the store cannot be reached or
   * refuses (the caller fails the push; Pub/Sub brings it back).
   */
  create(key: ClaimKey, fields: ClaimFields, expireAt: number): Promise<CreateAnswer>;
  /**
   * Replaces the record if it is still at `version`: the new version, or undefined when another
   * writer changed or released it first (the caller reads the situation again).
   */
  replace(key: ClaimKey, version: string, fields: ClaimFields, expireAt: number): Promise<string | undefined>;
  /** Deletes the record if it is still at `version`; false when it was not (someone else's now). */
  release(key: ClaimKey, version: string): Promise<boolean>;
  /** The record under the key as it is now (expired or not), or undefined when there is none. */
  read(key: ClaimKey): Promise<HeldClaim | undefined>;
}

/** The claim's name in a store that has one namespace (`sends/<id>`). */
export const claimName = (key: ClaimKey): string => `${key.space}/${key.id}`;

const HEX64 = /^[0-9a-f]{64}$/;

/** Throws for a key that is not a SHA-256 in hex: no producer text ever becomes a name. */
export function checkClaimKey(key: ClaimKey): void {
  if (!HEX64.test(key.id)) throw new Error(`not a claim id: ${JSON.stringify(key.id)}`);
}
