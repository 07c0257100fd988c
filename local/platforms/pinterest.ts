/**
 * A loopback Pinterest Conversions API (`POST /v5/ad_accounts/{id}/events`, `Authorization:
 * Bearer`, `?test=true`), checking requests against Pinterest's published rules
 * (docs/platforms.md, "Pinterest") and answering as Pinterest does: a refused request is a non-2xx status
 * with `{code, message}`; an accepted one is 200 with `num_events_received`,
 * `num_events_processed` and a result per event in request order, so one bad event fails alone
 * (an event without `event_time` or older than seven days fails the request with a 400).
 * Written out again on purpose, not imported from core/platforms/pinterest/: the stand-in checks
 * the driver, so it must not share the driver's mistakes.
 */
import {
  type Answer,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  SHA256_HEX,
  startPlatformServer,
} from './server.ts';

const MAX_EVENTS = 1000;
const NAMES = new Set(
  'add_to_cart checkout custom lead page_visit search signup view_category watch_video add_payment_info add_to_wishlist app_install app_open contact'.split(
    ' ',
  ),
);
const SOURCES = new Set(['web', 'app_android', 'app_ios', 'offline']);
const HASHED = [
  'em',
  'hashed_maids',
  'ph',
  'fn',
  'ln',
  'ge',
  'db',
  'ct',
  'st',
  'zp',
  'country',
  'external_id',
];
const PLAIN = ['client_ip_address', 'client_user_agent', 'click_id'];
const USER_KEYS = new Set([...HASHED, ...PLAIN, 'partner_id']);
const DECIMAL = /^-?\d+(\.\d+)?$/;
/**
 * Only events from the previous seven days may be sent (Amperity's Pinterest guide, citing
 * developer.pinterest.com/docs/api/v5/events-create; docs/platforms.md, "Pinterest").
 */
const MAX_AGE_S = 7 * 86400;

/** Pinterest's error body. */
export const pinterestError = (
  status: number,
  code: number,
  message: string,
  problems = [message],
): Answer => ({
  status,
  problems,
  body: { code, message },
});

/** What Pinterest would refuse in one event (each a message), empty when it would process it. */
function eventProblems(e: unknown, nowS: number): string[] {
  if (!isObject(e)) return ['event must be an object'];
  const out: string[] = [];
  if (!NAMES.has(e['event_name'] as string))
    out.push(`event_name '${String(e['event_name'])}' is not a valid event name`);
  if (!SOURCES.has(e['action_source'] as string))
    out.push(
      `action_source '${String(e['action_source'])}' must be one of web, app_android, app_ios, offline`,
    );
  const t = e['event_time'];
  if (!Number.isInteger(t)) out.push('event_time must be an integer of unix seconds');
  else if ((t as number) > nowS + 3600)
    out.push('event_time is in the future (milliseconds instead of seconds?)');
  if (typeof e['event_id'] !== 'string' || e['event_id'] === '') out.push('event_id is required');
  const u = e['user_data'];
  if (!isObject(u)) return [...out, 'user_data is required'];
  for (const k of Object.keys(u)) if (!USER_KEYS.has(k)) out.push(`user_data.${k} is not a known field`);
  for (const f of HASHED) {
    const v = u[f];
    if (v === undefined) continue;
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && SHA256_HEX.test(x)))
      out.push(`user_data.${f} must be a list of SHA-256 hashes`);
  }
  for (const f of PLAIN)
    if (typeof u[f] === 'string' && SHA256_HEX.test(u[f] as string))
      out.push(`user_data.${f} must not be hashed`);
  if (
    u['em'] === undefined &&
    u['hashed_maids'] === undefined &&
    !(u['client_ip_address'] && u['client_user_agent'])
  )
    out.push('user_data needs em, hashed_maids, or client_ip_address together with client_user_agent');
  const c = e['custom_data'];
  if (c !== undefined) {
    if (!isObject(c)) out.push('custom_data must be an object');
    else {
      if (c['value'] !== undefined && (typeof c['value'] !== 'string' || !DECIMAL.test(c['value'])))
        out.push('custom_data.value must be a string holding a number');
      if (c['currency'] !== undefined && !/^[A-Z]{3}$/.test(String(c['currency'])))
        out.push('custom_data.currency must be an ISO-4217 code');
    }
  }
  return out;
}

/**
 * What fails the whole request with Pinterest's 400 `{code: 1}` before any event is processed:
 * an event without `event_time` (required in `ConversionEventsData` of Pinterest's v5 reference)
 * or one older than the seven days Pinterest takes. The wording is the stand-in's own.
 */
function requestProblems(data: readonly unknown[], nowS: number): string[] {
  return data.flatMap((e, i) => {
    if (!isObject(e)) return [];
    const t = e['event_time'];
    if (t === undefined || t === null) return [`data[${i}]: 'event_time' is a required property`];
    if (Number.isInteger(t) && (t as number) < nowS - MAX_AGE_S)
      return [`data[${i}]: event_time is older than 7 days (events must be sent within 7 days of happening)`];
    return [];
  });
}

/** Starts the Pinterest stand-in. */
export function startPinterestReceiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  return startPlatformServer(({ method, path, headers, body }) => {
    if (method !== 'POST' || !/^\/v5\/ad_accounts\/\d+\/events$/.test(path))
      return pinterestError(404, 404, `Resource not found: ${method} ${path}`);
    const token = /^Bearer (.+)$/.exec(headers['authorization'] ?? '')?.[1];
    if (!token || (options.accessToken !== undefined && token !== options.accessToken))
      return pinterestError(401, 2, 'Authentication failed.');
    const data = isObject(body) ? body['data'] : undefined;
    if (!Array.isArray(data)) return pinterestError(400, 1, 'Invalid request body: data is required');
    if (data.length === 0 || data.length > MAX_EVENTS)
      return pinterestError(
        400,
        1,
        `Invalid request body: data must hold 1 to ${MAX_EVENTS} events, got ${data.length}`,
      );
    const nowS = Math.floor(now().getTime() / 1000);
    const invalid = requestProblems(data, nowS);
    if (invalid.length > 0)
      return pinterestError(400, 1, `Invalid parameters: ${invalid.join('; ')}`, invalid);
    const results = data.map((e) => eventProblems(e, nowS));
    const problems = results.flatMap((p, i) => p.map((m) => `data[${i}]: ${m}`));
    return {
      status: 200,
      problems,
      body: {
        num_events_received: data.length,
        num_events_processed: results.filter((p) => p.length === 0).length,
        events: results.map((p) =>
          p.length === 0
            ? { status: 'processed', error_message: null, warning_message: null }
            : { status: 'failed', error_message: p.join('; '), warning_message: null },
        ),
      },
    };
  });
}
