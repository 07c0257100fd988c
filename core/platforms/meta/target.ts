/**
 * Meta Conversions API request (docs/platforms.md §1): the schema of `POST /{version}/{pixel}/events`
 * and the rules the schema cannot express (7-day window, website fields, hashing rules).
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { checkDataRequest, collapseHashed, HashedOrList, looksHashed, TextOrList } from '../target-common.ts';
import { META_AGE_LIMIT } from './age-limit.ts';

export const META_MAX_EVENTS = 1000;
export const META_MAX_AGE_SECONDS = META_AGE_LIMIT.hours * 3600;
export const META_MAX_AGE_PHYSICAL_STORE_SECONDS =
  (META_AGE_LIMIT.longer?.hours ?? META_AGE_LIMIT.hours) * 3600;

/** Fields Meta wants SHA-256 hashed after normalisation. */
export const META_HASHED_FIELDS = Object.freeze([
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
]);
/** Fields Meta matches as sent: hashing them breaks matching. */
export const META_PLAIN_FIELDS = Object.freeze(['client_ip_address', 'client_user_agent', 'fbc', 'fbp']);

/** The documented `action_source` values (server event parameters). */
export const META_ACTION_SOURCES: readonly string[] = Object.freeze(
  'email website app phone_call chat physical_store system_generated business_messaging other'.split(' '),
);

export const MetaActionSource = Type.Union(META_ACTION_SOURCES.map((s) => Type.Literal(s)));

export const MetaUserData = Type.Object(
  {
    em: Type.Optional(HashedOrList),
    ph: Type.Optional(HashedOrList),
    fn: Type.Optional(HashedOrList),
    ln: Type.Optional(HashedOrList),
    ge: Type.Optional(HashedOrList),
    db: Type.Optional(HashedOrList),
    ct: Type.Optional(HashedOrList),
    st: Type.Optional(HashedOrList),
    zp: Type.Optional(HashedOrList),
    country: Type.Optional(HashedOrList),
    external_id: Type.Optional(TextOrList),
    client_ip_address: Type.Optional(Type.String()),
    client_user_agent: Type.Optional(Type.String()),
    fbc: Type.Optional(Type.String({ pattern: '^fb\\.[0-9]+\\.[0-9]+\\..+$' })),
    fbp: Type.Optional(Type.String()),
    subscription_id: Type.Optional(Type.String()),
    fb_login_id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
    lead_id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
    madid: Type.Optional(Type.String()),
    anon_id: Type.Optional(Type.String()),
    ctwa_clid: Type.Optional(Type.String()),
    page_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const MetaContent = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    quantity: Type.Optional(Type.Integer({ minimum: 0 })),
    item_price: Type.Optional(Type.Number()),
    delivery_category: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** custom_data: the documented keys are typed; Meta accepts custom keys besides them. */
export const MetaCustomData = Type.Object(
  {
    value: Type.Optional(Type.Number()),
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
    content_name: Type.Optional(Type.String()),
    content_category: Type.Optional(Type.String()),
    content_ids: Type.Optional(Type.Array(Type.String())),
    contents: Type.Optional(Type.Array(MetaContent)),
    content_type: Type.Optional(Type.Union([Type.Literal('product'), Type.Literal('product_group')])),
    order_id: Type.Optional(Type.String()),
    num_items: Type.Optional(Type.Integer({ minimum: 0 })),
    search_string: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    predicted_ltv: Type.Optional(Type.Number()),
    delivery_category: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** One server event. Unknown top-level keys are refused: they are almost always a mapping typo. */
export const MetaServerEvent = Type.Object(
  {
    event_name: Type.String({ minLength: 1, maxLength: 64 }),
    event_time: Type.Integer({ minimum: 0, description: 'unix seconds' }),
    event_id: Type.Optional(Type.String({ minLength: 1 })),
    event_source_url: Type.Optional(Type.String({ minLength: 1 })),
    action_source: MetaActionSource,
    user_data: MetaUserData,
    custom_data: Type.Optional(MetaCustomData),
    opt_out: Type.Optional(Type.Boolean()),
    data_processing_options: Type.Optional(Type.Array(Type.String())),
    data_processing_options_country: Type.Optional(Type.Integer()),
    data_processing_options_state: Type.Optional(Type.Integer()),
    referrer_url: Type.Optional(Type.String()),
    customer_segmentation: Type.Optional(Type.Object({}, { additionalProperties: true })),
    original_event_data: Type.Optional(Type.Object({}, { additionalProperties: true })),
    messaging_channel: Type.Optional(Type.String()),
    app_data: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);
export type MetaServerEvent = Static<typeof MetaServerEvent>;

export const MetaRequest = Type.Object(
  {
    data: Type.Array(MetaServerEvent, { minItems: 1, maxItems: META_MAX_EVENTS }),
    test_event_code: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type MetaRequest = Static<typeof MetaRequest>;

const requestValidator = compileValidator<MetaRequest>(MetaRequest);
const eventValidator = compileValidator<MetaServerEvent>(MetaServerEvent);

/**
 * Checks one server event: schema, then Meta's rules (window, website fields, Purchase value
 * and currency, plain fields not hashed). `prefix` names its place (`data[3]`).
 */
export function checkMetaEvent(event: unknown, now: Date, prefix = ''): FieldViolation[] {
  const schema = eventValidator.violations(event, prefix);
  const at0 = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  if (schema.length > 0)
    return collapseHashed(
      schema,
      META_HASHED_FIELDS.map((f) => at0(`user_data.${f}`)),
    );
  const e = event as MetaServerEvent;
  const out: FieldViolation[] = [];
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const maxAge =
    e.action_source === 'physical_store' ? META_MAX_AGE_PHYSICAL_STORE_SECONDS : META_MAX_AGE_SECONDS;
  if (e.event_time < nowSeconds - maxAge)
    out.push({
      field: at('event_time'),
      description: `is older than ${maxAge / 86400} days (Meta answers 2804003 for the whole request)`,
    });
  if (e.action_source === 'website') {
    if (e.user_data.client_user_agent === undefined)
      out.push({ field: at('user_data.client_user_agent'), description: 'is required for website events' });
    if (e.event_source_url === undefined)
      out.push({ field: at('event_source_url'), description: 'is required for website events' });
  }
  if (e.event_name === 'Purchase') {
    if (e.custom_data?.value === undefined)
      out.push({ field: at('custom_data.value'), description: 'is required for Purchase' });
    if (e.custom_data?.currency === undefined)
      out.push({ field: at('custom_data.currency'), description: 'is required for Purchase' });
  }
  const identifiers = Object.keys(e.user_data).filter((k) => k !== 'client_user_agent');
  if (identifiers.length === 0)
    out.push({
      field: at('user_data'),
      description:
        "holds only client_user_agent, below Meta's matching baseline (Meta refuses it, and in a batch the whole batch): send an email, phone, external_id, fbp/fbc or the client IP too",
    });
  for (const f of META_PLAIN_FIELDS) {
    if (looksHashed(e.user_data[f as keyof typeof e.user_data]))
      out.push({ field: at(`user_data.${f}`), description: 'must be sent as-is, not hashed' });
  }
  return out;
}

/** Checks a whole request body (the object that would be JSON-encoded). */
export function checkMetaRequest(body: unknown, now: Date): FieldViolation[] {
  return checkDataRequest(body, META_MAX_EVENTS, requestValidator, (e, prefix) =>
    checkMetaEvent(e, now, prefix),
  );
}

/**
 * Leaves out the `contents` lines Meta would refuse (a line needs an `id`; a gift card or a fee
 * often has none) instead of losing the event: `contents` is optional (catalog ads), and a
 * Purchase needs only value and currency. Says what it left out.
 */
export function trimMetaEvent(event: Record<string, unknown>): string | undefined {
  const custom = event['custom_data'] as Record<string, unknown> | undefined;
  const contents = custom?.['contents'];
  if (!custom || !Array.isArray(contents)) return undefined;
  const hasId = (c: unknown) =>
    c !== null &&
    typeof c === 'object' &&
    typeof (c as { id?: unknown }).id === 'string' &&
    (c as { id: string }).id !== '';
  const dropped = contents.flatMap((c, i) => (hasId(c) ? [] : [i]));
  if (dropped.length === 0) return undefined;
  const kept = contents.filter(hasId);
  if (kept.length > 0) custom['contents'] = kept;
  else delete custom['contents'];
  return `left out custom_data.contents[${dropped.join(', ')}] (no id: Meta refuses a content line without one); ${kept.length} of ${contents.length} lines sent`;
}

/**
 * Leaves out a `value` sent without its `currency` (a value is an amount of a currency; Meta
 * pairs them), except on a Purchase, which needs both and is refused naming the missing one.
 */
export function trimMetaValue(event: Record<string, unknown>): string | undefined {
  const custom = event['custom_data'] as Record<string, unknown> | undefined;
  if (custom?.['value'] === undefined || custom['currency'] !== undefined) return undefined;
  if (event['event_name'] === 'Purchase') return undefined;
  delete custom['value'];
  return 'left out custom_data.value (no currency)';
}
