/**
 * The Reddit Conversions API v3 event (docs/platforms.md, Reddit): its schema, and what the
 * schema cannot say — a time in milliseconds under 7 days old, a CUSTOM event with its name,
 * hashed identifiers hashed and the user agent and click ids not. Each event is checked alone
 * before it joins a request.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { Hashed, looksHashed } from '../target-common.ts';
import { REDDIT_AGE_LIMIT } from './age-limit.ts';
import { REDDIT_ACTION_SOURCES, REDDIT_TRACKING_TYPES } from './driver.ts';

/** Events per request (peers' batch size; Reddit's own page unconfirmed). */
export const REDDIT_MAX_EVENTS = 1000;
/** How old an event may be: Reddit takes events less than 7 days old. */
export const REDDIT_MAX_AGE_DAYS = REDDIT_AGE_LIMIT.hours / 24;

const Product = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1 })),
    name: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    quantity: Type.Optional(Type.Number({ minimum: 0 })),
    item_price: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);

export const RedditEvent = Type.Object(
  {
    event_at: Type.Integer({ minimum: 0, description: 'epoch milliseconds' }),
    action_source: Type.Union(REDDIT_ACTION_SOURCES.map((s) => Type.Literal(s))),
    type: Type.Object(
      {
        tracking_type: Type.Union(REDDIT_TRACKING_TYPES.map((s) => Type.Literal(s))),
        custom_event_name: Type.Optional(Type.String({ minLength: 1 })),
      },
      { additionalProperties: false },
    ),
    click_id: Type.Optional(Type.String({ minLength: 1 })),
    event_source_url: Type.Optional(Type.String()),
    metadata: Type.Optional(
      Type.Object(
        {
          conversion_id: Type.Optional(Type.String({ minLength: 1 })),
          currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
          value: Type.Optional(Type.Number()),
          item_count: Type.Optional(Type.Integer({ minimum: 0 })),
          products: Type.Optional(Type.Array(Product)),
        },
        { additionalProperties: false },
      ),
    ),
    user: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Hashed),
          phone_number: Type.Optional(Hashed),
          external_id: Type.Optional(Hashed),
          ip_address: Type.Optional(Hashed),
          user_agent: Type.Optional(Type.String()),
          uuid: Type.Optional(Type.String()),
          idfa: Type.Optional(Hashed),
          aaid: Type.Optional(Hashed),
          screen_dimensions: Type.Optional(
            Type.Object({ width: Type.Integer(), height: Type.Integer() }, { additionalProperties: false }),
          ),
          data_processing_options: Type.Optional(
            Type.Object(
              {
                modes: Type.Array(Type.Literal('LDU')),
                country: Type.Optional(Type.String()),
                region: Type.Optional(Type.String()),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RedditEvent = Static<typeof RedditEvent>;

const eventValidator = compileValidator<RedditEvent>(RedditEvent);

/** Checks one event (`prefix` names it inside a request). */
export function checkRedditEvent(event: unknown, now: Date, prefix = ''): FieldViolation[] {
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  const schema = eventValidator.violations(event, prefix);
  if (schema.length > 0) return schema;
  const e = event as RedditEvent;
  const out: FieldViolation[] = [];
  if (e.event_at < 1e11)
    out.push({ field: at('event_at'), description: 'must be epoch milliseconds, not seconds' });
  else if (e.event_at < now.getTime() - REDDIT_MAX_AGE_DAYS * 86_400_000)
    out.push({
      field: at('event_at'),
      description: `is more than ${REDDIT_MAX_AGE_DAYS} days old (Reddit refuses it)`,
    });
  if (e.type.tracking_type === 'CUSTOM' && !e.type.custom_event_name)
    out.push({ field: at('type.custom_event_name'), description: 'is required for a CUSTOM event' });
  if (e.type.tracking_type !== 'CUSTOM' && e.type.custom_event_name !== undefined)
    out.push({ field: at('type.custom_event_name'), description: 'is only for CUSTOM events' });
  for (const f of ['user_agent', 'uuid'] as const)
    if (looksHashed(e.user?.[f]))
      out.push({ field: at(`user.${f}`), description: 'must be sent as-is, not hashed' });
  if (looksHashed(e.click_id))
    out.push({ field: at('click_id'), description: 'must be sent as-is, not hashed' });
  const u = e.user ?? {};
  if (
    !e.click_id &&
    !u.email &&
    !u.phone_number &&
    !u.external_id &&
    !u.uuid &&
    !u.idfa &&
    !u.aaid &&
    !(u.ip_address && u.user_agent)
  )
    out.push({
      field: at('user'),
      description:
        'holds nothing Reddit can match: give a click id, e-mail, phone, external id, _rdt_uuid, or IP with user agent',
    });
  return out;
}

/** Checks a whole request body `{data: {events, test_id?, partner?}}`. */
export function checkRedditRequest(body: unknown, now: Date): FieldViolation[] {
  const data = (body as { data?: unknown } | null)?.data as Record<string, unknown> | undefined;
  const events = data?.['events'];
  if (!Array.isArray(events) || events.length === 0 || events.length > REDDIT_MAX_EVENTS)
    return [{ field: 'data.events', description: `must hold 1 to ${REDDIT_MAX_EVENTS} events` }];
  const extra = Object.keys(data ?? {}).filter((k) => !['events', 'test_id', 'partner'].includes(k));
  return [
    ...extra.map((k) => ({ field: `data.${k}`, description: 'is not a field Reddit knows' })),
    ...events.flatMap((e, i) => checkRedditEvent(e, now, `data.events[${i}]`)),
  ];
}

/** Leaves out a value without its currency, and says so. */
export function trimRedditEvent(event: Record<string, unknown>): string | undefined {
  const m = event['metadata'] as Record<string, unknown> | undefined;
  if (m === undefined || m['value'] === undefined || m['currency'] !== undefined) return undefined;
  delete m['value'];
  return 'left out metadata.value (no currency)';
}
