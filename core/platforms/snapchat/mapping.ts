/**
 * Snapchat Conversions API (v3): the built-in mapping of the catalogue's events, one element of
 * `data` each (docs/platforms.md, "Snapchat"). Snap wants the phone as digits with the country code and
 * no `+` (`+44 844 412 4653` → `448444124653`), every other personal field trimmed and
 * lower-cased before SHA-256; the IP address, user agent, `ScCid` click id and `_scid` cookie
 * travel in clear. Snap names no lead or contact event: they go to custom slots 1 and 2, which
 * the advertiser names in Snap's Events Manager. Settings override it field by field.
 */
import {
  type Fields,
  hashedList,
  hashedPersonFields,
  itemIdsAndCount,
  num,
  type PlatformMapping,
} from '../mapping-vocabulary.ts';

const SNAPCHAT_ENVELOPE: Fields = {
  event_time: { from: 'event_time', transform: ['unix_seconds'] },
  // The key Snap de-duplicates by against the Pixel's event id.
  event_id: 'event_id',
  event_source_url: 'page.url',
  ...hashedPersonFields('user_data'),
  'user_data.external_id': hashedList(['user.external_id', 'user_id'], 'trim', 'lowercase'),
  'user_data.client_ip_address': 'device.ip',
  'user_data.client_user_agent': 'device.user_agent',
  // The landing page's ScCid (sent, else read off the URL by store) and the Pixel's _scid cookie.
  'user_data.sc_click_id': { from: ['campaign.sccid', 'enriched.campaign.sccid'] },
  'user_data.sc_cookie1': 'campaign.scid',
};

const VALUE: Fields = {
  'custom_data.value': num('value'),
  'custom_data.currency': { from: 'currency', transform: ['trim', 'uppercase'] },
};

const BASKET: Fields = {
  ...VALUE,
  ...itemIdsAndCount('custom_data.content_ids', 'custom_data.num_items'),
  'custom_data.contents': {
    each: 'items',
    fields: {
      id: { from: '$.item_id', transform: ['string'] },
      quantity: { from: '$.quantity', transform: ['number'], default: 1 },
      item_price: num('$.price'),
      brand: '$.item_brand',
    },
  },
};

const SNAPCHAT: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'PAGE_VIEW', fields: {} },
  view_content: {
    event: 'VIEW_CONTENT',
    fields: {
      ...VALUE,
      'custom_data.content_ids': { list: [{ from: 'content_id', transform: ['string'] }] },
      'custom_data.content_category': 'content_type',
    },
  },
  search: { event: 'SEARCH', fields: { 'custom_data.search_string': 'search_term' } },
  add_to_cart: { event: 'ADD_CART', fields: BASKET },
  begin_checkout: { event: 'START_CHECKOUT', fields: BASKET },
  add_payment_info: { event: 'ADD_BILLING', fields: BASKET },
  purchase: { event: 'PURCHASE', fields: { ...BASKET, 'custom_data.order_id': 'transaction_id' } },
  lead: { event: 'CUSTOM_EVENT_1', fields: { ...VALUE, 'custom_data.content_category': 'lead_type' } },
  sign_up: { event: 'SIGN_UP', fields: { 'custom_data.sign_up_method': 'method' } },
  subscribe: { event: 'SUBSCRIBE', fields: VALUE },
  contact: { event: 'CUSTOM_EVENT_2', fields: {} },
};

/** The envelope every Snapchat event starts from, and the catalogue's events. */
export const SNAPCHAT_MAPPING: PlatformMapping = { envelope: SNAPCHAT_ENVELOPE, events: SNAPCHAT };
