/**
 * X Conversions API requests (docs/platforms.md, "X"):
 * `POST {base}/12/measurement/conversions/{pixel_id}` with a JSON body `{conversions}` of up to
 * 500, signed with OAuth 1.0a (user context: the app's consumer key and secret, the advertiser's
 * access token and secret). Each conversion names the X event it counts for as its `event_id`.
 */
import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../event.ts';
import { type MappedEvent, readSource } from '../../linkage/engine.ts';
import type { DriverContext, OutboundRequest } from '../driver.ts';
import { baseUrl, configText } from '../prepare.ts';
import { X_API } from './api-version.ts';
import { oauth1Header } from './oauth1.ts';

export const X_BASE_URL = 'https://ads-api.x.com';
export const X_API_VERSION = X_API.version;
/** The secret roles OAuth 1.0a user context needs. */
export const X_SECRETS = ['consumer_key', 'consumer_secret', 'access_token', 'access_token_secret'] as const;

/** Where `conversion_id` comes from (`config.conversion_id`): it must match what the X pixel sends. */
export const X_CONVERSION_ID_SOURCES = ['event_id', 'transaction_id'] as const;

/**
 * One element of `conversions`: the X event it goes to and the mapped fields. The event is the
 * mapped name; in test mode it is the test event named by `test_event_code` (X has no test
 * endpoint: a conversion counted on an event no campaign optimises for is its test). X
 * de-duplicates a conversion against the pixel's by `conversion_id` (docs/platforms.md, "X"):
 * the mapping sends the event id, as every other platform's key; with `config.conversion_id:
 * transaction_id` an event carrying a `transaction_id` sends that instead, for a pixel tagged
 * with order ids.
 */
export function xConversion(
  mapped: MappedEvent,
  event: StoredEvent,
  ctx: DriverContext,
): Record<string, unknown> {
  const d = ctx.destination;
  const test = d.test_mode === true && d.test_event_code ? d.test_event_code : undefined;
  const out: Record<string, unknown> = { event_id: test ?? mapped.event, ...mapped.payload };
  if (configText(d, 'conversion_id') === 'transaction_id') {
    const order = readSource(event, 'transaction_id');
    if ((typeof order === 'string' && order !== '') || typeof order === 'number')
      out['conversion_id'] = String(order);
  }
  return out;
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
