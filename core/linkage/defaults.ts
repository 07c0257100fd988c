/**
 * Built-in mappings from the standard catalogue to each platform. Every platform event
 * gets the platform's envelope (time, id, hashed user data, page) plus the event's own fields.
 * Settings override these field by field (`mappings` on a destination).
 */
import type { FieldRule, ResolvedMapping, Transform } from '../../schemas/mapping.ts';

/** Destination types that use mappings (webhooks send the stored event as it is). */
export type MappedType = 'meta_capi' | 'ga4_mp' | 'tiktok_events';
export const MAPPED_TYPES: readonly MappedType[] = Object.freeze(['meta_capi', 'ga4_mp', 'tiktok_events']);

type Fields = Record<string, FieldRule>;

const num = (from: string | string[]): FieldRule => ({ from, transform: ['number'] });
/** PII as Meta wants it: normalised, SHA-256, sent as a list. */
const hashedList = (from: string | string[], ...normalise: Transform[]): FieldRule => ({
  from,
  transform: [...normalise, 'sha256', 'list'],
});

// ---- Meta Conversions API: one server event (an element of `data`) ----

const META_ENVELOPE: Fields = {
  event_time: { from: 'event_time', transform: ['unix_seconds'] },
  event_id: 'event_id',
  event_source_url: 'page.url',
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
  'user_data.fbc': { from: ['campaign.fbc', 'campaign.fbclid'], transform: ['fbc'] },
  'user_data.fbp': 'campaign.fbp',
};

const META_ITEMS: Fields = {
  'custom_data.content_type': { const: 'product' },
  'custom_data.content_ids': { each: 'items', value: '$.item_id' },
  'custom_data.contents': {
    each: 'items',
    fields: { id: '$.item_id', quantity: '$.quantity', item_price: num('$.price') },
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
  begin_checkout: { event: 'InitiateCheckout', fields: META_ITEMS },
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

// ---- GA4 Measurement Protocol: request-level fields plus `params` of the one event ----

const GA4_ENVELOPE: Fields = {
  // client_id identifies the browser; a backend event without one falls back to the user id.
  client_id: { from: ['anonymous_id', 'user_id'], transform: ['string'] },
  user_id: 'user_id',
  timestamp_micros: { from: 'event_time', transform: ['unix_micros'] },
  'consent.ad_user_data': { from: 'consent.ad_user_data', transform: ['uppercase'] },
  'consent.ad_personalization': { from: 'consent.ad_personalization', transform: ['uppercase'] },
  'params.session_id': 'session_id',
  // Google's own examples send it; without it the event does not show in Realtime reports.
  'params.engagement_time_msec': { const: 1 },
  'params.page_location': 'page.url',
  'params.page_referrer': 'page.referrer',
  'params.page_title': 'page.title',
};

const GA4_ITEMS: Fields = {
  'params.currency': 'currency',
  'params.value': num('value'),
  'params.items': {
    each: 'items',
    fields: {
      item_id: '$.item_id',
      item_name: '$.item_name',
      item_category: '$.item_category',
      item_brand: '$.item_brand',
      price: num('$.price'),
      quantity: num('$.quantity'),
    },
  },
};

const GA4: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'page_view', fields: {} },
  view_content: {
    event: 'view_item',
    fields: {
      'params.currency': 'currency',
      'params.value': num('value'),
      'params.items': {
        list: [
          {
            object: {
              item_id: 'content_id',
              item_name: 'content_name',
              item_category: 'content_type',
              price: num('value'),
              quantity: { const: 1 },
            },
          },
        ],
      },
    },
  },
  search: { event: 'search', fields: { 'params.search_term': 'search_term' } },
  add_to_cart: { event: 'add_to_cart', fields: GA4_ITEMS },
  begin_checkout: { event: 'begin_checkout', fields: { ...GA4_ITEMS, 'params.coupon': 'coupon' } },
  add_payment_info: {
    event: 'add_payment_info',
    fields: { ...GA4_ITEMS, 'params.payment_type': 'payment_type' },
  },
  purchase: {
    event: 'purchase',
    fields: {
      ...GA4_ITEMS,
      'params.transaction_id': 'transaction_id',
      'params.tax': num('tax'),
      'params.shipping': num('shipping'),
      'params.coupon': 'coupon',
    },
  },
  lead: {
    event: 'generate_lead',
    fields: {
      'params.currency': 'currency',
      'params.value': num('value'),
      'params.lead_source': 'lead_type',
    },
  },
  sign_up: { event: 'sign_up', fields: { 'params.method': 'method' } },
  // GA4 has no recommended event for these two: they go out under their own (valid) names.
  subscribe: {
    event: 'subscribe',
    fields: { 'params.currency': 'currency', 'params.value': num('value'), 'params.plan': 'plan' },
  },
  contact: { event: 'contact', fields: { 'params.method': 'method' } },
};

// ---- TikTok Events API 2.0: one element of `data` ----

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
  'page.url': 'page.url',
  'page.referrer': 'page.referrer',
};

const TIKTOK_ITEMS: Fields = {
  'properties.content_type': { const: 'product' },
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
  page_view: { event: 'Pageview', fields: {} },
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
          },
        ],
      },
      'properties.description': 'content_type',
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

function build(
  envelope: Fields,
  table: Record<string, { event: string; fields: Fields }>,
): Readonly<Record<string, ResolvedMapping>> {
  const out: Record<string, ResolvedMapping> = {};
  for (const [name, m] of Object.entries(table)) {
    out[name] = Object.freeze({ event: m.event, fields: Object.freeze({ ...envelope, ...m.fields }) });
  }
  return Object.freeze(out);
}

/** The built-in mapping of every catalogue event, per destination type. */
export const DEFAULT_MAPPINGS: Readonly<Record<MappedType, Readonly<Record<string, ResolvedMapping>>>> =
  Object.freeze({
    meta_capi: build(META_ENVELOPE, META),
    ga4_mp: build(GA4_ENVELOPE, GA4),
    tiktok_events: build(TIKTOK_ENVELOPE, TIKTOK),
  });

/** The fields every mapping of a type starts from (custom-event mappings get them too). */
export const ENVELOPES: Readonly<Record<MappedType, Readonly<Fields>>> = Object.freeze({
  meta_capi: Object.freeze(META_ENVELOPE),
  ga4_mp: Object.freeze(GA4_ENVELOPE),
  tiktok_events: Object.freeze(TIKTOK_ENVELOPE),
});
