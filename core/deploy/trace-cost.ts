/**
 * What Cloud Trace costs for the spans the pipeline exports (docs/observability.md): spans per
 * event from what each hop makes (adapters/tracing.ts and the spans of gateway/, functions/),
 * times the sampling ratio, at Cloud Trace's ingestion price. An estimate: refused and failed
 * hops are exported whatever the ratio, and are not counted here.
 */

/** Cloud Trace's price for ingested spans (recheck on the pricing page before relying on it). */
export const CLOUD_TRACE_PRICE = Object.freeze({
  perMillionSpans: 0.2,
  freeSpansPerMonth: 2_500_000,
  asOf: 'Cloud Trace pricing as read in November 2026: $0.20 per million spans ingested, the first 2.5 million a month free',
});

/** The gateway's spans of a request: receive, auth, validate, publish (one event a request: the upper bound). */
export const GATEWAY_SPANS = 4;
/** The store's spans of a push: store, decode, validate, write. */
export const STORE_SPANS = 4;
/** Each destination's: its decision, forward and the platform call (a send-once claim adds one on a copy). */
export const DESTINATION_SPANS = 3;

/** Spans one sampled event makes with `destinations` destinations. */
export function spansPerEvent(destinations: number): number {
  return GATEWAY_SPANS + STORE_SPANS + destinations * DESTINATION_SPANS;
}

/** A 30-day month's Cloud Trace bill at a sustained rate, a ratio and destinations an event. */
export function monthlyTraceCost(eventsPerSecond: number, destinations: number, ratio: number): number {
  const spans = eventsPerSecond * 86_400 * 30 * ratio * spansPerEvent(destinations);
  const billed = Math.max(0, spans - CLOUD_TRACE_PRICE.freeSpansPerMonth);
  return (billed / 1e6) * CLOUD_TRACE_PRICE.perMillionSpans;
}
