/**
 * The UET Conversions API event (docs/platforms.md, Microsoft): its schema, and what the schema
 * cannot say — a custom event has a name, a time in seconds, something Microsoft can match by.
 * Each event is checked alone before it joins a request.
 */
import Type, { type Static } from 'typebox';
import { compileValidator, type FieldViolation } from '../../validation.ts';
import { checkDataRequest, Hashed, looksHashed } from '../target-common.ts';

/** Events per request (the batch size partners document; Microsoft's own page unconfirmed). */
export const MICROSOFT_MAX_EVENTS = 1000;

const Item = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1 })),
    name: Type.Optional(Type.String()),
    price: Type.Optional(Type.Number()),
    quantity: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const MicrosoftEvent = Type.Object(
  {
    eventType: Type.Union([Type.Literal('pageLoad'), Type.Literal('custom')]),
    eventId: Type.Optional(Type.String({ minLength: 1 })),
    eventName: Type.Optional(Type.String({ minLength: 1 })),
    eventTime: Type.Integer({ minimum: 0, description: 'unix seconds' }),
    eventSourceUrl: Type.Optional(Type.String()),
    pageLoadId: Type.Optional(Type.String()),
    referrerUrl: Type.Optional(Type.String()),
    pageTitle: Type.Optional(Type.String()),
    keywords: Type.Optional(Type.String()),
    adStorageConsent: Type.Optional(Type.Union([Type.Literal('G'), Type.Literal('D')])),
    userData: Type.Object(
      {
        em: Type.Optional(Hashed),
        ph: Type.Optional(Hashed),
        clientIpAddress: Type.Optional(Type.String()),
        clientUserAgent: Type.Optional(Type.String()),
        msclkid: Type.Optional(Type.String({ minLength: 1 })),
        anonymousId: Type.Optional(Type.String()),
        externalId: Type.Optional(Type.String()),
        idfa: Type.Optional(Type.String()),
        gaid: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    customData: Type.Optional(
      Type.Object(
        {
          eventCategory: Type.Optional(Type.String()),
          eventLabel: Type.Optional(Type.String()),
          eventValue: Type.Optional(Type.Number()),
          searchTerm: Type.Optional(Type.String()),
          transactionId: Type.Optional(Type.String()),
          currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
          itemIds: Type.Optional(Type.Array(Type.String())),
          pageType: Type.Optional(Type.String()),
          ecommTotalValue: Type.Optional(Type.Number()),
          ecommCategory: Type.Optional(Type.String()),
          items: Type.Optional(Type.Array(Item)),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type MicrosoftEvent = Static<typeof MicrosoftEvent>;

export const MicrosoftRequest = Type.Object(
  {
    data: Type.Array(MicrosoftEvent, { minItems: 1, maxItems: MICROSOFT_MAX_EVENTS }),
    continueOnValidationError: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const eventValidator = compileValidator<MicrosoftEvent>(MicrosoftEvent);
const requestValidator = compileValidator(MicrosoftRequest);

/** Checks one `data` element. */
export function checkMicrosoftEvent(event: unknown, prefix = ''): FieldViolation[] {
  const at = (f: string) => (prefix === '' ? f : `${prefix}.${f}`);
  const schema = eventValidator.violations(event, prefix);
  if (schema.length > 0) return schema;
  const e = event as MicrosoftEvent;
  const out: FieldViolation[] = [];
  if (e.eventType === 'custom' && e.eventName === undefined)
    out.push({ field: at('eventName'), description: 'is required for a custom event' });
  if (e.eventTime > 1e11)
    out.push({ field: at('eventTime'), description: 'must be unix seconds, not milliseconds' });
  for (const f of ['clientIpAddress', 'clientUserAgent', 'msclkid'] as const)
    if (looksHashed(e.userData[f]))
      out.push({ field: at(`userData.${f}`), description: 'must be sent as-is, not hashed' });
  const u = e.userData;
  if (!u.em && !u.ph && !u.msclkid && !u.anonymousId && !u.externalId && !u.clientIpAddress)
    out.push({
      field: at('userData'),
      description:
        'holds nothing Microsoft can match: give an e-mail, phone, msclkid, anonymous or external id, or an IP',
    });
  return out;
}

/** Checks a whole request body. */
export function checkMicrosoftRequest(body: unknown): FieldViolation[] {
  return checkDataRequest(body, MICROSOFT_MAX_EVENTS, requestValidator, checkMicrosoftEvent);
}

/** Leaves out a value without its currency, and says so. */
export function trimMicrosoftEvent(event: Record<string, unknown>): string | undefined {
  const c = event['customData'] as Record<string, unknown> | undefined;
  if (c === undefined || c['currency'] !== undefined) return undefined;
  const dropped = ['eventValue', 'ecommTotalValue'].filter((k) => c[k] !== undefined);
  for (const k of dropped) delete c[k];
  return dropped.length > 0
    ? `left out customData.${dropped.join(', customData.')} (no currency)`
    : undefined;
}
