/**
 * Retention in the Cloud Storage emulator, enforced as Cloud Storage does
 * (docs/storage-emulator.md, "Retention and holds"):
 * - a bucket's retention policy (`retentionPolicy.retentionPeriod`, seconds): an object younger
 *   than the period cannot be deleted or replaced; a locked policy (lockRetentionPolicy) cannot be
 *   removed or shortened;
 * - holds (`temporaryHold`, `eventBasedHold`, and the bucket's `defaultEventBasedHold` for new
 *   objects): a held object cannot be deleted or replaced;
 * - object retention (`retention: {mode, retainUntilTime}`, on buckets created with
 *   `enableObjectRetention=true`): the object cannot be deleted or replaced before
 *   `retainUntilTime`; an `Unlocked` retention is shortened or removed only with
 *   `overrideUnlockedRetention=true`, a `Locked` one never.
 * Refusals are 403 (PERMISSION_DENIED), as the JSON API reference documents for retention.
 * The checks run where every path crosses: the catalog, when a generation is deleted or replaced.
 */
import { StorageError } from './errors.ts';
import type { BucketState, ObjectState } from './records.ts';

/** The longest retention period Cloud Storage takes: 3,155,760,000 s (100 years). */
const MAX_RETENTION_SECONDS = 3_155_760_000;

export interface RetentionPolicy {
  retentionPeriod: string;
  effectiveTime: string;
  isLocked?: true;
}

export interface ObjectRetention {
  mode: 'Unlocked' | 'Locked';
  retainUntilTime: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const policyOf = (b: BucketState): RetentionPolicy | undefined =>
  b.extra.retentionPolicy as RetentionPolicy | undefined;

/** A `retentionPolicy` from a request body, as the bucket keeps it. */
export function parsePolicy(v: unknown, now: string): RetentionPolicy {
  const raw = isRecord(v) ? v.retentionPeriod : undefined;
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (
    typeof text !== 'string' ||
    !/^\d+$/.test(text) ||
    Number(text) <= 0 ||
    Number(text) > MAX_RETENTION_SECONDS
  )
    throw new StorageError(
      'invalid',
      `Invalid argument: retentionPolicy.retentionPeriod must be a number of seconds from 1 to ${MAX_RETENTION_SECONDS}.`,
    );
  return { retentionPeriod: String(Number(text)), effectiveTime: now };
}

const lockedRefusal = (): StorageError =>
  new StorageError(
    'forbidden',
    'Cannot reduce retention duration or remove the retention policy of a bucket with a locked retention policy.',
    { status: 'PERMISSION_DENIED' },
  );

/**
 * A bucket's retention policy after a patch or update: a locked policy stays locked (a longer
 * period is allowed), and removing or shortening it is 403.
 */
export function settleRetention(current: BucketState, next: BucketState): void {
  const was = policyOf(current);
  const now = policyOf(next);
  if (was === now) return;
  if (!was?.isLocked) return;
  if (!now || Number(now.retentionPeriod) < Number(was.retentionPeriod)) throw lockedRefusal();
  next.extra.retentionPolicy = { ...now, isLocked: true };
}

/** lockRetentionPolicy: the bucket with its policy locked (the caller checks the metageneration). */
export function lockedPolicy(b: BucketState): RetentionPolicy {
  const p = policyOf(b);
  if (!p)
    throw new StorageError('invalid', 'The bucket has no retention policy to lock.', {
      status: 'INVALID_ARGUMENT',
    });
  return { ...p, isLocked: true };
}

/** When an object's bucket retention ends, if the bucket has a policy. */
export function retentionExpiration(b: BucketState | undefined, o: ObjectState): string | undefined {
  const p = b && policyOf(b);
  if (!p) return undefined;
  return new Date(Date.parse(o.timeCreated) + Number(p.retentionPeriod) * 1000).toISOString();
}

/** An object's `retention` from a request body; null removes it. */
export function parseObjectRetention(v: unknown): ObjectRetention | null {
  if (v === null) return null;
  const mode = isRecord(v) ? v.mode : undefined;
  const until = isRecord(v) ? v.retainUntilTime : undefined;
  if (mode !== 'Unlocked' && mode !== 'Locked')
    throw new StorageError('invalid', 'Invalid argument: retention.mode must be Unlocked or Locked.');
  if (typeof until !== 'string' || Number.isNaN(Date.parse(until)))
    throw new StorageError(
      'invalid',
      'Invalid argument: retention.retainUntilTime must be an RFC 3339 time.',
    );
  return { mode, retainUntilTime: new Date(Date.parse(until)).toISOString() };
}

const retentionOf = (meta: Record<string, unknown>): ObjectRetention | undefined =>
  meta.retention as ObjectRetention | undefined;

/** Object retention is set only on buckets created with it enabled (400 otherwise). */
export function checkRetentionAllowed(b: BucketState, meta: Record<string, unknown>): void {
  if (retentionOf(meta) && !isRecord(b.extra.objectRetention))
    throw new StorageError('invalid', `Object retention is not enabled on bucket ${b.name}.`);
}

/**
 * A change of an object's retention (objects.patch / update): removing or shortening an `Unlocked`
 * one needs `overrideUnlockedRetention`, a `Locked` one can only be extended.
 */
export function checkRetentionChange(
  b: BucketState,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  override: boolean,
): void {
  checkRetentionAllowed(b, after);
  const was = retentionOf(before);
  const now = retentionOf(after);
  if (!was) return;
  const weaker =
    !now ||
    Date.parse(now.retainUntilTime) < Date.parse(was.retainUntilTime) ||
    (was.mode === 'Locked' && now.mode !== 'Locked');
  if (!weaker) return;
  if (was.mode === 'Unlocked' && override) return;
  throw new StorageError(
    'forbidden',
    was.mode === 'Locked'
      ? 'A locked object retention cannot be removed or shortened.'
      : 'Removing or shortening an unlocked object retention needs overrideUnlockedRetention=true.',
    { status: 'PERMISSION_DENIED' },
  );
}

/**
 * Refuses deleting or replacing a generation that a hold, the bucket's retention policy or its
 * object retention still protects (403, reason `retentionPolicyNotMet`).
 */
export function checkRemovable(b: BucketState, o: ObjectState, now = Date.now()): void {
  const refuse = (why: string): never => {
    throw new StorageError('retentionPolicyNotMet', `Object '${o.bucket}/${o.name}' ${why}`, {
      status: 'PERMISSION_DENIED',
    });
  };
  const until = 'cannot be deleted or overwritten until';
  if (o.meta.temporaryHold === true)
    refuse('is under active Temporary hold and cannot be deleted or overwritten until the hold is removed.');
  if (o.meta.eventBasedHold === true)
    refuse(
      'is under active Event-Based hold and cannot be deleted or overwritten until the hold is removed.',
    );
  const expiry = retentionExpiration(b, o);
  if (expiry && Date.parse(expiry) > now)
    refuse(`is subject to bucket's retention policy and ${until} ${expiry}.`);
  const kept = retentionOf(o.meta);
  if (kept && Date.parse(kept.retainUntilTime) > now)
    refuse(`is subject to object retention and ${until} ${kept.retainUntilTime}.`);
}
