/**
 * Pinterest Conversions API request (docs/platforms.md, "Pinterest"): the schema of
 * `POST /v5/ad_accounts/{id}/events` and the rules it cannot express — every user field a list of
 * SHA-256 digests, the IP address, user agent and click id in clear, at least an e-mail, a
 * mobile ad id, or the IP address with the user agent to match the person by, and an event at
 * most 7 days old.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import {
  checkDataRequest,
  collapseHashed,
  dataRequest,
  Hashed,
  hashedPlainFields,
} from '../target-common.ts';
import { PINTEREST_AGE_LIMIT } from './age-limit.ts';
import { PINTEREST_ACTION_SOURCES } from './driver.ts';
import { PINTEREST_STANDARD_EVENTS } from './standard-events.ts';

export const PINTEREST_MAX_EVENTS = 1000;
/**
 * How old an event Pinterest takes: only events that happened within the previous seven days may
 * be sent to `events/create` (Amperity's Pinterest guide, docs.amperity.com/operator/
 * events_pinterest.html, which cites developer.pinterest.com/docs/api/v5/events-create; Pinterest's
 * own page was not readable here: docs/platforms.md, "Pinterest").
 */
export const PINTEREST_MAX_AGE_SECONDS = PINTEREST_AGE_LIMIT.hours * 3600;

/** User fields Pinterest wants normalised, SHA-256 hashed and sent as a list. */
export const PINTEREST_HASHED_FIELDS = Object.freeze([
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
]);
/** User fields Pinterest matches as sent. */
const PLAIN_FIELDS = ['client_ip_address', 'client_user_agent', 'click_id'] as const;

const HashedList = Type.Array(Hashed, { minItems: 1 });
const Amount = Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'a decimal number as text' });

export const PinterestUserData = Type.Object(
  {
    ...Object.fromEntries(PINTEREST_HASHED_FIELDS.map((f) => [f, Type.Optional(HashedList)])),
    client_ip_address: Type.Optional(Type.String({ minLength: 1 })),
    client_user_agent: Type.Optional(Type.String({ minLength: 1 })),
    click_id: Type.Optional(Type.String({ minLength: 1 })),
    partner_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const PinterestContent = Type.Object(
  {
    id: Type.Optional(Type.String()),
    item_name: Type.Optional(Type.String()),
    item_category: Type.Optional(Type.String()),
    item_brand: Type.Optional(Type.String()),
    item_price: Type.Optional(Amount),
    quantity: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const PinterestCustomData = Type.Object(
  {
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    value: Type.Optional(Amount),
    content_ids: Type.Optional(Type.Array(Type.String())),
    content_name: Type.Optional(Type.String()),
    content_category: Type.Optional(Type.String()),
    content_brand: Type.Optional(Type.String()),
    contents: Type.Optional(Type.Array(PinterestContent)),
    num_items: Type.Optional(Type.Integer({ minimum: 0 })),
    order_id: Type.Optional(Type.String()),
    search_string: Type.Optional(Type.String()),
    opt_out_type: Type.Optional(Type.String()),
    np: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** One element of `data`. Unknown keys are refused: they are almost always a mapping typo. */
export const PinterestEvent = Type.Object(
  {
    event_name: Type.Union(PINTEREST_STANDARD_EVENTS.standardEvents.map((n) => Type.Literal(n))),
    action_source: Type.Union(PINTEREST_ACTION_SOURCES.map((s) => Type.Literal(s))),
    event_time: Type.Integer({ minimum: 0, maximum: 99_999_999_999, description: 'unix seconds' }),
    event_id: Type.String({ minLength: 1 }),
    event_source_url: Type.Optional(Type.String()),
    opt_out: Type.Optional(Type.Boolean()),
    partner_name: Type.Optional(Type.String()),
    user_data: PinterestUserData,
    custom_data: Type.Optional(PinterestCustomData),
    app_id: Type.Optional(Type.String()),
    app_name: Type.Optional(Type.String()),
    app_version: Type.Optional(Type.String()),
    device_brand: Type.Optional(Type.String()),
    device_carrier: Type.Optional(Type.String()),
    device_model: Type.Optional(Type.String()),
    device_type: Type.Optional(Type.String()),
    os_version: Type.Optional(Type.String()),
    wifi: Type.Optional(Type.Boolean()),
    language: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type PinterestEvent = Static<typeof PinterestEvent>;

export const PinterestRequest = dataRequest(PinterestEvent, PINTEREST_MAX_EVENTS);

const requestValidator = compileValidator(PinterestRequest);
const eventValidator = compileValidator<PinterestEvent>(PinterestEvent);

/**
 * Checks one event: schema (`event_time` is required: ConversionEventsData in Pinterest's v5
 * reference), its age, then what Pinterest needs to match it and what it takes in clear.
 */
export function checkPinterestEvent(event: unknown, now: Date, prefix = ''): FieldViolation[] {
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  const schema = eventValidator.violations(event, prefix);
  if (schema.length > 0)
    return collapseHashed(
      schema,
      PINTEREST_HASHED_FIELDS.map((f) => at(`user_data.${f}`)),
    ).map((v) =>
      v.description.startsWith('must be SHA-256')
        ? { ...v, description: 'must be a list of SHA-256 lowercase hex digests (normalise, then hash)' }
        : v,
    );
  const e = event as PinterestEvent;
  const u = e.user_data as Record<string, unknown>;
  const out: FieldViolation[] = [];
  if (e.event_time < Math.floor(now.getTime() / 1000) - PINTEREST_MAX_AGE_SECONDS)
    out.push({
      field: at('event_time'),
      description: 'is older than 7 days: Pinterest takes events from the last 7 days only',
    });
  if (
    u['em'] === undefined &&
    u['hashed_maids'] === undefined &&
    !(u['client_ip_address'] && u['client_user_agent'])
  )
    out.push({
      field: at('user_data'),
      description:
        'needs an e-mail (em), a mobile ad id (hashed_maids), or the IP address with the user agent: Pinterest cannot match the event otherwise',
    });
  return [...out, ...hashedPlainFields(u, PLAIN_FIELDS, at)];
}

/** Checks a whole request body (the object that would be JSON-encoded). */
export function checkPinterestRequest(body: unknown, now: Date): FieldViolation[] {
  return checkDataRequest(body, PINTEREST_MAX_EVENTS, requestValidator, (e, prefix) =>
    checkPinterestEvent(e, now, prefix),
  );
}

/**
 * Leaves out a `value` sent without its `currency` (an amount means nothing without one), and
 * says so.
 */
export function trimPinterestEvent(row: Record<string, unknown>): string | undefined {
  const custom = row['custom_data'] as Record<string, unknown> | undefined;
  if (custom?.['value'] === undefined || custom['currency'] !== undefined) return undefined;
  delete custom['value'];
  return 'left out custom_data.value (no currency)';
}
