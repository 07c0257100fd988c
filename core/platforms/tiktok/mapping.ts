/**
 * TikTok Events API 2.0: the built-in mapping of every catalogue event, one element of `data` each.
 * Settings override it field by field (`mappings` on a destination).
 */
import { type Fields, num, type PlatformMapping } from '../mapping-vocabulary.ts';

const TIKTOK_ENVELOPE: Fields = {
  event_time: { from: 'event_time', transform: ['unix_seconds'] },
  event_id: 'event_id',
  'user.email': { from: 'user.email', transform: ['trim', 'lowercase', 'sha256'] },
  'user.phone': { from: 'user.phone', transform: [{ phone: 'e164' }, 'sha256'] },
  'user.external_id': { from: ['user.external_id', 'user_id'], transform: ['trim', 'sha256'] },
  'user.ip': 'device.ip',
  'user.user_agent': 'device.user_agent',
  'user.locale': 'device.locale',
  'user.ttclid': 'campaign.ttclid',
  'user.ttp': 'campaign.ttp',
  'page.url': 'page.url',
  'page.referrer': 'page.referrer',
};

const TIKTOK_ITEMS: Fields = {
  'properties.content_type': { const: 'product' },
  'properties.content_ids': { each: 'items', value: { from: '$.item_id', transform: ['string'] } },
  'properties.num_items': {
    list: [{ each: 'items', value: { from: '$.quantity', transform: ['number'], default: 1 } }],
    transform: ['sum'],
  },
  'properties.contents': {
    each: 'items',
    fields: {
      content_id: { from: '$.item_id', transform: ['string'] },
      content_name: '$.item_name',
      brand: '$.item_brand',
      price: num('$.price'),
      quantity: num('$.quantity'),
    },
  },
  'properties.value': num('value'),
  'properties.currency': 'currency',
};

const TIKTOK: Record<string, { event: string; fields: Fields }> = {
  // TikTok's reserved-events page maps page browsing to the PageView event (docs/linkage.md).
  page_view: { event: 'PageView', fields: {} },
  view_content: {
    event: 'ViewContent',
    fields: {
      'properties.contents': {
        list: [
          {
            object: {
              content_id: { from: 'content_id', transform: ['string'] },
              content_name: 'content_name',
              price: num('value'),
              quantity: { const: 1 },
            },
            // A content without its id is refused by TikTok's rules (target.ts): no line at all then.
            required: ['content_id'],
          },
        ],
      },
      'properties.content_ids': { list: [{ from: 'content_id', transform: ['string'] }] },
      'properties.description': 'content_type',
      // TikTok's content_type takes product or product_group only.
      'properties.content_type': {
        from: 'content_type',
        transform: [{ oneOf: ['product', 'product_group'] }],
      },
      'properties.value': num('value'),
      'properties.currency': 'currency',
    },
  },
  search: { event: 'Search', fields: { 'properties.query': 'search_term' } },
  add_to_cart: { event: 'AddToCart', fields: TIKTOK_ITEMS },
  begin_checkout: { event: 'InitiateCheckout', fields: TIKTOK_ITEMS },
  add_payment_info: { event: 'AddPaymentInfo', fields: TIKTOK_ITEMS },
  purchase: {
    event: 'CompletePayment',
    fields: { ...TIKTOK_ITEMS, 'properties.order_id': 'transaction_id' },
  },
  lead: {
    event: 'Lead',
    fields: {
      'properties.description': 'lead_type',
      'properties.value': num('value'),
      'properties.currency': 'currency',
    },
  },
  sign_up: { event: 'CompleteRegistration', fields: {} },
  subscribe: {
    event: 'Subscribe',
    fields: {
      'properties.description': 'plan',
      'properties.value': num('value'),
      'properties.currency': 'currency',
    },
  },
  contact: { event: 'Contact', fields: {} },
};

/** The envelope every TikTok event starts from, and the catalogue's events. */
export const TIKTOK_MAPPING: PlatformMapping = { envelope: TIKTOK_ENVELOPE, events: TIKTOK };
