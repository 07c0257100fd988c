/**
 * Which events a `segment_action` destination's actions take, for the decision layer in `store`
 * (docs/catalog-destinations.md, "Decision layer"): the runs presets.ts gives (the destination's
 * presets when it names no actions; each action's `when`, its presets or its default), read from
 * default-subscriptions.json (a small table generated from the catalogue by
 * scripts/segment-subscriptions.ts; neither the 1.7 MB manifest nor actions-core is loaded here),
 * each subscription matched by Segment's own matcher (fql.ts) against the Segment event the
 * runtime would send. Compiled once per destination value (once per settings load); a verdict
 * that reads only the call's type and event name is kept per event name. Pure.
 */
import type { Destination } from '../../../schemas/settings.ts';
import type { StoredEvent } from '../../event.ts';
import table from './default-subscriptions.json' with { type: 'json' };
import { compileFql, type Fql, type SegmentCall } from './fql.ts';
import { type ActionPreset, actionSteps } from './presets.ts';
import { AUDIENCE_EVENT_NAMES, CALL_TYPES, segmentEventName, segmentEventOf } from './segment-event.ts';

/**
 * One destination's row of the table: each action's default subscription (null: none), the
 * Segment event paths its required fields read by default (by action, then field), and its
 * presets' subscriptions with the needed fields each preset's mapping sets otherwise.
 */
export interface DestinationSubscriptions {
  readonly defaults: Readonly<Record<string, string | null>>;
  readonly needs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly presets?: readonly (Pick<ActionPreset, 'action' | 'subscribe'> & {
    readonly sets?: readonly string[];
  })[];
}

/** The table, by destination slug. */
export type DefaultSubscriptions = Readonly<Record<string, DestinationSubscriptions>>;

const TABLE = table as DefaultSubscriptions;

/**
 * A run compiled: its subscription (undefined when the runtime must judge: an action the table does
 * not know, a text Segment cannot parse) and what its action cannot do without — the required
 * fields still read by their default path (none set by the preset or the settings' mapping).
 */
interface Run {
  readonly fql: Fql | undefined;
  readonly action: string;
  readonly needs: readonly {
    readonly field: string;
    readonly path: string;
    readonly parts: readonly string[];
  }[];
}

/** A destination's runs compiled, and the verdicts given so far by event name. */
interface Compiled {
  readonly runs: readonly Run[];
  /** Event names an action's own `when` names (`event = "…"`): custom events it is set up for. */
  readonly named: ReadonlySet<string>;
  readonly verdicts: Map<string, boolean | undefined>;
}

/** A run that takes nothing: it has no subscription (the runtime skips it, and the check refuses it). */
const NEVER: Fql = Object.freeze({
  takes: () => false,
  nameOnly: true,
  error: undefined,
  names: new Set<string>(),
});

const compiled = new WeakMap<Readonly<Destination>, Compiled>();

/** More event names than a settings file names: the verdicts start over (custom names are few). */
const MAX_VERDICTS = 4096;

/** The Segment call an event of ours becomes (segment-event.ts): its type, and a track call's event name. */
export function segmentCallOf(eventName: string): SegmentCall {
  const type = CALL_TYPES[eventName] ?? 'track';
  return { type, event: type === 'track' ? segmentEventName(eventName) : undefined };
}

/** A run whose subscription takes the event, its action, and its first required field the event cannot fill. */
export interface Missing {
  readonly action: string;
  readonly field: string;
  readonly path: string;
}

/**
 * Whether any run of the destination's actions takes the event: true when one does, false when
 * none does, undefined when the runtime must judge (an action or a destination the table does not
 * know, a subscription Segment's parser refuses: the runtime's row says why). A run takes an event
 * its subscription matches and that carries every path its required fields read (an action
 * refuses a payload without a required field: an ordinary event at an Engage audience action).
 */
export function segmentActionTakes(
  destination: Readonly<Destination>,
  event: StoredEvent,
): boolean | undefined {
  return segmentActionVerdict(destination, event).takes;
}

/**
 * When no run takes the event but one's subscription matches it: that run's action, its first
 * required field the event cannot fill, and the path the field reads (for the skip's reason).
 */
export function segmentActionMissing(
  destination: Readonly<Destination>,
  event: StoredEvent,
): Missing | undefined {
  return segmentActionVerdict(destination, event).missing;
}

/** Both in one pass over the runs (the decision layer reads both of an event it skips). */
export function segmentActionVerdict(
  destination: Readonly<Destination>,
  event: StoredEvent,
): { readonly takes: boolean | undefined; readonly missing?: Missing } {
  const c = compiledOf(destination);
  const name = event.event_name;
  if (c.verdicts.has(name)) return { takes: c.verdicts.get(name) };
  const call = segmentCallOf(name);
  const byName = { type: call.type, ...(call.event === undefined ? {} : { event: call.event }) };
  let full: Record<string, unknown> | undefined;
  let takes: boolean | undefined = false;
  let missing: Missing | undefined;
  // Whether the verdict holds for every event of this name (no run read more than the call).
  let keep = true;
  for (const { fql, action, needs } of c.runs) {
    if (fql === undefined) {
      takes = undefined;
      continue;
    }
    if (!fql.nameOnly || needs.length > 0) {
      keep = false;
      full ??= segmentEventOf(event);
    }
    const segment = full ?? byName;
    if (!fql.takes(fql.nameOnly ? byName : segment)) continue;
    const lacking = needs.find((n) => !carries(segment, n.parts));
    if (lacking === undefined) {
      takes = true;
      break;
    }
    missing ??= { action, field: lacking.field, path: lacking.path };
  }
  if (keep) {
    if (c.verdicts.size >= MAX_VERDICTS) c.verdicts.clear();
    c.verdicts.set(name, takes);
  }
  return takes === false && missing !== undefined ? { takes, missing } : { takes };
}

/** Whether the Segment event has a value (not undefined) at the path. */
function carries(segment: Record<string, unknown>, parts: readonly string[]): boolean {
  let at: unknown = segment;
  for (const part of parts) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, part)) return false;
    at = (at as Record<string, unknown>)[part];
  }
  return at !== undefined;
}

/**
 * Whether a custom event has a mapping at the destination: it becomes an identify, group or alias
 * call (`user_identified`…: segment-event.ts writes those), it is one of Engage's audience calls an
 * audience sync publishes (`audience_entered` → `Audience Entered`, which audience actions take by
 * their own default), or an action's own `when` names it (`when: [quote_requested]`, or
 * `event = "quote_requested"` in FQL) — the destination's allow list. Whether an action takes it
 * is still segmentActionTakes's.
 */
export function segmentActionMaps(destination: Readonly<Destination>, eventName: string): boolean {
  const event = segmentCallOf(eventName).event;
  return (
    event === undefined ||
    Object.hasOwn(AUDIENCE_EVENT_NAMES, eventName) ||
    compiledOf(destination).named.has(event)
  );
}

/** The destination's runs compiled, once per destination value; name-only runs first (cheapest, kept). */
function compiledOf(destination: Readonly<Destination>): Compiled {
  const hit = compiled.get(destination);
  if (hit) return hit;
  const known = TABLE[destination.destination ?? ''];
  const named = new Set<string>();
  let runs: Run[];
  if (!known) runs = [{ fql: undefined, action: '', needs: [] }];
  else
    runs = actionSteps(destination.actions, known.presets ?? [], (a) => known.defaults[a] ?? undefined).map(
      (step): Run => {
        const run = (fql: Fql | undefined): Run => ({
          fql,
          action: step.action,
          needs: needsOf(known, step),
        });
        if (!Object.hasOwn(known.defaults, step.action)) return run(undefined);
        if (step.subscribe === undefined) return run(NEVER);
        const fql = compileFql(step.subscribe);
        if (fql.error !== undefined) return run(undefined);
        if (step.setting?.when !== undefined) for (const n of fql.names) named.add(n);
        return run(fql);
      },
    );
  const cheap = (r: Run) => Number((r.fql?.nameOnly ?? true) && r.needs.length === 0);
  runs.sort((a, b) => cheap(b) - cheap(a));
  const out: Compiled = { runs, named, verdicts: new Map() };
  compiled.set(destination, out);
  return out;
}

/** A run's required fields still read by their default path: none the preset or the settings map. */
function needsOf(
  known: DestinationSubscriptions,
  step: ReturnType<typeof actionSteps>[number],
): Run['needs'] {
  const own = known.needs?.[step.action];
  if (!own) return [];
  const sets = (step.preset as { readonly sets?: readonly string[] } | undefined)?.sets ?? [];
  const mapped = step.setting?.mapping ?? {};
  return Object.entries(own)
    .filter(([field]) => !sets.includes(field) && !Object.hasOwn(mapped, field))
    .map(([field, path]) => ({ field, path, parts: path.split('.') }));
}
