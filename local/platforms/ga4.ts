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
  countedOf,
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
  const unauthenticated = bearerRefusal(authorization, options);
  if (unauthenticated) return unauthenticated;
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

/** Google's 401 for a request without the stand-in's bearer token, or undefined when it has it. */
function bearerRefusal(authorization: string | undefined, options: ReceiverOptions): Answer | undefined {
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  if (token && (options.accessToken === undefined || token === options.accessToken)) return undefined;
  return googleError(
    401,
    'UNAUTHENTICATED',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  );
}

/** The Data API's report path: `POST /v1beta/properties/{property}:runReport`. */
const REPORT_PATH = /^\/v1beta\/properties\/([^/:]+):runReport$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The Data API's `runReport`, as far as a count needs it: a bearer token, a numeric property,
 * one date range of `YYYY-MM-DD` days, the dimension `eventName` (and optionally `date`) and the
 * metric `eventCount`; rows of the events `/mp/collect` took on those days (by `timestamp_micros`,
 * else the time it got them), less the configured shortfall, in the API's answer shape.
 */
function runReport(
  property: string,
  authorization: string | undefined,
  body: unknown,
  options: ReceiverOptions,
  collected: ReadonlyMap<string, ReadonlyMap<string, number>>,
): Answer {
  const unauthenticated = bearerRefusal(authorization, options);
  if (unauthenticated) return unauthenticated;
  if (!/^\d+$/.test(property))
    return googleError(
      400,
      'INVALID_ARGUMENT',
      `Invalid property ID: ${property}. A numeric Property ID is required.`,
    );
  if (!isObject(body)) return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const ranges = Array.isArray(body['dateRanges']) ? body['dateRanges'] : [];
  const range = isObject(ranges[0]) ? ranges[0] : {};
  const from = range['startDate'];
  const to = range['endDate'];
  const dims = (Array.isArray(body['dimensions']) ? body['dimensions'] : []).map((d) =>
    isObject(d) ? d['name'] : undefined,
  );
  const metrics = (Array.isArray(body['metrics']) ? body['metrics'] : []).map((m) =>
    isObject(m) ? m['name'] : undefined,
  );
  const problems: string[] = [];
  if (
    ranges.length !== 1 ||
    typeof from !== 'string' ||
    typeof to !== 'string' ||
    !DAY.test(from) ||
    !DAY.test(to) ||
    to < from
  )
    problems.push(
      'dateRanges: one range of startDate and endDate (YYYY-MM-DD, end not before start) is served here',
    );
  if (!dims.includes('eventName') || dims.some((d) => d !== 'eventName' && d !== 'date'))
    problems.push('dimensions: eventName (and date) are served here');
  if (metrics.length !== 1 || metrics[0] !== 'eventCount')
    problems.push('metrics: eventCount is served here');
  if (problems.length > 0)
    return googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', problems);
  const byDate = dims.includes('date');
  const rows: { dimensionValues: { value: string }[]; metricValues: { value: string }[] }[] = [];
  const totals = new Map<string, number>();
  for (const [day, names] of collected) {
    if (day < (from as string) || day > (to as string)) continue;
    for (const [name, n] of names) {
      if (byDate)
        rows.push({
          dimensionValues: dims.map((d) => ({ value: d === 'date' ? day.replaceAll('-', '') : name })),
          metricValues: [{ value: String(countedOf(n, options.countShortfall)) }],
        });
      else totals.set(name, (totals.get(name) ?? 0) + n);
    }
  }
  for (const [name, n] of totals)
    rows.push({
      dimensionValues: [{ value: name }],
      metricValues: [{ value: String(countedOf(n, options.countShortfall)) }],
    });
  return {
    status: 200,
    body: {
      dimensionHeaders: dims.map((name) => ({ name })),
      metricHeaders: [{ name: 'eventCount', type: 'TYPE_INTEGER' }],
      ...(rows.length > 0 ? { rows } : {}),
      rowCount: rows.length,
      metadata: { currencyCode: 'USD', timeZone: 'Etc/UTC' },
      kind: 'analyticsData#runReport',
    },
  };
}

/** Starts the GA4 receiver (`/mp/collect`, `/debug/mp/collect` and the Admin API's user deletion). */
export function startGa4Receiver(options: ReceiverOptions = {}): Promise<PlatformReceiver> {
  const now = options.now ?? (() => new Date());
  // day → event name → events /mp/collect took, for runReport.
  const collected = new Map<string, Map<string, number>>();
  const collect = (body: unknown) => {
    if (!isObject(body) || !Array.isArray(body['events'])) return;
    const micros = Number(body['timestamp_micros']);
    const at = Number.isFinite(micros) && micros > 0 ? new Date(micros / 1000) : now();
    const day = at.toISOString().slice(0, 10);
    const names = collected.get(day) ?? new Map<string, number>();
    collected.set(day, names);
    for (const e of body['events'])
      if (isObject(e) && typeof e['name'] === 'string') names.set(e['name'], (names.get(e['name']) ?? 0) + 1);
  };
  return startPlatformServer(({ method, path, query, headers, raw, body }) => {
    const report = REPORT_PATH.exec(path)?.[1];
    if (report !== undefined)
      return method === 'POST'
        ? runReport(report, headers['authorization'], body, options, collected)
        : googleError(404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
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
    // What GA4 would keep: a valid event sent with the right secret (it drops the rest silently).
    if (problems.length === 0) collect(body);
    return { status: 204, problems };
  });
}
