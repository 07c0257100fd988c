/**
 * A loopback GA4 Measurement Protocol: `/mp/collect` answers 204 whatever it gets (as Google's
 * does) but records the problems; `/debug/mp/collect` answers `{validationMessages}` like the
 * validation server. Rules from docs/platforms.md §2.
 */
import { isObject, type PlatformReceiver, type ReceiverOptions, startPlatformServer } from './server.ts';

// Written out again on purpose, not imported from core/platforms/ga4/target.ts: the receiver
// is an independent check of what the target layer lets through.
const RESERVED_EVENTS = new Set([
  'ad_activeview',
  'ad_click',
  'ad_exposure',
  'ad_impression',
  'ad_query',
  'adunit_exposure',
  'app_clear_data',
  'app_install',
  'app_update',
  'app_remove',
  'error',
  'first_open',
  'first_visit',
  'in_app_purchase',
  'notification_dismiss',
  'notification_foreground',
  'notification_open',
  'notification_receive',
  'os_update',
  'screen_view',
  'session_start',
  'user_engagement',
]);
const PREFIXES = ['_', 'firebase_', 'ga_', 'google_', 'gtag.'];
const LONG_VALUES: Record<string, number> = { page_title: 300, page_referrer: 420, page_location: 1000 };

export interface ValidationMessage {
  readonly fieldPath: string;
  readonly description: string;
  readonly validationCode: string;
}

function validate(raw: string, body: unknown, nowMs: number): ValidationMessage[] {
  const out: ValidationMessage[] = [];
  const msg = (fieldPath: string, validationCode: string, description: string) =>
    out.push({ fieldPath, validationCode, description });
  if (Buffer.byteLength(raw) >= 130_000)
    msg('', 'VALUE_OUT_OF_BOUNDS', 'Request body must be smaller than 130kB.');
  if (!isObject(body)) {
    msg('', 'VALUE_INVALID', 'Unable to parse the request body as JSON.');
    return out;
  }
  if (typeof body['client_id'] !== 'string' && typeof body['app_instance_id'] !== 'string')
    msg('client_id', 'VALUE_REQUIRED', 'Measurement requires a client_id.');
  const ts = body['timestamp_micros'];
  if (typeof ts === 'number' && ts < (nowMs - 72 * 3600 * 1000) * 1000)
    msg('timestamp_micros', 'VALUE_INVALID', 'Events may be backdated by at most 72 hours.');
  const events = body['events'];
  if (!Array.isArray(events) || events.length === 0) {
    msg('events', 'VALUE_REQUIRED', 'At least one event is required.');
    return out;
  }
  if (events.length > 25) msg('events', 'EXCEEDED_MAX_ENTITIES', 'A request may have at most 25 events.');
  for (const [i, e] of events.entries()) {
    const name = isObject(e) ? e['name'] : undefined;
    if (
      typeof name !== 'string' ||
      !/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(name) ||
      PREFIXES.some((p) => name.startsWith(p))
    )
      msg(
        'events',
        'NAME_INVALID',
        `Event at index: [${i}] has invalid name [${String(name)}]. Names must start with an alphabetic character.`,
      );
    else if (RESERVED_EVENTS.has(name))
      msg('events', 'NAME_RESERVED', `Event at index: [${i}] has reserved name [${name}].`);
    const params = isObject(e) && isObject(e['params']) ? e['params'] : {};
    const names = Object.keys(params);
    if (names.length > 25)
      msg(`events[${i}].params`, 'EXCEEDED_MAX_ENTITIES', 'An event may have at most 25 params.');
    for (const p of names) {
      if (
        !/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(p) ||
        PREFIXES.some((x) => p.startsWith(x)) ||
        p === 'firebase_conversion'
      )
        msg(`events[${i}].params`, 'NAME_INVALID', `Param [${p}] has an invalid name.`);
      const v = params[p];
      if (typeof v === 'string' && v.length > (LONG_VALUES[p] ?? 100))
        msg(`events[${i}].params.${p}`, 'VALUE_OUT_OF_BOUNDS', `Value of param [${p}] is too long.`);
      if (p === 'items' && Array.isArray(v)) {
        for (const [j, item] of v.entries())
          if (!isObject(item) || (item['item_id'] === undefined && item['item_name'] === undefined))
            msg(`events[${i}].params.items[${j}]`, 'VALUE_REQUIRED', 'Item requires item_id or item_name.');
      }
    }
  }
  return out;
}

/** Starts the GA4 receiver (`/mp/collect` and `/debug/mp/collect`). */
export function startGa4Receiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  return startPlatformServer(({ method, path, query, raw, body }) => {
    const debug = path === '/debug/mp/collect';
    if (method !== 'POST' || (!debug && path !== '/mp/collect'))
      return { status: 404, problems: [`no route ${path}`] };
    const messages = validate(raw, body, now().getTime());
    if (!query['measurement_id'])
      messages.push({
        fieldPath: 'measurement_id',
        validationCode: 'VALUE_REQUIRED',
        description: 'measurement_id is required.',
      });
    // The validation server does not check api_secret; the collection endpoint silently drops a wrong one.
    const badSecret =
      !debug &&
      (!query['api_secret'] ||
        (options.accessToken !== undefined && query['api_secret'] !== options.accessToken));
    const problems = [
      ...messages.map((m) => `${m.validationCode} ${m.fieldPath}: ${m.description}`),
      ...(badSecret ? ['api_secret invalid'] : []),
    ];
    if (debug) return { status: 200, body: { validationMessages: messages }, problems };
    return { status: 204, problems };
  });
}
