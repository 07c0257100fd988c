/**
 * A loopback GA4 Measurement Protocol: `/mp/collect` answers 204 whatever it gets (as Google's
 * does) but records the problems; `/debug/mp/collect` answers `{validationMessages}` like the
 * validation server. Rules from docs/platforms.md §2. It also stands in for the Admin API's user
 * deletion (`POST /v1alpha/properties/{property}:submitUserDeletion`, what an erasure sends):
 * a bearer token, a numeric property and a body of exactly one non-empty user identifier, answered
 * `{deletionRequestTime}` or in Google's error envelope, as the Admin API's reference documents.
 */
import { googleError } from './google-ads.ts';
import {
  type Answer,
  isObject,
  type PlatformReceiver,
  type ReceiverOptions,
  startPlatformServer,
} from './server.ts';

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

/** The `user` oneof of a `SubmitUserDeletionRequest`: one of these, a string. */
const DELETION_IDS = ['userId', 'clientId', 'appInstanceId', 'userProvidedData'];
const DELETION_PATH = /^\/v1alpha\/properties\/([^/:]+):submitUserDeletion$/;

/**
 * `submitUserDeletion`: the property in the path (its numeric id), a bearer token (any, or the
 * receiver's `accessToken`), and a JSON object holding exactly one identifier of the `user` oneof,
 * non-empty, and nothing else; the answer is the time the request was received.
 */
function userDeletion(
  property: string,
  authorization: string | undefined,
  body: unknown,
  options: ReceiverOptions,
  now: Date,
): Answer {
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  if (!token || (options.accessToken !== undefined && token !== options.accessToken))
    return googleError(
      401,
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    );
  if (!/^\d+$/.test(property))
    return googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
      `name: properties/${property} is not a property name (properties/{numeric id})`,
    ]);
  if (!isObject(body)) return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const problems: string[] = [];
  for (const k of Object.keys(body))
    if (!DELETION_IDS.includes(k))
      problems.push(`${k}: Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
  const given = DELETION_IDS.filter((k) => body[k] !== undefined);
  if (given.length === 0) problems.push(`user: one of ${DELETION_IDS.join(', ')} is required`);
  if (given.length > 1) problems.push(`user: only one of ${given.join(', ')} may be set (a oneof)`);
  for (const k of given)
    if (typeof body[k] !== 'string' || body[k] === '') problems.push(`${k}: must be a non-empty string`);
  if (problems.length > 0)
    return googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', problems);
  return { status: 200, body: { deletionRequestTime: now.toISOString() } };
}

/** Starts the GA4 receiver (`/mp/collect`, `/debug/mp/collect` and the Admin API's user deletion). */
export function startGa4Receiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  return startPlatformServer(({ method, path, query, headers, raw, body }) => {
    const property = DELETION_PATH.exec(path)?.[1];
    if (property !== undefined)
      return method === 'POST'
        ? userDeletion(property, headers['authorization'], body, options, now())
        : googleError(404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
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
