/** Stored events for the linkage tests: one per catalogue event, all context groups filled. */
import type { StoredEvent } from '../../../core/event.ts';
import type { InboundResponse, OutboundRequest } from '../../../core/platforms/driver.ts';

export const NOW = new Date('2024-11-16T08:00:00.000Z');

const context = {
  event_time: '2024-11-16T07:17:34.567Z',
  received_at: '2024-11-16T07:17:35.000Z',
  user_id: 'u-123',
  anonymous_id: '123.456',
  session_id: 's-1',
  source: 'web',
  user: {
    email: ' John_Smith@gmail.com ',
    phone: '(650)555-1212',
    first_name: 'Valéry',
    last_name: "O'Brien",
    date_of_birth: '1990-02-28',
    gender: 'female',
    city: 'Menlo Park',
    region: 'California',
    postal_code: '94025-1234',
    country: 'US',
    external_id: '123456',
  },
  page: { url: 'https://shop.example/p/123?fbclid=abc', referrer: 'https://google.com/', title: 'Red Shoe' },
  device: { ip: '123.123.123.123', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', locale: 'en-US' },
  campaign: { fbp: 'fb.1.1558571054389.1098115397', fbclid: 'abc', ttclid: 'tt-1' },
  consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted', ad_personalization: 'denied' },
} as const;

const items = [
  {
    item_id: 'SKU1',
    item_name: 'Red Shoe',
    item_brand: 'Acme',
    item_category: 'shoes',
    price: 49.9,
    quantity: 1,
  },
  { item_id: 'SKU2', item_name: 'Blue Sock', price: 5, quantity: 3 },
];

const data: Record<string, Record<string, unknown>> = {
  page_view: {},
  view_content: {
    content_name: 'Red Shoe',
    content_type: 'product',
    content_id: 'SKU1',
    value: 49.9,
    currency: 'USD',
  },
  search: { search_term: 'red shoes' },
  add_to_cart: { items: [items[0]], value: 49.9, currency: 'USD' },
  begin_checkout: { items, value: 64.9, currency: 'USD', coupon: 'SPRING' },
  add_payment_info: { payment_type: 'card', items, value: 64.9, currency: 'USD' },
  purchase: { transaction_id: 'T-1', value: 64.9, currency: 'USD', items, tax: 5, shipping: 4.5 },
  lead: { lead_type: 'quote', value: 100, currency: 'EUR' },
  sign_up: { method: 'email' },
  subscribe: { plan: 'gold', value: 9.99, currency: 'USD', predicted_ltv: 120 },
  contact: { method: 'chat' },
};

/** A stored event of the given catalogue (or custom) type, with the shared context. */
export function storedEvent(name: string, eventData?: Record<string, unknown>): StoredEvent {
  return { ...context, event_name: name, event_id: `evt-${name}`, event_data: eventData ?? data[name] ?? {} };
}

export const CATALOGUE_NAMES = Object.keys(data);
export const JOHN_SMITH = '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f';
export const PHONE_US = 'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176';

/** Sends a driver's request over real HTTP (fetch), as the answer the driver interprets. */
export async function sendOverHttp(req: OutboundRequest): Promise<InboundResponse> {
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
  return {
    kind: 'response',
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: await res.text(),
  };
}
