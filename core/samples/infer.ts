/**
 * Field types from a parsed sample (docs/creator-inference.md). Every non-empty value of a column
 * votes for the readings it fits (values.ts); the most specific reading that at least 95% of the
 * values fit wins, and the values that do not fit are listed as `invalid`. Pure.
 */
import { compileDefinition, type DefinitionValidator } from '../definitions/event-validator.ts';
import { nameWords } from './names.ts';
import type { InferredField, InferredFormat, InferredType, ParsedSample } from './sample.ts';
import { ISO_8601, isEmptyValue, VOTE, valueVotes } from './values.ts';

export interface InferOptions {
  /** The share of non-empty values a reading must fit to be chosen (default 0.95). */
  readonly minShare?: number;
}

/** Enum rule: at most this many distinct values, each at most this long, each seen twice on average. */
const ENUM_MAX_VALUES = 10;
const ENUM_MAX_LENGTH = 64;
/**
 * Column names under which integers in the epoch range are read as times (`instant` as in
 * `createInstant`: a point in time).
 */
const TIME_NAME = /time|date|_at$|^at$|^ts$|stamp|epoch|created|updated|instant|zeit|datum|fecha|heure|hora/i;
/** The same `at` in camel case (`sentAt`, `lastActiveAt`): case matters, or `chat` and `format` would be one. */
const CAMEL_AT = /[a-z0-9]At$/;
/** Epoch seconds and milliseconds from 2001-09-09 to 2099-12-31. */
const EPOCH_SECONDS = [1e9, 4102444800] as const;
const EPOCH_MILLIS = [1e12, 4102444800000] as const;
const FLAG_NAME = /^(is|has|can|should|was)[_\s-]?|[_\s-](flag|opt[_\s-]?in)$|^(active|enabled|flag|optin)$/i;
/** Names under which `on`/`off` are a ticked box or a consent, not a province (`ON`) or a setting's text. */
const SWITCH_NAME =
  /consent|opt[_\s-]?in|newsletter|accepts?[_\s-]?marketing|marketing|subscribe|agree|accept|terms|gdpr|checkbox|enabled|active|^(is|has)[_\s-]/i;

/** The last word of a currency-like column name (names.ts's `nameWords`). */
const CURRENCY_WORDS = new Set([
  'currency',
  'currencycode',
  'wahrung',
  'waehrung',
  'devise',
  'moneda',
  'divisa',
  'valuta',
]);

/**
 * Whether a column's own name (its last dotted part) says it holds a currency: `currency`,
 * `currency_code`, `currencyCode`, `presentment_currency`, any `…_currency`, or `Währung`,
 * `devise`, `moneda`, `divisa`, `valuta`. Only there are codes in any case (`usd`) currencies.
 */
function currencyNamed(leafName: string): boolean {
  const w = nameWords(leafName);
  const last = w[w.length - 1];
  if (last === 'code') return w[w.length - 2] === 'currency';
  return last !== undefined && CURRENCY_WORDS.has(last);
}

/** The chosen reading of a column: its type and which vote keys count as fitting it. */
interface Reading {
  type: InferredType;
  accepts: readonly string[];
  format?: InferredFormat;
  pattern?: string;
}

/** One distinct value of a column: classified once, however often it occurs. */
interface Seen {
  readonly value: unknown;
  readonly votes: readonly string[];
  count: number;
}

interface ColumnStats {
  votes: Map<string, number>;
  nonEmpty: number;
  nullable: boolean;
  distinct: Map<string, Seen>;
}

const keyOf = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function sameVotes(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function collect(rows: readonly Record<string, unknown>[], column: string): ColumnStats {
  const distinct = new Map<string, Seen>();
  const buffer: string[] = [];
  let last: readonly string[] = [];
  let nonEmpty = 0;
  let nullable = false;
  for (const row of rows) {
    const v = row[column];
    if (isEmptyValue(v)) {
      nullable = true;
      continue;
    }
    nonEmpty++;
    const key = keyOf(v);
    let seen = distinct.get(key);
    if (!seen) {
      buffer.length = 0;
      valueVotes(v, buffer);
      // Values of one column mostly vote alike: share the previous list instead of copying.
      if (!sameVotes(buffer, last)) last = buffer.slice();
      seen = { value: v, votes: last, count: 0 };
      distinct.set(key, seen);
    }
    seen.count++;
  }
  const votes = new Map<string, number>();
  for (const seen of distinct.values())
    for (const k of seen.votes) votes.set(k, (votes.get(k) ?? 0) + seen.count);
  return { votes, nonEmpty, nullable, distinct };
}

/** The distinct values of a column, in order of first appearance. */
function* values(stats: ColumnStats): Generator<unknown> {
  for (const seen of stats.distinct.values()) yield seen.value;
}

/** The best `prefix:*` pattern that fits; ties go to `preferred`, then to the more specific. */
function bestPattern(stats: ColumnStats, prefix: string, fits: (k: string) => boolean): string | undefined {
  let best: { pattern: string; rank: number } | undefined;
  for (const [key, count] of stats.votes) {
    if (!key.startsWith(prefix) || !fits(key)) continue;
    const pattern = key.slice(prefix.length);
    // Day-first for `.` and `-`, month-first for `/`, as those separators are commonly used.
    // The generic ISO 8601 only when no exact shape fits.
    const conventional = /^DD[.-]|^MM\/|^YYYY/.test(pattern) ? 0.5 : 0;
    const rank = pattern === ISO_8601 ? 0 : count + conventional;
    if (!best || rank > best.rank) best = { pattern, rank };
  }
  return best?.pattern;
}

const FORMATS: readonly [string, InferredFormat][] = [
  [VOTE.uuid, 'uuid'],
  [VOTE.email, 'email'],
  [VOTE.url, 'url'],
  [VOTE.phone, 'phone'],
  [VOTE.currency, 'currency'],
  [VOTE.country, 'country'],
];

/** The most specific reading that enough values fit, checked in order of specificity. */
function choose(name: string, stats: ColumnStats, minShare: number, delimiter?: string): Reading {
  const need = Math.max(1, Math.ceil(stats.nonEmpty * minShare));
  const count = (k: string) => stats.votes.get(k) ?? 0;
  const fits = (k: string) => count(k) >= need;
  if (stats.nonEmpty === 0) return { type: 'string', accepts: [] };
  if (fits(VOTE.json)) return { type: 'json', accepts: [VOTE.json] };
  // 0/1 alone are integers unless a word (true, yes, ja…) or a flag-like name says otherwise; and
  // every value must be a boolean word, so `ON` among state codes (`ON`, `CA`) stays text. `on`
  // and `off` are yes/no only under a flag or consent name: a Shopify order's one
  // `province_code: "ON"` is Ontario, a form's `newsletter=on` a ticked box.
  const leafName = name.slice(name.lastIndexOf('.') + 1);
  const switches = count(VOTE.boolSwitch);
  if (
    count(VOTE.bool) + count(VOTE.bool01) + switches === stats.nonEmpty &&
    (switches > 0
      ? SWITCH_NAME.test(leafName) || FLAG_NAME.test(leafName)
      : count(VOTE.bool) > 0 || FLAG_NAME.test(leafName))
  )
    return { type: 'boolean', accepts: [VOTE.bool, VOTE.bool01, VOTE.boolSwitch] };
  for (const [prefix, type] of [
    ['ts:', 'timestamp'],
    ['date:', 'date'],
  ] as const) {
    const pattern = bestPattern(stats, prefix, fits);
    if (pattern) return { type, pattern, accepts: [`${prefix}${pattern}`] };
  }
  // A `;` delimiter is the spreadsheet habit where `,` is the decimal mark: that reading goes first.
  for (const mark of delimiter === ';' ? [',', '.'] : ['.', ','])
    for (const type of ['integer', 'number'] as const) {
      const key = `${type === 'integer' ? 'int' : 'num'}${mark}`;
      if (fits(key)) return { type, accepts: [key], ...(mark === ',' ? { pattern: 'decimal_comma' } : {}) };
    }
  // Codes in any case (Stripe's `usd`) only under a currency-like name: `all`, `top` and `mad`
  // elsewhere are words. The translator stores them in capitals (draft.ts, `transformsFor`).
  if (currencyNamed(leafName) && fits(VOTE.currencyAnyCase))
    return { type: 'string', format: 'currency', accepts: [VOTE.currencyAnyCase] };
  for (const [vote, format] of FORMATS) if (fits(vote)) return { type: 'string', format, accepts: [vote] };
  return { type: 'string', accepts: [] };
}

const formatChecks = new Map<InferredFormat, DefinitionValidator>();

/**
 * Whether the definition's own check of a format (core/definitions/event-validator.ts) takes
 * every value as the draft's translator stores it: `(555) 555-5555` looks like a phone but is
 * not the E.164 the `phone` format asks for, `at` looks like a country but the format wants
 * capitals. A currency column is stored trimmed and upper-cased (draft.ts, `transformsFor`), so
 * `usd` holds.
 */
function formatHolds(format: InferredFormat, stats: ColumnStats): boolean {
  let check = formatChecks.get(format);
  if (!check) {
    check = compileDefinition([{ name: 'v', type: 'string', format }]);
    formatChecks.set(format, check);
  }
  const asStored = format === 'currency';
  for (const value of values(stats)) {
    const v = asStored && typeof value === 'string' ? value.trim().toUpperCase() : value;
    if (check({ v }).length > 0) return false;
  }
  return true;
}

/**
 * Integers in a time-named column that are all epoch seconds (or all milliseconds) are timestamps;
 * so are JSON numbers with a fraction that are all epoch seconds (`1710481111.853`, a message's
 * time to the millisecond), which the translator reads as they are.
 */
function epochPattern(name: string, stats: ColumnStats, type: string): string | undefined {
  if (!TIME_NAME.test(name) && !CAMEL_AT.test(name)) return undefined;
  if (type === 'number') {
    const raw = [...values(stats)];
    const [lo, hi] = EPOCH_SECONDS;
    const seconds = raw.every((v) => typeof v === 'number' && v >= lo && v <= hi);
    return seconds ? 'epoch_seconds' : undefined;
  }
  const numbers = [...values(stats)].map(Number);
  for (const [pattern, [lo, hi]] of [
    ['epoch_seconds', EPOCH_SECONDS],
    ['epoch_millis', EPOCH_MILLIS],
  ] as const)
    if (numbers.every((n) => Number.isInteger(n) && n >= lo && n <= hi)) return pattern;
  return undefined;
}

/** The `decimal_comma` pattern only when some value is written with a separator (`12,50`, `1.234`). */
function numberPattern(reading: Reading, stats: ColumnStats): string | undefined {
  if (reading.pattern !== 'decimal_comma') return reading.pattern;
  for (const v of values(stats)) if (typeof v === 'string' && /[.,]/.test(v)) return reading.pattern;
  return undefined;
}

function enumValues(reading: Reading, stats: ColumnStats): string[] | undefined {
  const n = stats.distinct.size;
  // A column never filled has no values to list: an empty enum would refuse every value.
  if (n === 0 || reading.type !== 'string' || reading.format || n > ENUM_MAX_VALUES || stats.nonEmpty < 2 * n)
    return undefined;
  const all = [...values(stats)];
  return all.every((v) => typeof v === 'string' && v.length <= ENUM_MAX_LENGTH)
    ? (all as string[])
    : undefined;
}

function first<T>(values: Iterable<T>, n: number): T[] {
  const out: T[] = [];
  for (const v of values) {
    if (out.length === n) break;
    out.push(v);
  }
  return out;
}

function invalidRows(
  rows: readonly Record<string, unknown>[],
  column: string,
  stats: ColumnStats,
  accepts: readonly string[],
) {
  const out: number[] = [];
  rows.forEach((row, i) => {
    const v = row[column];
    if (isEmptyValue(v)) return;
    const votes = stats.distinct.get(keyOf(v))?.votes ?? [];
    if (!votes.some((k) => accepts.includes(k))) out.push(i);
  });
  return out;
}

function inferColumn(
  rows: readonly Record<string, unknown>[],
  name: string,
  minShare: number,
  delimiter: string | undefined,
  json: boolean,
) {
  const stats = collect(rows, name);
  let reading = choose(name, stats, minShare, delimiter);
  const strings = [...values(stats)].filter((v) => typeof v === 'string');
  // A JSON sender that writes an integer as a string ("727", "94103") does so for an id, an
  // order number or a postal code: it stays text. Decimals in strings ("29.35") are amounts.
  if (json && reading.type === 'integer' && strings.length > 0 && !TIME_NAME.test(name))
    reading = { type: 'string', accepts: [] };
  const epoch =
    reading.type === 'integer' || reading.type === 'number'
      ? epochPattern(name, stats, reading.type)
      : undefined;
  const pattern = epoch || numberPattern(reading, stats);
  if (pattern?.startsWith('epoch')) reading = { type: 'timestamp', accepts: reading.accepts };
  const fitting = reading.accepts.reduce((n, k) => n + (stats.votes.get(k) ?? 0), 0);
  const invalid =
    reading.accepts.length > 0 && fitting < stats.nonEmpty
      ? invalidRows(rows, name, stats, reading.accepts)
      : [];
  const enumerated = enumValues(reading, stats);
  // Typed values written as text need converting (`"29.35"` → 29.35); JSON numbers do not.
  const text = reading.type !== 'string' && reading.type !== 'json' && strings.length > 0;
  const field: InferredField = {
    name,
    type: reading.type,
    ...(text ? { text } : {}),
    ...(reading.format ? { format: reading.format } : {}),
    ...(reading.format && !formatHolds(reading.format, stats) ? { loose: true } : {}),
    ...(pattern ? { pattern } : {}),
    nullable: stats.nullable,
    ...(enumerated ? { enum: enumerated } : {}),
    examples: first(values(stats), 3),
    distinct: stats.distinct.size,
    ...(invalid.length > 0 ? { invalid } : {}),
  };
  return field;
}

export type { InferredField, InferredFormat, InferredType } from './sample.ts';
export { toFieldSpecs } from './specs.ts';

/** One inferred field per column of a parsed sample, in column order. */
export function inferFields(
  parsed: Pick<ParsedSample, 'columns' | 'rows'> & {
    readonly delimiter?: string | undefined;
    readonly format?: ParsedSample['format'];
  },
  options: InferOptions = {},
): InferredField[] {
  const minShare = options.minShare ?? 0.95;
  const json = parsed.format === 'json' || parsed.format === 'ndjson';
  return parsed.columns.map((name) => inferColumn(parsed.rows, name, minShare, parsed.delimiter, json));
}
