/**
 * What the rule-by-rule tests of core/samples/evidence.ts and personal.ts read a column with: a
 * text column of given values, and the roles a column can be read in.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { personalDetail } from '../../../core/samples/personal.ts';
import type { RoleReading } from '../../../core/samples/roles.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

/** A text column with these values (`extra` overrides any part). */
export function field(
  name: string,
  examples: unknown[] = ['x'],
  extra: Partial<InferredField> = {},
): InferredField {
  return { name, type: 'string', examples, distinct: examples.length, nullable: false, ...extra };
}
/** A top-level column: the payload's own, the person's. */
export const top: RoleReading = { role: 'person', why: '' };
/** A column inside the person's own object. */
export const inPerson: RoleReading = { role: 'person', why: "inside customer: the person's" };
/** A column inside another thing's object. */
export const other: RoleReading = { role: 'other', why: "inside repository, not a person's object" };

/** Whether a column of this name and these values is personal data, read in this role (personal.ts). */
export const personal = (
  name: string,
  r: RoleReading = other,
  examples: unknown[] = ['x'],
  extra: Partial<InferredField> = {},
) => personalDetail(field(name, examples, extra), r);

/** The page's guesses for a payload, as the studio makes them (parse, infer, guess). */
export function guessOf(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
/** The event id's question for a payload, if one is asked. */
export const eventIdAsk = (body: unknown) => guessOf(body).questions.find((q) => q.target === 'event_id');
/** The columns filled as the event id without asking. */
export const eventIdFilled = (body: unknown) =>
  guessOf(body)
    .columns.filter((c) => c.target === 'event_id')
    .map((c) => c.column);

/** The page asks about the event id of `body`, nothing preselected, offers `column`, fills none. */
export function eventIdAskedOnly(body: unknown, column: string): void {
  assert.deepEqual(eventIdFilled(body), [], column);
  const q = eventIdAsk(body);
  assert.ok(q?.noneGuessed, column);
  assert.ok(
    q.options.some((o) => o.column === column),
    column,
  );
}
