/**
 * Two kinds of evidence before an identity, personal or money field is filled without asking
 * (docs/creator-inference.md#two-kinds-of-evidence, issue #94): the name and the values' shape
 * must agree, and the place in the payload must not say it is somebody else's. An amount is not
 * a time, a country is an ISO code under a name that says country, a person's id is never from
 * an object under the business's side or the one who acted on a record, and a `user` inside a
 * record (a deal's, a ticket's) is that record's user before it is the event's person. Where one
 * kind of evidence is missing the page asks; where the place contradicts, the column is kept as
 * a field. Pure.
 */
import { nameWords } from './names.ts';
import type { Question, QuestionColumn } from './questions.ts';
import { PERSON_WORDS, WRAPPERS } from './roles.ts';
import type { InferredField } from './sample.ts';

/**
 * Objects whose contents are the business's, or the one who acted on a record for it: a person's
 * detail is never taken from under one, however deep (`owner.user.id`, `created_by.email`).
 */
const ACTORS = new Set([
  'owner',
  'agent',
  'assignee',
  'assignedto',
  'account',
  'merchant',
  'organizer',
  'organiser',
  'host',
  'seller',
  'payee',
  'staff',
  'admin',
  'employee',
  'operator',
  'salesperson',
  'createdby',
  'updatedby',
  'modifiedby',
  'closedby',
  'deletedby',
  'creator',
]);

const joined = (part: string) => nameWords(part).join('');

/** Why a column sits under the business's side or an actor on a record, or undefined. */
export function actorAbove(column: string): string | undefined {
  const parts = column.split('.').slice(0, -1);
  const actor = parts.find((p) => ACTORS.has(joined(p)));
  return actor ? `inside ${actor}: the business's side, or who acted for it, not the person's` : undefined;
}

/** Person words that also name whoever uses the vendor's software: a deal's `user` is its owner. */
const SOFTWARE_USER = new Set(['user', 'users']);

/**
 * Why a column is the id of a `user` object that sits inside some record (RD Station's
 * `document.user`, a deal's owner), or undefined: a `user` at the top of the payload or under
 * envelopes only (`data.user.id`) is the payload's own, one inside a deal, a ticket or a charge
 * is that record's user, and whether it is the event's person only the person can say.
 */
export function recordsUser(column: string): string | undefined {
  const parts = column.split('.');
  const owner = parts.length - 2;
  if (owner < 1 || !SOFTWARE_USER.has(joined(parts[owner] as string))) return undefined;
  const record = parts.slice(0, owner).find((p) => !WRAPPERS.has(joined(p)) && !PERSON_WORDS.test(joined(p)));
  return record
    ? `a user inside ${record}: that record's user (who owns or handled it), maybe not the person`
    : undefined;
}

/** Name words that say country: the person's country is only read where the name says so. */
const COUNTRY_WORDS = new Set([
  'country',
  'countrycode',
  'land',
  'pays',
  'pais',
  'paese',
  'nazione',
  'staat',
]);

/**
 * Why a column's country reading rests on one kind of evidence only, or undefined when both agree:
 * its values are ISO 3166-1 alpha-2 codes (`format: country`) and its name says country. A bare
 * two- or three-letter code (Scalev's `mark_as_spam_by: "ai"`, a payer named `"QA"`) is not yet a
 * country, and a name without such codes (`country_iso_code: "USA"`) is not yet an ISO code.
 */
export function countryEvidence(f: InferredField): string | undefined {
  const words = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1));
  const named = words.some((w) => COUNTRY_WORDS.has(w)) || COUNTRY_WORDS.has(words.join(''));
  const codes = f.format === 'country';
  if (named && codes) return undefined;
  if (codes)
    return 'its values are two-letter codes a country could have, but nothing in its name says country';
  return 'its name says country, but its values are not ISO 3166-1 alpha-2 codes';
}

/**
 * The questions thin evidence asks (the guess preselected, as every question): a person's id from
 * a record's `user`, and a country with only its name or only its values for it.
 */
export function thinEvidenceQuestions(
  columns: readonly QuestionColumn[],
  asked: ReadonlySet<string>,
): Question[] {
  const out: Question[] = [];
  for (const c of columns) {
    const column = c.field.name;
    if (asked.has(column)) continue;
    const user = (c.target === 'user_id' || c.target === 'user.external_id') && recordsUser(column);
    if (user)
      out.push({
        target: c.target,
        ask: `Is ${column} the person's id? It is shaped as one, but it sits in a record, whose user it may be.`,
        options: [{ column, why: user }],
      });
    const country = c.target === 'user.country' ? countryEvidence(c.field) : undefined;
    if (country)
      out.push({
        target: c.target,
        ask: `Is ${column} the person's country? ${country[0]?.toUpperCase()}${country.slice(1)}.`,
        options: [{ column, why: country }],
      });
  }
  return out;
}
