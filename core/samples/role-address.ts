/**
 * An address named for the person's role beside a bare `email` (issue #94,
 * docs/creator-inference.md, "What answered the twenty-eighth part's errors"). Held-out-28's
 * sending API reported an unsubscribe with the sender's own address under `email` and the person
 * who unsubscribed in `recipients`: the bare name won, and the sender's address was filled as the
 * person's e-mail. A bare `email` says nothing of whose address it is (the sender's, the
 * account's); a name that says a role a person plays (a recipient, subscriber, contact, customer,
 * member, user, `to`) does. Where the person's e-mail is filled from a bare `email` and an address
 * (or a list of them) beside it is named for such a role, the bare one is no longer filled: the
 * page asks, the role-named address first, preselected only where the event's name says the event
 * is about that person (an unsubscribe, a bounce, a delivery, an open, a click, a complaint) and
 * there is one such address; else nothing is preselected. Never a column named for the sender, a
 * copy or the business. Pure, but for the guesses and questions it rewrites.
 */
import { isAddressList } from './email-list.ts';
import { eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import { otherParty } from './party.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

const EMAIL = 'user.email';
/** Words of a role a person plays that an address may be named for. */
const ROLE = new Set([
  'recipient',
  'recipients',
  'to',
  'subscriber',
  'subscribers',
  'contact',
  'contacts',
  'customer',
  'customers',
  'member',
  'members',
  'user',
  'users',
]);
/** Words of who sent it, or of a copy: never the person's role. */
const NOT_ROLE = new Set(['sender', 'from', 'source', 'reply', 'cc', 'bcc']);
/** Words of an event that happens to the person an address names. */
const ABOUT = new Set([
  'unsubscribe',
  'unsubscribed',
  'unsubscribes',
  'bounce',
  'bounced',
  'bounces',
  'delivery',
  'delivered',
  'open',
  'opened',
  'opens',
  'click',
  'clicked',
  'complaint',
  'complained',
]);
/** Words of a bare address's name, which says nothing of whose it is. */
const BARE = new Set(['email', 'mail', 'address', 'e']);

const parentOf = (column: string) => (column.includes('.') ? column.slice(0, column.lastIndexOf('.')) : '');
const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1));

/** Whether a column's leaf names an address and nothing else (`email`, `email_address`). */
const bare = (column: string) => {
  const words = leafWords(column);
  return words.length > 0 && words.every((w) => BARE.has(w)) && words.some((w) => w !== 'address');
};

/** Whether a column holds addresses under a name that says a role a person plays. */
function roleAddress(f: InferredField): boolean {
  const words = leafWords(f.name);
  if (!words.some((w) => ROLE.has(w)) || words.some((w) => NOT_ROLE.has(w))) return false;
  if (otherParty(f.name) !== undefined || f.distinct === 0) return false;
  return (f.type === 'string' && f.format === 'email') || isAddressList(f);
}

/** The word of the event's name that says it happened to the addressed person, or undefined. */
function aboutTheRole(fields: readonly InferredField[]): string | undefined {
  const named = eventNamed(fields);
  return named ? nameWords(named.value).find((w) => ABOUT.has(w)) : undefined;
}

/** The rule applied in place (module comment). */
export function roleAddressRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  const at = base.findIndex((g) => g.target === EMAIL && bare(g.column));
  const taken = base[at];
  if (!taken) return;
  const beside = fields.filter(
    (f) =>
      f.name !== taken.column &&
      parentOf(f.name) === parentOf(taken.column) &&
      roleAddress(f) &&
      base.find((g) => g.column === f.name)?.target === 'event_data',
  );
  const [first] = beside;
  if (!first) return;
  const about = beside.length === 1 ? aboutTheRole(fields) : undefined;
  const named = `${taken.column} is a bare address, which may be the sender's or the account's`;
  base[at] = {
    column: taken.column,
    target: 'event_data',
    field: dataFieldName(taken.column),
    why: `an address, but ${beside.map((f) => f.name).join(', ')} beside it ${beside.length === 1 ? 'is' : 'are'} named for a role the person plays: asked above`,
  };
  for (const q of questions.filter(
    (x) => (x.field ?? x.target) === EMAIL && x.options.some((o) => o.column === taken.column),
  ))
    questions.splice(questions.indexOf(q), 1);
  const options = [
    ...beside.slice(0, 3).map((f) => ({
      column: f.name,
      why: `${isAddressList(f) ? 'a list of addresses' : 'an address'} named for a role the person plays${isAddressList(f) ? ': its first address would be taken' : ''}`,
    })),
    { column: taken.column, why: named },
  ];
  const ask = `Whose e-mail address is the person's? ${first.name} is named for a role the person plays; ${named}.`;
  if (!about) {
    questions.push({ target: EMAIL, ask, options, noneGuessed: { why: named } });
    return;
  }
  const to = base.findIndex((g) => g.column === first.name);
  base[to] = {
    column: first.name,
    target: EMAIL,
    why: `an address named for a role the person plays, and the event is "${about}": asked above, preselected`,
  };
  questions.push({ target: EMAIL, ask, options });
}
