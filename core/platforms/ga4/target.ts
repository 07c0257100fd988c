/**
 * GA4 Measurement Protocol request (docs/platforms.md §2). `/mp/collect` answers 2xx even for
 * data it drops, so these checks are the only guard: limits, name rules, reserved names and
 * prefixes, 72 h backdating, client_id for web streams.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { GA4_AGE_LIMIT } from './age-limit.ts';

export const GA4_MAX_EVENTS = 25;
/** "The total size of the post body must be smaller than 130kB" (taken as 130 000 bytes, the stricter reading). */
export const GA4_MAX_BODY_BYTES = 130_000;
export const GA4_MAX_PARAMS = 25;
/** Longest parameter value GA4 keeps (standard properties; some page_* parameters take more). */
export const GA4_MAX_VALUE_LENGTH = 100;
export const GA4_MAX_USER_PROPERTIES = 25;
export const GA4_MAX_CUSTOM_ITEM_PARAMS = 10;
export const GA4_MAX_BACKDATE_MICROS = GA4_AGE_LIMIT.hours * 3600 * 1_000_000;
export const GA4_RESERVED_PREFIXES = Object.freeze(['_', 'firebase_', 'ga_', 'google_', 'gtag.']);
export const GA4_RESERVED_EVENTS: ReadonlySet<string> = new Set([
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
  'app_store_refund',
  'app_store_subscription_cancel',
  'app_store_subscription_convert',
  'app_store_subscription_renew',
]);
export const GA4_RESERVED_PARAMS: ReadonlySet<string> = new Set(['firebase_conversion']);
export const GA4_RESERVED_USER_PROPERTIES: ReadonlySet<string> = new Set([
  'first_open_time',
  'first_visit_time',
  'last_deep_link_referrer',
  'user_id',
  'first_open_after_install',
]);
/** Parameter value length limits above the default 100 (Google's collection-limit exceptions). */
export const GA4_VALUE_LIMITS: Readonly<Record<string, number>> = {
  page_title: 300,
  page_referrer: 420,
  page_location: 1000,
};
const STANDARD_ITEM_KEYS = new Set([
  'item_id',
  'item_name',
  'affiliation',
  'coupon',
  'discount',
  'index',
  'item_brand',
  'item_category',
  'item_category2',
  'item_category3',
  'item_category4',
  'item_category5',
  'item_list_id',
  'item_list_name',
  'item_variant',
  'location_id',
  'price',
  'quantity',
  'creative_name',
  'creative_slot',
  'promotion_id',
  'promotion_name',
]);

const Consent = Type.Union([Type.Literal('GRANTED'), Type.Literal('DENIED')]);

export const Ga4Event = Type.Object(
  {
    name: Type.String(),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
export type Ga4Event = Static<typeof Ga4Event>;

export const Ga4Request = Type.Object(
  {
    client_id: Type.Optional(Type.String({ minLength: 1 })),
    app_instance_id: Type.Optional(Type.String({ minLength: 1 })),
    user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    timestamp_micros: Type.Optional(Type.Integer({ minimum: 0 })),
    user_properties: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object({ value: Type.Union([Type.String(), Type.Number()]) }, { additionalProperties: false }),
      ),
    ),
    consent: Type.Optional(
      Type.Object(
        { ad_user_data: Type.Optional(Consent), ad_personalization: Type.Optional(Consent) },
        { additionalProperties: false },
      ),
    ),
    non_personalized_ads: Type.Optional(Type.Boolean()),
    user_location: Type.Optional(Type.Object({}, { additionalProperties: true })),
    ip_override: Type.Optional(Type.String()),
    device: Type.Optional(Type.Object({}, { additionalProperties: true })),
    user_data: Type.Optional(Type.Object({}, { additionalProperties: true })),
    validation_behavior: Type.Optional(
      Type.Union([Type.Literal('RELAXED'), Type.Literal('ENFORCE_RECOMMENDATIONS')]),
    ),
    events: Type.Array(Ga4Event, { minItems: 1, maxItems: GA4_MAX_EVENTS }),
  },
  { additionalProperties: false },
);
export type Ga4Request = Static<typeof Ga4Request>;

const validator = compileValidator<Ga4Request>(Ga4Request);

/**
 * Why a name breaks GA4's rules, or undefined. Events and params: ≤40 characters, letters,
 * digits and underscores, starting with a letter, no reserved prefix or name. User properties: ≤24.
 */
export function ga4NameProblem(name: string, kind: 'event' | 'param' | 'user_property'): string | undefined {
  const max = kind === 'user_property' ? 24 : 40;
  const prefix = GA4_RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) return `"${name}" starts with the reserved prefix "${prefix}"`;
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name))
    return `"${name}" must start with a letter and hold only letters, digits and underscores`;
  if (name.length > max) return `"${name}" is longer than ${max} characters`;
  const reserved =
    kind === 'event'
      ? GA4_RESERVED_EVENTS
      : kind === 'param'
        ? GA4_RESERVED_PARAMS
        : GA4_RESERVED_USER_PROPERTIES;
  if (reserved.has(name)) return `"${name}" is a reserved ${kind.replace('_', ' ')} name`;
  return undefined;
}

function checkParams(params: Record<string, unknown>, at: string, out: FieldViolation[]): void {
  const names = Object.keys(params);
  if (names.length > GA4_MAX_PARAMS)
    out.push({
      field: `${at}.params`,
      description: `has ${names.length} parameters, at most ${GA4_MAX_PARAMS}`,
    });
  for (const name of names) {
    const f = `${at}.params.${name}`;
    const problem = ga4NameProblem(name, 'param');
    if (problem) out.push({ field: f, description: problem });
    const value = params[name];
    if (name === 'items') {
      checkItems(value, f, out);
      continue;
    }
    if (typeof value === 'string') {
      const limit = GA4_VALUE_LIMITS[name] ?? GA4_MAX_VALUE_LENGTH;
      if (value.length > limit) out.push({ field: f, description: `is longer than ${limit} characters` });
    } else if (typeof value !== 'number' && typeof value !== 'boolean') {
      out.push({ field: f, description: 'must be a string or a number' });
    }
  }
}

function checkItems(value: unknown, at: string, out: FieldViolation[]): void {
  if (!Array.isArray(value)) {
    out.push({ field: at, description: 'must be a list of items' });
    return;
  }
  value.forEach((item, i) => {
    const f = `${at}[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      out.push({ field: f, description: 'must be an object' });
      return;
    }
    const rec = item as Record<string, unknown>;
    if (rec['item_id'] === undefined && rec['item_name'] === undefined)
      out.push({ field: f, description: 'needs item_id or item_name' });
    const custom = Object.keys(rec).filter((k) => !STANDARD_ITEM_KEYS.has(k));
    if (custom.length > GA4_MAX_CUSTOM_ITEM_PARAMS)
      out.push({
        field: f,
        description: `has ${custom.length} custom parameters, at most ${GA4_MAX_CUSTOM_ITEM_PARAMS}`,
      });
    for (const [k, v] of Object.entries(rec)) {
      if (typeof v === 'string' && v.length > 100)
        out.push({ field: `${f}.${k}`, description: 'is longer than 100 characters' });
      else if (typeof v !== 'string' && typeof v !== 'number')
        out.push({ field: `${f}.${k}`, description: 'must be a string or a number' });
    }
  });
}

/**
 * Checks a request body: schema, size (of its JSON encoding), names, params, items, user
 * properties, timestamp window (72 h back, not in the future), client_id for web streams.
 */
export function checkGa4Request(body: unknown, now: Date): FieldViolation[] {
  const schema = validator.violations(body);
  if (schema.length > 0) return schema;
  const r = body as Ga4Request;
  const out: FieldViolation[] = [];
  const bytes = Buffer.byteLength(JSON.stringify(r));
  if (bytes >= GA4_MAX_BODY_BYTES)
    out.push({
      field: '(root)',
      description: `body is ${bytes} bytes, must be smaller than ${GA4_MAX_BODY_BYTES}`,
    });
  if (r.client_id === undefined && r.app_instance_id === undefined)
    out.push({ field: 'client_id', description: 'is required for web streams' });
  const nowMicros = now.getTime() * 1000;
  const checkTime = (t: unknown, f: string) => {
    if (typeof t !== 'number') return;
    if (t < nowMicros - GA4_MAX_BACKDATE_MICROS)
      out.push({ field: f, description: 'is more than 72 hours in the past (GA4 drops it)' });
  };
  checkTime(r.timestamp_micros, 'timestamp_micros');
  const props = Object.entries(r.user_properties ?? {});
  if (props.length > GA4_MAX_USER_PROPERTIES)
    out.push({
      field: 'user_properties',
      description: `has ${props.length}, at most ${GA4_MAX_USER_PROPERTIES}`,
    });
  for (const [name, { value }] of props) {
    const problem = ga4NameProblem(name, 'user_property');
    if (problem) out.push({ field: `user_properties.${name}`, description: problem });
    if (typeof value === 'string' && value.length > 36)
      out.push({ field: `user_properties.${name}.value`, description: 'is longer than 36 characters' });
  }
  r.events.forEach((e, i) => {
    const at = `events[${i}]`;
    const problem = ga4NameProblem(e.name, 'event');
    if (problem) out.push({ field: `${at}.name`, description: problem });
    const params = e.params ?? {};
    checkTime(params['timestamp_micros'], `${at}.params.timestamp_micros`);
    const { timestamp_micros: _t, ...rest } = params;
    checkParams(rest, at, out);
  });
  return out;
}

/**
 * Fixes, in place, what GA4 would drop or misread but the event can do without, and says what
 * changed (the rest of the request is checked as it is):
 * - a string parameter (or item field) over its length limit is cut to the limit (GA4
 *   truncates or drops it; cutting keeps the useful start);
 * - `value` without `currency` is left out (GA4 requires the currency whenever value is set);
 * - a `timestamp_micros` in the future is left out, so GA4 uses the time it receives the event
 *   (it takes past events only).
 */
export function trimGa4Request(body: Record<string, unknown>, now: Date): string | undefined {
  const notes: string[] = [];
  const nowMicros = now.getTime() * 1000;
  if (typeof body['timestamp_micros'] === 'number' && body['timestamp_micros'] > nowMicros) {
    delete body['timestamp_micros'];
    notes.push('left out timestamp_micros (in the future; GA4 takes past events only)');
  }
  const events = Array.isArray(body['events'])
    ? (body['events'] as { params?: Record<string, unknown> }[])
    : [];
  events.forEach((e, i) => {
    const params = e.params;
    if (!params) return;
    for (const [name, value] of Object.entries(params)) {
      const limit = GA4_VALUE_LIMITS[name] ?? GA4_MAX_VALUE_LENGTH;
      if (typeof value === 'string' && value.length > limit) {
        params[name] = value.slice(0, limit);
        notes.push(`cut events[${i}].params.${name} to ${limit} characters (was ${value.length})`);
      }
    }
    const items = Array.isArray(params['items']) ? (params['items'] as Record<string, unknown>[]) : [];
    items.forEach((item, j) => {
      if (item === null || typeof item !== 'object') return;
      for (const [k, v] of Object.entries(item)) {
        if (typeof v === 'string' && v.length > GA4_MAX_VALUE_LENGTH) {
          item[k] = v.slice(0, GA4_MAX_VALUE_LENGTH);
          notes.push(
            `cut events[${i}].params.items[${j}].${k} to ${GA4_MAX_VALUE_LENGTH} characters (was ${v.length})`,
          );
        }
      }
    });
    if (params['value'] !== undefined && params['currency'] === undefined) {
      delete params['value'];
      notes.push(`left out events[${i}].params.value (no currency; GA4 requires one with a value)`);
    }
  });
  return notes.length > 0 ? notes.join('; ') : undefined;
}
