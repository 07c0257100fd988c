/**
 * A loopback X Conversions API (`POST /12/measurement/conversions/{pixel_id}`), checking the
 * OAuth 1.0a signature of each request (HMAC-SHA1, RFC 5849) when it knows the four secrets, and
 * the body against X's published rules (docs/platforms.md, "X"): 1 to 500 conversions, each with
 * an event id, an ISO 8601 time and identifiers that each hold one kind of id, the IP address and
 * user agent never alone. It answers as the
 * X Ads API does: `{data: {conversions_processed}, request}` or `{errors: [{code, message}]}`.
 * The signature check is written out again on purpose, not imported from core/platforms/x/: the
 * stand-in checks the driver, so it must not share the driver's mistakes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type Answer,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

export interface XReceiverOptions extends ReceiverOptions {
  /** The app's consumer key and secret and the advertiser's token secret; `accessToken` is the token. */
  readonly consumerKey?: string;
  readonly consumerSecret?: string;
  readonly accessTokenSecret?: string;
}

const MAX = 500;
const EVENT_ID = /^(tw-[0-9a-z]+-)?[0-9a-z]+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** X's error body. */
export const xError = (status: number, code: string, message: string, problems = [message]): Answer => ({
  status,
  problems,
  body: { errors: [{ code, message }], request: { params: {} } },
});

const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The `OAuth k="v", …` header's parameters, decoded. */
function oauthParams(header: string | undefined): Record<string, string> | undefined {
  if (!header?.startsWith('OAuth ')) return undefined;
  const out: Record<string, string> = {};
  for (const m of header.slice(6).matchAll(/([a-z_]+)="([^"]*)"/g))
    out[m[1] as string] = decodeURIComponent(m[2] as string);
  return out;
}

/** Whether the signature is the one the secrets make for this request (RFC 5849 §3.4). */
function signatureOk(
  params: Record<string, string>,
  url: string,
  query: Record<string, string>,
  o: XReceiverOptions,
): boolean {
  const { oauth_signature: given, ...rest } = params;
  const all = [...Object.entries(rest), ...Object.entries(query)]
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort();
  const base = `POST&${enc(url)}&${enc(all.join('&'))}`;
  const expected = createHmac('sha1', `${enc(o.consumerSecret ?? '')}&${enc(o.accessTokenSecret ?? '')}`)
    .update(base)
    .digest();
  const got = Buffer.from(given ?? '', 'base64');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

function conversionProblems(c: unknown, at: string): string[] {
  if (!isObject(c)) return [`${at} must be an object`];
  const out: string[] = [];
  if (typeof c['event_id'] !== 'string' || !EVENT_ID.test(c['event_id']))
    out.push(`${at}.event_id must be an event's base-36 id`);
  if (typeof c['conversion_time'] !== 'string' || !ISO.test(c['conversion_time']))
    out.push(`${at}.conversion_time must be ISO 8601`);
  const ids = c['identifiers'];
  if (!Array.isArray(ids) || ids.length === 0)
    out.push(`${at}.identifiers must hold at least one identifier`);
  else
    for (const [i, id] of ids.entries()) {
      const keys = isObject(id) ? Object.keys(id).sort().join(',') : '';
      const ok =
        (keys === 'twclid' && typeof (id as Record<string, unknown>)['twclid'] === 'string') ||
        ((keys === 'hashed_email' || keys === 'hashed_phone_number') &&
          SHA256_HEX.test(String((id as Record<string, unknown>)[keys]))) ||
        keys === 'ip_address,user_agent';
      if (!ok)
        out.push(
          `${at}.identifiers[${i}] must hold one of twclid, hashed_email, hashed_phone_number (SHA-256), or ip_address with user_agent`,
        );
    }
  // "If using IP address or user agent, a second identifier must be sent" (X Ads API reference,
  // POST /12/measurement/conversions/:pixel_id); X's troubleshooting page names the 400 answered
  // when no user identifier is there: "At least one user identifier must be provided"
  // (developer.x.com/en/docs/x-ads-api/measurement/web-conversions/troubleshooting).
  if (
    Array.isArray(ids) &&
    ids.length > 0 &&
    ids.every(
      (id) => isObject(id) && !('twclid' in id || 'hashed_email' in id || 'hashed_phone_number' in id),
    )
  )
    out.push(`${at}.identifiers: At least one user identifier must be provided`);
  if (
    c['number_items'] !== undefined &&
    !(Number.isInteger(c['number_items']) && (c['number_items'] as number) > 0)
  )
    out.push(`${at}.number_items must be a positive integer`);
  if (c['price_currency'] !== undefined && !/^[A-Z]{3}$/.test(String(c['price_currency'])))
    out.push(`${at}.price_currency must be ISO-4217`);
  if (c['value'] !== undefined && typeof c['value'] !== 'number') out.push(`${at}.value must be a number`);
  return out;
}

/** Starts the X stand-in. Without the secrets it checks only that a request is OAuth-signed. */
export function startXReceiver(options: XReceiverOptions = {}): Promise<PlatformReceiver> {
  return startPlatformServer(({ method, path, query, headers, body }) => {
    const route = /^\/12\/measurement\/conversions\/([0-9a-z]+)$/.exec(path);
    if (method !== 'POST' || !route) return xError(404, 'ROUTE_NOT_FOUND', `No route for ${method} ${path}`);
    const params = oauthParams(headers['authorization']);
    const unauthorized = xError(401, 'UNAUTHORIZED_ACCESS', 'This request is not properly authenticated');
    if (!params?.['oauth_signature'] || params['oauth_signature_method'] !== 'HMAC-SHA1') return unauthorized;
    if (options.accessToken !== undefined) {
      if (
        params['oauth_token'] !== options.accessToken ||
        params['oauth_consumer_key'] !== options.consumerKey
      )
        return unauthorized;
      // The driver signed the URL it called: the local receiver's when it came through it.
      const called = headers['x-forwarded-url'] ?? `http://${headers['host'] ?? ''}${path}`;
      if (!signatureOk(params, called, query, options)) return unauthorized;
    }
    const list = isObject(body) ? body['conversions'] : undefined;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX)
      return xError(
        400,
        'INVALID_PARAMETER',
        `conversions must hold 1 to ${MAX} conversion events, got ${Array.isArray(list) ? list.length : 'none'}`,
      );
    const problems = list.flatMap((c, i) => conversionProblems(c, `conversions[${i}]`));
    if (problems.length > 0)
      return xError(400, 'INVALID_PARAMETER', problems.slice(0, 10).join('; '), problems);
    return {
      status: 200,
      body: {
        data: { conversions_processed: list.length, debug_id: 'local-debug' },
        request: { params: { pixel_id: route[1] } },
      },
    };
  });
}
