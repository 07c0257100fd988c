/**
 * Every published example of the catalogue's vendors that could be found (test/fixtures/sources/
 * SOURCES.md says where each is from), as the vendor sends it, with what its source must make of
 * it: the standard (or custom) event it becomes, or why it is kept in `invalid_events` (a source
 * with `unmappable: store`, answered 200) or refused (a source with `unmappable: refuse`, 400).
 * GitHub's come from the installed `@octokit/webhooks-examples` (every example of every webhook),
 * Paddle's from its Node SDK's notification mocks (every event type), Stripe's from the objects of
 * its OpenAPI fixtures (`fixtures3.json`) in the event envelope Stripe sends them in; the other
 * vendors' are the catalogue's own samples. Times stay the examples' own (years old): the test's
 * gateway takes them, since the mapping, not the window, is under test.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { json, shopifyHeaders, signed, stripeHeader, TEST_SECRET } from './source-cases.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/sources');

/** What a source must make of an example. */
export type Outcome =
  | {
      readonly event_name: string;
      readonly value?: number;
      readonly currency?: string;
      /** The transaction id; null: none (a customer, a product … is no transaction). */
      readonly transaction_id?: string | null;
      readonly external_id?: string;
    }
  /** Kept in invalid_events with these reasons, answered 200 (`unmappable: store`). */
  | { readonly stored: RegExp }
  /** Refused whole with these reasons (`unmappable: refuse`). */
  | { readonly refused: RegExp };

export interface VendorExample {
  readonly source: string;
  readonly title: string;
  readonly contentType: string;
  readonly body: string;
  /** The vendor's headers (its signature over the body, at `now` in seconds). */
  headers(body: string, url: string, now: number): Promise<Record<string, string>>;
  readonly expect: Outcome;
}

const snake = (s: string) => (s.toLowerCase().match(/[a-z0-9]+/g) ?? []).join('_');

// --- GitHub: every example of @octokit/webhooks-examples ------------------------------------

interface Webhook {
  readonly name: string;
  readonly examples: Record<string, unknown>[];
}

const SPONSORSHIP: Readonly<Record<string, string>> = {
  created: 'subscribe',
  cancelled: 'sponsorship_cancelled',
  tier_changed: 'sponsorship_tier_changed',
};

function githubExamples(): VendorExample[] {
  const file = createRequire(import.meta.url).resolve('@octokit/webhooks-examples');
  const all = JSON.parse(readFileSync(file, 'utf8')) as Webhook[];
  return all.flatMap((w) =>
    w.examples.map((e, i) => {
      const action = typeof e['action'] === 'string' ? e['action'] : undefined;
      const name = w.name === 'sponsorship' ? (SPONSORSHIP[action ?? ''] ?? 'github_event') : 'github_event';
      return {
        source: 'github',
        title: `${w.name}${action ? ` ${action}` : ''} (example ${i})`,
        contentType: 'application/json',
        body: JSON.stringify(e),
        headers: async (body: string) => ({
          'x-github-event': w.name,
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': await githubSign(TEST_SECRET, body),
        }),
        expect: { event_name: name },
      };
    }),
  );
}

// --- Paddle: every notification mock of @paddle/paddle-node-sdk -----------------------------

const PADDLE: Readonly<Record<string, string>> = {
  'transaction.completed': 'purchase',
  'subscription.created': 'subscribe',
  'adjustment.created': 'refund',
};

function paddleExamples(): VendorExample[] {
  const dir = join(FIXTURES, 'paddle/sdk');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const e = json(`paddle/sdk/${f}`) as {
        event_type: string;
        data: Record<string, unknown>;
      };
      const type = e.event_type;
      const isTransaction = type.startsWith('transaction.');
      // Every one becomes an event: a transaction's own id is its transaction_id, an adjustment's
      // or a subscription's the transaction it names, and a customer, a product … has none.
      const expect: Outcome = {
        event_name: PADDLE[type] ?? snake(type),
        transaction_id: isTransaction
          ? (e.data['id'] as string)
          : ((e.data['transaction_id'] as string | undefined) ?? null),
      };
      return {
        source: 'paddle',
        title: `${type} (${f})`,
        contentType: 'application/json',
        body: JSON.stringify(e),
        headers: signed('paddle'),
        expect,
      };
    });
}

// --- Stripe: the objects of its OpenAPI fixtures, in Stripe's event envelope -------------------

/** Which event type each fixture object is sent as, and what the source makes of it. */
const STRIPE: readonly { object: string; type: string; expect: Outcome }[] = [
  // The fixture's session has no amount_total and no currency (null): no purchase can be made of
  // it (its tax cannot be scaled, it has no value); it is kept in invalid_events, Stripe answered 200.
  {
    object: 'checkout.session',
    type: 'checkout.session.completed',
    expect: { stored: /tax.*ISO 4217 currency code to scale by, got null/ },
  },
  {
    object: 'charge',
    type: 'charge.succeeded',
    expect: {
      event_name: 'charge_succeeded',
      value: 1,
      currency: 'USD',
      transaction_id: 'ch_1PgafuB7WZ01zgkWXYmPNZs8',
    },
  },
  {
    object: 'charge',
    type: 'charge.refunded',
    expect: { event_name: 'charge_refunded', currency: 'USD', transaction_id: 'ch_1PgafuB7WZ01zgkWXYmPNZs8' },
  },
  {
    object: 'refund',
    type: 'refund.created',
    expect: {
      event_name: 'refund',
      value: 1,
      currency: 'USD',
      transaction_id: 'ch_1PgafuB7WZ01zgkWXYmPNZs8',
    },
  },
  {
    object: 'subscription',
    type: 'customer.subscription.created',
    expect: { event_name: 'subscribe', currency: 'USD', transaction_id: null },
  },
  { object: 'invoice', type: 'invoice.paid', expect: { event_name: 'invoice_paid', currency: 'USD' } },
  {
    object: 'payment_intent',
    type: 'payment_intent.succeeded',
    expect: { event_name: 'payment_intent_succeeded', value: 10.99, currency: 'USD' },
  },
  {
    object: 'customer',
    type: 'customer.created',
    expect: { event_name: 'customer_created', currency: 'USD', transaction_id: null },
  },
];

function stripeExamples(): VendorExample[] {
  const objects = json('stripe/openapi-fixtures3.json') as Record<string, Record<string, unknown>>;
  const out: VendorExample[] = STRIPE.map(({ object, type, expect }, i) => ({
    source: 'stripe',
    title: `${type} (fixtures3's ${object})`,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({
      id: `evt_fixtures3_${i}`,
      object: 'event',
      api_version: '2024-06-20',
      created: objects[object]?.['created'] ?? 1_700_000_000,
      data: { object: objects[object] },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    }),
    headers: stripeHeader,
    expect,
  }));
  // The fixtures' own event, sent as is: a plan.created keeps its name.
  const event = objects['event'];
  if (event)
    out.push({
      source: 'stripe',
      title: `${String(event['type'])} (fixtures3's event, as is)`,
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify(event),
      headers: stripeHeader,
      expect: { event_name: snake(String(event['type'])) },
    });
  return out;
}

// --- The other vendors: the catalogue's samples ---------------------------------------------

const file = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');

function otherExamples(): VendorExample[] {
  const example = (
    source: string,
    title: string,
    body: string,
    headers: VendorExample['headers'],
    expect: Outcome,
    contentType = 'application/json',
  ): VendorExample => ({ source, title, contentType, body, headers, expect });
  const none = async () => ({});
  return [
    example('shopify', 'orders/create, no buyer', file('shopify/order-created.json'), shopifyHeaders, {
      event_name: 'purchase',
      value: 238.47,
      currency: 'EUR',
    }),
    example(
      'shopify',
      'orders/create with a customer',
      file('shopify/order-created-with-customer.json'),
      shopifyHeaders,
      { event_name: 'purchase', value: 199, currency: 'USD', external_id: '1073339474' },
    ),
    // An order after a refund: its total as bought (598.94), not what is left (199.65).
    example(
      'shopify',
      'an order partly refunded, with a discount code',
      file('shopify/order-partially-refunded.json'),
      shopifyHeaders,
      {
        event_name: 'purchase',
        value: 598.94,
        currency: 'USD',
        transaction_id: '#1001',
        external_id: '207119551',
      },
    ),
    example(
      'shopify',
      'orders/create with a discount code',
      file('shopify/order-created-with-discount.json'),
      shopifyHeaders,
      { event_name: 'purchase', value: 181.09, currency: 'USD', external_id: '1073339475' },
    ),
    example(
      'shopify',
      'orders/create, three items, no customer',
      file('shopify/order-created-three-items.json'),
      shopifyHeaders,
      {
        event_name: 'purchase',
        value: 270.37,
        currency: 'USD',
      },
    ),
    example('woocommerce', 'order.created, a guest', file('woocommerce/order.json'), signed('woocommerce'), {
      event_name: 'purchase',
      value: 29.35,
      currency: 'USD',
      transaction_id: '727',
    }),
    example(
      'woocommerce',
      'an order of a registered customer',
      file('woocommerce/order-registered-customer.json'),
      signed('woocommerce'),
      { event_name: 'purchase', value: 39, currency: 'USD', transaction_id: '723', external_id: '26' },
    ),
    example('hubspot', 'contact.creation', file('hubspot/contact-creation.json'), signed('hubspot'), {
      event_name: 'lead',
      external_id: '123',
    }),
    example('typeform', 'form_response', file('typeform/form-response.json'), signed('typeform'), {
      event_name: 'lead',
    }),
    example('calendly', 'invitee.created', file('calendly/invitee-created.json'), signed('calendly'), {
      event_name: 'lead',
    }),
    example(
      'mailchimp',
      'subscribe (a form post)',
      file('mailchimp/subscribe.form'),
      none,
      { event_name: 'lead' },
      'application/x-www-form-urlencoded',
    ),
    example('meta-capi', 'PageView (the SDK’s example)', file('meta-capi/sdk-pageview.json'), none, {
      event_name: 'page_view',
    }),
    // Meta's example names no order id, which a purchase needs: its own server is told why.
    example(
      'meta-capi',
      'Purchase (the gateway page’s example)',
      file('meta-capi/gateway-purchase.txt').replace(/<Unix timestamp[^>]*>/, '1700000000'),
      none,
      { refused: /rows\[0\]\.transaction_id.*is required/ },
    ),
    example(
      'segment',
      'Order Completed (the e-commerce spec’s properties)',
      JSON.stringify({
        type: 'track',
        event: 'Order Completed',
        messageId: 'vendor-example-order-completed',
        anonymousId: 'anon-1',
        properties: json('segment/order-completed-properties.json'),
      }),
      none,
      { event_name: 'purchase', value: 25, currency: 'USD' },
    ),
  ];
}

/** Every example, by source. */
export const VENDOR_EXAMPLES: readonly VendorExample[] = [
  ...githubExamples(),
  ...paddleExamples(),
  ...stripeExamples(),
  ...otherExamples(),
];
