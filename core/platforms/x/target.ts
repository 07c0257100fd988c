/**
 * X Conversions API request (docs/platforms.md, "X"): the schema of
 * `POST /12/measurement/conversions/{pixel_id}` — an event id, an ISO 8601 time and at least one
 * identifier per conversion, each identifier exactly one of twclid, hashed e-mail, hashed phone, or
 * IP address with user agent, and never the IP address with the user agent alone.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { Hashed, looksHashed } from '../target-common.ts';

export const X_MAX_EVENTS = 500;
/** An X event id: base-36, alone or as `tw-<pixel>-<event>`. */
export const X_EVENT_ID = /^(tw-[0-9a-z]+-)?[0-9a-z]+$/;

const Identifier = Type.Union([
  Type.Object({ twclid: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ hashed_email: Hashed }, { additionalProperties: false }),
  Type.Object({ hashed_phone_number: Hashed }, { additionalProperties: false }),
  Type.Object(
    { ip_address: Type.String({ minLength: 1 }), user_agent: Type.String({ minLength: 1 }) },
    { additionalProperties: false },
  ),
]);

export const XConversion = Type.Object(
  {
    event_id: Type.String({ pattern: X_EVENT_ID.source }),
    conversion_time: Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
      description: 'ISO 8601',
    }),
    identifiers: Type.Array(Identifier, { minItems: 1 }),
    conversion_id: Type.Optional(Type.String({ minLength: 1 })),
    value: Type.Optional(Type.Number()),
    price_currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    number_items: Type.Optional(Type.Integer({ minimum: 1 })),
    description: Type.Optional(Type.String()),
    contents: Type.Optional(
      Type.Array(
        Type.Object(
          {
            content_id: Type.Optional(Type.String()),
            content_name: Type.Optional(Type.String()),
            content_price: Type.Optional(Type.Number()),
            content_type: Type.Optional(Type.String()),
            num_items: Type.Optional(Type.Integer({ minimum: 1 })),
            content_group_id: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);
export type XConversion = Static<typeof XConversion>;

const validator = compileValidator<XConversion>(XConversion);

/** Checks one conversion: schema (which says when nothing matches the person), then the twclid in clear. */
export function checkXConversion(conversion: unknown): FieldViolation[] {
  const schema = validator.violations(conversion);
  const identifiers = (conversion as { identifiers?: unknown } | null)?.identifiers;
  if (identifiers === undefined)
    return [
      ...schema.filter((v) => v.field !== 'identifiers'),
      {
        field: 'identifiers',
        description: 'is empty: X needs a twclid, an e-mail, a phone, or the IP address with the user agent',
      },
    ];
  if (schema.length > 0) return schema;
  const c = conversion as XConversion;
  const unhashed = c.identifiers.flatMap((id, i) =>
    'twclid' in id && looksHashed(id.twclid)
      ? [{ field: `identifiers[${i}].twclid`, description: 'must be sent as-is, not hashed' }]
      : [],
  );
  return [...secondIdentifierViolations(c.identifiers), ...unhashed];
}

/**
 * X's rule for the identifiers: "At least one of the identifier objects is required. If using IP
 * address or user agent, a second identifier must be sent for proper conversion matching" (X Ads
 * API reference, POST /12/measurement/conversions/:pixel_id, developer.x.com/en/docs/x-ads-api/
 * measurement/web-conversions/api-reference/conversions). So the IP address with the user agent
 * alone match nobody: such a conversion is refused before sending.
 */
function secondIdentifierViolations(identifiers: XConversion['identifiers']): FieldViolation[] {
  if (identifiers.some((id) => !('ip_address' in id))) return [];
  return [
    {
      field: 'identifiers',
      description:
        'holds only the IP address and user agent: X needs a second identifier with them (a twclid, an e-mail or a phone) to match the conversion',
    },
  ];
}
