/**
 * The event name the creator proposes (docs/creator-inference.md#guesses): from a column that names
 * the event when the sample has one value there, mended until the registry takes it. Pure.
 */
import {
  eventNameProblem,
  lookupEvent,
  nearCatalogueName,
  reservedPrefixOf,
} from '../../schemas/catalogue.ts';
import { fieldName, nameWords } from './names.ts';
import type { InferredField } from './sample.ts';

/** A proposed event name, with why. */
export interface EventNameGuess {
  readonly name: string;
  readonly why: string;
}

const words = (column: string) => nameWords(column).join('');
const depth = (column: string) => column.split('.').length - 1;

/** A name for the event from a column that names it, when the sample has one value there. */
export function chooseEventName(
  fields: readonly InferredField[],
  named: readonly string[],
): EventNameGuess | undefined {
  // The envelope's `type` (Intercom's `notification_event`) names the kind of message; an event's
  // own name, or a `topic` (Intercom's `user.created`, Shopify's header), names what happened.
  const rank = ['eventname', 'eventtype', 'event', 'topic', 'type'];
  const candidates = [
    ...named,
    ...fields
      .filter((f) => depth(f.name) === 0 && rank.includes(words(f.name)))
      .sort((a, b) => rank.indexOf(words(a.name)) - rank.indexOf(words(b.name)))
      .map((f) => f.name),
  ];
  for (const column of candidates) {
    const f = fields.find((x) => x.name === column);
    const value = f?.examples[0];
    if (f?.distinct !== 1 || typeof value !== 'string') continue;
    const guess = eventNameGuess(value, column);
    if (guess) return guess;
  }
  return undefined;
}

/**
 * The longest event name the registry takes (schemas/context.ts `EVENT_NAME_PATTERN`; a change
 * there that this misses is still caught: every proposal passes `eventNameProblem`).
 */
const MAX_EVENT_NAME = 40;
const WEBHOOK = '_webhook';

/**
 * The event name the creator proposes for a value that names the event (`type = "order.paid"`, a
 * topic header's `orders/create`), one the registry takes, with why; undefined when none is left.
 * The value is made snake_case and cut at the name's longest; a reserved prefix the registry
 * refuses (schemas/catalogue.ts `reservedPrefixOf`: `ga_`, `google_`…) is dropped, saying so;
 * a built-in event's name, or one too close to it, gets `_webhook` (the creator defines a new
 * event). Every proposal passes the registry's own check (`eventNameProblem`).
 */
export function eventNameGuess(value: string, column: string): EventNameGuess | undefined {
  const mended: string[] = [];
  const whole = fieldName(value);
  let name = whole.slice(0, MAX_EVENT_NAME);
  if (whole.length > MAX_EVENT_NAME)
    mended.push(`cut at ${MAX_EVENT_NAME} characters, the longest a name may be`);
  for (let prefix = reservedPrefixOf(name); prefix; prefix = reservedPrefixOf(name)) {
    mended.push(`"${prefix}" dropped: the registry refuses names starting with it, a reserved prefix`);
    name = fieldName(name.slice(prefix.length)).slice(0, MAX_EVENT_NAME);
  }
  const from = `from ${column} = "${value}"${mended.map((m) => `, ${m}`).join('')}`;
  const builtIn = lookupEvent(name) ? name : nearCatalogueName(name);
  if (builtIn) {
    const own = `${name.slice(0, MAX_EVENT_NAME - WEBHOOK.length)}${WEBHOOK}`;
    if (eventNameProblem(own) || lookupEvent(own) || nearCatalogueName(own)) return undefined;
    return { name: own, why: `${from}, with "${WEBHOOK}" added: ${builtIn} is a built-in event’s name` };
  }
  return eventNameProblem(name) ? undefined : { name, why: from };
}
