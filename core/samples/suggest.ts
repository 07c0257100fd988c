/**
 * Where each sample column should go (docs/creator-inference.md): a context field of the event
 * (schemas/context.ts) or the event data. The column's name is compared, in several languages
 * and spellings, with the names in synonyms.ts; its inferred type confirms or contradicts the
 * match, and a column of e-mail addresses is suggested as `user.email` whatever its name. Pure.
 */
import { isReservedFieldName } from '../definitions/definitions.ts';
import { currencyNameShift, notTheValue, valueNameShift } from './amounts.ts';
import { fieldName, nameWords } from './names.ts';
import { PERSON_ID } from './rule-guess.ts';
import type { InferredFormat, InferredType } from './sample.ts';
import {
  type ContextTarget,
  DATA_FIELDS,
  type DataField,
  TARGET_RULES,
  type TargetRule,
} from './synonyms.ts';

export { CONTEXT_TARGETS, type ContextTarget, DATA_FIELDS, type DataField } from './synonyms.ts';

/** A column as suggestMappings reads it: a name, and what inferFields found when it ran. */
export interface SuggestColumn {
  readonly name: string;
  readonly type?: InferredType;
  readonly format?: InferredFormat;
  /** Always empty in the sample: it takes no target, so it cannot keep one from a column that has values. */
  readonly empty?: boolean;
}

export interface SuggestOptions {
  /**
   * Targets a column must not take (guess.ts: a person's details inside an issue, a URL that is
   * not the page's). Refused before targets are given out, so the next candidate gets them.
   */
  readonly refuse?: (column: string, target: ContextTarget | DataField) => boolean;
}

export interface MappingSuggestion {
  readonly column: string;
  readonly target: ContextTarget | 'event_data';
  /** For `event_data`: the field to keep the value under (a catalogue name when one fits). */
  readonly field?: string;
  /** 0–1: 0.9 and above a name match confirmed by the values; below 0.5 a guess worth a look. */
  readonly confidence: number;
  readonly reason: string;
}

/** Below this, a candidate is not suggested. */
const MIN_CONFIDENCE = 0.35;
const EXACT = 0.9;
const PARTIAL = 0.6;
/** A name match whose values contradict it keeps this share of its confidence. */
const CONTRADICTED = 0.3;
const CONFIRMED = 0.08;

/** What the values alone suggest when the name says nothing. */
const BY_VALUES: readonly [InferredFormat | InferredType, ContextTarget | DataField, number][] = [
  ['email', 'user.email', 0.6],
  ['phone', 'user.phone', 0.5],
  ['country', 'user.country', 0.45],
  ['currency', 'currency', 0.45],
  ['url', 'page.url', 0.4],
  ['timestamp', 'event_time', 0.4],
];

const NAMES: ReadonlyMap<string, ContextTarget | DataField> = new Map(
  Object.entries(TARGET_RULES).flatMap(([target, rule]) =>
    rule.names
      .trim()
      .split(/\s+/)
      .map((n) => [n, target as ContextTarget | DataField] as const),
  ),
);

interface Candidate {
  readonly column: number;
  readonly target: ContextTarget | DataField;
  readonly confidence: number;
  readonly reason: string;
}

const isDataField = (t: string): t is DataField => (DATA_FIELDS as readonly string[]).includes(t);

/** Words that make a name a count of its party (`customer_count`, `totalUsers`), not an id. */
const COUNT_WORDS = new Set(['count', 'counts', 'counter', 'qty', 'quantity', 'total', 'totals', 'tally']);

/**
 * Why a name that matched a person's id by one of its words counts people rather than naming one
 * (`customer_count`, `customersCount`, `total_customers`), or undefined.
 */
export function countOfParty(name: string): string | undefined {
  const word = nameWords(name).find((w) => COUNT_WORDS.has(w));
  return word ? `"${word}" in the name: it counts, it names nobody` : undefined;
}

/** The targets a name matches: the whole name, else a run of its words (`billing_email` → email). */
function nameMatches(name: string): { target: ContextTarget | DataField; exact: boolean; word: string }[] {
  const words = nameWords(name);
  const whole = NAMES.get(words.join(''));
  if (whole) return [{ target: whole, exact: true, word: words.join('') }];
  const out: { target: ContextTarget | DataField; exact: boolean; word: string }[] = [];
  for (let len = words.length - 1; len >= 1; len--)
    for (let i = 0; i + len <= words.length; i++) {
      const word = words.slice(i, i + len).join('');
      const target = NAMES.get(word);
      if (target && !out.some((m) => m.target === target)) out.push({ target, exact: false, word });
    }
  return out;
}

function agreement(rule: TargetRule, column: SuggestColumn): 'confirms' | 'neutral' | 'contradicts' {
  if (!column.type) return 'neutral';
  const kind = column.format ?? column.type;
  if (rule.good?.includes(kind)) return 'confirms';
  return rule.ok.includes(kind) ? 'neutral' : 'contradicts';
}

function candidates(column: SuggestColumn, index: number): Candidate[] {
  const out: Candidate[] = [];
  if (column.empty) return out;
  for (const m of nameMatches(column.name)) {
    const rule = TARGET_RULES[m.target];
    // A count of a party is a number of people, never one person's id: no candidate.
    if (PERSON_ID.has(m.target) && !m.exact && countOfParty(column.name)) continue;
    if (m.target === 'value') {
      // A discount, refund, tax or shipping amount is never the event's value.
      const not = notTheValue(column.name);
      if (not) {
        out.push({
          column: index,
          target: m.target,
          confidence: PARTIAL * CONTRADICTED,
          reason: `"${m.word}" in the name, but "${not}" says it is not the value`,
        });
        continue;
      }
    }
    const shift =
      m.target === 'value'
        ? valueNameShift(column.name)
        : m.target === 'currency'
          ? currencyNameShift(column.name)
          : 0;
    const base = (m.exact ? EXACT : PARTIAL) + shift;
    const how = m.exact ? `"${column.name}" names ${m.target}` : `"${m.word}" in the name`;
    const agrees = agreement(rule, column);
    const kind = column.format ?? column.type;
    if (agrees === 'confirms')
      out.push({
        column: index,
        target: m.target,
        confidence: base + CONFIRMED,
        reason: `${how} and ${kind} values`,
      });
    else if (agrees === 'neutral')
      out.push({ column: index, target: m.target, confidence: base, reason: how });
    else
      out.push({
        column: index,
        target: m.target,
        confidence: base * CONTRADICTED,
        reason: `${how}, but the values are ${kind}`,
      });
  }
  const kind = column.format ?? column.type;
  for (const [k, target, confidence] of BY_VALUES)
    if (k === kind) out.push({ column: index, target, confidence, reason: `the values are ${k}` });
  return out;
}

/**
 * The event data field a column is kept under by its own name: a name the warehouse or the
 * context keeps (`topic`, `source`), which the save refuses, gets `_data` (`topic_data`), as
 * specs.ts names such a definition field.
 */
export function dataFieldName(column: string): string {
  const name = fieldName(column);
  return isReservedFieldName(name) ? `${name}_data` : name;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * One suggestion per column, in column order. Each target (and each catalogue event data field)
 * goes to at most one column: the candidates are taken from the most confident down, a column
 * or target once taken is skipped. A column left over is kept as event data under its own name.
 */
export function suggestMappings(
  columns: readonly (string | SuggestColumn)[],
  options: SuggestOptions = {},
): MappingSuggestion[] {
  const cols = columns.map((c) => (typeof c === 'string' ? { name: c } : c));
  const refuse = options.refuse;
  const every = cols.flatMap(candidates);
  const all = every
    .filter((c) => c.confidence >= MIN_CONFIDENCE)
    .filter((c) => !refuse?.((cols[c.column] as SuggestColumn).name, c.target))
    .sort((a, b) => b.confidence - a.confidence || a.column - b.column);
  const chosen = new Map<number, Candidate>();
  const taken = new Map<string, number>();
  for (const c of all) {
    if (chosen.has(c.column) || taken.has(c.target)) continue;
    chosen.set(c.column, c);
    taken.set(c.target, c.column);
  }
  // Columns kept as event data under their own names avoid the catalogue names already given out.
  const used = new Set<string>([...taken.keys()].filter(isDataField));
  const ownName = (name: string) => {
    const base = dataFieldName(name);
    let field = base;
    for (let n = 2; used.has(field); n++) field = `${base}_${n}`;
    used.add(field);
    return field;
  };
  return cols.map((col, i): MappingSuggestion => {
    const c = chosen.get(i);
    const confidence = round(c?.confidence ?? 0.5);
    if (c && !isDataField(c.target))
      return { column: col.name, target: c.target, confidence, reason: c.reason };
    if (c) return { column: col.name, target: 'event_data', field: c.target, confidence, reason: c.reason };
    const lost = all.find((o) => o.column === i);
    const ruledOut = every.find((o) => o.column === i && o.reason.endsWith('it is not the value'));
    const reason = lost
      ? `${lost.target} (${lost.reason}) went to ${cols[taken.get(lost.target) as number]?.name}`
      : (ruledOut?.reason ?? 'no context field matches');
    return { column: col.name, target: 'event_data', field: ownName(col.name), confidence, reason };
  });
}
