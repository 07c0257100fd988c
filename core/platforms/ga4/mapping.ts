/**
 * GA4 Measurement Protocol: the built-in mapping of every catalogue event, request-level fields
 * plus the `params` of the one event.
 * Settings override it field by field (`mappings` on a destination).
 */
import type { FieldSource, Transform } from '../../../schemas/mapping.ts';
import { type Fields, hashedList, num, type PlatformMapping } from '../mapping-vocabulary.ts';

/** Hashed for Google's user-provided data: normalised, then SHA-256 (one value, not a list). */
const hashed = (from: string, ...normalise: Transform[]): FieldSource => ({
  from,
  transform: [...normalise, 'sha256'],
});

const GA4_ENVELOPE: Fields = {
  // client_id is the device's (browser's) id: the `_ga` cookie's client id the gateway read or set
  // (core/platforms/ga4/client-id.ts), so gtag.js on the same page is the same client; else the
  // anonymous id. A backend event without either gets a stable id derived from the user id, never
  // the user id itself (docs/linkage.md).
  client_id: {
    first: [
      { from: 'campaign.ga_client_id', transform: ['string'] },
      { from: 'anonymous_id', transform: ['string'] },
      { from: 'user_id', transform: ['string', 'pseudonymous_id'] },
    ],
  },
  user_id: 'user_id',
  ip_override: 'device.ip',
  'device.language': { from: 'device.locale', transform: ['lowercase'] },
  'user_location.city': 'user.city',
  'user_location.country_id': { from: 'user.country', transform: ['country', 'uppercase'] },
  // User-provided data (enhanced conversions), normalised as Google documents, then hashed.
  'user_data.sha256_email_address': hashedList('user.email', 'google_email'),
  'user_data.sha256_phone_number': hashedList('user.phone', { phone: 'e164' }),
  'user_data.address': {
    list: [
      {
        object: {
          sha256_first_name: hashed('user.first_name', 'name'),
          sha256_last_name: hashed('user.last_name', 'name'),
          city: { from: 'user.city', transform: ['trim', 'lowercase'] },
          region: { from: 'user.region', transform: ['trim', 'lowercase'] },
          postal_code: { from: 'user.postal_code', transform: ['trim'] },
          country: { from: 'user.country', transform: ['country', 'uppercase'] },
        },
      },
    ],
  },
  timestamp_micros: { from: 'event_time', transform: ['unix_micros'] },
  'consent.ad_user_data': { from: 'consent.ad_user_data', transform: ['uppercase'] },
  'consent.ad_personalization': { from: 'consent.ad_personalization', transform: ['uppercase'] },
  'params.session_id': 'session_id',
  // Google's own examples send it; without it the event does not show in Realtime reports.
  'params.engagement_time_msec': { const: 1 },
  'params.page_location': 'page.url',
  'params.page_referrer': 'page.referrer',
  'params.page_title': 'page.title',
  // Campaign, in the parameter names of GA4's campaign_details event: the attribution store
  // derived (producer's campaign first, then the landing URL: docs/enrichment.md), else campaign.
  'params.source': { from: ['enriched.campaign.source', 'campaign.source'] },
  'params.medium': { from: ['enriched.campaign.medium', 'campaign.medium'] },
  'params.campaign': { from: ['enriched.campaign.name', 'campaign.name'] },
  'params.term': { from: ['enriched.campaign.term', 'campaign.term'] },
  'params.content': { from: ['enriched.campaign.content', 'campaign.content'] },
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
      item_variant: '$.item_variant',
      item_category2: '$.item_category2',
      item_category3: '$.item_category3',
      item_category4: '$.item_category4',
      item_category5: '$.item_category5',
      affiliation: '$.affiliation',
      coupon: '$.coupon',
      discount: num('$.discount'),
      index: num('$.index'),
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

const VALUE: Fields = { 'params.currency': 'currency', 'params.value': num('value') };

/**
 * GA4's recommended events the catalogue has no event for (Google's "Recommended events" for all
 * properties, online sales, lead generation and games; `ad_impression` is left out, as GA4's
 * Measurement Protocol reserves it): a custom event of one of these names is sent to GA4 under
 * it, so a GA4 MP sender's `login` reaches GA4 as it was sent. Their parameters come from the
 * event fields the GA4 MP translator keeps (`method`, `search_term`, `value`, `currency`,
 * `items`, `transaction_id`, `coupon`, `content_type`, `content_id`).
 */
const GA4_NATIVE: Record<string, { event: string; fields: Fields }> = Object.fromEntries(
  (
    [
      ['login', { 'params.method': 'method' }],
      [
        'share',
        { 'params.method': 'method', 'params.content_type': 'content_type', 'params.item_id': 'content_id' },
      ],
      ['select_content', { 'params.content_type': 'content_type', 'params.item_id': 'content_id' }],
      ['view_search_results', { 'params.search_term': 'search_term' }],
      ['add_shipping_info', { ...GA4_ITEMS, 'params.coupon': 'coupon' }],
      ['add_to_wishlist', GA4_ITEMS],
      ['remove_from_cart', GA4_ITEMS],
      ['view_cart', GA4_ITEMS],
      ['view_item_list', GA4_ITEMS],
      ['select_item', GA4_ITEMS],
      ['select_promotion', GA4_ITEMS],
      ['view_promotion', GA4_ITEMS],
      [
        'refund',
        {
          ...GA4_ITEMS,
          'params.transaction_id': 'transaction_id',
          'params.tax': num('tax'),
          'params.shipping': num('shipping'),
          'params.coupon': 'coupon',
        },
      ],
      ['qualify_lead', VALUE],
      ['disqualify_lead', VALUE],
      ['working_lead', VALUE],
      ['close_convert_lead', VALUE],
      ['close_unconvert_lead', VALUE],
      ['earn_virtual_currency', { 'params.value': num('value') }],
      ['spend_virtual_currency', { 'params.value': num('value') }],
      ['join_group', {}],
      ['tutorial_begin', {}],
      ['tutorial_complete', {}],
      ['level_start', {}],
      ['level_end', {}],
      ['level_up', {}],
      ['post_score', {}],
      ['unlock_achievement', {}],
    ] as const
  ).map(([name, fields]) => [name, { event: name, fields }]),
);

/** The envelope every GA4 event starts from, the catalogue's events, and GA4's own recommended ones. */
export const GA4_MAPPING: PlatformMapping = { envelope: GA4_ENVELOPE, events: GA4, native: GA4_NATIVE };
