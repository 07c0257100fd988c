/**
 * A translator field's transforms (docs/translators.md), each a pure step from one value to the
 * next, or a reason the value does not fit. Values from CSV are strings; from JSON, anything.
 */
import { createHash } from 'node:crypto';
import type { TranslatorTransform } from '../../schemas/translator.ts';
import { shown } from '../event-validator.ts';
import { instant, isoDate, readPattern } from './patterns.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A dotted path into an object: the exact key first (`user.email` as one key), else step by step. */
export function readPath(record: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(record, path)) return record[path];
  let at: unknown = record;
  for (const part of path.split('.')) {
    if (!isObject(at) || !Object.hasOwn(at, part)) return undefined;
    at = at[part];
  }
  return at;
}

export type Step =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly why: string };

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

/** Applies one transform. A null value passes through every transform but `lookup` and `boolean`. */
export function applyTransform(value: unknown, t: TranslatorTransform): Step {
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
    const rebuild = (o: unknown): Record<string, unknown> | undefined => {
      if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
      const out: Record<string, unknown> = {};
      for (const [to, from] of Object.entries(t.each as Record<string, string>)) {
        const v = readPath(o as Record<string, unknown>, from);
        if (v !== undefined && v !== null) out[to] = v;
      }
      return out;
    };
    const list = Array.isArray(value) ? value.map(rebuild) : [rebuild(value)];
    if (list.some((x) => x === undefined)) return fail(`expected objects to rebuild, got ${shown(value)}`);
    return ok(Array.isArray(value) ? list : list[0]);
  }
  // lookup
  const key = text(value);
  if (key !== undefined && Object.hasOwn(t.lookup, key)) return ok(t.lookup[key]);
  if (Object.hasOwn(t, 'otherwise')) return ok(t.otherwise);
  return ok(value);
}
