/**
 * The shapes issue 63 found the catalogue refusing or misreading, each a vendor's published sample
 * (test/fixtures/sources/SOURCES.md) sent as the vendor sends it, signed under the test secret:
 * a Stripe subscription of an older API version (no currency of its own), a `charge.succeeded`
 * (whose `amount_refunded` is 0), a Shopify order without `admin_graphql_api_id`, a Paddle
 * `customer.created`, and a WooCommerce guest's order. test/gateway/sources.test.ts sends each
 * twice: a retried delivery folds (the same event id).
 */
import {
  iso,
  json,
  paddleHeaders,
  type SourceCase,
  shopifyHeaders,
  signed,
  stripeHeader,
} from './source-cases.ts';

/** A Stripe event fixture, its time made recent. */
const stripeEvent = (file: string, now: number) => JSON.stringify({ ...json(file), created: now - 60 });

export const SHAPE_CASES: readonly SourceCase[] = [
  {
    title: 'Stripe customer.subscription.created of API 2020-08-27 (no data.object.currency)',
    source: 'stripe',
    provenance: 'real',
    contentType: 'application/json; charset=utf-8',
    body: (now) => stripeEvent('stripe/customer-subscription-created.json', now),
    headers: stripeHeader,
    expect: { event_name: 'subscribe', event_id: 'evt_000000000000000000000000', value: 15, currency: 'USD' },
  },
  {
    title: 'Stripe charge.succeeded (the amount, not amount_refunded 0)',
    source: 'stripe',
    provenance: 'real',
    contentType: 'application/json; charset=utf-8',
    // Both Stripe samples carry the same placeholder event id: this one is told apart.
    body: (now) =>
      stripeEvent('stripe/charge-succeeded.json', now).replace(
        '"evt_000000000000000000000000"',
        '"evt_000000000000000000000000_charge"',
      ),
    headers: stripeHeader,
    expect: {
      event_name: 'charge_succeeded',
      event_id: 'evt_000000000000000000000000_charge',
      value: 20,
      currency: 'USD',
    },
  },
  {
    title: 'Shopify orders/create without admin_graphql_api_id (the key falls back to id)',
    source: 'shopify',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) => {
      const { admin_graphql_api_id: _gid, ...order } = json('shopify/order-created-with-customer.json');
      return JSON.stringify({ ...order, created_at: iso(now), processed_at: iso(now) });
    },
    headers: shopifyHeaders,
    expect: { event_name: 'purchase', value: 199, currency: 'USD', email: 'jane@example.com' },
  },
  {
    title: 'Paddle customer.created (its e-mail kept)',
    source: 'paddle',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) => JSON.stringify({ ...json('paddle/customer-created.json'), occurred_at: iso(now) }),
    headers: paddleHeaders,
    expect: {
      event_name: 'customer_created',
      event_id: 'evt_01h8441jx8x1q971q9ksksqh82',
      email: 'sam@example.com',
    },
  },
  {
    title: 'WooCommerce guest order (customer_id 0: no external id)',
    source: 'woocommerce',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) =>
      JSON.stringify({ ...json('woocommerce/order.json'), date_created_gmt: iso(now).slice(0, 19) }),
    headers: signed('woocommerce'),
    expect: { event_name: 'purchase', value: 29.35, currency: 'USD', external_id: null },
  },
];
