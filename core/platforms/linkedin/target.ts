/**
 * The LinkedIn conversion event (docs/platforms.md, LinkedIn): its schema, and the rules the
 * schema cannot say — a time in milliseconds no older than 90 days, something LinkedIn can
 * match the member by (a user id, or first and last name together), a value with its currency.
 * Each event is checked alone before it joins a request, so a refused one is its own `rejected` row.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { HASH_PATTERN, looksHashed } from '../target-common.ts';
import { LINKEDIN_AGE_LIMIT } from './age-limit.ts';
import { CONVERSION_URN_PREFIX } from './driver.ts';

/** Events per BATCH_CREATE request (LinkedIn's documented batch size). */
export const LINKEDIN_MAX_EVENTS = 5000;
/** How old a conversion may be: LinkedIn refuses events older than 90 days. */
export const LINKEDIN_MAX_AGE_DAYS = LINKEDIN_AGE_LIMIT.hours / 24;
/** A conversion rule id (what a destination's mapping names for each event). */
export const CONVERSION_RULE_ID = /^[0-9]{1,20}$/;
/** The user id types LinkedIn documents. */
export const LINKEDIN_ID_TYPES: readonly string[] = Object.freeze([
  'SHA256_EMAIL',
  'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID',
  'ACXIOM_ID',
  'ORACLE_MOAT_ID',
]);

const UserId = Type.Object(
  {
    idType: Type.Union(LINKEDIN_ID_TYPES.map((t) => Type.Literal(t))),
    idValue: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

export const LinkedInEvent = Type.Object(
  {
    conversion: Type.String({ pattern: `^${CONVERSION_URN_PREFIX}[0-9]{1,20}$` }),
    conversionHappenedAt: Type.Integer({ minimum: 0, description: 'epoch milliseconds' }),
    conversionValue: Type.Optional(
      Type.Object(
        {
          currencyCode: Type.String({ pattern: '^[A-Z]{3}$' }),
          amount: Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$' }),
        },
        { additionalProperties: false },
      ),
    ),
    eventId: Type.Optional(Type.String({ minLength: 1 })),
    user: Type.Object(
      {
        userIds: Type.Array(UserId),
        userInfo: Type.Optional(
          Type.Object(
            {
              firstName: Type.Optional(Type.String({ minLength: 1 })),
              lastName: Type.Optional(Type.String({ minLength: 1 })),
              companyName: Type.Optional(Type.String({ minLength: 1 })),
              title: Type.Optional(Type.String({ minLength: 1 })),
              countryCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type LinkedInEvent = Static<typeof LinkedInEvent>;

const SHA256_HEX = new RegExp(HASH_PATTERN);
const eventValidator = compileValidator<LinkedInEvent>(LinkedInEvent);

/** Checks one conversion event (`prefix` names it inside a batch). */
export function checkLinkedInEvent(event: unknown, now: Date, prefix = ''): FieldViolation[] {
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  const schema = eventValidator.violations(event, prefix);
  if (schema.length > 0) return schema;
  const e = event as LinkedInEvent;
  const out: FieldViolation[] = [];
  const t = e.conversionHappenedAt;
  // Seconds where milliseconds are wanted land in 1970: among the 422s LinkedIn's page names.
  if (t < 1e11)
    out.push({ field: at('conversionHappenedAt'), description: 'must be epoch milliseconds, not seconds' });
  else if (t < now.getTime() - LINKEDIN_MAX_AGE_DAYS * 86_400_000)
    out.push({
      field: at('conversionHappenedAt'),
      description: `is more than ${LINKEDIN_MAX_AGE_DAYS} days old (LinkedIn refuses it)`,
    });
  for (const [i, id] of e.user.userIds.entries()) {
    if (id.idType === 'SHA256_EMAIL' && !SHA256_HEX.test(id.idValue))
      out.push({
        field: at(`user.userIds[${i}].idValue`),
        description: 'must be SHA-256 lowercase hex of the e-mail',
      });
    if (id.idType !== 'SHA256_EMAIL' && looksHashed(id.idValue))
      out.push({ field: at(`user.userIds[${i}].idValue`), description: 'must be sent as-is, not hashed' });
  }
  const info = e.user.userInfo;
  if (e.user.userIds.length === 0 && !(info?.firstName && info.lastName))
    out.push({
      field: at('user'),
      description:
        'holds nothing LinkedIn can match: give a user id (e-mail, li_fat_id) or first and last name',
    });
  return out;
}

/** Checks a whole body: one event, or `{elements}` of a BATCH_CREATE. */
export function checkLinkedInRequest(body: unknown, now: Date, batch: boolean): FieldViolation[] {
  if (!batch) return checkLinkedInEvent(body, now);
  const elements = (body as { elements?: unknown } | null)?.elements;
  if (!Array.isArray(elements) || elements.length === 0 || elements.length > LINKEDIN_MAX_EVENTS)
    return [{ field: 'elements', description: `must hold 1 to ${LINKEDIN_MAX_EVENTS} conversion events` }];
  return elements.flatMap((e, i) => checkLinkedInEvent(e, now, `elements[${i}]`));
}

/** Leaves out a value without its currency (LinkedIn needs both), and says so. */
export function trimLinkedInEvent(event: Record<string, unknown>): string | undefined {
  const value = event['conversionValue'] as Record<string, unknown> | undefined;
  if (value === undefined) return undefined;
  if (value['amount'] !== undefined && value['currencyCode'] !== undefined) return undefined;
  delete event['conversionValue'];
  return 'left out conversionValue (LinkedIn needs the amount and its currency together)';
}
