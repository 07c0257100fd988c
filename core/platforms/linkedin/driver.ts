/**
 * LinkedIn Conversions API requests (docs/platforms.md, LinkedIn): `POST {base}/rest/conversionEvents`
 * with a member's OAuth token (`Authorization: Bearer`, scope `rw_conversions`), the dated
 * `LinkedIn-Version` header every versioned LinkedIn API needs, and Rest.li 2.0. One event is the
 * body itself; several go as `{elements}` with `X-RestLi-Method: BATCH_CREATE`, up to 5,000.
 */
import type { MappedEvent } from '../../linkage/engine.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, bearerJsonPost, configText } from '../prepare.ts';
import { LINKEDIN_API } from './api-version.ts';

export const LINKEDIN_BASE_URL = 'https://api.linkedin.com';
/**
 * The Marketing API version sent when the destination names none (`config.api_version`).
 * LinkedIn keeps each monthly version about a year (202511 is sunset on 2026-11-16), so this
 * one lasts until about 2027-03; a destination can move ahead by its setting without a release.
 */
export const LINKEDIN_API_VERSION = LINKEDIN_API.version;
/** A version as LinkedIn dates them: `YYYYMM`. */
export const LINKEDIN_VERSION = /^20\d{2}(0[1-9]|1[0-2])$/;
/** The conversion rule a URN names (`urn:lla:llaPartnerConversion:{id}`). */
export const CONVERSION_URN_PREFIX = 'urn:lla:llaPartnerConversion:';

/**
 * A conversion event made of the mapped event: sent to the rule the mapped event names, with
 * `user.userIds` present even when empty (LinkedIn refuses an event without the list) and the
 * value's amount as a string.
 */
export function linkedinEvent(mapped: MappedEvent): Record<string, unknown> {
  const user = (mapped.payload['user'] ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {
    conversion: `${CONVERSION_URN_PREFIX}${mapped.event}`,
    ...mapped.payload,
    user: { ...user, userIds: user['userIds'] ?? [] },
  };
  // LinkedIn takes the amount as a decimal string; a mapping that reads a number (the creator's
  // value field) still sends it so.
  const value = out['conversionValue'] as Record<string, unknown> | undefined;
  if (typeof value?.['amount'] === 'number')
    out['conversionValue'] = { ...value, amount: String(value['amount']) };
  return out;
}

/** The request carrying some conversion events. The token is never in the URL. */
export function linkedinRequest(
  events: readonly Record<string, unknown>[],
  ctx: DriverContext,
): OutboundRequest {
  const d = ctx.destination;
  const url = `${baseUrl(d, LINKEDIN_BASE_URL)}/rest/conversionEvents`;
  const batch = events.length > 1;
  return bearerJsonPost(url, ctx.secrets['access_token'], batch ? { elements: events } : events[0], {
    'linkedin-version': configText(d, 'api_version') ?? LINKEDIN_API_VERSION,
    'x-restli-protocol-version': '2.0.0',
    ...(batch ? { 'x-restli-method': 'BATCH_CREATE' } : {}),
  });
}
