/**
 * TikTok Events API 2.0 request (docs/platforms.md §3): `POST /open_api/v1.3/event/track/`.
 * One bad row fails the whole batch, so every row is checked before anything is sent.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { checkDataRequest, collapseHashed, HashedOrList, looksHashed } from '../target-common.ts';

export const TIKTOK_MAX_EVENTS = 1000;

/**
 * One line of `properties.contents`. TikTok's parameters page says each content's `content_id`
 * (the product's SKU or item group id, as in the catalogue) is required for Video Shopping Ads
 * and ROAS reporting (ads.tiktok.com/help/article/about-parameters), not for the event: a line
 * without one is left out before the check (trimTikTokEvent), the rest of the event sent, so the
 * check only ever sees lines with an id.
 */
export const TikTokContent = Type.Object(
  {
    content_id: Type.String({ minLength: 1 }),
    content_type: Type.Optional(Type.Union([Type.Literal('product'), Type.Literal('product_group')])),
    content_name: Type.Optional(Type.String()),
    content_category: Type.Optional(Type.String()),
    price: Type.Optional(Type.Number()),
    quantity: Type.Optional(Type.Integer({ minimum: 0 })),
    brand: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const TikTokEvent = Type.Object(
  {
    event: Type.String({ minLength: 1 }),
    event_time: Type.Integer({ minimum: 0, description: 'unix seconds' }),
    event_id: Type.Optional(Type.String({ minLength: 1 })),
    limited_data_use: Type.Optional(Type.Boolean()),
    user: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(HashedOrList),
          phone: Type.Optional(HashedOrList),
          external_id: Type.Optional(HashedOrList),
          first_name: Type.Optional(HashedOrList),
          last_name: Type.Optional(HashedOrList),
          city: Type.Optional(Type.String()),
          state: Type.Optional(Type.String()),
          country: Type.Optional(Type.String()),
          zip_code: Type.Optional(HashedOrList),
          ttclid: Type.Optional(Type.String()),
          ttp: Type.Optional(Type.String()),
          ip: Type.Optional(Type.String()),
          user_agent: Type.Optional(Type.String()),
          locale: Type.Optional(Type.String()),
          idfa: Type.Optional(Type.String()),
          gaid: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    page: Type.Optional(
      Type.Object(
        { url: Type.Optional(Type.String()), referrer: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
    ),
    properties: Type.Optional(
      Type.Object(
        {
          contents: Type.Optional(Type.Array(TikTokContent)),
          content_ids: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
          num_items: Type.Optional(Type.Integer({ minimum: 0 })),
          content_type: Type.Optional(Type.Union([Type.Literal('product'), Type.Literal('product_group')])),
          currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
          value: Type.Optional(Type.Number()),
          query: Type.Optional(Type.String()),
          order_id: Type.Optional(Type.String()),
          description: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: false },
);
export type TikTokEvent = Static<typeof TikTokEvent>;

export const TikTokRequest = Type.Object(
  {
    event_source: Type.Union([
      Type.Literal('web'),
      Type.Literal('app'),
      Type.Literal('offline'),
      Type.Literal('crm'),
    ]),
    event_source_id: Type.String({ minLength: 1 }),
    test_event_code: Type.Optional(Type.String({ minLength: 1 })),
    partner_name: Type.Optional(Type.String()),
    data: Type.Array(TikTokEvent, { minItems: 1, maxItems: TIKTOK_MAX_EVENTS }),
  },
  { additionalProperties: false },
);
export type TikTokRequest = Static<typeof TikTokRequest>;

const requestValidator = compileValidator<TikTokRequest>(TikTokRequest);
const eventValidator = compileValidator<TikTokEvent>(TikTokEvent);

/** Checks one `data` row: schema (hashed email/phone/external_id), ip/user_agent not hashed. */
export function checkTikTokEvent(event: unknown, prefix = ''): FieldViolation[] {
  const schema = eventValidator.violations(event, prefix);
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  if (schema.length > 0)
    return collapseHashed(
      schema,
      ['email', 'phone', 'external_id', 'first_name', 'last_name', 'zip_code'].map((f) => at(`user.${f}`)),
    );
  const e = event as TikTokEvent;
  const out: FieldViolation[] = [];
  for (const f of ['ip', 'user_agent', 'ttclid', 'ttp'] as const) {
    if (looksHashed(e.user?.[f]))
      out.push({ field: at(`user.${f}`), description: 'must be sent as-is, not hashed' });
  }
  return out;
}

/** Checks a whole request body. */
export function checkTikTokRequest(body: unknown): FieldViolation[] {
  return checkDataRequest(body, TIKTOK_MAX_EVENTS, requestValidator, checkTikTokEvent);
}

/**
 * Leaves out, in place, what TikTok would misread or cannot use but the event can do without, and
 * says what: a `value` without its `currency`, and `contents` lines without a `content_id` (a gift
 * card, a fee: TikTok needs the id for its catalogue ads and ROAS, not for the event), with
 * `content_ids` kept in step.
 */
export function trimTikTokEvent(row: Record<string, unknown>): string | undefined {
  const props = row['properties'] as Record<string, unknown> | undefined;
  if (!props) return undefined;
  const notes: string[] = [];
  if (props['value'] !== undefined && props['currency'] === undefined) {
    delete props['value'];
    notes.push('left out properties.value (no currency)');
  }
  const contents = props['contents'];
  if (Array.isArray(contents)) {
    const id = (c: unknown) => (c as { content_id?: unknown } | null)?.content_id;
    const hasId = (c: unknown) => typeof id(c) === 'string' && id(c) !== '';
    const dropped = contents.flatMap((c, i) => (hasId(c) ? [] : [i]));
    if (dropped.length > 0) {
      const kept = contents.filter(hasId);
      if (kept.length > 0) props['contents'] = kept;
      else delete props['contents'];
      if (Array.isArray(props['content_ids'])) {
        const ids = kept.map(id);
        if (ids.length > 0) props['content_ids'] = ids;
        else delete props['content_ids'];
      }
      notes.push(
        `left out properties.contents[${dropped.join(', ')}] (no content_id); ${kept.length} of ${contents.length} lines sent`,
      );
    }
  }
  return notes.length > 0 ? notes.join('; ') : undefined;
}
