/**
 * An envelope's id beside its subject's (docs/creator-inference.md, "An envelope's id beside its
 * subject's"). A webhook about one record often names it by reference rather than wrapping it: a
 * `target.id`, an `entity_id`, or a bare `subject` with its kind beside it (`subjectType: USER`).
 * The envelope's own id at the top is then the event's for some vendors and one delivery's for
 * others (each retry a new one), and when its values are the subject's own (`id: 123456` beside
 * `target.id: 123456`) it is no id of the event at all. As with a wrapped record's id
 * (envelope-id.ts), only evidence settles it: the envelope saying it is an event, an id typed by a
 * kind of its own, a delivery attempt counter (`envelopeIdEvidence`). Without any, the page asks
 * which is the event's own id, the envelope's or the subject's, with no answer preselected: the
 * envelope's id, if a delivery's, makes each retry a second row; the subject's folds every later
 * event about it into the first. Pure, but for the guess it rewrites.
 */
import { actorOf, namedSubject, type Subject } from './actor.ts';
import { askColumns } from './ask-columns.ts';
import { idShaped } from './delivery.ts';
import { envelopeIdEvidence, takenEnvelopeId } from './envelope-id.ts';
import { nameWords } from './names.ts';
import { namesBusinessParty, PERSON_PARTY, personWord } from './party.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import { type RuleGuess as Guess, PERSON_ID, PLAIN_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** Words that alone name what a payload is about, by its id (`subject`, `target`). */
const SUBJECT = new Set(['subject', 'target', 'resource', 'entity']);
const KINDS = new Set(['type', 'kind']);

const parentOf = (column: string) => column.slice(0, Math.max(0, column.lastIndexOf('.')));
const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1));
const underEnvelope = (column: string) =>
  column
    .split('.')
    .slice(0, -1)
    .every((p) => WRAPPERS.has(nameWords(p).join('')));

/**
 * A bare subject word at the envelope's level whose kind a column beside names (`data.subject`
 * beside `data.subjectType`), its values shaped as ids, with that kind; undefined where there is
 * none.
 */
function bareSubject(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
): Subject | undefined {
  for (const f of fields) {
    const words = leafWords(f.name);
    if (words.length !== 1 || !SUBJECT.has(words[0] as string) || !underEnvelope(f.name)) continue;
    if (f.distinct === 0 || (f.type !== 'string' && f.type !== 'integer') || !idShaped(rows, f.name))
      continue;
    const kind = fields.find((k) => {
      const kw = leafWords(k.name);
      return (
        parentOf(k.name) === parentOf(f.name) &&
        kw.length === 2 &&
        kw[0] === words[0] &&
        KINDS.has(kw[1] as string)
      );
    });
    if (!kind) continue;
    const value = kind.distinct === 1 && typeof kind.examples[0] === 'string' ? kind.examples[0] : undefined;
    return { id: f.name, ...(value === undefined ? {} : { kind: { column: kind.name, value } }) };
  }
  return undefined;
}

/**
 * The plain id of the record the payload wraps (`data.id`, `data.object.id`: wrappers only above
 * it), as a subject with no kind of its own; undefined where there is none.
 */
function wrappedId(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
): Subject | undefined {
  const f = fields.find(
    (x) =>
      PLAIN_ID.test(x.name.slice(x.name.lastIndexOf('.') + 1)) &&
      x.name.includes('.') &&
      underEnvelope(x.name) &&
      x.distinct > 0 &&
      (x.type === 'string' || x.type === 'integer') &&
      idShaped(rows, x.name),
  );
  return f ? { id: f.name } : undefined;
}

/** The subject a payload names by reference, named (actor.ts) or bare (`data.subject`). */
const subjectRef = (fields: readonly InferredField[], rows: readonly Record<string, unknown>[]) =>
  namedSubject(fields) ?? bareSubject(fields, rows);

/** Top-level names of the column that says which event a payload is. */
const TYPE_NAMES = new Set(['type', 'event', 'eventtype', 'eventname', 'topic']);

/**
 * The subject's kind as the event's one type names it, where no column beside the subject does:
 * the type's words before its step (`topic: customer_created` → customer).
 */
function typeKind(fields: readonly InferredField[]): Subject['kind'] {
  for (const t of fields) {
    if (t.name.includes('.') || !TYPE_NAMES.has(nameWords(t.name).join('')) || t.distinct !== 1) continue;
    const value = t.examples[0];
    const words = typeof value === 'string' ? nameWords(value).slice(0, -1) : [];
    if (words.length > 0) return { column: t.name, value: words.join(' ') };
  }
  return undefined;
}

/**
 * A subject whose kind names a person (docs/creator-inference.md, "An envelope's id beside its
 * subject's"): with no column taken or asked about as the person's id, the id of what the payload
 * is about, when the column beside names its kind as a person's (`target.type: User`,
 * `data.subjectType: USER`, `entity_type: contact`), or with none beside it the event's type does
 * (`resourceId` beside `topic: customer_created`), is the person's by what it identifies, not by
 * its name; so is the plain id of the record the payload wraps (`data.id`) where the type's record
 * is a person's (`user.created`, `users.created`). A kind is a vendor's word, and a user may be a staff member, so the page asks,
 * never fills it: that id preselected. Never a business party's, nor an actor's.
 */
export function subjectPersonIdQuestion(
  base: Guess[],
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => PERSON_ID.has(g.target))) return undefined;
  if (questions.some((q) => PERSON_ID.has(q.field ?? q.target) && !q.noneGuessed)) return undefined;
  const subject = subjectRef(fields, rows) ?? wrappedId(fields, rows);
  if (!subject) return undefined;
  const kind = subject.kind ?? typeKind(fields);
  if (!kind || !nameWords(kind.value).some(personWord)) return undefined;
  // A type names more than the subject (`customer_invoice_created`): its record is a person's
  // only where its last word, or the subject's own name, says so.
  const own = nameWords(subject.id.slice(subject.id.lastIndexOf('.') + 1));
  const head = nameWords(kind.value).at(-1) as string;
  if (!subject.kind && !personWord(head) && !own.some((w) => PERSON_PARTY.has(w))) return undefined;
  if (namesBusinessParty(subject.id) || actorOf(subject.id) !== undefined) return undefined;
  if (!base.some((g) => g.column === subject.id && g.target === 'event_data')) return undefined;
  return askColumns(
    base,
    'user_id',
    [{ column: subject.id, why: `the id of what the payload is about, a ${kind.value} (${kind.column})` }],
    true,
    {
      ask: `Is ${subject.id} the person's id? It is the id of what the payload is about, and ${kind.column} says that is a ${kind.value}; a ${kind.value} may still be the business's own.`,
      taken: `the id of the ${kind.value} the payload is about (${kind.column}): the person's, asked above, preselected`,
      none: 'nothing says whose this id is',
    },
  );
}

/**
 * The question of which is the event's own id, the envelope's or its subject's (module comment),
 * undefined where the envelope's id is not taken, there is no subject, or evidence says the
 * envelope's is the event's. The envelope's guess is rewritten in place as an event field.
 */
export function subjectIdQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): Question | undefined {
  const taken = takenEnvelopeId(fields, base);
  if (taken === undefined) return undefined;
  const { at, chosen } = taken;
  const subject = subjectRef(fields, rows)?.id;
  if (!subject || subject === chosen.column || namesBusinessParty(subject)) return undefined;
  const same = rows.length > 0 && rows.every((r) => String(r[chosen.column]) === String(r[subject]));
  // Beside its own id at the top, a subject's id makes the envelope an event record that names
  // what it is about (`id`, `type`, `resourceId`): its id is its own.
  if (!same && !subject.includes('.')) return undefined;
  if (envelopeIdEvidence(fields, rows, chosen.column, subject) !== undefined) return undefined;
  const why = same
    ? `its values are those of ${subject}, the id of what the payload is about: no id of the event's own`
    : `the envelope's id beside ${subject}, the id of what the payload is about, and nothing says it is the event's and not one delivery's`;
  base[at] = {
    column: chosen.column,
    target: 'event_data',
    field: dataFieldName(chosen.column),
    why: `${why}: kept as a field, asked above`,
  };
  return {
    target: 'event_id',
    ask: `Which column is the event's own id? ${chosen.column} is the envelope's, ${subject} the id of what the payload is about, and nothing in the payload says which: if ${chosen.column} names one delivery, each retry becomes a second row; if ${subject} is taken, every later event about it is folded into the first.`,
    options: [
      {
        column: chosen.column,
        why: same
          ? `the envelope's id, the same as ${subject}'s`
          : "the envelope's id: the event's, or one delivery's",
      },
      { column: subject, why: 'the id of what the payload is about' },
    ],
    noneGuessed: {
      why: "nothing says whether the envelope's id is the event's, one delivery's or its subject's",
    },
  };
}
