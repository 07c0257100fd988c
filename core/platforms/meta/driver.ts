/**
 * Meta Conversions API requests (docs/platforms.md §1): `POST {base}/{version}/{pixel_id}/events`
 * with `access_token` in the query, a JSON body `{data, test_event_code?}`; up to 1000 events.
 */
import type { StoredEvent } from '../../event.ts';
import type { MappedEvent } from '../../linkage/engine.ts';
import { happenedOnWebsite } from '../../sender.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { META_API } from './api-version.ts';

export const META_BASE_URL = 'https://graph.facebook.com';
export const META_API_VERSION = META_API.version;

/** A Meta server event (an element of `data`) made of the mapped event. */
export function metaServerEvent(mapped: MappedEvent, event: StoredEvent, ctx: DriverContext) {
  return {
    event_name: mapped.event,
    ...mapped.payload,
    action_source: mapped.payload['action_source'] ?? actionSource(event, ctx),
  };
}

/**
 * Where the conversion happened, when the event does not say: the destination's `action_source`,
 * but `website` (also the default) only for an event that happened on one (core/sender.ts: a
 * browser's, or a server's that names a page) — a backend event without a page (an order confirmed
 * by the shop system) or a translator's webhook did not happen on a page we can name: `other`.
 */
function actionSource(event: StoredEvent, ctx: DriverContext): string {
  const configured = configText(ctx.destination, 'action_source') ?? 'website';
  if (configured !== 'website') return configured;
  return happenedOnWebsite(event) ? 'website' : 'other';
}

/** The request carrying some server events. */
export function metaRequest(events: readonly Record<string, unknown>[], ctx: DriverContext): OutboundRequest {
  const d = ctx.destination;
  const version = configText(d, 'api_version') ?? META_API_VERSION;
  const path = `${baseUrl(d, META_BASE_URL)}/${version}/${encodeURIComponent(configText(d, 'pixel_id') ?? '')}/events`;
  const body: Record<string, unknown> = { data: events };
  if (d.test_mode === true && d.test_event_code) body['test_event_code'] = d.test_event_code;
  return {
    method: 'POST',
    url: `${path}?access_token=${encodeURIComponent(ctx.secrets['access_token'] ?? '')}`,
    redactedUrl: `${path}?access_token=REDACTED`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}
