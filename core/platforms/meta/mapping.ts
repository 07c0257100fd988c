/**
 * Meta Conversions API: the built-in mapping of every catalogue event, one server event (an element
 * of `data`) each.
 * Settings override it field by field (`mappings` on a destination).
 */
import { type Fields, hashedList, num, type PlatformMapping } from '../mapping-vocabulary.ts';
import { META_ACTION_SOURCES } from './target.ts';

const META_ENVELOPE: Fields = {
  event_time: { from: 'event_time', transform: ['unix_seconds'] },
  event_id: 'event_id',
  event_source_url: 'page.url',
  referrer_url: 'page.referrer',
  // Where the conversion happened, when the event says so (a phone order, a store sale); else the
  // driver decides from the destination's config and whether the event has a page (docs/linkage.md).
  action_source: { from: 'action_source', transform: [{ oneOf: [...META_ACTION_SOURCES] }] },
  'user_data.em': hashedList('user.email', 'trim', 'lowercase'),
  'user_data.ph': hashedList('user.phone', { phone: 'digits' }),
  'user_data.fn': hashedList('user.first_name', 'name'),
  'user_data.ln': hashedList('user.last_name', 'name'),
  'user_data.ge': hashedList('user.gender', 'gender'),
  'user_data.db': hashedList('user.date_of_birth', 'date_of_birth'),
  'user_data.ct': hashedList('user.city', 'city'),
  'user_data.st': hashedList('user.region', 'state'),
  'user_data.zp': hashedList('user.postal_code', 'zip'),
  'user_data.country': hashedList('user.country', 'country'),
  'user_data.external_id': hashedList(['user.external_id', 'user_id'], 'trim'),
  // Meta matches these as sent: never hashed.
  'user_data.client_ip_address': 'device.ip',
  'user_data.client_user_agent': 'device.user_agent',
  // The producer's _fbc cookie, else the one store built from the landing URL's fbclid
  // (docs/enrichment.md), else from a campaign.fbclid the producer sent (enrichment off).
  'user_data.fbc': { from: ['campaign.fbc', 'enriched.campaign.fbc', 'campaign.fbclid'], transform: ['fbc'] },
  'user_data.fbp': 'campaign.fbp',
};

const META_ITEMS: Fields = {
  'custom_data.content_type': { const: 'product' },
  'custom_data.content_ids': { each: 'items', value: '$.item_id' },
  'custom_data.contents': {
    each: 'items',
    // Meta documents id and quantity on every contents line; a line without a quantity is one item.
    fields: {
      id: '$.item_id',
      quantity: { from: '$.quantity', transform: ['number'], default: 1 },
      item_price: num('$.price'),
    },
  },
  'custom_data.value': num('value'),
  'custom_data.currency': 'currency',
};

const META: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'PageView', fields: {} },
  view_content: {
    event: 'ViewContent',
    fields: {
      'custom_data.content_name': 'content_name',
      'custom_data.content_category': 'content_type',
      // Meta's content_type takes product or product_group only (catalog matching).
      'custom_data.content_type': {
        from: 'content_type',
        transform: [{ oneOf: ['product', 'product_group'] }],
      },
      'custom_data.content_ids': { list: ['content_id'] },
      'custom_data.contents': {
        list: [
          {
            object: { id: 'content_id', quantity: { const: 1 }, item_price: num('value') },
            required: ['id'],
          },
        ],
      },
      'custom_data.value': num('value'),
      'custom_data.currency': 'currency',
    },
  },
  search: { event: 'Search', fields: { 'custom_data.search_string': 'search_term' } },
  add_to_cart: { event: 'AddToCart', fields: META_ITEMS },
  begin_checkout: {
    event: 'InitiateCheckout',
    fields: {
      ...META_ITEMS,
      // Meta documents num_items for InitiateCheckout: the number of items being bought.
      'custom_data.num_items': {
        list: [{ each: 'items', value: { from: '$.quantity', transform: ['number'], default: 1 } }],
        transform: ['sum'],
      },
    },
  },
  add_payment_info: { event: 'AddPaymentInfo', fields: META_ITEMS },
  purchase: { event: 'Purchase', fields: { ...META_ITEMS, 'custom_data.order_id': 'transaction_id' } },
  lead: {
    event: 'Lead',
    fields: {
      'custom_data.content_category': 'lead_type',
      'custom_data.value': num('value'),
      'custom_data.currency': 'currency',
    },
  },
  sign_up: { event: 'CompleteRegistration', fields: {} },
  subscribe: {
    event: 'Subscribe',
    fields: {
      'custom_data.content_name': 'plan',
      'custom_data.value': num('value'),
      'custom_data.currency': 'currency',
      'custom_data.predicted_ltv': num('predicted_ltv'),
    },
  },
  contact: { event: 'Contact', fields: {} },
};

/** The envelope every Meta event starts from, and the catalogue's events. */
export const META_MAPPING: PlatformMapping = { envelope: META_ENVELOPE, events: META };
