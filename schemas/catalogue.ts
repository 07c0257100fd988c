/**
 * The standard catalogue: event types by name, and the rule custom event names follow.
 * Unknown (custom) names are stored or rejected per the environment's `unknown_events`.
 */
import { EVENT_NAME_PATTERN, RESERVED_EVENT_PREFIXES } from './context.ts';
import { AddPaymentInfo, AddToCart, BeginCheckout, Purchase } from './events/commerce.ts';
import type { EventType } from './events/common.ts';
import { Contact, Lead, SignUp, Subscribe } from './events/engagement.ts';
import { PageView } from './events/page-view.ts';
import { Search } from './events/search.ts';
import { ViewContent } from './events/view-content.ts';

/** Every standard event type, in the order docs list them. */
export const CATALOGUE: readonly EventType[] = Object.freeze([
  PageView,
  ViewContent,
  Search,
  AddToCart,
  BeginCheckout,
  AddPaymentInfo,
  Purchase,
  Lead,
  SignUp,
  Subscribe,
  Contact,
]);

const byName: ReadonlyMap<string, EventType> = new Map(CATALOGUE.map((e) => [e.name, e]));

/** The catalogue entry for an event name, or undefined for custom events. */
export function lookupEvent(name: string): EventType | undefined {
  return byName.get(name);
}

/** Schema version reported for custom events (they have no schema of ours). */
export const CUSTOM_EVENT_VERSION = 0;

const namePattern = new RegExp(EVENT_NAME_PATTERN);

/** Why a name breaks the naming rule, or undefined when it is a valid event name. */
export function eventNameProblem(name: string): string | undefined {
  if (!namePattern.test(name)) return `must match ${EVENT_NAME_PATTERN} (snake_case, at most 40 characters)`;
  const prefix = RESERVED_EVENT_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) return `must not start with the reserved prefix "${prefix}"`;
  return undefined;
}
