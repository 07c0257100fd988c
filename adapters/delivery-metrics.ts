/**
 * Per-destination delivery metrics (docs/observability.md, "Metrics"), recorded where every
 * outcome of forward and forward-catalog crosses: the handler's answer once the attempt's ledger
 * rows are written (functions/forward/handler.ts), so the counts are the ledger's rows.
 *
 * - `eventbus.delivery.outcomes` (counter, `{row}`): one per ledger row forward writes, by
 *   destination, platform and status (`delivered`, `failed`, `rejected`, `folded`, `dead_lettered`).
 * - `eventbus.delivery.latency` (histogram, ms): end to end, from the event's receipt
 *   (`received_at`) to its `delivered` row (`recorded_at`), replays left out: what the `latency`
 *   alert judges over the ledger (core/alerts/alerts.ts).
 * - `eventbus.delivery.call.duration` (histogram, ms): the platform's call, from the request
 *   leaving to its answer (or its timeout), by destination, platform and status.
 *
 * Attributes are kinds, never values: a destination id the settings configure (any other name a
 * push carries is `(unknown)`, so a stray message cannot add series), its platform type, the
 * ledger status. No event id, person, URL or error message.
 */
import type { Attributes, Histogram, Meter, ObservableResult } from '@opentelemetry/api';
import type { ForwardResult } from '../core/delivery/forward.ts';
import {
  CALL_BOUNDS,
  DELIVERY_METRICS,
  LATENCY_BOUNDS,
  METRIC_ATTRIBUTES,
} from '../core/tracing/metric-shape.ts';
import type { Destination } from '../schemas/settings.ts';

export { DELIVERY_METRICS, METRIC_ATTRIBUTES };

/** The name a push's destination is counted under when the settings do not configure it. */
export const UNKNOWN_DESTINATION = '(unknown)';

/**
 * The outcome counts, kept here and read by the SDK at each collection (an observable counter):
 * a delivery adds one to a number in a map keyed by its attribute set (made once, so the map's
 * key is the object itself), where the SDK's own counter would hash the attributes on every add.
 */
export class OutcomeCounts {
  readonly #counts = new Map<Attributes, number>();
  add(set: Attributes): void {
    this.#counts.set(set, (this.#counts.get(set) ?? 0) + 1);
  }
  observe(result: ObservableResult): void {
    for (const [set, n] of this.#counts) result.observe(n, set);
  }
}

export interface DeliveryInstruments {
  readonly outcomes: OutcomeCounts;
  readonly latency: Histogram;
  readonly callDuration: Histogram;
}

/** The three instruments on a meter (adapters/metrics.ts makes them once per process). */
export function createDeliveryInstruments(meter: Meter): DeliveryInstruments {
  const outcomes = new OutcomeCounts();
  meter
    .createObservableCounter(DELIVERY_METRICS.outcomes, {
      description: 'Ledger rows forward wrote, by destination, platform and status',
      unit: '{row}',
    })
    .addCallback((result) => outcomes.observe(result));
  return {
    outcomes,
    latency: meter.createHistogram(DELIVERY_METRICS.latency, {
      description: "From the event's receipt to its delivered ledger row (replays left out)",
      unit: 'ms',
      advice: { explicitBucketBoundaries: [...LATENCY_BOUNDS] },
    }),
    callDuration: meter.createHistogram(DELIVERY_METRICS.callDuration, {
      description: "The platform call's duration, from the request leaving to its answer",
      unit: 'ms',
      advice: { explicitBucketBoundaries: [...CALL_BOUNDS] },
    }),
  };
}

/** Attribute sets, one per destination and status, made once (a delivery allocates none). */
export class DeliveryAttributes {
  readonly #types = new Map<string, string>();
  readonly #sets = new Map<string, Attributes>();

  constructor(destinations: readonly Readonly<Destination>[]) {
    for (const d of destinations) this.#types.set(d.id, d.type);
  }

  /** The set for a destination as a push names it and a status ('' for the latency's, which has none). */
  of(destination: string, status: string): Attributes {
    const type = this.#types.get(destination);
    // Every name the settings do not configure shares one set per status: the sets, and the
    // counts keyed by them, stay bounded whatever the pushes name.
    const key = `${status}\u0000${type === undefined ? UNKNOWN_DESTINATION : destination}`;
    let set = this.#sets.get(key);
    if (set === undefined) {
      set = Object.freeze({
        [METRIC_ATTRIBUTES.destination]: type === undefined ? UNKNOWN_DESTINATION : destination,
        [METRIC_ATTRIBUTES.platform]: type ?? UNKNOWN_DESTINATION,
        ...(status === '' ? {} : { [METRIC_ATTRIBUTES.status]: status }),
      });
      this.#sets.set(key, set);
    }
    return set;
  }
}

/**
 * Records one attempt's result: a count per ledger row, its call's duration, and for a
 * `delivered` row that is not a replay its end-to-end latency. Never throws (metrics never cost
 * a delivery); does nothing when metrics are off.
 */
export function recordDelivery(
  instruments: DeliveryInstruments | undefined,
  attributes: DeliveryAttributes,
  result: ForwardResult,
): void {
  if (instruments === undefined) return;
  try {
    let last: ForwardResult['entries'][number]['row'] | undefined;
    for (const { row } of result.entries) {
      instruments.outcomes.add(attributes.of(row.destination, row.status));
      last = row;
      if (row.status !== 'delivered' || row.replay || result.receivedAt === undefined) continue;
      const ms = Date.parse(row.recorded_at) - Date.parse(result.receivedAt);
      if (Number.isFinite(ms) && ms >= 0) instruments.latency.record(ms, attributes.of(row.destination, ''));
    }
    if (last !== undefined && result.callMs !== undefined)
      instruments.callDuration.record(result.callMs, attributes.of(last.destination, last.status));
  } catch {
    // An SDK fault must not turn a recorded delivery into a redelivery.
  }
}
