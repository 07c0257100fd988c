/**
 * A person's id under a person's party (docs/creator-inference.md, "A person's id under their
 * party"). Where no column is taken as the person's id, the id of a party that names the person
 * an event is about (`contact_id`, `sender.user_id`, `data.conversation.requester.id`) is often
 * there under a name the synonyms do not take. A party word is a name, not proof: a sender may be
 * the business's agent, a contact a company. So the page asks, never fills it silently: the one
 * such id preselected, several offered with no answer preselected; never one of an object that
 * says it holds one of the business's people (`user.type: agent`, party.ts). Pure.
 */
import { askColumns } from './ask-columns.ts';
import { idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import { heldByBusiness, otherParty, PERSON_PARTY } from './party.ts';
import type { Question } from './questions.ts';
import { WRAPPERS } from './roles.ts';
import { personIdAnswered, type RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { actorAbove } from './two-evidence.ts';

/** Parties that name the person an event is about: party.ts's, and who asked, submitted or sent. */
const PARTIES = new Set([...PERSON_PARTY, 'requester', 'submitter', 'sender', 'requestor']);
const ID = new Set(['id', 'uuid']);

/** The party a column's id is the id of (`contact` for `contact_id`, `requester` for `requester.id`), or undefined. */
function partyOfId(column: string): string | undefined {
  const parts = column.split('.');
  const words = nameWords(parts.at(-1) as string);
  if (!ID.has(words.at(-1) as string)) return undefined;
  // Named for the party: `contact_id`, `customerId`.
  if (words.length === 2 && PARTIES.has(words[0] as string)) return words[0];
  // The plain id, or the user's id, of the party's own object: `requester.id`, `sender.user_id`.
  const plain = words.length === 1 || (words.length === 2 && words[0] === 'user');
  const owner = parts
    .slice(0, -1)
    .filter((p) => !WRAPPERS.has(nameWords(p).join('')))
    .at(-1);
  const party = owner === undefined ? undefined : nameWords(owner).join('');
  return plain && party !== undefined && PARTIES.has(party) ? party : undefined;
}

/** A detail that names a person: an e-mail or phone by its values, a first, last or full name by its name. */
const personDetail = (f: InferredField) =>
  f.format === 'email' ||
  f.format === 'phone' ||
  /^(first|last|full|given|family) ?name$/.test(
    nameWords(f.name.slice(f.name.lastIndexOf('.') + 1)).join(' '),
  );

/**
 * Why a `client_id` is not a browser's anonymous id, or undefined. Analytics name a browser's id
 * `client_id` (GA's), but so do services whose customers are their clients: a booking's
 * `client.clientId`, a CRM's `data.client_id` beside the client's names and e-mail, a ticket's
 * `client_id` beside its e-mail. Below the payload's top, in an object named for a person's party
 * or holding a person's details, it is that client's id, which the page asks about as the
 * person's (`partyIdQuestion`), never a browser's.
 */
export function clientOfPerson(fields: readonly InferredField[], column: string): string | undefined {
  const cut = column.lastIndexOf('.');
  if (cut < 0 || nameWords(column.slice(cut + 1)).join(' ') !== 'client id') return undefined;
  const parent = column.slice(0, cut);
  const owner = nameWords(parent.slice(parent.lastIndexOf('.') + 1));
  const party = PERSON_PARTY.has(owner.at(-1) as string);
  const detail = fields.find(
    (f) => f.distinct > 0 && f.name.slice(0, f.name.lastIndexOf('.')) === parent && personDetail(f),
  );
  if (!party && !detail) return undefined;
  return `a client's id, ${party ? `inside ${parent}` : `beside ${detail?.name}`}: the client is a customer here, not a browser`;
}

/**
 * With no column taken or asked about as the person's id, the question of which party id is the
 * person's (module comment), undefined where there is none. The one preselected, when there is
 * one, is rewritten in place as the person's id.
 */
export function partyIdQuestion(
  base: RuleGuess[],
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  questions: readonly Question[],
): Question | undefined {
  if (personIdAnswered(base, questions)) return undefined;
  const held = heldByBusiness(fields);
  const ids = fields.filter(
    (f) =>
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      f.format !== 'email' &&
      f.format !== 'url' &&
      partyOfId(f.name) !== undefined &&
      otherParty(f.name) === undefined &&
      actorAbove(f.name) === undefined &&
      held(f.name) === undefined &&
      base.some((g) => g.column === f.name && g.target === 'event_data') &&
      rows.every((r) => r[f.name] !== undefined && r[f.name] !== null && r[f.name] !== '') &&
      idShaped(rows, f.name),
  );
  if (ids.length === 0) return undefined;
  const options = ids.slice(0, 3).map((f) => ({
    column: f.name,
    why: `the id of the ${partyOfId(f.name)}, a party that may be the person the event is about`,
  }));
  const parties = [...new Set(ids.map((f) => partyOfId(f.name)))].join(' or ');
  return askColumns(base, 'user_id', options, ids.length === 1, {
    ask: `Is ${ids.length === 1 ? ids[0]?.name : 'one of these'} the person's id? It names a ${parties}, which may be the person the event is about, or the business's side.`,
    taken: `the id of the ${parties}: the person's, by the party's name only; asked above, preselected`,
    none: 'several parties’ ids, and nothing says which is the person',
  });
}
