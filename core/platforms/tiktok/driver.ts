/**
 * TikTok Events API 2.0 requests (docs/platforms.md §3): `POST {base}/open_api/v1.3/event/track/`
 * with an `Access-Token` header; up to 1000 events.
 */
import type { MappedEvent } from '../../linkage/engine.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { TIKTOK_API } from './api-version.ts';

export const TIKTOK_BASE_URL = 'https://business-api.tiktok.com';
const PATH = `/open_api/${TIKTOK_API.version}/event/track/`;

/** One element of `data` made of the mapped event. */
export const tiktokRow = (mapped: MappedEvent): Record<string, unknown> => ({
  event: mapped.event,
  ...mapped.payload,
});

/** The request carrying some events. */
export function tiktokRequest(rows: readonly Record<string, unknown>[], ctx: DriverContext): OutboundRequest {
  const d = ctx.destination;
  const body: Record<string, unknown> = {
    event_source: configText(d, 'event_source') ?? 'web',
    event_source_id: configText(d, 'pixel_code'),
  };
  if (d.test_mode === true && d.test_event_code) body['test_event_code'] = d.test_event_code;
  body['data'] = rows;
  const url = `${baseUrl(d, TIKTOK_BASE_URL)}${PATH}`;
  return {
    method: 'POST',
    url,
    redactedUrl: url,
    headers: { 'content-type': 'application/json', 'access-token': ctx.secrets['access_token'] ?? '' },
    body: JSON.stringify(body),
  };
}
