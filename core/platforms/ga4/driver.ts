/**
 * GA4 Measurement Protocol requests (docs/platforms.md §2): `POST {base}/mp/collect?measurement_id&api_secret`,
 * or `/debug/mp/collect` in test mode. One event per request: events of different people cannot
 * share a request's client_id.
 */
import type { MappedEvent } from '../../linkage/engine.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { COUNTS_EXPORT_CONFIG, EXPORT_EVENT_PARAM } from './facts.ts';

export const GA4_BASE_URL = 'https://www.google-analytics.com';

/**
 * The request body of one event: the mapping's request-level fields, and the event with its
 * `params`. Where the destination links GA4's BigQuery export (`config.counts_bigquery_export`),
 * the event also carries our event id as the `event_id` parameter (unless the mapping set one),
 * which the reconciliation view finds in the export.
 */
export function ga4Body(
  mapped: MappedEvent,
  event: { readonly event_id?: unknown },
  ctx: DriverContext,
): Record<string, unknown> {
  const { params, ...requestFields } = mapped.payload;
  const own = (params ?? {}) as Record<string, unknown>;
  const joined =
    configText(ctx.destination, COUNTS_EXPORT_CONFIG) !== undefined &&
    own[EXPORT_EVENT_PARAM] === undefined &&
    typeof event.event_id === 'string';
  const body: Record<string, unknown> = {
    ...requestFields,
    events: [{ name: mapped.event, params: joined ? { ...own, [EXPORT_EVENT_PARAM]: event.event_id } : own }],
  };
  // In test mode the validation server also reports missing recommended parameters.
  if (ctx.destination.test_mode === true && body['validation_behavior'] === undefined)
    body['validation_behavior'] = 'ENFORCE_RECOMMENDATIONS';
  return body;
}

/** The request carrying one body (GA4 takes one event per request here: see above). */
export function ga4Request(bodies: readonly Record<string, unknown>[], ctx: DriverContext): OutboundRequest {
  const d = ctx.destination;
  const path = `${baseUrl(d, GA4_BASE_URL)}${d.test_mode === true ? '/debug/mp/collect' : '/mp/collect'}`;
  const measurement = encodeURIComponent(configText(d, 'measurement_id') ?? '');
  return {
    method: 'POST',
    url: `${path}?measurement_id=${measurement}&api_secret=${encodeURIComponent(ctx.secrets['api_secret'] ?? '')}`,
    redactedUrl: `${path}?measurement_id=${measurement}&api_secret=REDACTED`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(bodies[0]),
  };
}
