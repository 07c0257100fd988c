/**
 * An id named for the record the event names, where no event id is (issue #94,
 * docs/creator-inference.md#an-id-named-for-the-events-record). Read from what stops the tuned
 * samples once the twenty-seventh part's errors were answered: a chat's end carried its chat's id
 * as `chat_id` inside the visitor's object, and an onboarding's completion its `onboarding_id`,
 * and nothing was taken or asked as the event's id, as the record-id rule (record-id.ts) reads no
 * id inside a party's object. Where, once every other id rule has run, still no column is taken or
 * asked as the event's id, a column anywhere whose leaf is an id named for a word of the event's
 * name (`chat_id` beside `chat_ended`, `onboardingId` beside `onboarding.completed`) is offered
 * with no answer preselected; never one named for a party (a user, contact, customer, visitor,
 * account, app), whose id says who, not which event, nor for the event itself (named-event-id.ts
 * reads those). It offers and never fills: a second event about the same chat shares its id.
 * Pure.
 */
import type { AskText } from './ask-columns.ts';
import { eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import { offerEventIds } from './plain-id-offer.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Words of a party or of the event itself: an id named so says who, or is read elsewhere. */
const NOT_A_RECORD = new Set([
  'user',
  'contact',
  'customer',
  'member',
  'subscriber',
  'visitor',
  'client',
  'person',
  'profile',
  'lead',
  'account',
  'app',
  'merchant',
  'owner',
  'agent',
  'event',
  'webhook',
]);
const ID_WORDS = new Set(['id', 'uid', 'uuid']);

const TEXT: AskText = {
  ask: "Which column is the event's own id? Nothing else was found for it; these are ids named for the record the event's name names.",
  taken: '',
  none: 'an id named for the record the event is about: a later event about the same record shares it',
};

/** The question (module comment), or undefined where it does not apply. */
export function eventRecordIdQuestion(
  fields: readonly InferredField[],
  base: Guess[],
  questions: readonly Question[],
): Question | undefined {
  const named = eventNamed(fields);
  if (!named) return undefined;
  const words = new Set(nameWords(named.value).filter((w) => !NOT_A_RECORD.has(w)));
  return offerEventIds(fields, base, questions, TEXT, (f) => {
    const leaf = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1));
    const record = leaf.at(-2) ?? '';
    if (leaf.length !== 2 || !ID_WORDS.has(leaf[1] ?? '') || !words.has(record)) return undefined;
    return `an id named for the ${record}, as the event "${named.value}" is`;
  });
}
