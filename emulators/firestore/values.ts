/**
 * Firestore's typed values as the REST API carries them (`Value`: exactly one of stringValue,
 * integerValue (int64 as a decimal string), doubleValue, booleanValue, timestampValue (RFC 3339),
 * nullValue, mapValue, arrayValue, bytesValue (base64), referenceValue, geoPointValue), checked
 * and normalized on the way in; timestamps as microseconds since the epoch, the precision
 * Firestore keeps; and field paths (`a.b`, a segment with other characters in backticks).
 */
import { invalid } from './errors.ts';

export type Value = Readonly<Record<string, unknown>>;
export type Fields = Readonly<Record<string, Value>>;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Microseconds since the epoch of an RFC 3339 time; `exact` refuses a sub-microsecond part. */
export function parseTime(text: unknown, what: string, exact = false): bigint {
  const m = typeof text === 'string' ? RFC3339.exec(text) : null;
  if (!m) throw invalid(`Invalid value for ${what}: ${JSON.stringify(text)} is not an RFC 3339 timestamp.`);
  const frac = (m[7] ?? '').padEnd(9, '0');
  if (exact && frac.slice(6) !== '000')
    throw invalid(`${what} must be microsecond aligned: ${text as string}`);
  const base = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8]?.toUpperCase()}`);
  if (Number.isNaN(base) || Number(m[1]) < 1 || Number(m[2]) > 12)
    throw invalid(`Invalid value for ${what}: ${text as string}`);
  return BigInt(base) * 1000n + BigInt(frac.slice(0, 6));
}

/** RFC 3339 in UTC, with 0, 3 or 6 fractional digits, as protobuf's JSON writes a Timestamp. */
export function formatTime(micros: bigint): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const sub = Number(micros - ms * 1000n);
  const iso = new Date(Number(ms)).toISOString(); // …:SS.mmmZ
  const millis = iso.slice(20, 23);
  const whole = iso.slice(0, 19);
  if (sub === 0) return millis === '000' ? `${whole}Z` : `${whole}.${millis}Z`;
  return `${whole}.${millis}${String(sub).padStart(3, '0')}Z`;
}

const KINDS = [
  'nullValue',
  'booleanValue',
  'integerValue',
  'doubleValue',
  'timestampValue',
  'stringValue',
  'bytesValue',
  'referenceValue',
  'geoPointValue',
  'arrayValue',
  'mapValue',
] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value checked and normalized (integers as decimal strings, timestamps in UTC). */
export function normalizeValue(v: unknown, path: string): Value {
  if (!isObject(v)) throw invalid(`Invalid value at '${path}': a Value is an object.`);
  const keys = Object.keys(v).filter((k) => (KINDS as readonly string[]).includes(k));
  if (keys.length !== 1 || Object.keys(v).length !== 1)
    throw invalid(`Invalid value at '${path}': a Value must have exactly one of ${KINDS.join(', ')}.`);
  const kind = keys[0] as (typeof KINDS)[number];
  const x = v[kind];
  const bad = (): never => {
    throw invalid(`Invalid value at '${path}.${kind}': ${JSON.stringify(x)}`);
  };
  switch (kind) {
    case 'nullValue':
      return x === null || x === 'NULL_VALUE' || x === 0 ? { nullValue: null } : bad();
    case 'booleanValue':
      return typeof x === 'boolean' ? { booleanValue: x } : bad();
    case 'integerValue': {
      const text = typeof x === 'number' && Number.isSafeInteger(x) ? String(x) : x;
      if (typeof text !== 'string' || !/^-?\d{1,19}$/.test(text)) return bad();
      const n = BigInt(text as string);
      return n < INT64_MIN || n > INT64_MAX ? bad() : { integerValue: n.toString() };
    }
    case 'doubleValue':
      if (typeof x === 'number') return { doubleValue: x };
      return x === 'NaN' || x === 'Infinity' || x === '-Infinity' ? { doubleValue: x } : bad();
    case 'timestampValue':
      return { timestampValue: formatTime(parseTime(x, `${path}.timestampValue`)) };
    case 'stringValue':
      return typeof x === 'string' ? { stringValue: x } : bad();
    case 'bytesValue':
      return typeof x === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(x)
        ? { bytesValue: Buffer.from(x, 'base64').toString('base64') }
        : bad();
    case 'referenceValue':
      return typeof x === 'string' && /^projects\/[^/]+\/databases\/[^/]+\/documents\/.+/.test(x)
        ? { referenceValue: x }
        : bad();
    case 'geoPointValue': {
      if (!isObject(x)) return bad();
      const lat = x.latitude ?? 0;
      const lng = x.longitude ?? 0;
      if (typeof lat !== 'number' || typeof lng !== 'number' || Math.abs(lat) > 90 || Math.abs(lng) > 180)
        return bad();
      return { geoPointValue: { latitude: lat, longitude: lng } };
    }
    case 'arrayValue': {
      if (!isObject(x)) return bad();
      const values = x.values ?? [];
      if (!Array.isArray(values)) return bad();
      const out = values.map((e, i) => normalizeValue(e, `${path}[${i}]`));
      if (out.some((e) => 'arrayValue' in e))
        throw invalid(`Invalid value at '${path}': an array cannot directly contain another array.`);
      return { arrayValue: out.length ? { values: out } : {} };
    }
    case 'mapValue': {
      if (!isObject(x)) return bad();
      const fields = normalizeFields(x.fields ?? {}, path);
      return { mapValue: Object.keys(fields).length ? { fields } : {} };
    }
  }
}

/** A document's `fields` checked and normalized. */
export function normalizeFields(fields: unknown, at = 'fields'): Fields {
  if (!isObject(fields)) throw invalid(`Invalid value at '${at}': fields is a map of names to Values.`);
  const out: Record<string, Value> = {};
  for (const [name, v] of Object.entries(fields)) {
    if (name === '' || /^__.*__$/.test(name)) throw invalid(`Invalid field name at '${at}': "${name}"`);
    out[name] = normalizeValue(v, `${at}.${name}`);
  }
  return out;
}

/** The segments of a field path (`a.b`, `` `a.b`.c ``). */
export function parseFieldPath(path: string): string[] {
  const segs: string[] = [];
  let i = 0;
  while (i <= path.length) {
    if (path[i] === '`') {
      let seg = '';
      i += 1;
      for (; i < path.length && path[i] !== '`'; i += 1) {
        if (path[i] === '\\' && i + 1 < path.length) i += 1;
        seg += path[i];
      }
      if (path[i] !== '`') throw invalid(`Invalid field path: ${path}`);
      i += 1;
      segs.push(seg);
    } else {
      const end = path.indexOf('.', i);
      const seg = path.slice(i, end < 0 ? path.length : end);
      if (!/^[A-Za-z_][A-Za-z_0-9]*$/.test(seg)) throw invalid(`Invalid field path: ${path}`);
      segs.push(seg);
      i += seg.length;
    }
    if (i === path.length) return segs;
    if (path[i] !== '.') throw invalid(`Invalid field path: ${path}`);
    i += 1;
  }
  throw invalid(`Invalid field path: ${path}`);
}

const mapFields = (v: Value | undefined): Record<string, Value> | undefined =>
  v && isObject(v.mapValue) ? ((v.mapValue.fields as Record<string, Value> | undefined) ?? {}) : undefined;

/** The value at `segs` in `fields`, if any. */
export function valueAt(fields: Fields, segs: readonly string[]): Value | undefined {
  let cur: Fields | undefined = fields;
  for (const [i, s] of segs.entries()) {
    const v: Value | undefined = cur?.[s];
    if (i === segs.length - 1) return v;
    cur = mapFields(v);
  }
  return undefined;
}

/** `fields` with the value at `segs` set (or removed, for `undefined`); maps made on the way. */
export function withValueAt(fields: Fields, segs: readonly string[], v: Value | undefined): Fields {
  const [head, ...rest] = segs as [string, ...string[]];
  const out: Record<string, Value> = { ...fields };
  if (rest.length === 0) {
    if (v === undefined) delete out[head];
    else out[head] = v;
    return out;
  }
  const inner = withValueAt(mapFields(fields[head]) ?? {}, rest, v);
  out[head] = { mapValue: Object.keys(inner).length ? { fields: inner } : {} };
  return out;
}

/** Deep equality of normalized values (fields in any order). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameValue(a[k], b[k]));
  }
  return false;
}
