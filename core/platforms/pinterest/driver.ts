/**
 * Pinterest Conversions API requests (docs/platforms.md, "Pinterest"):
 * `POST {base}/v5/ad_accounts/{ad_account_id}/events` with the conversion access token in
 * `Authorization: Bearer`, a body `{data}` of up to 1,000 events, and `?test=true` in test mode
 * (Pinterest validates and answers as usual but records nothing).
 */
import type { StoredEvent } from '../../event.ts';
import { type MappedEvent, readSource } from '../../linkage/engine.ts';
import { happenedOnWebsite } from '../../sender.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { PINTEREST_API } from './api-version.ts';

export const PINTEREST_BASE_URL = 'https://api.pinterest.com';
/** Where a conversion happened, in Pinterest's words. */
export const PINTEREST_ACTION_SOURCES: readonly string[] = Object.freeze([
  'web',
  'app_android',
  'app_ios',
  'offline',
]);

/**
 * One element of `data` made of the mapped event. Its `action_source`, when the mapping set
 * none: the destination's, else `web` for an event that happened on a website (core/sender.ts),
 * else `offline` for a sale in a shop or by phone, one without a page or a translator's
 * (Pinterest does not de-duplicate offline events).
 */
export function pinterestEvent(mapped: MappedEvent, event: StoredEvent, ctx: DriverContext) {
  const out: Record<string, unknown> = { event_name: mapped.event, ...mapped.payload };
  if (out['action_source'] === undefined) out['action_source'] = actionSource(event, ctx);
  return out;
}

function actionSource(event: StoredEvent, ctx: DriverContext): string {
  const configured = configText(ctx.destination, 'action_source');
  if (configured !== undefined) return configured;
  if (happenedOnWebsite(event)) return 'web';
  return readSource(event, 'action_source') === 'website' ? 'web' : 'offline';
}

/** The request carrying some events. The token travels in a header, never in the URL. */
export function pinterestRequest(
  events: readonly Record<string, unknown>[],
  ctx: DriverContext,
): OutboundRequest {
  const d = ctx.destination;
  const account = encodeURIComponent(configText(d, 'ad_account_id') ?? '');
  const url = `${baseUrl(d, PINTEREST_BASE_URL)}/${PINTEREST_API.version}/ad_accounts/${account}/events${d.test_mode === true ? '?test=true' : ''}`;
  return {
    method: 'POST',
    url,
    redactedUrl: url,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${ctx.secrets['access_token'] ?? ''}`,
    },
    body: JSON.stringify({ data: events }),
  };
}
