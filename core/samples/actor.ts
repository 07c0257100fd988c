/**
 * An actor is not the subject (docs/creator-inference.md#an-actor-beside-the-subject, issue #94).
 * A payload about a change to a record often names two people: the one the record is about (a
 * contact, a customer) and whoever made, initiated or performed the change (a system user, an
 * admin, an integration). Both can be "users", and only the first is the event's person. Read here:
 *
 * - the **subject**: a column at the envelope's level naming what the payload is about, an id
 *   whose name says entity, subject, target, object, resource or record (`PrimaryEntityId`,
 *   `entity_id`, `object_id`, `target.id`), and the kind of it when a column beside says
 *   (`PrimaryEntityName: contact`, `entity_type: customer`);
 * - an **actor**: a column whose name, or an object above it, says it is whoever initiated,
 *   performed, triggered, changed or executed something, or acted (`InitiatingUserId`,
 *   `actor.id`, `performed_by`, `triggered_by_user_id`, `initiator.email`);
 * - a **bare user id** at the envelope's level (`user_id`, `UserId`, `uid`): a user's id with
 *   nothing saying whose role that user has in the event.
 *
 * Where the payload names its subject, an actor's detail is never the person's: it is refused
 * before targets are given out and kept as a field. Without a subject an actor may be the person
 * (a login's actor is the one who logged in), so the page asks. A bare user id beside a subject is
 * asked about too, never filled silently; when the subject's kind names a person (a contact, a
 * customer), the subject's id is offered first, as the person's id. Pure.
 */
import { nameWords } from './names.ts';
import { PERSON_PARTY } from './party.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import { type RuleGuess as Guess, PERSON_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** Words that name whoever acts, wherever they stand in a name (`InitiatingUserId`, `actor.id`). */
const ACTOR_WORDS = new Set(['actor', 'acting', 'initiator', 'initiating', 'performer', 'executor']);
/** Steps that, followed by "by", name whoever did them (`performed_by`, `triggeredBy`). */
const ACTED_BY = new Set(['performed', 'triggered', 'changed', 'executed', 'initiated', 'made', 'done']);
/** Words that name what a payload is about, before an id (`PrimaryEntityId`, `object_id`). */
const SUBJECT_WORDS = new Set(['entity', 'subject', 'target', 'object', 'resource', 'record']);
/** Words that name the subject's kind, after a subject word (`PrimaryEntityName`, `entity_type`). */
const KIND_WORDS = new Set(['name', 'type', 'kind', 'logical']);
const ID_WORDS = new Set(['id', 'ids', 'uuid', 'guid']);
/** Targets that are the person's details: a subject's actor never fills one silently. */
const PERSON_TARGET = /^(user_id|user\.)/;
const segmentsOf = (column: string) => column.split('.');
const parentOf = (column: string) => column.slice(0, Math.max(0, column.lastIndexOf('.')));
/** At the envelope's level: a top-level column, or one with only envelopes (`data`, `payload`) above. */
const atEnvelope = (column: string) =>
  segmentsOf(column)
    .slice(0, -1)
    .every((p) => WRAPPERS.has(nameWords(p).join('')));

/** The word of a name or path segment that says it is whoever acted, or undefined. */
function actorWordOf(segment: string): string | undefined {
  const words = nameWords(segment);
  const i = words.findIndex((w, k) => ACTOR_WORDS.has(w) || (ACTED_BY.has(w) && words[k + 1] === 'by'));
  if (i < 0) return undefined;
  return ACTOR_WORDS.has(words[i] as string) ? words[i] : `${words[i]} by`;
}

/**
 * Where a column's path says it is whoever acted: its own name or an object above it, with the
 * word that says so; undefined when nothing does.
 */
export function actorOf(column: string): { word: string; segment: string } | undefined {
  for (const segment of segmentsOf(column).reverse()) {
    const word = actorWordOf(segment);
    if (word) return { word, segment };
  }
  return undefined;
}

/** What a payload is about: its subject's id column, and its kind when a column beside names it. */
export interface Subject {
  readonly id: string;
  readonly kind?: { readonly column: string; readonly value: string };
}

/** A name's words split at its subject word: `PrimaryEntityId` → entity, then `id`. */
function subjectSplit(leaf: string): { at: number; words: string[] } | undefined {
  const words = nameWords(leaf);
  const at = words.findIndex((w) => SUBJECT_WORDS.has(w));
  return at < 0 ? undefined : { at, words };
}

/**
 * The column beside a subject id that names the subject's kind, with its one value: the id's
 * name with a kind word for its id word (`PrimaryEntityName` beside `PrimaryEntityId`,
 * `entity_type` beside `entity_id`), or the `type` of a subject object (`target.type`).
 */
function kindBeside(fields: readonly InferredField[], id: string): Subject['kind'] {
  const parent = parentOf(id);
  const idWords = nameWords(segmentsOf(id).at(-1) as string);
  const stem = idWords.length > 1 ? idWords.slice(0, -1).join(' ') : '';
  for (const f of fields) {
    const value = f.examples[0];
    if (parentOf(f.name) !== parent || f.distinct !== 1 || typeof value !== 'string') continue;
    const words = nameWords(segmentsOf(f.name).at(-1) as string);
    const kind = words.at(-1) === 'name' && words.at(-2) === 'logical' ? words.slice(0, -1) : words;
    if (KIND_WORDS.has(kind.at(-1) as string) && kind.slice(0, -1).join(' ') === stem)
      return { column: f.name, value };
  }
  return undefined;
}

/** Top-level names of the column that says which event a payload is (its type). */
const TYPE_NAMES = new Set(['type', 'event', 'eventtype', 'eventname', 'topic', 'trigger']);

/**
 * The record the event's type names and its id column, among the columns `where` admits: an
 * `envelope-sent` beside `data.envelopeId`, a `booking.created` beside `identifiers.bookingId`.
 * The type's first words name the record (the longest run of up to three that some id column is
 * named after); `kind` is the type's column and that record's name.
 */
export function recordNamedByType(
  fields: readonly InferredField[],
  where: (column: string) => boolean,
): Subject | undefined {
  const ids = fields.filter(
    (f) =>
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      where(f.name) &&
      ID_WORDS.has(nameWords(segmentsOf(f.name).at(-1) as string).at(-1) as string),
  );
  for (const t of fields) {
    if (t.name.includes('.') || !TYPE_NAMES.has(nameWords(t.name).join(''))) continue;
    for (const value of t.examples) {
      if (typeof value !== 'string') continue;
      const words = nameWords(value);
      for (let n = Math.min(3, words.length); n > 0; n--) {
        const record = words.slice(0, n).join(' ');
        const id = ids.find(
          (f) =>
            nameWords(segmentsOf(f.name).at(-1) as string)
              .slice(0, -1)
              .join(' ') === record,
        );
        if (id) return { id: id.name, kind: { column: t.name, value: record } };
      }
    }
  }
  return undefined;
}

/**
 * The payload's subject (module comment), or undefined: the first column at the envelope's level
 * whose name is a subject word followed by an id word (`PrimaryEntityId`, `record_id`), or the
 * `id` of a `subject`, `target` or `entity` object there; else the id at the envelope's level of
 * the record the event's type names (`recordNamedByType`). Always-empty columns name nothing.
 */
export function subjectOf(fields: readonly InferredField[]): Subject | undefined {
  return namedSubject(fields) ?? recordNamedByType(fields, atEnvelope);
}

/** The subject a payload names by an id of it (`PrimaryEntityId`, `target.id`), or undefined. */
export function namedSubject(fields: readonly InferredField[]): Subject | undefined {
  for (const f of fields) {
    if (f.distinct === 0 || (f.type !== 'string' && f.type !== 'integer')) continue;
    const segs = segmentsOf(f.name);
    const leaf = segs.at(-1) as string;
    const split = subjectSplit(leaf);
    const named =
      atEnvelope(f.name) &&
      split !== undefined &&
      split.at === split.words.length - 2 &&
      ID_WORDS.has(split.words.at(-1) as string);
    const object =
      segs.length >= 2 &&
      ID_WORDS.has(nameWords(leaf).join('')) &&
      ['subject', 'target', 'entity'].includes(nameWords(segs.at(-2) as string).join('')) &&
      atEnvelope(parentOf(f.name));
    if (!named && !object) continue;
    const kind = kindBeside(fields, f.name);
    return { id: f.name, ...(kind ? { kind } : {}) };
  }
  return undefined;
}

/** Whether a subject's kind names a person's object (`contact`, `customer`, `lead`). */
const personKind = (s: Subject) =>
  s.kind !== undefined && nameWords(s.kind.value).some((w) => PERSON_PARTY.has(w));

/**
 * The refusal guess.ts applies before targets are given out: why a column may not take a person's
 * target, being an actor in a payload that names its subject; undefined otherwise.
 */
export function actorRefusal(fields: readonly InferredField[]): (column: string) => string | undefined {
  const subject = subjectOf(fields);
  return (column) => {
    const actor = subject ? actorOf(column) : undefined;
    if (!subject || !actor) return undefined;
    return `"${actor.word}" in ${actor.segment}: whoever made the change, not ${subject.id}, whom the payload is about`;
  };
}

/** A bare user id: a user's id and nothing else in its name (`user_id`, `UserId`, `uid`). */
const bareUserId = (column: string) =>
  /^(userid|uid|useruuid)$/.test(nameWords(segmentsOf(column).at(-1) as string).join(''));

/**
 * The questions of an actor beside the subject (module comment), the guesses rewritten in place
 * so that each question's first option is the one taken: an actor taken as the person's detail
 * with no subject named (asked, preselected), and a bare user id at the envelope's level beside
 * the subject (asked; the subject's id preselected instead when its kind names a person).
 */
export function actorQuestions(fields: readonly InferredField[], base: Guess[]): Question[] {
  const subject = subjectOf(fields);
  const out: Question[] = [];
  for (const [i, g] of base.entries()) {
    if (!PERSON_TARGET.test(g.target)) continue;
    const actor = actorOf(g.column);
    if (actor && !subject) {
      out.push({
        target: g.target,
        ask: `Is ${g.column} the person's? "${actor.word}" in ${actor.segment} says it is whoever acted, who may not be the person the event is about.`,
        options: [{ column: g.column, why: `"${actor.word}" in ${actor.segment}: whoever acted` }],
      });
      continue;
    }
    // The user the payload is about (a `user.authenticated`'s `userId`) is its subject, no actor beside it.
    if (!subject || subject.id === g.column) continue;
    if (!PERSON_ID.has(g.target) || !bareUserId(g.column) || !atEnvelope(g.column)) continue;
    const about = `${subject.id}${subject.kind ? ` (${subject.kind.column}: ${subject.kind.value})` : ''}`;
    const userWhy = `a user's id beside ${about}, the record the payload is about: it may be whoever made the change`;
    const s = base.findIndex((x) => x.column === subject.id && x.target === 'event_data');
    const own = base[s];
    if (own && personKind(subject)) {
      const subjectWhy = `the id of the ${subject.kind?.value} the payload is about (${subject.kind?.column})`;
      base[s] = { column: own.column, target: g.target, why: `${subjectWhy}; asked above, preselected` };
      base[i] = {
        column: g.column,
        target: 'event_data',
        field: dataFieldName(g.column),
        why: `${userWhy}; kept as a field, asked above`,
      };
      out.push({
        target: g.target,
        ask: `Which column is the person's id? The payload is about ${subject.id}, a ${subject.kind?.value}; ${g.column} names a user, maybe whoever made the change.`,
        options: [
          { column: subject.id, why: subjectWhy },
          { column: g.column, why: userWhy },
        ],
      });
    } else
      out.push({
        target: g.target,
        ask: `Is ${g.column} the person's id? The payload is about ${about}; a user's id beside it may be whoever made the change.`,
        options: [{ column: g.column, why: userWhy }],
      });
  }
  return out;
}
