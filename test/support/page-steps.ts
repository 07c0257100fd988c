/**
 * The creator page's steps on one body, for the tests of its rules (test/unit/samples/): the
 * sample parsed, its columns inferred, the guesses made; and the reads those tests share.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../core/samples/index.ts';
import type { RuleGuess } from '../../core/samples/rule-guess.ts';

/** The columns inferred from `body` and the page's guesses on them. */
export function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return { fields, guesses: guessChoices(fields, sample.rows) };
}

export type PageGuesses = ReturnType<typeof read>['guesses'];

/** The page's guesses on `body`. */
export const guesses = (body: unknown): PageGuesses => read(body).guesses;

/** The page's question about an event field (`value`, `currency`…), or undefined when it asks none. */
export const fieldQuestion = (g: PageGuesses, field: string) =>
  g.questions.find((q) => q.target === 'event_data' && q.field === field);

/** Where the page puts `column`, or undefined when it has no guess for it. */
export const targetOf = (g: PageGuesses, column: string) =>
  g.columns.find((c) => c.column === column)?.target;

/** A target that is the person's id. */
export const isPersonId = (t: string | undefined) => t === 'user_id' || t === 'user.external_id';

/** The columns the page takes as any of `targets`, in its order. */
export const takenAs = (g: PageGuesses, ...targets: string[]) =>
  g.columns.flatMap((c) => (targets.includes(c.target) ? [c.column] : []));

/** The columns inferred from `body`, for calling one rule on its own. */
export const fieldsOf = (body: unknown) => read(body).fields;

/** Every column of `body` kept as an event field: a rule called on its own sees them all. */
export const keptAll = (body: unknown): RuleGuess[] =>
  fieldsOf(body).map((f) => ({ column: f.name, target: 'event_data', why: 'kept' }));

/**
 * Asserts the page fills neither a value nor a currency on `body` and asks whether `column` is
 * the value, with nothing preselected; the question, for more checks.
 */
export function valueAsked(body: unknown, column: string) {
  const g = guesses(body);
  assert.equal(g.value, undefined);
  assert.equal(g.currency, undefined);
  const q = fieldQuestion(g, 'value');
  assert.ok(q?.noneGuessed, 'no answer preselected');
  assert.deepEqual(
    q.options.map((o) => o.column),
    [column],
  );
  return q;
}
