/**
 * Reddit Conversions API v3: the built-in mapping of every catalogue event, one element of
 * `data.events` each (docs/platforms.md, Reddit). The mapped event's name is Reddit's tracking
 * type; a name outside Reddit's types is sent as `CUSTOM` with that name. Settings override it
 * field by field (`mappings` on a destination).
 */
import { type Fields, num, type PlatformMapping } from '../mapping-vocabulary.ts';

const REDDIT_ENVELOPE: Fields = {
  event_at: { from: 'event_time', transform: ['unix_millis'] },
  event_source_url: 'page.url',
  // The rdt_cid of the landing URL (the producer's, else the one store read from page.url).
  click_id: { from: ['campaign.rdt_cid', 'enriched.campaign.rdt_cid'], transform: ['trim'] },
  // The pixel's conversionId for the same event: Reddit keeps one of the two.
  'metadata.conversion_id': 'event_id',
  'user.email': { from: 'user.email', transform: ['reddit_email', 'sha256'] },
  'user.phone_number': { from: 'user.phone', transform: [{ phone: 'e164' }, 'sha256'] },
  'user.external_id': { from: ['user.external_id', 'user_id'], transform: ['trim', 'sha256'] },
  // Hashed as Reddit's own integration does; the user agent and the _rdt_uuid cookie go as they are.
  'user.ip_address': { from: 'device.ip', transform: ['trim', 'sha256'] },
  'user.user_agent': 'device.user_agent',
  'user.uuid': 'campaign.rdt_uuid',
};

const VALUE: Fields = {
  'metadata.value': num('value'),
  'metadata.currency': { from: 'currency', transform: ['trim', 'uppercase'] },
};

const ITEMS: Fields = {
  ...VALUE,
  'metadata.item_count': {
    list: [{ each: 'items', value: { from: '$.quantity', transform: ['number'], default: 1 } }],
    transform: ['sum'],
  },
  'metadata.products': {
    each: 'items',
    fields: {
      id: { from: '$.item_id', transform: ['string'] },
      name: '$.item_name',
      category: '$.item_category',
      quantity: { from: '$.quantity', transform: ['number'], default: 1 },
      item_price: num('$.price'),
    },
  },
};

const REDDIT: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'PAGE_VISIT', fields: {} },
  view_content: { event: 'VIEW_CONTENT', fields: VALUE },
  search: { event: 'SEARCH', fields: {} },
  add_to_cart: { event: 'ADD_TO_CART', fields: ITEMS },
  begin_checkout: { event: 'begin_checkout', fields: ITEMS },
  add_payment_info: { event: 'add_payment_info', fields: ITEMS },
  purchase: { event: 'PURCHASE', fields: ITEMS },
  lead: { event: 'LEAD', fields: VALUE },
  sign_up: { event: 'SIGN_UP', fields: {} },
  subscribe: { event: 'subscribe', fields: VALUE },
  contact: { event: 'contact', fields: {} },
};

/** The envelope every Reddit event starts from, and the catalogue's events. */
export const REDDIT_MAPPING: PlatformMapping = { envelope: REDDIT_ENVELOPE, events: REDDIT };
