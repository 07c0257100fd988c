/**
 * Snapchat Conversions API v3 requests (docs/platforms.md, "Snapchat"):
 * `POST {base}/v3/{pixel_id}/events?access_token=…` with a body `{data}`; in test mode the Test
 * Event Tool's `/v3/{pixel_id}/events/validate`, which checks the events and records none.
 */
import type { StoredEvent } from '../../event.ts';
import { type MappedEvent, readSource } from '../../linkage/engine.ts';
import { happenedOnWebsite } from '../../sender.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { SNAPCHAT_API } from './api-version.ts';

export const SNAPCHAT_BASE_URL = 'https://tr.snapchat.com';
/** Snap's own words for where a conversion happened (it also takes Meta's offline aliases). */
export const SNAPCHAT_ACTION_SOURCES: readonly string[] = Object.freeze([
  'WEB',
  'MOBILE_APP',
  'OFFLINE',
  'physical_store',
  'phone_call',
  'email',
  'chat',
]);

/** The catalogue's `action_source` (Meta's words) in Snap's, where they differ. */
const FROM_CATALOGUE: Readonly<Record<string, string>> = {
  website: 'WEB',
  app: 'MOBILE_APP',
  physical_store: 'physical_store',
  phone_call: 'phone_call',
  email: 'email',
  chat: 'chat',
};

/**
 * One element of `data` made of the mapped event, with an `action_source` when the mapping set
 * none: the destination's, else `WEB` for an event that happened on a website (core/sender.ts: a
 * browser's, or a server's with a page), else the event's own in Snap's words, else `OFFLINE`.
 */
export function snapchatEvent(mapped: MappedEvent, event: StoredEvent, ctx: DriverContext) {
  return {
    event_name: mapped.event,
    ...mapped.payload,
    action_source: mapped.payload['action_source'] ?? actionSource(event, ctx),
  };
}

function actionSource(event: StoredEvent, ctx: DriverContext): string {
  const declared = readSource(event, 'action_source');
  const fallback = (typeof declared === 'string' && FROM_CATALOGUE[declared]) || 'OFFLINE';
  return configText(ctx.destination, 'action_source') ?? (happenedOnWebsite(event) ? 'WEB' : fallback);
}

/** The request carrying some events; the token is in the query, so the logged URL hides it. */
export function snapchatRequest(
  events: readonly Record<string, unknown>[],
  ctx: DriverContext,
): OutboundRequest {
  const d = ctx.destination;
  const pixel = encodeURIComponent(configText(d, 'pixel_id') ?? '');
  const path = `${baseUrl(d, SNAPCHAT_BASE_URL)}/${SNAPCHAT_API.version}/${pixel}/events${d.test_mode === true ? '/validate' : ''}`;
  return {
    method: 'POST',
    url: `${path}?access_token=${encodeURIComponent(ctx.secrets['access_token'] ?? '')}`,
    redactedUrl: `${path}?access_token=REDACTED`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ data: events }),
  };
}
