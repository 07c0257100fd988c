/**
 * The creator page's steps on one body, for the tests of its rules (test/unit/samples/): the
 * sample parsed, its columns inferred, the guesses made; and the reads those tests share.
 */
import { guessChoices, inferFields, parseSample } from '../../core/samples/index.ts';

/** The columns inferred from `body` and the page's guesses on them. */
export function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return { fields, guesses: guessChoices(fields, sample.rows) };
}

export type PageGuesses = ReturnType<typeof read>['guesses'];

/** The page's guesses on `body`. */
export const guesses = (body: unknown): PageGuesses => read(body).guesses;

/** Where the page puts `column`, or undefined when it has no guess for it. */
export const targetOf = (g: PageGuesses, column: string) =>
  g.columns.find((c) => c.column === column)?.target;

/** A target that is the person's id. */
export const isPersonId = (t: string | undefined) => t === 'user_id' || t === 'user.external_id';
