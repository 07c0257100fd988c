/**
 * Google Ads (Data Manager API `events:ingest`): the built-in mapping of the catalogue's
 * conversions, one `Event` each (docs/platforms.md §6). The mapped event's name is
 * the conversion action it goes to: Google Ads has no event names, so the built-in name is the
 * catalogue's own and means "not routed yet" until a destination's `mappings.<event>.event`
 * names the conversion action id (an event left so is skipped with that reason). Page views,
 * content views and searches are mapped too: an advertiser may count a key page as a conversion.
 * Settings override it field by field (`mappings` on a destination).
 */
import type { FieldSource } from '../../../schemas/mapping.ts';
import { type Fields, num, type PlatformMapping } from '../mapping-vocabulary.ts';

const hashed = (
  from: string,
  ...normalise: NonNullable<Extract<FieldSource, { from: unknown }>['transform']>
) => ({
  from,
  transform: [...normalise, 'sha256' as const],
});

/**
 * Each identifier its own `UserIdentifier` (exactly one of emailAddress, phoneNumber, address);
 * an address only with all four of its parts, which Google requires together.
 */
const USER_IDENTIFIERS: FieldSource = {
  list: [
    { object: { emailAddress: hashed('user.email', 'google_ads_email') } },
    { object: { phoneNumber: hashed('user.phone', { phone: 'e164' }) } },
    {
      object: {
        address: {
          object: {
            givenName: hashed('user.first_name', 'google_ads_name'),
            familyName: hashed('user.last_name', 'google_ads_name'),
            // Region and postal code travel in clear (Google's formatting rules).
            regionCode: { from: 'user.country', transform: ['country', 'uppercase'] },
            postalCode: { from: 'user.postal_code', transform: ['trim'] },
          },
          required: ['givenName', 'familyName', 'regionCode', 'postalCode'],
        },
      },
      required: ['address'],
    },
  ],
};

const GOOGLE_ADS_ENVELOPE: Fields = {
  transactionId: 'event_id',
  eventTimestamp: 'event_time',
  'adIdentifiers.gclid': 'campaign.gclid',
  'adIdentifiers.gbraid': 'campaign.gbraid',
  'adIdentifiers.wbraid': 'campaign.wbraid',
  // As received: Google matches user agent and IP in clear.
  'adIdentifiers.landingPageDeviceInfo.userAgent': 'device.user_agent',
  'adIdentifiers.landingPageDeviceInfo.ipAddress': 'device.ip',
  'eventDeviceInfo.userAgent': 'device.user_agent',
  'eventDeviceInfo.ipAddress': 'device.ip',
  'userData.userIdentifiers': USER_IDENTIFIERS,
};

const VALUE: Fields = {
  conversionValue: num('value'),
  currency: { from: 'currency', transform: ['trim', 'uppercase'] },
};

const CART: Fields = {
  ...VALUE,
  'cartData.items': {
    each: 'items',
    fields: {
      merchantProductId: { from: '$.item_id', transform: ['string'] },
      // int64 in the proto: a string in its JSON form.
      quantity: { from: '$.quantity', transform: ['number', 'string'] },
      unitPrice: num('$.price'),
    },
  },
};

const GOOGLE_ADS: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'page_view', fields: {} },
  view_content: { event: 'view_content', fields: VALUE },
  search: { event: 'search', fields: {} },
  add_to_cart: { event: 'add_to_cart', fields: CART },
  begin_checkout: { event: 'begin_checkout', fields: CART },
  add_payment_info: { event: 'add_payment_info', fields: CART },
  // The order id is the key Google de-duplicates by, against the tag's transaction id.
  purchase: {
    event: 'purchase',
    fields: { ...CART, transactionId: { from: ['transaction_id', 'event_id'] } },
  },
  lead: { event: 'lead', fields: VALUE },
  sign_up: { event: 'sign_up', fields: {} },
  subscribe: { event: 'subscribe', fields: VALUE },
  contact: { event: 'contact', fields: {} },
};

/** The envelope every Google Ads event starts from, and the catalogue's conversions. */
export const GOOGLE_ADS_MAPPING: PlatformMapping = { envelope: GOOGLE_ADS_ENVELOPE, events: GOOGLE_ADS };
