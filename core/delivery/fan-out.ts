/**
 * Fan-out after storage (docs/architecture.md §1): for stored events, the decision layer's verdicts
 * become one `deliveries` message per permitted destination and one `skipped` ledger row
 * per refusal. Runs only after the warehouse write succeeded (storage first); both the
 * publish and the ledger write must succeed before the store push is acknowledged.
 */
import type { Settings } from '../../schemas/settings.ts';
import { CATALOGUE_OPTIONS, type DecisionOptions, decide } from '../decision/decision.ts';
import type { StoredEvent } from '../event.ts';
import { sightingOf } from '../store/copies.ts';
import { type LedgerEntry, skippedEntry } from './ledger.ts';
import { type DeliveryMessage, deliveryMessage } from './message.ts';

export interface FanOutPlan {
  readonly messages: readonly DeliveryMessage[];
  readonly skips: readonly LedgerEntry[];
  /**
   * The skips among them of a message back after its row was stored (core/store/copies.ts,
   * Sighting.since): an earlier attempt may have written them, from `since` (epoch ms) on.
   */
  readonly again: readonly { readonly entry: LedgerEntry; readonly since: number }[];
  /** Every refusal with its event, copies' too (the consent wait keeps those awaiting an answer). */
  readonly refused: readonly Refusal[];
}

/** A destination the decision layer refused an event, and why. */
export interface Refusal {
  readonly event: StoredEvent;
  readonly destination: string;
  readonly reason: string;
}

/** Decides every destination for every event: messages to publish and skip rows to write. */
export function planFanOut(
  settings: Readonly<Settings>,
  events: readonly StoredEvent[],
  now: Date,
  options: DecisionOptions = CATALOGUE_OPTIONS,
): FanOutPlan {
  const messages: DeliveryMessage[] = [];
  const skips: LedgerEntry[] = [];
  const again: { entry: LedgerEntry; since: number }[] = [];
  const refused: Refusal[] = [];
  for (const event of events) {
    const sighting = sightingOf(event);
    // One `skipped` row per event and destination: a producer's copy (a browser's or a vendor's
    // retry) is decided as its first message was, which wrote the rows; the message itself back
    // after its row was stored asks the ledger first (createFanOut).
    const recordSkips = sighting?.owner !== false;
    const since = sighting?.first === false ? sighting.since : undefined;
    for (const d of decide(settings, event, options)) {
      if (d.action === 'send') messages.push(deliveryMessage(event, d.destination, false, false, sighting));
      else {
        refused.push({ event, destination: d.destination, reason: d.reason });
        if (!recordSkips) continue;
        const entry = skippedEntry(event, d.destination, d.reason, now);
        skips.push(entry);
        if (since !== undefined) again.push({ entry, since });
      }
    }
  }
  return { messages, skips, again, refused };
}

export interface FanOutDeps {
  readonly settings: Readonly<Settings>;
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  readonly writeLedger: (entries: readonly LedgerEntry[]) => Promise<unknown>;
  /**
   * Whether the ledger holds a skip row already (its insertId, written at or after `since`), for
   * the skips of a message back after its row was stored: those found are not written again.
   * Absent: every skip is written (a replay's run has its own rows).
   */
  readonly skipRecorded?: (entry: LedgerEntry, since: number) => Promise<boolean>;
  readonly now?: () => Date;
  readonly options?: DecisionOptions;
  /**
   * The consent wait (core/delivery/consent-wait.ts): keeps the events refused for want of the
   * consent platform's answer, and sends those an answer in these events now permits. Runs beside
   * the publish and the ledger write; the push fails when it does.
   */
  readonly wait?: (
    events: readonly StoredEvent[],
    refused: readonly Refusal[],
    now: number,
  ) => Promise<readonly DeliveryMessage[]>;
}

/**
 * The store function's after-write hook: publishes and records in parallel, and rejects
 * if either fails, so the push is answered non-2xx and redelivered (downstream work is
 * idempotent by event_id and insertId).
 */
export function createFanOut(deps: FanOutDeps): (events: readonly StoredEvent[]) => Promise<FanOutPlan> {
  const clock = deps.now ?? (() => new Date());
  // Not async, and one promise per side: this runs inside the functions framework's
  // per-request domain, where each promise costs ~7 µs of CPU in async hooks.
  return (events) => {
    if ((deps.settings.destinations ?? []).length === 0)
      return Promise.resolve({ messages: [], skips: [], again: [], refused: [] });
    let plan: FanOutPlan;
    let now: Date;
    try {
      now = clock();
      plan = planFanOut(deps.settings, events, now, deps.options);
    } catch (err) {
      return Promise.reject(err);
    }
    const published = plan.messages.length > 0 ? deps.publish(plan.messages) : undefined;
    const recorded = plan.skips.length > 0 ? writeSkips(deps, plan) : undefined;
    const waited = deps.wait ? deps.wait(events, plan.refused, now.getTime()) : undefined;
    const all = [published, recorded, waited].filter((p) => p !== undefined);
    if (all.length === 0) return Promise.resolve(plan);
    return (all.length === 1 ? (all[0] as Promise<unknown>) : Promise.all(all)).then(() => plan);
  };
}

/**
 * The plan's skip rows, less those an earlier attempt of the same message wrote: each of `again`
 * is asked of the ledger (one batched query for the push), and what it holds is left out, so a
 * crash between the ledger write and the acknowledgement costs no second row.
 */
function writeSkips(deps: FanOutDeps, plan: FanOutPlan): Promise<unknown> {
  const ask = deps.skipRecorded;
  if (!ask || plan.again.length === 0) return deps.writeLedger(plan.skips);
  return Promise.all(plan.again.map((a) => ask(a.entry, a.since))).then((found) => {
    const written = new Set(plan.again.filter((_, i) => found[i]).map((a) => a.entry));
    const rest = plan.skips.filter((s) => !written.has(s));
    return rest.length > 0 ? deps.writeLedger(rest) : undefined;
  });
}
