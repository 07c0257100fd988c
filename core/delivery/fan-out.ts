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
  const refused: Refusal[] = [];
  for (const event of events) {
    const sighting = sightingOf(event);
    // One `skipped` row per event and destination: a producer's copy (a browser's or a vendor's
    // retry) is decided as its first message was, which wrote the rows.
    const recordSkips = sighting?.owner !== false;
    for (const d of decide(settings, event, options)) {
      if (d.action === 'send') messages.push(deliveryMessage(event, d.destination, false, false, sighting));
      else {
        refused.push({ event, destination: d.destination, reason: d.reason });
        if (recordSkips) skips.push(skippedEntry(event, d.destination, d.reason, now));
      }
    }
  }
  return { messages, skips, refused };
}

export interface FanOutDeps {
  readonly settings: Readonly<Settings>;
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  readonly writeLedger: (entries: readonly LedgerEntry[]) => Promise<unknown>;
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
      return Promise.resolve({ messages: [], skips: [], refused: [] });
    let plan: FanOutPlan;
    let now: Date;
    try {
      now = clock();
      plan = planFanOut(deps.settings, events, now, deps.options);
    } catch (err) {
      return Promise.reject(err);
    }
    const published = plan.messages.length > 0 ? deps.publish(plan.messages) : undefined;
    const recorded = plan.skips.length > 0 ? deps.writeLedger(plan.skips) : undefined;
    const waited = deps.wait ? deps.wait(events, plan.refused, now.getTime()) : undefined;
    const all = [published, recorded, waited].filter((p) => p !== undefined);
    if (all.length === 0) return Promise.resolve(plan);
    return (all.length === 1 ? (all[0] as Promise<unknown>) : Promise.all(all)).then(() => plan);
  };
}
