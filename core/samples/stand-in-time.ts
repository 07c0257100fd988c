/**
 * A time written as a stand-in (issue #94, docs/creator-inference.md#a-time-written-as-a-stand-in).
 * A vendor's page often shows when the event happened as a type's word or a made-up number
 * (`"timestamp": "string"`, `"created_at": "time"`, `"eventCreated": 1234567`) or a time the
 * reading step cannot parse (`"T2018-12-26 17:21:24Z+5:30"`): no value is read as a time, no column
 * is taken as the event's time, and the page falls back to when the event arrives, though the
 * next real event carries its time there. Where no column is taken as the event's time, the
 * columns named for when it happened or was created, and for nothing else (`timestamp`,
 * `datetime`, `time`, `ts`, `occurred_at`, `created_at`, `eventCreated`, `date`) whose values are such stand-ins are offered
 * in one question with no answer preselected: the name is the only evidence, and no value can
 * confirm it. A later step's time (`updated_at`, `expires_at`), a duration
 * (`processingTimeMillis`) or an id (`created_by_id`) is not offered. Pure, but for the
 * questions it adds to.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/**
 * Leaf names (words joined, an `event` before them dropped) for when the event happened or its
 * record was created, and nothing else: not a later step's time, a duration or an id.
 */
const WHEN = new Set([
  'timestamp',
  'time stamp',
  'datetime',
  'date time',
  'time',
  'ts',
  'date',
  'created',
  'created at',
  'created on',
  'date created',
  'created date',
  'creation date',
  'creation time',
  'occurred at',
  'happened at',
]);
/** A value a page writes where a time goes: a type's or a sample's word, or a bracketed name. */
const STAND_IN = /^(string|text|str|time|date|timestamp|datetime|iso|example|sample|value|now)$/;

/** Whether a column's leaf is named for when the event happened (module comment). */
export function namedForWhen(column: string): boolean {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  return WHEN.has((words[0] === 'event' ? words.slice(1) : words).join(' '));
}

/** Whether one value is a stand-in for a time, not one the reading step took (module comment). */
export function standInTime(v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v);
  if (typeof v !== 'string') return false;
  const words = nameWords(v);
  return (
    /^\s*[<{[].*[>}\]]\s*$/.test(v) ||
    (words.length > 0 && words.every((w) => STAND_IN.test(w))) ||
    /(19|20)\d\d/.test(v)
  );
}

/** The question (module comment), or undefined where a time is taken or none is named so. */
export function standInTimeQuestion(
  fields: readonly InferredField[],
  base: readonly RuleGuess[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === 'event_time')) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === 'event_time')) return undefined;
  // A real time the event-time choice set aside (outside the window, a later step's): asked or
  // left so, never beside a stand-in.
  if (fields.some((f) => (f.type === 'timestamp' || f.type === 'date') && f.distinct > 0)) return undefined;
  const kept = new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
  const options = fields
    .filter(
      (f) =>
        kept.has(f.name) &&
        f.type !== 'timestamp' &&
        f.type !== 'date' &&
        f.distinct > 0 &&
        namedForWhen(f.name) &&
        f.examples.length > 0 &&
        f.examples.every(standInTime),
    )
    .map((f) => ({
      column: f.name,
      why: `named for when it happened, but written as ${JSON.stringify(f.examples[0])}, which is no time`,
    }));
  if (options.length === 0) return undefined;
  return {
    target: 'event_time',
    ask: `Is ${options.length === 1 ? `${options[0]?.column} the event's time` : "one of these the event's time"}? It is named for when it happened, but the sample writes a stand-in, not a time.`,
    options,
    noneGuessed: {
      why: 'no value in the sample is a time: the event time is when it arrives until one is picked',
    },
  };
}
