/**
 * The Data Manager API's `events:ingest` request for Google Ads (docs/platforms.md, "Google
 * Ads"): the schema of one `Event` and of the request, and the rules the schema cannot say
 * (one identifier per `UserIdentifier`, an address only whole, something Google can match by).
 * Data Manager is fast-fail — one invalid field refuses the whole request — so each event is
 * checked alone before it joins one, and a refused event is its own `rejected` row.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { Hashed } from '../target-common.ts';

/** Events per request, destinations per request, identifiers per event (Data Manager limits). */
export const GOOGLE_ADS_MAX_EVENTS = 2000;
export const GOOGLE_ADS_MAX_DESTINATIONS = 10;
export const GOOGLE_ADS_MAX_IDENTIFIERS = 10;

/** A conversion action id, and a Google Ads account id (10 digits, no hyphens). */
export const CONVERSION_ACTION_ID = /^[0-9]{1,20}$/;
export const ACCOUNT_ID = /^[0-9]{10}$/;

/** RFC 3339 with a zone (`2026-10-01T12:00:00Z`, `…+02:00`), what protobuf's Timestamp JSON takes. */
const RFC3339 = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$';

export const EVENT_SOURCES: readonly string[] = Object.freeze(['WEB', 'APP', 'IN_STORE', 'PHONE', 'OTHER']);
const ConsentStatus = Type.Union(
  ['CONSENT_GRANTED', 'CONSENT_DENIED', 'CONSENT_STATUS_UNSPECIFIED'].map((s) => Type.Literal(s)),
);
const Consent = Type.Object(
  { adUserData: Type.Optional(ConsentStatus), adPersonalization: Type.Optional(ConsentStatus) },
  { additionalProperties: false },
);
const DeviceInfo = Type.Object(
  { userAgent: Type.Optional(Type.String()), ipAddress: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

/** All four parts are required by Google; names hashed, region and postal code in clear. */
const Address = Type.Object(
  {
    givenName: Hashed,
    familyName: Hashed,
    regionCode: Type.String({ pattern: '^[A-Z]{2}$' }),
    postalCode: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
const UserIdentifier = Type.Object(
  {
    emailAddress: Type.Optional(Hashed),
    phoneNumber: Type.Optional(Hashed),
    address: Type.Optional(Address),
  },
  { additionalProperties: false },
);

export const GoogleAdsEvent = Type.Object(
  {
    // Which destination of the request (by `reference`, the conversion action id) gets the event.
    destinationReferences: Type.Array(Type.String({ pattern: CONVERSION_ACTION_ID.source }), {
      minItems: 1,
      maxItems: 1,
    }),
    transactionId: Type.String({ minLength: 1 }),
    eventTimestamp: Type.String({ pattern: RFC3339 }),
    lastUpdatedTimestamp: Type.Optional(Type.String({ pattern: RFC3339 })),
    conversionValue: Type.Optional(Type.Number({ minimum: 0 })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    eventSource: Type.Optional(Type.Union(EVENT_SOURCES.map((s) => Type.Literal(s)))),
    adIdentifiers: Type.Optional(
      Type.Object(
        {
          gclid: Type.Optional(Type.String({ minLength: 1 })),
          gbraid: Type.Optional(Type.String({ minLength: 1 })),
          wbraid: Type.Optional(Type.String({ minLength: 1 })),
          sessionAttributes: Type.Optional(Type.String({ minLength: 1 })),
          landingPageDeviceInfo: Type.Optional(DeviceInfo),
        },
        { additionalProperties: false },
      ),
    ),
    eventDeviceInfo: Type.Optional(DeviceInfo),
    userData: Type.Optional(
      Type.Object(
        {
          userIdentifiers: Type.Array(UserIdentifier, { minItems: 1, maxItems: GOOGLE_ADS_MAX_IDENTIFIERS }),
        },
        { additionalProperties: false },
      ),
    ),
    consent: Type.Optional(Consent),
    cartData: Type.Optional(
      Type.Object(
        {
          merchantId: Type.Optional(Type.String()),
          merchantFeedLabel: Type.Optional(Type.String()),
          merchantFeedLanguageCode: Type.Optional(Type.String()),
          transactionDiscount: Type.Optional(Type.Number()),
          items: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  merchantProductId: Type.Optional(Type.String({ minLength: 1 })),
                  quantity: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
                  unitPrice: Type.Optional(Type.Number()),
                },
                { additionalProperties: false },
              ),
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    customVariables: Type.Optional(
      Type.Array(
        Type.Object(
          { variable: Type.String({ minLength: 1 }), value: Type.String() },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  // An unknown field is almost always a mapping typo, and Google refuses the request for it.
  { additionalProperties: false },
);
export type GoogleAdsEvent = Static<typeof GoogleAdsEvent>;

const eventValidator = compileValidator<GoogleAdsEvent>(GoogleAdsEvent);

/** The hashed identifier fields, whose union errors are collapsed into one message each. */
const HASHED_PATH =
  /^(.*userIdentifiers\[\d+\]\.(?:emailAddress|phoneNumber|address\.givenName|address\.familyName))$/;

/**
 * Checks one event as it would go in `events[]`: the schema, then what it cannot say — each
 * `UserIdentifier` holds exactly one identifier, and the event carries something Google Ads can
 * match a conversion by (a click id, session attributes or user data). `prefix` names its
 * place (`events[3]`).
 */
export function checkGoogleAdsEvent(event: unknown, prefix = ''): FieldViolation[] {
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  const schema = eventValidator
    .violations(event, prefix)
    .map((v) =>
      HASHED_PATH.test(v.field)
        ? { field: v.field, description: 'must be SHA-256 lowercase hex (normalise, then hash)' }
        : v,
    );
  if (schema.length > 0) return dedupe(schema);
  const e = event as GoogleAdsEvent;
  const out: FieldViolation[] = [];
  e.userData?.userIdentifiers.forEach((id, i) => {
    const count = Object.keys(id).length;
    if (count !== 1)
      out.push({
        field: at(`userData.userIdentifiers[${i}]`),
        description: `must hold exactly one of emailAddress, phoneNumber, address (holds ${count})`,
      });
  });
  const ids = e.adIdentifiers ?? {};
  if (
    ids.gclid === undefined &&
    ids.gbraid === undefined &&
    ids.wbraid === undefined &&
    ids.sessionAttributes === undefined &&
    e.userData === undefined
  )
    out.push({
      field: at('adIdentifiers'),
      description:
        'holds no click id (gclid, gbraid, wbraid) or session attributes and the event has no userData: Google Ads has nothing to match the conversion by',
    });
  return out;
}

function dedupe(violations: readonly FieldViolation[]): FieldViolation[] {
  const seen = new Set<string>();
  return violations.filter((v) => {
    const key = `${v.field} ${v.description}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Leaves out what Google Ads would refuse but the conversion can do without, and says what:
 * a click carries one click id, so with a gclid the iOS ones (gbraid, wbraid) are left out, and
 * with both of those the wbraid (Google Ads takes one of gclid, gbraid, wbraid per conversion).
 */
export function trimGoogleAdsEvent(event: Record<string, unknown>): string | undefined {
  const ids = event['adIdentifiers'] as Record<string, unknown> | undefined;
  if (ids === undefined) return undefined;
  const present = ['gclid', 'gbraid', 'wbraid'].filter((k) => ids[k] !== undefined);
  if (present.length <= 1) return undefined;
  const [kept, ...dropped] = present;
  for (const k of dropped) delete ids[k];
  return `left out adIdentifiers.${dropped.join(', adIdentifiers.')} (Google Ads takes one click id per conversion; ${kept} kept)`;
}

const ProductAccount = Type.Object(
  {
    accountType: Type.Literal('GOOGLE_ADS'),
    accountId: Type.String({ pattern: ACCOUNT_ID.source, description: '10 digits, no hyphens' }),
  },
  { additionalProperties: false },
);

export const GoogleAdsRequest = Type.Object(
  {
    destinations: Type.Array(
      Type.Object(
        {
          operatingAccount: ProductAccount,
          loginAccount: Type.Optional(ProductAccount),
          productDestinationId: Type.String({ pattern: CONVERSION_ACTION_ID.source }),
          reference: Type.Optional(Type.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: GOOGLE_ADS_MAX_DESTINATIONS },
    ),
    events: Type.Array(Type.Unknown(), { minItems: 1, maxItems: GOOGLE_ADS_MAX_EVENTS }),
    encoding: Type.Optional(Type.Union([Type.Literal('HEX'), Type.Literal('BASE64')])),
    validateOnly: Type.Optional(Type.Boolean()),
    consent: Type.Optional(Consent),
  },
  { additionalProperties: false },
);
export type GoogleAdsRequest = Static<typeof GoogleAdsRequest>;

const requestValidator = compileValidator<GoogleAdsRequest>(GoogleAdsRequest);

/**
 * Checks a whole `events:ingest` body: the request's own fields, then each event as
 * `checkGoogleAdsEvent` does, that each event names a destination of the request, and that an
 * encoding is given when any event carries user data (Google requires it then).
 */
export function checkGoogleAdsRequest(body: unknown): FieldViolation[] {
  const schema = requestValidator.violations(body);
  if (schema.length > 0) return schema;
  const r = body as GoogleAdsRequest;
  const out: FieldViolation[] = [];
  const references = new Set(r.destinations.map((d) => d.reference));
  r.events.forEach((e, i) => {
    const problems = checkGoogleAdsEvent(e, `events[${i}]`);
    out.push(...problems);
    if (problems.length > 0) return;
    const event = e as GoogleAdsEvent;
    for (const ref of event.destinationReferences)
      if (!references.has(ref))
        out.push({
          field: `events[${i}].destinationReferences`,
          description: `names ${ref}, no destination's reference`,
        });
    if (event.userData !== undefined && r.encoding === undefined)
      out.push({ field: 'encoding', description: 'is required when events carry userData' });
  });
  return out;
}
