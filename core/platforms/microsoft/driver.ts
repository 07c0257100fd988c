/**
 * Microsoft Advertising UET Conversions API requests (docs/platforms.md, Microsoft):
 * `POST {base}/v1/{tag_id}/events` with the tag's Conversions API token (`Authorization:
 * Bearer`), a JSON body `{data}` of up to 1,000 events.
 */
import type { MappedEvent } from '../../linkage/engine.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, bearerJsonPost, configText } from '../prepare.ts';
import { MICROSOFT_API } from './api-version.ts';

export const MICROSOFT_BASE_URL = 'https://capi.uet.microsoft.com';
/** The event name that sends a page load instead of a custom event. */
export const PAGE_LOAD = 'pageLoad';

/**
 * A UET event made of the mapped event: `pageLoad`, or `custom` with the mapped name; `userData`
 * always present (UET requires it), so an event with nothing in it is refused for that reason.
 */
export function microsoftEvent(mapped: MappedEvent): Record<string, unknown> {
  const head =
    mapped.event === PAGE_LOAD ? { eventType: PAGE_LOAD } : { eventType: 'custom', eventName: mapped.event };
  return { ...head, ...mapped.payload, userData: mapped.payload['userData'] ?? {} };
}

/** The request carrying some events. The token is never in the URL. */
export function microsoftRequest(
  events: readonly Record<string, unknown>[],
  ctx: DriverContext,
): OutboundRequest {
  const d = ctx.destination;
  const url = `${baseUrl(d, MICROSOFT_BASE_URL)}/${MICROSOFT_API.version}/${encodeURIComponent(configText(d, 'tag_id') ?? '')}/events`;
  return bearerJsonPost(url, ctx.secrets['access_token'], { data: events });
}
