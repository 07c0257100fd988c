/**
 * The mapping engine: applies a resolved mapping to one stored event and returns the
 * platform event it describes. Pure and total: missing source values leave fields out;
 * whether the result is acceptable is the target layer's question, not this one's.
 */

import type { FieldSource, ResolvedMapping, Transform } from '../../schemas/mapping.ts';
import type { StoredEvent } from '../event.ts';
import * as t from './transforms.ts';

/** A mapped platform event: its name and the payload built from the mapping's fields. */
export interface MappedEvent {
  readonly event: string;
  readonly payload: Record<string, unknown>;
}

/** Applies a mapping to an event: every target field is evaluated in order and set when it has a value. */
export function applyMapping(mapping: ResolvedMapping, event: StoredEvent): MappedEvent {
  const payload: Record<string, unknown> = {};
  for (const [target, rule] of Object.entries(mapping.fields)) {
    const value = evaluate(rule, { event, item: undefined });
    if (value !== undefined) setPath(payload, target, value);
  }
  return { event: mapping.event, payload };
}

/** Where one field of a mapped event came from: the source path(s) read and the transforms applied. */
export interface FieldOrigin {
  readonly target: string;
  readonly source: string;
  readonly transforms: readonly string[];
}

/**
 * The origin of every field a mapping fills for this event (fields left out are not listed): the
 * path that gave the value (the first present one of `from`), a constant, or the shape of a list,
 * object or `each`, with the transform chain. Preview prints it next to the request.
 */
export function traceMapping(mapping: ResolvedMapping, event: StoredEvent): FieldOrigin[] {
  const scope: Scope = { event, item: undefined };
  const out: FieldOrigin[] = [];
  for (const [target, rule] of Object.entries(mapping.fields)) {
    if (evaluate(rule, scope) === undefined) continue;
    const transforms = transformsOf(rule, scope);
    out.push({ target, source: describeSource(rule, scope), transforms: transforms.map(transformName) });
  }
  return out;
}

/** The transform chain that made the value (of the `first` rule that gave one). */
function transformsOf(rule: FieldSource, scope: Scope): readonly Transform[] {
  if (typeof rule !== 'object') return [];
  if ('first' in rule) {
    const used = rule.first.find((r) => evaluate(r, scope) !== undefined);
    return used === undefined ? [] : transformsOf(used, scope);
  }
  return 'transform' in rule ? (rule.transform ?? []) : [];
}

function transformName(tr: Transform): string {
  return typeof tr === 'string' ? tr : JSON.stringify(tr);
}

function describeSource(rule: FieldSource, scope: Scope): string {
  if (typeof rule === 'string') return rule;
  if ('const' in rule) return `constant ${JSON.stringify(rule.const)}`;
  if ('first' in rule) {
    const used = rule.first.find((r) => evaluate(r, scope) !== undefined);
    return used === undefined ? 'nothing' : describeSource(used, scope);
  }
  if ('from' in rule) {
    const paths = Array.isArray(rule.from) ? rule.from : [rule.from];
    const used = paths.find((p) => present(readSource(scope.event, p, scope.item)));
    if (used !== undefined) return used;
    const fallback = rule.default === undefined ? '' : ` (default ${JSON.stringify(rule.default)})`;
    return `${paths.join(' → ')}${fallback}`;
  }
  if ('list' in rule) return `[${rule.list.map((r) => describeSource(r, scope)).join(', ')}]`;
  if ('object' in rule) return describeFields(rule.object, scope);
  if ('fields' in rule) return `each ${rule.each} → ${describeFields(rule.fields, scope)}`;
  return `each ${rule.each} → ${describeSource(rule.value, scope)}`;
}

function describeFields(fields: Readonly<Record<string, FieldSource>>, scope: Scope): string {
  const parts = Object.entries(fields).map(([k, r]) => `${k}: ${describeSource(r, scope)}`);
  return `{${parts.join(', ')}}`;
}

interface Scope {
  readonly event: StoredEvent;
  /** The current element inside `each` (read by `$.x` paths). */
  readonly item: unknown;
}

/**
 * Reads a source path. Context fields sit at the top of a stored event and event fields in
 * `event_data`; producers write both at the top level, so a path that is not found at the
 * top is looked up in `event_data` (`value` means `event_data.value`). `$` is the `each` element.
 */
export function readSource(event: StoredEvent, path: string, item?: unknown): unknown {
  if (path === '$') return item;
  if (path.startsWith('$.')) return walk(item, path.slice(2).split('.'));
  const parts = path.split('.');
  const top = walk(event, parts);
  if (top !== undefined) return top;
  return walk(event.event_data, parts[0] === 'event_data' ? parts.slice(1) : parts);
}

function walk(root: unknown, parts: readonly string[]): unknown {
  let current = root;
  for (const part of parts) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

function evaluate(rule: FieldSource, scope: Scope): unknown {
  if (typeof rule === 'string') {
    const v = readSource(scope.event, rule, scope.item);
    return present(v) ? v : undefined;
  }
  if ('const' in rule) return rule.const;
  if ('first' in rule) {
    for (const r of rule.first) {
      const v = evaluate(r, scope);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  if ('from' in rule) {
    const paths = Array.isArray(rule.from) ? rule.from : [rule.from];
    let value: unknown;
    for (const p of paths) {
      const v = readSource(scope.event, p, scope.item);
      if (present(v)) {
        value = v;
        break;
      }
    }
    if (value !== undefined) value = applyTransforms(value, rule.transform ?? [], scope);
    return value ?? rule.default;
  }
  if ('list' in rule) {
    const values = rule.list.map((r) => evaluate(r, scope)).filter((v) => v !== undefined);
    return values.length === 0 ? undefined : applyTransforms(values, rule.transform ?? [], scope);
  }
  if ('object' in rule) {
    const built = buildObject(rule.object, scope);
    const missing = (rule.required ?? []).some(
      (k) => built === undefined || !present((built as Record<string, unknown>)[k]),
    );
    return missing ? undefined : built;
  }
  if ('each' in rule) {
    const source = readSource(scope.event, rule.each, scope.item);
    if (!Array.isArray(source)) return undefined;
    const out = source
      .map((item) => {
        const inner: Scope = { event: scope.event, item };
        return 'fields' in rule ? buildObject(rule.fields, inner) : evaluate(rule.value, inner);
      })
      .filter((v) => v !== undefined);
    return out.length === 0 ? undefined : out;
  }
  return undefined;
}

/**
 * Builds a nested object from rules. An object whose only values are constants carries no
 * data of the event (`{quantity: 1}` without an id), so it is left out.
 */
function buildObject(fields: Readonly<Record<string, FieldSource>>, scope: Scope): unknown {
  const out: Record<string, unknown> = {};
  let fromEvent = false;
  for (const [key, rule] of Object.entries(fields)) {
    const v = evaluate(rule, scope);
    if (v === undefined) continue;
    setPath(out, key, v);
    if (typeof rule === 'string' || !('const' in rule)) fromEvent = true;
  }
  return fromEvent ? out : undefined;
}

/** Sets a dotted path, creating intermediate objects. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let current = target;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  current[parts[parts.length - 1] as string] = value;
}

/** Transforms that only normalise text before hashing: an already-hashed value passes through them. */
const NORMALISERS = new Set([
  'trim',
  'google_email',
  'google_ads_email',
  'google_ads_name',
  'reddit_email',
  'lowercase',
  'name',
  'city',
  'state',
  'zip',
  'country',
  'gender',
  'date_of_birth',
]);

function applyTransforms(value: unknown, transforms: readonly Transform[], scope: Scope): unknown {
  let v: unknown = value;
  for (const tr of transforms) {
    if (v === undefined) return undefined;
    v = applyOne(v, tr, scope);
  }
  return v;
}

function applyOne(value: unknown, tr: Transform, scope: Scope): unknown {
  if (typeof tr === 'object') {
    if ('join' in tr) {
      if (!Array.isArray(value)) return value;
      const parts = value.map(t.toText).filter((s) => s !== undefined);
      return parts.length === 0 ? undefined : parts.join(tr.join);
    }
    if ('oneOf' in tr) {
      // A value outside a platform's documented set would make the event invalid: leave it out.
      const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
      return tr.oneOf.find((allowed) => allowed.toLowerCase() === text);
    }
    const country = readSource(scope.event, tr.country ?? 'user.country', scope.item);
    return eachString(value, (s) =>
      t.isSha256(s)
        ? s.toLowerCase()
        : t.phone(s, tr.phone, typeof country === 'string' ? country : undefined),
    );
  }
  switch (tr) {
    case 'list':
      return Array.isArray(value) ? value : [value];
    case 'sum':
      return t.sum(value);
    case 'number':
      return eachValue(value, t.toNumber);
    case 'string':
      return eachValue(value, t.toText);
    case 'unix_seconds':
      return eachValue(value, t.unixSeconds);
    case 'unix_micros':
      return eachValue(value, t.unixMicros);
    case 'unix_millis':
      return eachValue(value, t.unixMillis);
    case 'sha256':
      return eachString(value, t.sha256);
    case 'fbc':
      // Meta's click-id cookie format; a value that already is one passes through.
      return eachString(value, (s) => {
        if (s.startsWith('fb.')) return s;
        const ms = Date.parse(scope.event.event_time);
        return Number.isNaN(ms) ? undefined : `fb.1.${ms}.${s}`;
      });
    default: {
      const fn = TEXT[tr];
      return eachString(value, (s) =>
        NORMALISERS.has(tr) && t.isSha256(s) ? s.toLowerCase() : fn(s, scope),
      );
    }
  }
}

const TEXT: Record<
  Exclude<
    Transform,
    | object
    | 'list'
    | 'number'
    | 'string'
    | 'unix_seconds'
    | 'unix_micros'
    | 'unix_millis'
    | 'sha256'
    | 'fbc'
    | 'sum'
  >,
  (s: string, scope: Scope) => string | undefined
> = {
  trim: (s) => s.trim(),
  lowercase: (s) => s.toLowerCase(),
  uppercase: (s) => s.toUpperCase(),
  name: t.personName,
  city: t.city,
  state: t.state,
  zip: (s, scope) => {
    const c = readSource(scope.event, 'user.country', scope.item);
    return t.zip(s, typeof c === 'string' ? c : undefined);
  },
  country: t.country,
  google_email: t.googleEmail,
  google_ads_email: t.googleAdsEmail,
  google_ads_name: t.googleAdsName,
  reddit_email: t.redditEmail,
  pseudonymous_id: t.pseudonymousId,
  gender: t.gender,
  date_of_birth: t.dateOfBirth,
};

/** Applies a text function to a string or to every string of a list; non-strings are dropped. */
function eachString(value: unknown, fn: (s: string) => string | undefined): unknown {
  return eachValue(value, (v) => {
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string') return undefined;
    const out = fn(s);
    return out === '' ? undefined : out;
  });
}

function eachValue(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (!Array.isArray(value)) return fn(value);
  const out = value.map(fn).filter((v) => v !== undefined);
  return out.length === 0 ? undefined : out;
}
