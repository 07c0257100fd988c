/**
 * Segment's subscription language (FQL) read by Segment's own parser and matcher,
 * `@segment/destination-subscriptions` — the package actions-core itself matches subscriptions
 * with in forward-catalog — so the decision layer in `store` reads a subscription exactly as the
 * runtime does: Iterable's `event == "Order Completed"` is `event = "="` to both (docs/
 * catalog-destinations.md, "Decision layer"). Compiled once per text; whether the verdict needs
 * only the call's type and event name (then it is kept per event name) or more of the event (a
 * property, a trait, the page name), and the event names it names. Pure.
 */
import { type Condition, parseFql, type Subscription, validate } from '@segment/destination-subscriptions';

/** What a subscription is matched against when it reads only the call: its type and a track call's event name. */
export interface SegmentCall {
  readonly type: string;
  /** The track call's event name (undefined for page, identify, group and alias calls). */
  readonly event: string | undefined;
}

/** A compiled subscription. */
export interface Fql {
  /** Whether the subscription takes a Segment event (Segment's own matcher; false for a text it cannot parse). */
  readonly takes: (event: Readonly<Record<string, unknown>>) => boolean;
  /** Whether it reads only the call's type and event name, so its verdict holds for every event of one name. */
  readonly nameOnly: boolean;
  /** Segment's parse error, for a text it cannot read (the runtime answers `Invalid subscription`). */
  readonly error: string | undefined;
  /** Every `event = "<name>"` the subscription names. */
  readonly names: ReadonlySet<string>;
}

const cache = new Map<string, Fql>();
/** More distinct texts than settings hold: the cache starts over. */
const MAX_CACHED = 2048;

/** Compiles a subscription (once per text). */
export function compileFql(text: string): Fql {
  const hit = cache.get(text);
  if (hit) return hit;
  const parsed: Subscription = parseFql(text);
  const names = new Set<string>();
  let nameOnly = true;
  let error: string | undefined;
  if ('error' in parsed) error = parsed.error.message || 'it is not a subscription Segment’s parser reads';
  else
    walk(parsed.children, (c) => {
      if (c.type === 'event' && c.operator === '=' && typeof c.value === 'string') names.add(c.value);
      if (c.type !== 'event' && c.type !== 'event-type') nameOnly = false;
    });
  const fql: Fql = Object.freeze({
    takes: (event: Readonly<Record<string, unknown>>) => validate(parsed, event),
    nameOnly,
    error,
    names,
  });
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(text, fql);
  return fql;
}

/** Every condition of a parsed subscription, groups opened. */
function walk(conditions: readonly Condition[], visit: (c: Condition) => void): void {
  for (const c of conditions) {
    if (c.type === 'group') walk(c.children, visit);
    else visit(c);
  }
}
