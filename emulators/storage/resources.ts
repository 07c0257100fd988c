/**
 * The JSON resources Cloud Storage answers with (`storage#bucket`, `storage#object`), from the
 * records the emulator keeps (records.ts). Only fields a user writes are kept as given; the rest
 * (ids, links, etags, sizes, times) is derived when a resource is rendered.
 */
import { mergeIamConfiguration, renderIamConfiguration } from './acl.ts';
import { StorageError } from './errors.ts';
import type { BucketState, ObjectState } from './records.ts';
import { parseObjectRetention, parsePolicy, retentionExpiration } from './retention.ts';
import { parseSoftDeletePolicy } from './soft-delete.ts';

/** What an object's resource shows depends on: its bucket (retention), the request's key (hashes). */
export interface ObjectView {
  readonly bucket?: BucketState | undefined;
  /** SHA-256 of the customer-supplied key the request carries. */
  readonly keySha256?: string | undefined;
}

/** Object fields a request may set; anything else in a request body is ignored. */
const OBJECT_WRITABLE = [
  'contentType',
  'contentEncoding',
  'contentDisposition',
  'contentLanguage',
  'cacheControl',
  'metadata',
  'customTime',
  'temporaryHold',
  'eventBasedHold',
  'storageClass',
  'retention',
] as const;

const BUCKET_DERIVED = new Set([
  'kind',
  'id',
  'selfLink',
  'name',
  'projectNumber',
  'timeCreated',
  'updated',
  'metageneration',
  'etag',
  'location',
  'locationType',
  'storageClass',
  'labels',
  'versioning',
  'owner',
  'acl',
  'defaultObjectAcl',
  'objectRetention',
  'generation',
  'softDeleteTime',
  'hardDeleteTime',
]);

const MAX_CUSTOM_METADATA_BYTES = 8 * 1024;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Merges a `{key: value | null}` patch into a string map (null removes the key). */
export function mergeStringMap(
  base: Record<string, string>,
  patch: unknown,
  field: string,
): Record<string, string> {
  if (patch === null) return {};
  if (!isRecord(patch)) throw new StorageError('invalid', `Invalid value for ${field}: expected an object`);
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = String(v);
  }
  return out;
}

/** The writable object metadata of a request body, merged onto `base` (patch) or alone (insert/update). */
export function objectMeta(body: unknown, base: Record<string, unknown> = {}): Record<string, unknown> {
  if (body === undefined) return { ...base };
  if (!isRecord(body)) throw new StorageError('invalid', 'The object resource must be a JSON object.');
  const out: Record<string, unknown> = { ...base };
  for (const key of OBJECT_WRITABLE) {
    if (!(key in body)) continue;
    const v = body[key];
    if (key === 'metadata') {
      const merged = mergeStringMap((base.metadata as Record<string, string>) ?? {}, v, 'metadata');
      const bytes = Object.entries(merged).reduce(
        (n, [k, x]) => n + Buffer.byteLength(k) + Buffer.byteLength(x),
        0,
      );
      if (bytes > MAX_CUSTOM_METADATA_BYTES)
        throw new StorageError('invalid', 'Custom metadata is over the 8 KiB limit.');
      if (Object.keys(merged).length === 0) delete out.metadata;
      else out.metadata = merged;
    } else if (key === 'retention') {
      const r = parseObjectRetention(v);
      if (r) out.retention = r;
      else delete out.retention;
    } else if (v === null || v === undefined) delete out[key];
    else out[key] = key === 'temporaryHold' || key === 'eventBasedHold' ? Boolean(v) : String(v);
  }
  return out;
}

/** Bucket settings from an insert or patch body, applied to `base`. */
export function applyBucketBody(base: BucketState, body: Record<string, unknown>): BucketState {
  const next: BucketState = { ...base, extra: { ...base.extra } };
  if ('labels' in body) next.labels = mergeStringMap(base.labels, body.labels, 'labels');
  if ('versioning' in body) next.versioning = isRecord(body.versioning) && body.versioning.enabled === true;
  if (typeof body.storageClass === 'string') next.storageClass = body.storageClass.toUpperCase();
  for (const [k, v] of Object.entries(body)) {
    if (BUCKET_DERIVED.has(k)) continue;
    // An empty list (cors: []) or null removes the setting, as Cloud Storage answers it.
    if (v === null || (Array.isArray(v) && v.length === 0)) delete next.extra[k];
    else if (k === 'autoclass' && isRecord(v)) next.extra[k] = { ...v, toggleTime: new Date().toISOString() };
    else if (k === 'iamConfiguration') next.extra[k] = mergeIamConfiguration(base.extra[k], v);
    else if (k === 'retentionPolicy') next.extra[k] = parsePolicy(v, new Date().toISOString());
    else if (k === 'softDeletePolicy') next.extra[k] = parseSoftDeletePolicy(v, new Date().toISOString());
    else next.extra[k] = v;
  }
  return next;
}

function etag(a: number, b: number): string {
  return Buffer.from(`${a}/${b}`).toString('base64');
}

/** Path segment encoding the client uses for object names (`/` as %2F). */
export const enc = encodeURIComponent;

/** Cloud Storage's predefined dual-regions; others are a multi-region with two `dataLocations`. */
const DUAL_REGIONS = new Set(['ASIA1', 'EUR4', 'EUR5', 'EUR7', 'EUR8', 'NAM4']);

function locationType(b: BucketState): string {
  const placement = b.extra.customPlacementConfig;
  if (DUAL_REGIONS.has(b.location) || (isRecord(placement) && Array.isArray(placement.dataLocations)))
    return 'dual-region';
  return b.location.includes('-') ? 'region' : 'multi-region';
}

export function renderBucket(b: BucketState, base: string): Record<string, unknown> {
  return {
    kind: 'storage#bucket',
    selfLink: `${base}/storage/v1/b/${enc(b.name)}`,
    id: b.name,
    name: b.name,
    projectNumber: '0',
    metageneration: String(b.metageneration),
    generation: String(b.generation ?? Date.parse(b.timeCreated) * 1000),
    ...(b.softDeleteTime ? { softDeleteTime: b.softDeleteTime, hardDeleteTime: b.hardDeleteTime } : {}),
    location: b.location,
    locationType: locationType(b),
    storageClass: b.storageClass,
    etag: etag(b.metageneration, 0),
    timeCreated: b.timeCreated,
    updated: b.updated,
    ...(Object.keys(b.labels).length > 0 ? { labels: b.labels } : {}),
    ...(b.versioning ? { versioning: { enabled: true } } : {}),
    ...b.extra,
    iamConfiguration: renderIamConfiguration(b),
  };
}

export function renderObject(o: ObjectState, base: string, view: ObjectView = {}): Record<string, unknown> {
  const path = `b/${enc(o.bucket)}/o/${enc(o.name)}`;
  // An encrypted object's hashes are shown only to a request with its key, as in Cloud Storage.
  const hashes = o.keySha256 === undefined || o.keySha256 === view.keySha256;
  const expires = retentionExpiration(view.bucket, o);
  return {
    kind: 'storage#object',
    id: `${o.bucket}/${o.name}/${o.generation}`,
    selfLink: `${base}/storage/v1/${path}`,
    mediaLink: `${base}/download/storage/v1/${path}?generation=${o.generation}&alt=media`,
    name: o.name,
    bucket: o.bucket,
    generation: String(o.generation),
    metageneration: String(o.metageneration),
    contentType: 'application/octet-stream',
    storageClass: 'STANDARD',
    size: String(o.size),
    ...(o.md5 && hashes ? { md5Hash: o.md5 } : {}),
    ...(hashes ? { crc32c: o.crc32c } : {}),
    ...(o.keySha256 ? { customerEncryption: { encryptionAlgorithm: 'AES256', keySha256: o.keySha256 } } : {}),
    ...(expires ? { retentionExpirationTime: expires } : {}),
    ...(o.softDeleteTime ? { softDeleteTime: o.softDeleteTime, hardDeleteTime: o.hardDeleteTime } : {}),
    ...(o.restoreToken ? { restoreToken: o.restoreToken } : {}),
    etag: etag(o.generation, o.metageneration),
    timeCreated: o.timeCreated,
    updated: o.updated,
    timeStorageClassUpdated: o.timeCreated,
    timeFinalized: o.timeCreated,
    ...(o.timeDeleted ? { timeDeleted: o.timeDeleted } : {}),
    ...(o.componentCount ? { componentCount: o.componentCount } : {}),
    ...o.meta,
  };
}
