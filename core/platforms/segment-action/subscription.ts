/**
 * Which events a `segment_action` destination's actions take, for the decision layer in `store`
 * (docs/catalog-destinations.md, "Decision layer"): each configured action's subscription — its
 * `when`, else its default from default-subscriptions.json (a small table generated from the
 * catalogue by scripts/segment-subscriptions.ts; neither the 1.7 MB manifest nor actions-core is
 * loaded here) — compiled once per destination value (once per settings load), and the verdict per
 * event name kept, since the part of FQL judged here (fql.ts) reads only the call type and the event
 * name. Pure.
 */
import type { Destination } from '../../../schemas/settings.ts';
import table from './default-subscriptions.json' with { type: 'json' };
import { compileFql, type Fql, type SegmentCall } from './fql.ts';
import { subscriptionOf } from './presets.ts';
import { CALL_TYPES, SPEC_EVENT_NAMES } from './segment-event.ts';

/** Each destination's actions (by slug), each with its default subscription or null when it has none. */
export type DefaultSubscriptions = Readonly<Record<string, Readonly<Record<string, string | null>>>>;

const DEFAULTS = table as DefaultSubscriptions;

/** An action that takes nothing: it has no subscription (the runtime skips it, and the check refuses it). */
const NEVER: Fql = Object.freeze({ takes: () => false, names: new Set<string>() });

/** A destination's actions compiled, and the verdicts given so far by event name. */
interface Compiled {
  /** One per configured action; undefined for an action the table does not know (the runtime says why). */
  readonly actions: readonly (Fql | undefined)[];
  /** Event names an action's own `when` names (`event = "…"`): custom events it is set up for. */
  readonly named: ReadonlySet<string>;
  readonly verdicts: Map<string, boolean | undefined>;
}

const compiled = new WeakMap<Readonly<Destination>, Compiled>();

/** More event names than a settings file names: the verdicts start over (custom names are few). */
const MAX_VERDICTS = 4096;

/** The Segment call an event of ours becomes (segment-event.ts): its type, and a track call's event name. */
export function segmentCallOf(eventName: string): SegmentCall {
  const type = CALL_TYPES[eventName] ?? 'track';
  return { type, event: type === 'track' ? (SPEC_EVENT_NAMES[eventName] ?? eventName) : undefined };
}

/**
 * Whether any configured action of the destination takes the event: false when none does, true
 * when one does, undefined when it depends on more than the event's name (a property condition)
 * or on an action this table does not know — the runtime decides those.
 */
export function segmentActionTakes(
  destination: Readonly<Destination>,
  eventName: string,
): boolean | undefined {
  const c = compiledOf(destination);
  if (c.verdicts.has(eventName)) return c.verdicts.get(eventName);
  const call = segmentCallOf(eventName);
  let verdict: boolean | undefined = false;
  for (const fql of c.actions) {
    const takes = fql === undefined ? undefined : fql.takes(call);
    if (takes === true) {
      verdict = true;
      break;
    }
    if (takes === undefined) verdict = undefined;
  }
  if (c.verdicts.size >= MAX_VERDICTS) c.verdicts.clear();
  c.verdicts.set(eventName, verdict);
  return verdict;
}

/**
 * Whether a custom event has a mapping at the destination: it becomes an identify, group or alias
 * call (`user_identified`…: segment-event.ts writes those), or an action's own `when` names it
 * (`when: [quote_requested]`, or `event = "quote_requested"` in FQL) — the destination's allow list.
 */
export function segmentActionMaps(destination: Readonly<Destination>, eventName: string): boolean {
  const event = segmentCallOf(eventName).event;
  return event === undefined || compiledOf(destination).named.has(event);
}

/** The destination's actions compiled, once per destination value. */
function compiledOf(destination: Readonly<Destination>): Compiled {
  const hit = compiled.get(destination);
  if (hit) return hit;
  const known = DEFAULTS[destination.destination ?? ''];
  const named = new Set<string>();
  const actions = (destination.actions ?? []).map((setting): Fql | undefined => {
    const fallback = known?.[setting.action];
    if (fallback === undefined) return undefined;
    const fql = subscriptionOf(setting, fallback ?? undefined);
    if (fql === undefined) return NEVER;
    const c = compileFql(fql);
    if (setting.when !== undefined) for (const n of c.names) named.add(n);
    return c;
  });
  const out: Compiled = { actions, named, verdicts: new Map() };
  compiled.set(destination, out);
  return out;
}
