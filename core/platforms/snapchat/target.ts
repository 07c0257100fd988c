/**
 * Snapchat Conversions API v3 request (docs/platforms.md, "Snapchat"): the schema of
 * `POST /v3/{pixel}/events` and the rules Snap's Test Event Tool names — event name, time (at most
 * 37 days old), action source, the page for web events, price and currency on a purchase, hashed
 * personal data, and enough of it to match the person by.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import {
  checkDataRequest,
  collapseHashed,
  dataRequest,
  HashedOrList,
  hashedPlainFields,
} from '../target-common.ts';
import { SNAPCHAT_AGE_LIMIT } from './age-limit.ts';
import { SNAPCHAT_ACTION_SOURCES } from './driver.ts';
import { SNAPCHAT_STANDARD_EVENTS } from './standard-events.ts';

/** Events per request (a peer's constant; Snap's page on it was not read: docs/platforms.md, "Snapchat"). */
export const SNAPCHAT_MAX_EVENTS = 2000;
/**
 * Snap reports events up to 37 days old: "events can have a date (timestamp) of maximum 37 days
 * back to be eligible to be reported via the Conversions API" (Snap's Conversions API
 * introduction, developers.snap.com/api/marketing-api/Conversions-API).
 */
export const SNAPCHAT_MAX_AGE_SECONDS = SNAPCHAT_AGE_LIMIT.hours * 3600;

/** User fields Snap wants normalised and SHA-256 hashed (a digest or a list of them). */
export const SNAPCHAT_HASHED_FIELDS = Object.freeze([
  'em',
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
]);
/** User fields Snap matches as sent. */
const PLAIN_FIELDS = ['client_ip_address', 'client_user_agent', 'sc_click_id', 'sc_cookie1'] as const;
/** What can match an event to a person besides the hashed fields. */
const MATCH_KEYS = ['em', 'ph', 'madid', 'sc_click_id', 'sc_cookie1', 'external_id'];

export const SnapchatUserData = Type.Object(
  {
    ...Object.fromEntries(SNAPCHAT_HASHED_FIELDS.map((f) => [f, Type.Optional(HashedOrList)])),
    client_ip_address: Type.Optional(Type.String({ minLength: 1 })),
    client_user_agent: Type.Optional(Type.String({ minLength: 1 })),
    sc_click_id: Type.Optional(Type.String({ minLength: 1 })),
    sc_cookie1: Type.Optional(Type.String({ minLength: 1 })),
    madid: Type.Optional(Type.String({ minLength: 1 })),
    idfv: Type.Optional(Type.String()),
    subscription_id: Type.Optional(Type.String()),
    lead_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const SnapchatContent = Type.Object(
  {
    id: Type.Optional(Type.String()),
    quantity: Type.Optional(Type.Integer({ minimum: 0 })),
    item_price: Type.Optional(Type.Number()),
    brand: Type.Optional(Type.String()),
    delivery_category: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** custom_data: the documented commerce keys are typed; Snap's travel keys pass. */
export const SnapchatCustomData = Type.Object(
  {
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    value: Type.Optional(Type.Number()),
    order_id: Type.Optional(Type.String()),
    content_ids: Type.Optional(Type.Array(Type.String())),
    content_category: Type.Optional(Type.String()),
    contents: Type.Optional(Type.Array(SnapchatContent)),
    num_items: Type.Optional(Type.Integer({ minimum: 0 })),
    search_string: Type.Optional(Type.String()),
    sign_up_method: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** One element of `data`. Unknown keys are refused: they are almost always a mapping typo. */
export const SnapchatEvent = Type.Object(
  {
    event_name: Type.Union(SNAPCHAT_STANDARD_EVENTS.standardEvents.map((n) => Type.Literal(n))),
    event_time: Type.Integer({ minimum: 0, maximum: 99_999_999_999, description: 'unix seconds' }),
    event_id: Type.Optional(Type.String({ minLength: 1 })),
    action_source: Type.Union(SNAPCHAT_ACTION_SOURCES.map((s) => Type.Literal(s))),
    event_source_url: Type.Optional(Type.String({ minLength: 1 })),
    user_data: SnapchatUserData,
    custom_data: Type.Optional(SnapchatCustomData),
    app_data: Type.Optional(Type.Object({}, { additionalProperties: true })),
    data_processing_options: Type.Optional(Type.Array(Type.String())),
    data_processing_options_country: Type.Optional(Type.Integer()),
    data_processing_options_state: Type.Optional(Type.Integer()),
    integration: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type SnapchatEvent = Static<typeof SnapchatEvent>;

export const SnapchatRequest = dataRequest(SnapchatEvent, SNAPCHAT_MAX_EVENTS);

const requestValidator = compileValidator(SnapchatRequest);
const eventValidator = compileValidator<SnapchatEvent>(SnapchatEvent);

/** Checks one event: schema, then the rules Snap's Test Event Tool answers INVALID for. */
export function checkSnapchatEvent(event: unknown, now: Date, prefix = ''): FieldViolation[] {
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  const schema = eventValidator.violations(event, prefix);
  if (schema.length > 0)
    return collapseHashed(
      schema,
      SNAPCHAT_HASHED_FIELDS.map((f) => at(`user_data.${f}`)),
    );
  const e = event as SnapchatEvent;
  const u = e.user_data as Record<string, unknown>;
  const out: FieldViolation[] = [];
  if (e.event_time < Math.floor(now.getTime() / 1000) - SNAPCHAT_MAX_AGE_SECONDS)
    out.push({ field: at('event_time'), description: 'is older than 37 days (Snap does not report it)' });
  if (e.action_source === 'WEB' && e.event_source_url === undefined)
    out.push({ field: at('event_source_url'), description: 'is required for WEB events' });
  if (
    e.event_name === 'PURCHASE' &&
    (e.custom_data?.value === undefined || e.custom_data.currency === undefined)
  )
    out.push({ field: at('custom_data'), description: 'needs value and currency on a PURCHASE' });
  if (!MATCH_KEYS.some((k) => u[k] !== undefined) && !(u['client_ip_address'] && u['client_user_agent']))
    out.push({
      field: at('user_data'),
      description:
        'has nothing to match the person by (Snap answers "Insufficient PII"): send an e-mail, phone, external id, ScCid, _scid, mobile ad id, or the IP address with the user agent',
    });
  return [...out, ...hashedPlainFields(u, PLAIN_FIELDS, at)];
}

/** Checks a whole request body (the object that would be JSON-encoded). */
export function checkSnapchatRequest(body: unknown, now: Date): FieldViolation[] {
  return checkDataRequest(body, SNAPCHAT_MAX_EVENTS, requestValidator, (e, prefix) =>
    checkSnapchatEvent(e, now, prefix),
  );
}
