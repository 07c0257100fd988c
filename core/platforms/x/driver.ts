/**
 * X Conversions API requests (docs/platforms.md, "X"):
 * `POST {base}/12/measurement/conversions/{pixel_id}` with a JSON body `{conversions}` of up to
 * 500, signed with OAuth 1.0a (user context: the app's consumer key and secret, the advertiser's
 * access token and secret). Each conversion names the X event it counts for as its `event_id`.
 */
import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../event.ts';
import type { MappedEvent } from '../../linkage/engine.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { oauth1Header } from './oauth1.ts';

export const X_BASE_URL = 'https://ads-api.x.com';
export const X_API_VERSION = '12';
/** The secret roles OAuth 1.0a user context needs. */
export const X_SECRETS = ['consumer_key', 'consumer_secret', 'access_token', 'access_token_secret'] as const;

/**
 * One element of `conversions`: the X event it goes to and the mapped fields. The event is the
 * mapped name; in test mode it is the test event named by `test_event_code` (X has no test
 * endpoint: a conversion counted on an event no campaign optimises for is its test).
 */
export function xConversion(
  mapped: MappedEvent,
  _event: StoredEvent,
  ctx: DriverContext,
): Record<string, unknown> {
  const d = ctx.destination;
  const test = d.test_mode === true && d.test_event_code ? d.test_event_code : undefined;
  return { event_id: test ?? mapped.event, ...mapped.payload };
}

/** The signed request carrying some conversions. */
export function xRequest(
  conversions: readonly Record<string, unknown>[],
  ctx: DriverContext,
): OutboundRequest {
  const d = ctx.destination;
  const pixel = encodeURIComponent(configText(d, 'pixel_id') ?? '');
  const url = `${baseUrl(d, X_BASE_URL)}/${X_API_VERSION}/measurement/conversions/${pixel}`;
  const body = JSON.stringify({ conversions });
  const s = (role: string) => ctx.secrets[role] ?? '';
  // A nonce from the request itself and the clock: unique per request, yet the driver stays pure.
  const nonce = createHash('sha256').update(`${ctx.now.toISOString()}\n${body}`).digest('hex').slice(0, 32);
  const authorization = oauth1Header(
    'POST',
    url,
    {
      consumerKey: s('consumer_key'),
      consumerSecret: s('consumer_secret'),
      token: s('access_token'),
      tokenSecret: s('access_token_secret'),
    },
    nonce,
    Math.floor(ctx.now.getTime() / 1000),
  );
  return {
    method: 'POST',
    url,
    redactedUrl: url,
    headers: { 'content-type': 'application/json', authorization },
    body,
  };
}
