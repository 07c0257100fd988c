/**
 * Pinterest Conversions API (v5): the built-in mapping of the catalogue's events, one element of
 * `data` each (docs/platforms.md, "Pinterest"). Pinterest hashes every user field, the country included,
 * and takes each as a list; the IP address, the user agent and the `epik` click id travel in
 * clear. `value` and `item_price` are strings in Pinterest's schema. Settings override it field
 * by field (`mappings` on a destination).
 */
import type { FieldSource } from '../../../schemas/mapping.ts';
import {
  type Fields,
  hashedList,
  hashedPersonFields,
  itemIdsAndCount,
  type PlatformMapping,
} from '../mapping-vocabulary.ts';

/** An amount as Pinterest's schema types it: a decimal string. */
const amount = (from: string): FieldSource => ({ from, transform: ['number', 'string'] });

const PINTEREST_ENVELOPE: Fields = {
  event_time: { from: 'event_time', transform: ['unix_seconds'] },
  // The key Pinterest de-duplicates by against the tag's event id (web and app; not offline).
  event_id: 'event_id',
  event_source_url: 'page.url',
  ...hashedPersonFields('user_data'),
  'user_data.external_id': hashedList(['user.external_id', 'user_id'], 'trim'),
  'user_data.client_ip_address': 'device.ip',
  'user_data.client_user_agent': 'device.user_agent',
  // The epik URL parameter or _epik cookie the producer sent, else the one store read off the
  // landing URL (docs/enrichment.md).
  'user_data.click_id': { from: ['campaign.epik', 'enriched.campaign.epik'] },
};

const VALUE: Fields = {
  'custom_data.value': amount('value'),
  'custom_data.currency': { from: 'currency', transform: ['trim', 'uppercase'] },
};

const LINES: Fields = {
  ...VALUE,
  ...itemIdsAndCount('custom_data.content_ids', 'custom_data.num_items'),
  'custom_data.contents': {
    each: 'items',
    fields: {
      id: { from: '$.item_id', transform: ['string'] },
      item_name: '$.item_name',
      item_brand: '$.item_brand',
      item_price: amount('$.price'),
      quantity: { from: '$.quantity', transform: ['number'], default: 1 },
    },
  },
};

const PINTEREST: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'page_visit', fields: {} },
  // Pinterest has no content-view event: a product page is a page visit with its content.
  view_content: {
    event: 'page_visit',
    fields: {
      ...VALUE,
      'custom_data.content_name': 'content_name',
      'custom_data.content_category': 'content_type',
      'custom_data.content_ids': { list: [{ from: 'content_id', transform: ['string'] }] },
    },
  },
  search: { event: 'search', fields: { 'custom_data.search_string': 'search_term' } },
  add_to_cart: { event: 'add_to_cart', fields: LINES },
  // No standard checkout-start event in the API's list the briefing could confirm: sent as custom.
  begin_checkout: { event: 'custom', fields: LINES },
  add_payment_info: { event: 'add_payment_info', fields: LINES },
  purchase: { event: 'checkout', fields: { ...LINES, 'custom_data.order_id': 'transaction_id' } },
  lead: { event: 'lead', fields: { ...VALUE, 'custom_data.content_category': 'lead_type' } },
  sign_up: { event: 'signup', fields: {} },
  subscribe: { event: 'custom', fields: { ...VALUE, 'custom_data.content_name': 'plan' } },
  contact: { event: 'contact', fields: {} },
};

/** The envelope every Pinterest event starts from, and the catalogue's events. */
export const PINTEREST_MAPPING: PlatformMapping = { envelope: PINTEREST_ENVELOPE, events: PINTEREST };
