/**
 * LinkedIn Conversions API: the built-in mapping of the catalogue's conversions, one conversion
 * event each (docs/platforms.md, LinkedIn). The mapped event's name is the conversion rule it goes
 * to: LinkedIn has no event names, so the built-in name is the catalogue's own and means "not
 * routed yet" until a destination's `mappings.<event>.event` names the rule id (an event left so
 * is skipped with that reason). Settings override it field by field.
 */
import type { FieldSource } from '../../../schemas/mapping.ts';
import type { Fields, PlatformMapping } from '../mapping-vocabulary.ts';

/**
 * `user.userIds`: the hashed e-mail and the first-party click id, each `{idType, idValue}` when
 * the event has it. LinkedIn wants the list even when it is empty (the driver adds it).
 */
const USER_IDS: FieldSource = {
  list: [
    {
      object: {
        idType: { const: 'SHA256_EMAIL' },
        idValue: { from: 'user.email', transform: ['trim', 'lowercase', 'sha256'] },
      },
      required: ['idValue'],
    },
    {
      object: {
        idType: { const: 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID' },
        // The producer's li_fat_id (URL parameter or cookie), else the one store read from the landing URL.
        idValue: { from: ['campaign.li_fat_id', 'enriched.campaign.li_fat_id'], transform: ['trim'] },
      },
      required: ['idValue'],
    },
  ],
};

const LINKEDIN_ENVELOPE: Fields = {
  conversionHappenedAt: { from: 'event_time', transform: ['unix_millis'] },
  // The Insight Tag's event id for the same conversion: LinkedIn keeps one of the two.
  eventId: 'event_id',
  'user.userIds': USER_IDS,
  // Sent in clear, as LinkedIn asks: first and last name together can match without an id.
  'user.userInfo.firstName': { from: 'user.first_name', transform: ['trim'] },
  'user.userInfo.lastName': { from: 'user.last_name', transform: ['trim'] },
  'user.userInfo.countryCode': { from: 'user.country', transform: ['country', 'uppercase'] },
};

/** `conversionValue {currencyCode, amount}`: the amount is a decimal string. */
const VALUE: Fields = {
  'conversionValue.amount': { from: 'value', transform: ['number', 'string'] },
  'conversionValue.currencyCode': { from: 'currency', transform: ['trim', 'uppercase'] },
};

const LINKEDIN: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'page_view', fields: {} },
  view_content: { event: 'view_content', fields: VALUE },
  search: { event: 'search', fields: {} },
  add_to_cart: { event: 'add_to_cart', fields: VALUE },
  begin_checkout: { event: 'begin_checkout', fields: VALUE },
  add_payment_info: { event: 'add_payment_info', fields: VALUE },
  purchase: { event: 'purchase', fields: VALUE },
  lead: { event: 'lead', fields: VALUE },
  sign_up: { event: 'sign_up', fields: {} },
  subscribe: { event: 'subscribe', fields: VALUE },
  contact: { event: 'contact', fields: {} },
};

/** The envelope every LinkedIn conversion starts from, and the catalogue's events. */
export const LINKEDIN_MAPPING: PlatformMapping = { envelope: LINKEDIN_ENVELOPE, events: LINKEDIN };
