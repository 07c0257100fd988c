/**
 * A loopback Snapchat Conversions API v3 (`POST /v3/{pixel}/events` and the Test Event Tool's
 * `/v3/{pixel}/events/validate`, `?access_token=`), checking requests against the rules Snap
 * publishes (docs/platforms.md, "Snapchat") and answering `{status, reason}`: 200 when every event passes,
 * else 400 `INVALID` naming the first problems — a missing required field, a purchase without
 * price or currency, a time out of range, unhashed or hashed-where-plain data, too little to match
 * by. Written out again on purpose, not imported from core/platforms/snapchat/: the stand-in checks
 * the driver, so it must not share the driver's mistakes.
 */
import {
  type Answer,
  isHashed,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

const MAX_EVENTS = 2000;
const MAX_AGE_S = 37 * 86400;
const STANDARD = new Set(
  'PAGE_VIEW VIEW_CONTENT ADD_CART ADD_TO_WISHLIST SIGN_UP SEARCH PURCHASE ADD_BILLING START_CHECKOUT SUBSCRIBE START_TRIAL SAVE SHARE LOGIN RESERVE AD_CLICK AD_VIEW COMPLETE_TUTORIAL INVITE LIST_VIEW RATE LEVEL_COMPLETE ACHIEVEMENT_UNLOCKED SPEND_CREDITS CUSTOM_EVENT_1 CUSTOM_EVENT_2 CUSTOM_EVENT_3 CUSTOM_EVENT_4 CUSTOM_EVENT_5'.split(
    ' ',
  ),
);
const SOURCES = new Set([
  'WEB',
  'MOBILE_APP',
  'OFFLINE',
  'physical_store',
  'phone_call',
  'email',
  'chat',
  'website',
  'app',
]);
const HASHED = ['em', 'ph', 'fn', 'ln', 'ge', 'db', 'ct', 'st', 'zp', 'country', 'external_id'];
const PLAIN = ['client_ip_address', 'client_user_agent', 'sc_click_id', 'sc_cookie1'];

/** Snap's refusal body. */
export const snapError = (status: number, reason: string, problems = [reason], param?: string): Answer => ({
  status,
  problems,
  body: { status: 'INVALID', reason, ...(param ? { param } : {}) },
});

function eventProblems(e: unknown, at: string, nowS: number): string[] {
  if (!isObject(e)) return [`${at} must be an object`];
  const out: string[] = [];
  if (!STANDARD.has(e['event_name'] as string)) out.push(`${at}.event_name is missing or not a Snap event`);
  const t = e['event_time'];
  if (!Number.isInteger(t)) out.push(`${at}.event_time is required (unix seconds)`);
  else if ((t as number) < nowS - MAX_AGE_S || (t as number) > nowS + 3600)
    out.push(`${at}.event_time: Timestamp invalid or out of range`);
  if (!SOURCES.has(e['action_source'] as string)) out.push(`${at}.action_source is missing or invalid`);
  if (
    (e['action_source'] === 'WEB' || e['action_source'] === 'website') &&
    typeof e['event_source_url'] !== 'string'
  )
    out.push(`${at}.event_source_url is required for web events`);
  const c = isObject(e['custom_data']) ? e['custom_data'] : {};
  if (e['event_name'] === 'PURCHASE' && (typeof c['value'] !== 'number' || typeof c['currency'] !== 'string'))
    out.push(`${at}: Missing price and/or currency in Purchase events`);
  const u = isObject(e['user_data']) ? e['user_data'] : undefined;
  if (u === undefined) return [...out, `${at}.user_data is required`];
  for (const f of HASHED)
    if (u[f] !== undefined && !isHashed(u[f])) out.push(`${at}.user_data.${f}: Unhashed PII`);
  if (typeof u['ph'] === 'string' && u['ph'].startsWith('+')) out.push(`${at}.user_data.ph: Unhashed PII`);
  for (const f of PLAIN)
    if (typeof u[f] === 'string' && SHA256_HEX.test(u[f] as string))
      out.push(
        `${at}.user_data.${f}: ${f === 'client_ip_address' ? 'Invalid hashed IP Address' : 'must not be hashed'}`,
      );
  const keys = ['em', 'ph', 'madid', 'sc_click_id', 'sc_cookie1', 'external_id'];
  if (!keys.some((k) => u[k] !== undefined) && !(u['client_ip_address'] && u['client_user_agent']))
    out.push(`${at}.user_data: Insufficient PII`);
  return out;
}

/** Starts the Snapchat stand-in. */
export function startSnapchatReceiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  return startPlatformServer(({ method, path, query, body }) => {
    const route = /^\/v3\/[^/]+\/events(\/validate)?$/.exec(path);
    if (method !== 'POST' || !route) return snapError(404, `No route for ${method} ${path}`);
    const token = query['access_token'];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return snapError(
        401,
        'Unauthorized: the access token is invalid for this pixel',
        undefined,
        'access_token',
      );
    const data = isObject(body) ? body['data'] : undefined;
    if (!Array.isArray(data) || data.length === 0 || data.length > MAX_EVENTS)
      return snapError(
        400,
        `data must hold 1 to ${MAX_EVENTS} events, got ${Array.isArray(data) ? data.length : 'none'}`,
        undefined,
        'data',
      );
    const nowS = Math.floor(now().getTime() / 1000);
    const problems = data.flatMap((e, i) => eventProblems(e, `data[${i}]`, nowS));
    if (problems.length > 0) return snapError(400, problems.slice(0, 10).join('; '), problems);
    return route[1]
      ? { status: 200, body: { status: 'VALID', reason: `${data.length} event(s) valid; none recorded` } }
      : { status: 200, body: { status: 'SUCCESS', reason: `${data.length} event(s) received` } };
  });
}
