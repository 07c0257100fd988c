/**
 * The check of a defined event's `event_data` against its definition's fields
 * (docs/definitions.md): types, required fields, enums, bounds, lengths and formats, nested
 * objects and arrays, and no field the definition does not list. Compiled once per definition
 * version into a tree of small checks; never throws, whatever the data.
 *
 * Hand-written rather than a JSON Schema validator's: each message says what was expected and
 * what came, in the producer's terms (`expected a number, got "12,5"`), and a field that is not
 * in the definition says how to add it.
 */
import { isValidPhoneNumber } from 'libphonenumber-js';
import type { FieldViolation } from '../validation.ts';
import type { FieldSpec, FieldType } from './definitions.ts';

/** Validates an event's `event_data`; violations carry paths under `prefix` (`amount`, `items[2].sku`). */
export type DefinitionValidator = (data: unknown, prefix?: string) => FieldViolation[];

type Check = (value: unknown, path: string, out: FieldViolation[]) => void;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as a message shows it: JSON, at most 64 characters. */
export function shown(v: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return shown(v);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const CURRENCY = /^[A-Z]{3}$/;
const COUNTRY = /^[A-Z]{2}$/;

function realDate(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return (
    date.getUTCFullYear() === Number(y) &&
    date.getUTCMonth() === Number(m) - 1 &&
    date.getUTCDate() === Number(d)
  );
}

function isUrl(s: string): boolean {
  if (!/^https?:\/\//i.test(s)) return false;
  try {
    return new URL(s).hostname !== '';
  } catch {
    return false;
  }
}

const FORMATS: Readonly<
  Record<NonNullable<FieldSpec['format']>, { test: (s: string) => boolean; what: string }>
> = {
  email: { test: (s) => s.length <= 254 && EMAIL.test(s), what: 'an email address' },
  url: { test: isUrl, what: 'an absolute http(s) URL' },
  uuid: { test: (s) => UUID.test(s), what: 'a UUID' },
  currency: { test: (s) => CURRENCY.test(s), what: 'an ISO 4217 currency code (three capitals, EUR)' },
  country: { test: (s) => COUNTRY.test(s), what: 'an ISO 3166-1 country code (two capitals, DE)' },
  phone: {
    test: (s) => /^\+[1-9]\d{7,14}$/.test(s) && isValidPhoneNumber(s),
    what: 'a phone number in E.164 (+4930123456)',
  },
};

/** The type check of a scalar type: undefined when the value has it, else what was expected. */
function scalarProblem(type: Exclude<FieldType, 'array' | 'object'>, v: unknown): string | undefined {
  switch (type) {
    case 'string':
      return typeof v === 'string' ? undefined : 'a string';
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v) ? undefined : 'an integer';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : 'a number';
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'true or false';
    case 'timestamp': {
      const m = typeof v === 'string' ? RFC3339.exec(v) : null;
      return m && realDate(m[1] as string, m[2] as string, m[3] as string)
        ? undefined
        : 'a date and time in RFC 3339 with an offset (2026-03-01T12:00:00Z)';
    }
    case 'date': {
      const m = typeof v === 'string' ? DATE.exec(v) : null;
      return m && realDate(m[1] as string, m[2] as string, m[3] as string)
        ? undefined
        : 'a calendar date (2026-03-01)';
    }
    case 'json':
      return undefined;
  }
}

function compileField(f: FieldSpec): Check {
  const checks: Check[] = [];
  if (f.type === 'object') {
    checks.push(objectCheck(f.fields ?? []));
  } else if (f.type === 'array') {
    const item: Check = f.fields
      ? objectCheck(f.fields)
      : f.items
        ? scalarCheck({ name: f.name, type: f.items })
        : () => {};
    checks.push((v, path, out) => {
      if (!Array.isArray(v)) {
        out.push({ field: path, description: `expected a list, got ${kind(v)}` });
        return;
      }
      v.forEach((x, i) => {
        item(x, `${path}[${i}]`, out);
      });
    });
  } else checks.push(scalarCheck(f));
  return (v, path, out) => {
    for (const c of checks) c(v, path, out);
  };
}

function scalarCheck(
  f: Pick<FieldSpec, 'name' | 'type' | 'enum' | 'format' | 'minimum' | 'maximum' | 'minLength' | 'maxLength'>,
): Check {
  const type = f.type as Exclude<FieldType, 'array' | 'object'>;
  const format = f.format ? FORMATS[f.format] : undefined;
  const allowed = f.enum ? new Set<unknown>(f.enum) : undefined;
  return (v, path, out) => {
    const expected = scalarProblem(type, v);
    if (expected) {
      out.push({ field: path, description: `expected ${expected}, got ${kind(v)}` });
      return;
    }
    if (allowed && !allowed.has(v)) {
      out.push({
        field: path,
        description: `must be one of ${shown([...allowed]).slice(1, -1)}, got ${shown(v)}`,
      });
    }
    if (typeof v === 'number') {
      if (f.minimum !== undefined && v < f.minimum)
        out.push({ field: path, description: `must be at least ${f.minimum}, got ${v}` });
      if (f.maximum !== undefined && v > f.maximum)
        out.push({ field: path, description: `must be at most ${f.maximum}, got ${v}` });
    }
    if (typeof v === 'string') {
      const length = [...v].length;
      if (f.minLength !== undefined && length < f.minLength)
        out.push({ field: path, description: `must have at least ${f.minLength} characters, has ${length}` });
      if (f.maxLength !== undefined && length > f.maxLength)
        out.push({ field: path, description: `must have at most ${f.maxLength} characters, has ${length}` });
      if (format && !format.test(v))
        out.push({ field: path, description: `expected ${format.what}, got ${shown(v)}` });
    }
  };
}

function objectCheck(fields: readonly FieldSpec[]): Check {
  const byName = new Map(fields.map((f) => [f.name, { spec: f, check: compileField(f) }]));
  const required = fields.filter((f) => f.required).map((f) => f.name);
  return (v, path, out) => {
    if (!isRecord(v)) {
      out.push({ field: path || '(event_data)', description: `expected an object, got ${kind(v)}` });
      return;
    }
    const at = (name: string) => (path ? `${path}.${name}` : name);
    for (const name of required) {
      if (!Object.hasOwn(v, name) || v[name] === null || v[name] === undefined)
        out.push({ field: at(name), description: 'is required' });
    }
    for (const [name, value] of Object.entries(v)) {
      const f = byName.get(name);
      if (!f) {
        out.push({
          field: at(name),
          description: 'is not in the definition; add it as an optional field (a minor version)',
        });
        continue;
      }
      // null is absent: required fields are reported above, optional ones may be null.
      if (value === null || value === undefined) continue;
      f.check(value, at(name), out);
    }
  };
}

/** Compiles a definition's fields into a validator of `event_data`. */
export function compileDefinition(fields: readonly FieldSpec[]): DefinitionValidator {
  const check = objectCheck(fields);
  return (data, prefix = '') => {
    const out: FieldViolation[] = [];
    try {
      check(data, prefix, out);
    } catch (err) {
      // Not expected for any input; a validator never throws into the request path.
      out.push({ field: prefix || '(event_data)', description: `could not be checked: ${String(err)}` });
    }
    return out;
  };
}
