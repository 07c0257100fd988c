/**
 * Reddit Conversions API v3 requests (docs/platforms.md, Reddit):
 * `POST {base}/api/v3/pixels/{pixel_id}/conversion_events` with a conversion access token
 * (`Authorization: Bearer`), a JSON body `{data: {events, test_id?}}` — `test_id` (from Events
 * Manager) in test mode, at the `data` level where Reddit reads it — up to 1,000 events.
 */
import type { StoredEvent } from '../../event.ts';
import { type MappedEvent, readSource } from '../../linkage/engine.ts';
import { happenedOnWebsite } from '../../sender.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, bearerJsonPost, configText } from '../prepare.ts';
import { REDDIT_API } from './api-version.ts';

export const REDDIT_BASE_URL = 'https://ads-api.reddit.com';
/** Reddit's tracking types; any other mapped name is sent as CUSTOM with that name. */
export const REDDIT_TRACKING_TYPES: readonly string[] = Object.freeze([
  'PAGE_VISIT',
  'VIEW_CONTENT',
  'SEARCH',
  'ADD_TO_CART',
  'ADD_TO_WISHLIST',
  'PURCHASE',
  'LEAD',
  'SIGN_UP',
  'CUSTOM',
]);
export const REDDIT_ACTION_SOURCES: readonly string[] = Object.freeze([
  'WEBSITE',
  'APP',
  'PHYSICAL_STORE',
  'OTHER',
]);

/** The catalogue's (Meta-style) `action_source` in Reddit's words. */
const ACTION_SOURCE: Readonly<Record<string, string>> = {
  website: 'WEBSITE',
  app: 'APP',
  physical_store: 'PHYSICAL_STORE',
};

/**
 * A Reddit event made of the mapped event: its tracking type (or CUSTOM with the mapped name),
 * and where it happened — WEBSITE for an event that happened on a website (core/sender.ts: a
 * browser's, or a server's with a page), else the event's own source in
 * Reddit's words, else OTHER — unless the mapping set it.
 */
export function redditEvent(mapped: MappedEvent, event: StoredEvent): Record<string, unknown> {
  const type = REDDIT_TRACKING_TYPES.includes(mapped.event)
    ? { tracking_type: mapped.event }
    : { tracking_type: 'CUSTOM', custom_event_name: mapped.event };
  const out: Record<string, unknown> = { type, ...mapped.payload };
  if (out['action_source'] === undefined) out['action_source'] = actionSource(event);
  return out;
}

function actionSource(event: StoredEvent): string {
  if (happenedOnWebsite(event)) return 'WEBSITE';
  const declared = readSource(event, 'action_source');
  return (typeof declared === 'string' && ACTION_SOURCE[declared]) || 'OTHER';
}

/** The request carrying some events. The token is never in the URL. */
export function redditRequest(
  events: readonly Record<string, unknown>[],
  ctx: DriverContext,
): OutboundRequest {
  const d = ctx.destination;
  const url = `${baseUrl(d, REDDIT_BASE_URL)}/api/${REDDIT_API.version}/pixels/${encodeURIComponent(configText(d, 'pixel_id') ?? '')}/conversion_events`;
  const data: Record<string, unknown> = { events };
  if (d.test_mode === true && d.test_event_code) data['test_id'] = d.test_event_code;
  return bearerJsonPost(url, ctx.secrets['access_token'], { data });
}
