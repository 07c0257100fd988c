/**
 * Firestore's limits the emulator enforces, in one table, each with its source: what Firestore
 * refuses is refused here too, so code that would hit a limit in the cloud fails locally first.
 * Source: cloud.google.com/firestore/quotas ("Limits", read 2026-11) and, for the write rate of a
 * sequentially indexed field, cloud.google.com/firestore/docs/best-practices ("Hotspots": "a rate
 * of 500 writes per second to a collection where documents have monotonically increasing values").
 */
import { FirestoreError, invalid } from './errors.ts';
import type { Fields, Value } from './values.ts';

export const LIMITS = Object.freeze({
  /** "Maximum size for a document: 1 MiB (1,048,576 bytes)" (quotas, Limits). */
  documentBytes: 1_048_576,
  /** "Maximum depth of fields in a map or array: 20" (quotas, Limits). */
  fieldDepth: 20,
  /** "Maximum size of a document ID: 1,500 bytes" (quotas, Limits). */
  documentIdBytes: 1500,
  /**
   * "Maximum write rate to a collection in which documents contain sequential values in an
   * indexed field: 500 per second" (quotas, Limits; best-practices, Hotspots).
   */
  sequentialIndexWritesPerSecond: 500,
});

/** The size of a string as Firestore counts it: its UTF-8 bytes and 1. */
const stringSize = (s: string): number => Buffer.byteLength(s) + 1;

/** A value's size as Firestore's storage-size page counts it. */
function valueSize(v: Value): number {
  if (v.stringValue !== undefined) return stringSize(String(v.stringValue));
  if (v.bytesValue !== undefined) return Buffer.from(String(v.bytesValue), 'base64').length;
  if (v.referenceValue !== undefined) return nameSize(String(v.referenceValue));
  if (v.geoPointValue !== undefined) return 16;
  if (v.arrayValue !== undefined) {
    const values = ((v.arrayValue as { values?: Value[] }).values ?? []) as Value[];
    return values.reduce((n, x) => n + valueSize(x), 0);
  }
  if (v.mapValue !== undefined)
    return fieldsSize(((v.mapValue as { fields?: Fields }).fields ?? {}) as Fields);
  if (v.booleanValue !== undefined || v.nullValue !== undefined) return 1;
  // integer, double, timestamp: 8 bytes.
  return 8;
}

function fieldsSize(fields: Fields): number {
  let n = 0;
  for (const [k, v] of Object.entries(fields)) n += stringSize(k) + valueSize(v);
  return n;
}

/** A document name's size: each segment after `documents/` as a string, and 16. */
function nameSize(name: string): number {
  const path = name.slice(name.indexOf('/documents/') + '/documents/'.length);
  return path.split('/').reduce((n, s) => n + stringSize(s), 16);
}

/** How deep maps and arrays nest in a value (a scalar is 0, a map of scalars 1). */
function depthOf(v: Value): number {
  if (v.mapValue !== undefined)
    return 1 + fieldsDepth(((v.mapValue as { fields?: Fields }).fields ?? {}) as Fields);
  if (v.arrayValue !== undefined) {
    const values = ((v.arrayValue as { values?: Value[] }).values ?? []) as Value[];
    return 1 + values.reduce((d, x) => Math.max(d, depthOf(x)), 0);
  }
  return 0;
}

function fieldsDepth(fields: Fields): number {
  let d = 0;
  for (const v of Object.values(fields)) d = Math.max(d, depthOf(v));
  return d;
}

/** Refuses a document id over LIMITS.documentIdBytes, as Firestore does (INVALID_ARGUMENT). */
export function checkDocumentId(name: string): void {
  const id = name.slice(name.lastIndexOf('/') + 1);
  const bytes = Buffer.byteLength(id);
  if (bytes > LIMITS.documentIdBytes)
    throw invalid(`Document id is ${bytes} bytes; a document id is at most ${LIMITS.documentIdBytes} bytes.`);
}

/**
 * A document's storage size as Google's "Storage size calculations" page counts it: its name's
 * size, each field's name and value, and 32 bytes. What the 1 MiB limit below measures, and what
 * Firestore's storage is billed by (index entries apart).
 */
export function documentBytes(name: string, fields: Fields): number {
  return nameSize(name) + fieldsSize(fields) + 32;
}

/** Refuses a document over LIMITS.documentBytes or nesting deeper than LIMITS.fieldDepth. */
export function checkDocument(name: string, fields: Fields): void {
  // The document's own map is the first level: a top-level map field is depth 2.
  const depth = 1 + fieldsDepth(fields);
  if (depth > LIMITS.fieldDepth)
    throw invalid(`Document ${name} nests maps and arrays ${depth} deep; the limit is ${LIMITS.fieldDepth}.`);
  const size = documentBytes(name, fields);
  if (size > LIMITS.documentBytes)
    throw invalid(
      `Document ${name} is ${size} bytes, which exceeds the maximum allowed size of ${LIMITS.documentBytes} bytes.`,
    );
}

/** A field value as a number on an ordered scale, when it is one an index keeps in order. */
function ordered(v: Value): number | undefined {
  if (typeof v.timestampValue === 'string') return Date.parse(v.timestampValue);
  if (typeof v.integerValue === 'string') return Number(v.integerValue);
  if (typeof v.doubleValue === 'number') return v.doubleValue;
  return undefined;
}

/**
 * Writes of monotonically increasing values into an indexed field, per collection group and field
 * over the last second: above the limit Firestore's index tablet for the range is a hotspot and
 * writes meet contention and latency; the emulator answers ABORTED (409, "Too much contention",
 * Firestore's contention error), so a program that
 * indexes a rising field (a creation time) at a higher rate fails locally as it would degrade in
 * the cloud. Fields exempt from indexing (`fields.patch` with an empty `indexConfig`, as the
 * Pulumi program declares) are not counted. `now` is injected for tests.
 */
export class HotspotMeter {
  readonly #limit: number;
  readonly #now: () => number;
  readonly #fields = new Map<string, { max: number; times: number[] }>();

  constructor(limit: number = LIMITS.sequentialIndexWritesPerSecond, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  /**
   * Counts one document write (its top-level fields) of `group`, whose exempt fields are
   * `exempt`; throws ABORTED when a sequential indexed field is over the rate.
   */
  record(group: string, fields: Fields, exempt: ReadonlySet<string> | undefined): void {
    if (this.#limit <= 0) return;
    const now = this.#now();
    for (const [field, v] of Object.entries(fields)) {
      if (exempt?.has(field)) continue;
      const x = ordered(v);
      if (x === undefined || Number.isNaN(x)) continue;
      const key = `${group}\u0000${field}`;
      const seen = this.#fields.get(key) ?? { max: Number.NEGATIVE_INFINITY, times: [] };
      this.#fields.set(key, seen);
      // Only a value at or past the highest yet lands on the index's hot end.
      if (x < seen.max) continue;
      seen.max = x;
      const times = seen.times;
      while (times.length > 0 && (times[0] as number) <= now - 1000) times.shift();
      if (times.length >= this.#limit)
        throw new FirestoreError(
          'ABORTED',
          `Too much contention on ${group}: over ${this.#limit} writes a second of increasing values into the indexed field "${field}" (Firestore's limit for a sequentially indexed field; exempt the field from indexing).`,
        );
      times.push(now);
    }
  }
}
