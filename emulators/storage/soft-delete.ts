/**
 * Soft delete in the Cloud Storage emulator (docs/storage-emulator.md, "Soft delete"). A bucket's
 * `softDeletePolicy.retentionDurationSeconds` (0, or 7 to 90 days) keeps what is deleted for that
 * long: an object generation that is deleted or replaced for good, and the bucket itself when it
 * is deleted. Soft-deleted objects are listed with `softDeleted=true`, read with
 * `softDeleted=true&generation=`, and restored (`.../o/<name>/restore?generation=`) as a new live
 * generation; soft-deleted buckets likewise (`/b?softDeleted=true`, `/b/<name>/restore`). Past
 * `hardDeleteTime` they are gone (their files are removed at the next start).
 */
import { createHash } from 'node:crypto';
import { StorageError } from './errors.ts';
import type { BucketState, ObjectState } from './records.ts';

const DAY = 24 * 3600;
const MIN_SECONDS = 7 * DAY;
const MAX_SECONDS = 90 * DAY;

export interface SoftDeletePolicy {
  retentionDurationSeconds: string;
  effectiveTime: string;
}

/** When something soft-deleted at `time` is gone, and the token an HNS bucket's objects carry. */
export interface SoftMark {
  time: string;
  hard: string;
  token?: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A `softDeletePolicy` from a request body, as the bucket keeps it. */
export function parseSoftDeletePolicy(v: unknown, now: string): SoftDeletePolicy {
  const raw = isRecord(v) ? v.retentionDurationSeconds : undefined;
  const text = typeof raw === 'number' ? String(raw) : raw;
  const n = typeof text === 'string' && /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n === 0 || (n >= MIN_SECONDS && n <= MAX_SECONDS)))
    throw new StorageError(
      'invalid',
      `Invalid argument: softDeletePolicy.retentionDurationSeconds must be 0 or from ${MIN_SECONDS} to ${MAX_SECONDS}.`,
    );
  return { retentionDurationSeconds: String(n), effectiveTime: now };
}

const durationOf = (b: BucketState): number =>
  Number((b.extra.softDeletePolicy as SoftDeletePolicy | undefined)?.retentionDurationSeconds ?? 0);

const hierarchical = (b: BucketState): boolean => {
  const h = b.extra.hierarchicalNamespace;
  return isRecord(h) && h.enabled === true;
};

/**
 * How an object generation removed now is kept: undefined when the bucket keeps nothing. Objects of
 * a bucket with a hierarchical namespace carry a restore token.
 */
export function softMark(b: BucketState, o: ObjectState, now = Date.now()): SoftMark | undefined {
  const seconds = durationOf(b);
  if (seconds === 0) return undefined;
  const mark: SoftMark = {
    time: new Date(now).toISOString(),
    hard: new Date(now + seconds * 1000).toISOString(),
  };
  if (hierarchical(b))
    mark.token = createHash('sha256')
      .update(`${o.bucket}\n${o.name}\n${o.generation}\n${now}`)
      .digest('hex')
      .slice(0, 32);
  return mark;
}

/** The same for a bucket being deleted. */
export function bucketSoftMark(b: BucketState, now = Date.now()): SoftMark | undefined {
  const seconds = durationOf(b);
  if (seconds === 0) return undefined;
  return { time: new Date(now).toISOString(), hard: new Date(now + seconds * 1000).toISOString() };
}

/** A generation as it is kept once soft-deleted. */
export const softened = (o: ObjectState, m: SoftMark): ObjectState => ({
  ...o,
  softDeleteTime: m.time,
  hardDeleteTime: m.hard,
  ...(m.token ? { restoreToken: m.token } : {}),
});

export const expired = (hardDeleteTime: string | undefined, now = Date.now()): boolean =>
  hardDeleteTime !== undefined && Date.parse(hardDeleteTime) <= now;
