/**
 * Microsoft Advertising UET Conversions API: the built-in mapping of every catalogue event, one
 * element of `data` each (docs/platforms.md, Microsoft). A page view is UET's `pageLoad`; every
 * other event is `custom` with UET's recommended event name, which conversion goals match.
 * Settings override it field by field (`mappings` on a destination).
 */
import { type Fields, num, type PlatformMapping } from '../mapping-vocabulary.ts';

const MICROSOFT_ENVELOPE: Fields = {
  // The UET tag's event id for the same event: Microsoft keeps one of the two.
  eventId: 'event_id',
  eventTime: { from: 'event_time', transform: ['unix_seconds'] },
  eventSourceUrl: 'page.url',
  referrerUrl: 'page.referrer',
  pageTitle: 'page.title',
  'userData.em': { from: 'user.email', transform: ['trim', 'lowercase', 'sha256'] },
  'userData.ph': { from: 'user.phone', transform: [{ phone: 'e164' }, 'sha256'] },
  // Matched as sent: never hashed.
  'userData.clientIpAddress': 'device.ip',
  'userData.clientUserAgent': 'device.user_agent',
  // The producer's msclkid (URL parameter or _uetmsclkid cookie), else the landing URL's.
  'userData.msclkid': { from: ['campaign.msclkid', 'enriched.campaign.msclkid'], transform: ['trim'] },
  'userData.externalId': { from: ['user.external_id', 'user_id'], transform: ['trim'] },
  'userData.anonymousId': 'anonymous_id',
};

const VALUE: Fields = {
  'customData.eventValue': num('value'),
  'customData.currency': { from: 'currency', transform: ['trim', 'uppercase'] },
};

const ITEMS: Fields = {
  ...VALUE,
  'customData.itemIds': { each: 'items', value: { from: '$.item_id', transform: ['string'] } },
  'customData.items': {
    each: 'items',
    fields: {
      id: { from: '$.item_id', transform: ['string'] },
      name: '$.item_name',
      price: num('$.price'),
      quantity: { from: '$.quantity', transform: ['number'], default: 1 },
    },
  },
};

const MICROSOFT: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'pageLoad', fields: {} },
  view_content: {
    event: 'view_item',
    fields: {
      ...VALUE,
      'customData.itemIds': { list: ['content_id'] },
      'customData.pageType': { const: 'product' },
    },
  },
  search: { event: 'search', fields: { 'customData.searchTerm': 'search_term' } },
  add_to_cart: { event: 'add_to_cart', fields: { ...ITEMS, 'customData.pageType': { const: 'cart' } } },
  begin_checkout: { event: 'begin_checkout', fields: { ...ITEMS, 'customData.pageType': { const: 'cart' } } },
  add_payment_info: { event: 'add_payment_info', fields: ITEMS },
  purchase: {
    event: 'purchase',
    fields: {
      ...ITEMS,
      'customData.transactionId': { from: ['transaction_id', 'event_id'] },
      'customData.ecommTotalValue': num('value'),
      'customData.pageType': { const: 'purchase' },
    },
  },
  lead: { event: 'generate_lead', fields: { ...VALUE, 'customData.eventCategory': 'lead_type' } },
  sign_up: { event: 'sign_up', fields: {} },
  subscribe: { event: 'subscribe', fields: { ...VALUE, 'customData.eventLabel': 'plan' } },
  contact: { event: 'contact', fields: {} },
};

/** The envelope every UET event starts from, and the catalogue's events. */
export const MICROSOFT_MAPPING: PlatformMapping = { envelope: MICROSOFT_ENVELOPE, events: MICROSOFT };
