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

/** The reserved prefix a name starts with (`ga_`…, RESERVED_EVENT_PREFIXES), or undefined. */
export function reservedPrefixOf(name: string): string | undefined {
  return RESERVED_EVENT_PREFIXES.find((p) => name.startsWith(p));
}

/** Why a name breaks the naming rule, or undefined when it is a valid event name. */
export function eventNameProblem(name: string): string | undefined {
  if (!namePattern.test(name)) return `must match ${EVENT_NAME_PATTERN} (snake_case, at most 40 characters)`;
  const prefix = reservedPrefixOf(name);
  if (prefix) return `must not start with the reserved prefix "${prefix}"`;
  return undefined;
}

/** Edit distance with adjacent transpositions (optimal string alignment), capped at `max + 1`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const w = b.length + 1;
  const d = new Array<number>((a.length + 1) * w).fill(0);
  const at = (i: number, j: number): number => d[i * w + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * w] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * w + j] = v;
    }
  }
  return at(a.length, b.length);
}

const squash = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The name among `names` that `name` (not itself one of them) was most likely meant to be, or
 * undefined: the same name in other case or separators (`AddToCart`, `page-view`), or a typo (one
 * edit in names of 6 or more characters, two from 10), so `purchse` is not silently stored as a
 * new custom event. Short names are left alone (`read` is not `lead`).
 */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  const flat = squash(name);
  for (const n of names) if (squash(n) === flat) return n;
  const max = name.length >= 10 ? 2 : name.length >= 6 ? 1 : 0;
  if (max === 0) return undefined;
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    const d = editDistance(name.toLowerCase(), n, max);
    if (d <= max && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}

const CATALOGUE_NAMES: readonly string[] = CATALOGUE.map((e) => e.name);

/** The catalogue event a name that is not in the catalogue was most likely meant to be (nearestName). */
export function nearCatalogueName(name: string): string | undefined {
  if (byName.has(name)) return undefined;
  return nearestName(name, CATALOGUE_NAMES);
}
