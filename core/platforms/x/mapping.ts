/**
 * X Conversions API: the built-in mapping of the catalogue's conversions, one element of
 * `conversions` each (docs/platforms.md, "X"). The mapped event's name is the X event it goes to:
 * the built-in name is the catalogue's own and means "not routed yet" until a destination's
 * `mappings.<event>.event` names the event's id. Each identifier is its own object — the twclid,
 * the hashed e-mail, the hashed phone, or the IP address with the user agent.
 */
import type { FieldSource } from '../../../schemas/mapping.ts';
import { type Fields, num, type PlatformMapping } from '../mapping-vocabulary.ts';

const IDENTIFIERS: FieldSource = {
  list: [
    // The twclid the producer sent (URL parameter or _twclid cookie), else the one store read off the URL.
    { object: { twclid: { from: ['campaign.twclid', 'enriched.campaign.twclid'] } } },
    { object: { hashed_email: { from: 'user.email', transform: ['trim', 'lowercase', 'sha256'] } } },
    { object: { hashed_phone_number: { from: 'user.phone', transform: [{ phone: 'e164' }, 'sha256'] } } },
    {
      object: { ip_address: 'device.ip', user_agent: 'device.user_agent' },
      required: ['ip_address', 'user_agent'],
    },
  ],
};

const X_ENVELOPE: Fields = {
  conversion_time: 'event_time',
  // The key X de-duplicates by against the pixel's conversion id: the event id, as for every
  // other platform; `config.conversion_id: transaction_id` sends the order id instead (driver.ts).
  conversion_id: 'event_id',
  identifiers: IDENTIFIERS,
};

const VALUE: Fields = {
  value: num('value'),
  price_currency: { from: 'currency', transform: ['trim', 'uppercase'] },
};

const CART: Fields = {
  ...VALUE,
  number_items: {
    list: [{ each: 'items', value: { from: '$.quantity', transform: ['number'], default: 1 } }],
    transform: ['sum'],
  },
  contents: {
    each: 'items',
    fields: {
      content_id: { from: '$.item_id', transform: ['string'] },
      content_name: '$.item_name',
      content_price: num('$.price'),
      num_items: { from: '$.quantity', transform: ['number'], default: 1 },
    },
  },
};

const X: Record<string, { event: string; fields: Fields }> = {
  page_view: { event: 'page_view', fields: {} },
  view_content: { event: 'view_content', fields: VALUE },
  search: { event: 'search', fields: { description: 'search_term' } },
  add_to_cart: { event: 'add_to_cart', fields: CART },
  begin_checkout: { event: 'begin_checkout', fields: CART },
  add_payment_info: { event: 'add_payment_info', fields: CART },
  purchase: { event: 'purchase', fields: CART },
  lead: { event: 'lead', fields: { ...VALUE, description: 'lead_type' } },
  sign_up: { event: 'sign_up', fields: {} },
  subscribe: { event: 'subscribe', fields: { ...VALUE, description: 'plan' } },
  contact: { event: 'contact', fields: {} },
};

/** The envelope every X conversion starts from, and the catalogue's conversions. */
export const X_MAPPING: PlatformMapping = { envelope: X_ENVELOPE, events: X };
