/**
 * A translator field's transforms (docs/translators.md), each a pure step from one value to the
 * next, or a reason the value does not fit. Values from CSV are strings; from JSON, anything.
 */
import { createHash } from 'node:crypto';
import type { TranslatorTransform, TranslatorValueTransform } from '../../schemas/translator.ts';
import { shown } from '../definitions/event-validator.ts';
import { base64Text, jsonValue } from '../formats/embedded.ts';

export { EMBEDDED_JSON_MAX_CHARS, EMBEDDED_JSON_MAX_DEPTH } from '../formats/embedded.ts';

import { instant, isoDate, readPattern } from '../formats/patterns.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const INDEX = /^(0|[1-9]\d{0,5})$/;

/**
 * A dotted path into an object: the exact key first (`user.email` as one key), else step by
 * step; a number steps into a list (`em.0`, `items.2.sku`), where an object's own key of that
 * name would be read as well.
 */
export function readPath(record: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(record, path)) return record[path];
  let at: unknown = record;
  for (const part of path.split('.')) {
    if (Array.isArray(at) && INDEX.test(part)) at = at[Number(part)];
    else if (isObject(at) && Object.hasOwn(at, part)) at = at[part];
    else return undefined;
  }
  return at;
}

/**
 * The value at the first of `source`'s paths that holds one (a single path is a list of one):
 * absent and null go on to the next path, and so does whatever `skip` refuses (an empty CSV cell).
 */
export function readFirst(
  record: Record<string, unknown>,
  source: string | readonly string[],
  skip: (value: unknown) => boolean = () => false,
): unknown {
  let value: unknown;
  for (const path of typeof source === 'string' ? [source] : source) {
    value = readPath(record, path);
    if (value !== undefined && value !== null && !skip(value)) return value;
  }
  return value === null ? null : undefined;
}

/**
 * ISO 4217 minor-unit exponents other than 2 (every other code has 2): what a Stripe-like
 * amount in the smallest unit is divided by, as 10^exponent.
 */
const EXPONENTS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ').map((c) => [c, 0]),
  ),
  ...Object.fromEntries('BHD IQD JOD KWD LYD OMR TND'.split(' ').map((c) => [c, 3])),
  CLF: 4,
  UYW: 4,
};

/** The ISO 4217 exponent of a currency code (2 unless listed), or undefined for a non-code. */
export function currencyExponent(code: string): number | undefined {
  const c = code.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(c) ? (EXPONENTS[c] ?? 2) : undefined;
}

export type { Step } from '../formats/embedded.ts';

import type { Step } from '../formats/embedded.ts';

const ok = (value: unknown): Step => ({ ok: true, value });
const fail = (why: string): Step => ({ ok: false, why });

const TRUE = new Set(['true', 'yes', 'y', 'ja', 'j', 'oui', 'si', 'sí', '1', 'on', 'x', 'wahr', 'vrai']);
const FALSE = new Set(['false', 'no', 'n', 'nein', 'non', '0', 'off', 'falsch', 'faux']);
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** Groups of thousands with the other mark: 1.234.567,89 or 1,234.5 (compiled once per mark). */
const GROUPED: Readonly<Record<',' | '.', RegExp>> = {
  ',': /^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$/,
  '.': /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/,
};

/** A number written with `mark` as the decimal mark; thousands separators (., ', spaces) dropped. */
function decimal(text: string, mark: ',' | '.'): number | undefined {
  const other = mark === ',' ? '.' : ',';
  let t = text.trim().replace(/[\s'\u00a0\u202f]/g, '');
  // The other mark may only group thousands.
  if (t.includes(other)) {
    if (!GROUPED[mark].test(t)) return undefined;
    t = t.split(other).join('');
  }
  if (mark === ',') t = t.replace(',', '.');
  if (!PLAIN_NUMBER.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/** Applies transforms in order; null or absent ends the chain (the field's default applies). */
export function applyTransforms(
  value: unknown,
  transforms: readonly TranslatorTransform[],
  record: Record<string, unknown>,
): Step {
  let v = value;
  for (const t of transforms) {
    const step = applyTransform(v, t, record);
    if (!step.ok) return step;
    v = step.value;
    if (v === null || v === undefined) return ok(null);
  }
  return ok(v);
}

/** An amount in minor units scaled to major units by the record's (or a fixed) currency. */
function majorUnits(
  value: unknown,
  t: Extract<TranslatorValueTransform, { major_units: unknown }>,
  record: Record<string, unknown>,
): Step {
  const code = 'currency' in t.major_units ? t.major_units.currency : readFirst(record, t.major_units.source);
  const exponent = typeof code === 'string' ? currencyExponent(code) : undefined;
  if (exponent === undefined)
    return fail(`expected an ISO 4217 currency code to scale by, got ${shown(code)}`);
  const n = typeof value === 'number' ? value : typeof value === 'string' ? decimal(value, '.') : undefined;
  if (n === undefined || !Number.isSafeInteger(n))
    return fail(`expected a whole amount in minor units, got ${shown(value)}`);
  // Divided as text so 1999 EUR is 19.99, not 19.990000000000002.
  return ok(exponent === 0 ? n : Number((n / 10 ** exponent).toFixed(exponent)));
}

/** Applies one transform. A null value passes through every transform but `lookup` and `boolean`. */
export function applyTransform(
  value: unknown,
  t: TranslatorTransform,
  record: Record<string, unknown> = {},
): Step {
  if (value === null && typeof t === 'string' && t !== 'boolean') return ok(null);
  if (typeof t === 'string') {
    switch (t) {
      case 'trim':
        return ok(typeof value === 'string' ? value.trim() : value);
      case 'lowercase':
        return ok(typeof value === 'string' ? value.toLowerCase() : value);
      case 'uppercase':
        return ok(typeof value === 'string' ? value.toUpperCase() : value);
      case 'snake_case': {
        if (typeof value !== 'string') return ok(value);
        const words =
          value
            .trim()
            .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
            .toLowerCase()
            .match(/[a-z0-9]+/g) ?? [];
        const name = words.join('_');
        return ok(/^[0-9]/.test(name) ? `e_${name}` : name);
      }
      case 'list':
        return ok(Array.isArray(value) ? value : [value]);
      case 'base64':
        return base64Text(value);
      case 'json':
        return jsonValue(value);
      case 'empty_is_null':
        return ok(typeof value === 'string' && value.trim() === '' ? null : value);
      case 'string': {
        const s = text(value);
        return s === undefined ? fail(`expected text, got ${shown(value)}`) : ok(s);
      }
      case 'number':
      case 'integer': {
        const n =
          typeof value === 'number' ? value : typeof value === 'string' ? decimal(value, '.') : undefined;
        if (n === undefined) return fail(`expected a number, got ${shown(value)}`);
        if (t === 'integer' && !Number.isSafeInteger(n))
          return fail(`expected an integer, got ${shown(value)}`);
        return ok(n);
      }
      case 'boolean': {
        if (typeof value === 'boolean') return ok(value);
        const s = text(value)?.trim().toLowerCase();
        if (s !== undefined && TRUE.has(s)) return ok(true);
        if (s !== undefined && FALSE.has(s)) return ok(false);
        return fail(`expected yes or no (true/false, ja/nein, 1/0), got ${shown(value)}`);
      }
      case 'sha256': {
        const s = text(value);
        return s === undefined
          ? fail(`expected text to hash, got ${shown(value)}`)
          : ok(createHash('sha256').update(s.trim().toLowerCase()).digest('hex'));
      }
    }
  }
  if ('decimal' in t) {
    if (typeof value === 'number') return ok(value);
    const n = typeof value === 'string' ? decimal(value, t.decimal) : undefined;
    return n === undefined
      ? fail(`expected a number with "${t.decimal}" as the decimal mark, got ${shown(value)}`)
      : ok(n);
  }
  if ('date' in t || 'timestamp' in t) {
    const pattern = 'date' in t ? t.date : t.timestamp;
    const parts = typeof value === 'string' ? readPattern(value, pattern) : undefined;
    if (!parts)
      return fail(
        `expected a ${'date' in t ? 'date' : 'date and time'} like ${pattern}, got ${shown(value)}`,
      );
    if ('date' in t) return ok(isoDate(parts));
    return ok(new Date(instant(parts, t.zone)).toISOString());
  }
  if ('split' in t) {
    if (Array.isArray(value)) return ok(value);
    const s = text(value);
    if (s === undefined) return fail(`expected text to split, got ${shown(value)}`);
    return ok(
      s
        .split(t.split)
        .map((x) => x.trim())
        .filter((x) => x !== ''),
    );
  }
  if ('epoch' in t) {
    const n =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d{1,20}$/.test(value.trim())
          ? Number(value)
          : undefined;
    const ms =
      n === undefined ? undefined : t.epoch === 'seconds' ? n * 1000 : t.epoch === 'micros' ? n / 1000 : n;
    const date = ms === undefined ? undefined : new Date(Math.floor(ms));
    if (!date || Number.isNaN(date.getTime()))
      return fail(`expected ${t.epoch} since 1970, got ${shown(value)}`);
    return ok(date.toISOString());
  }
  if ('each' in t) {
    // Each item is rebuilt from its own paths, with transforms typing its values; an item with
    // nothing to keep is dropped, and a list left empty is absent.
    let why: string | undefined;
    const rebuild = (o: unknown): Record<string, unknown> | undefined => {
      if (!isObject(o)) return undefined;
      const out: Record<string, unknown> = {};
      for (const [to, from] of Object.entries(t.each)) {
        const plain = typeof from === 'string' || Array.isArray(from);
        const raw = readFirst(o, plain ? from : from.source);
        if (raw === undefined || raw === null) continue;
        const step = plain
          ? ok(raw)
          : applyTransforms(raw, from.transforms ?? [], o as Record<string, unknown>);
        if (!step.ok) {
          why ??= `${to}: ${step.why}`;
          continue;
        }
        if (step.value !== undefined && step.value !== null) out[to] = step.value;
      }
      return out;
    };
    const list = Array.isArray(value) ? value.map(rebuild) : [rebuild(value)];
    if (list.some((x) => x === undefined)) return fail(`expected objects to rebuild, got ${shown(value)}`);
    if (why !== undefined) return fail(why);
    const kept = list.filter((x) => x !== undefined && Object.keys(x).length > 0);
    if (!Array.isArray(value)) return ok(kept[0] ?? null);
    return ok(kept.length > 0 ? kept : null);
  }
  if ('major_units' in t) return majorUnits(value, t, record);
  if ('path' in t) {
    // Into what `json` or `base64` decoded, or any object or list a source gave whole.
    if (Array.isArray(value)) return ok(readPath({ list: value }, `list.${t.path}`) ?? null);
    return ok(isObject(value) ? (readPath(value, t.path) ?? null) : null);
  }
  // lookup
  const key = text(value);
  if (key !== undefined && Object.hasOwn(t.lookup, key)) return ok(t.lookup[key]);
  if (Object.hasOwn(t, 'otherwise')) return ok(t.otherwise);
  return ok(value);
}
