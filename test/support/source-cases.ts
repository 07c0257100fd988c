/**
 * The source catalogue's samples as each vendor sends them (test/fixtures/sources/SOURCES.md
 * says where each comes from), shared by the gateway test and the end-to-end walk: the body,
 * its content type, the vendor's signature made with a test secret (Stripe's and GitHub's by
 * their own SDKs; the other schemes by core/translate/signatures.ts, which
 * test/gateway/signatures.test.ts checks against the vendors' SDKs), and what must come out.
 * The one change made to a recorded sample is its time, moved to a minute ago, because Meta
 * takes events of the last 7 days and GA4 of the last 72 hours; where a case adds a field (a GA4
 * client id in Stripe's metadata, a JPY amount) it says so in its name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sign as githubSign } from '@octokit/webhooks-methods';
import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import { Analytics } from '@segment/analytics-node';
import Stripe from 'stripe';
import { signRequest } from '../../core/translate/signatures.ts';
import type { TranslatorSignature } from '../../schemas/translator.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/sources');
const EXAMPLES = join(import.meta.dirname, '../../examples/translators/samples');

/** The test secret of every signing source (never a real one). */
export const TEST_SECRET = 'source_catalogue_test_secret_only';

/** How a case's request proves itself. */
export type CaseAuth = 'signature' | 'url_token' | 'token';

/** One sample sent as its vendor sends it, and what the bus must make of it. */
export interface SourceCase {
  readonly title: string;
  readonly source: string;
  /** Real (from a named public origin) or made here from the vendor's documented fields. */
  readonly provenance: 'real' | 'synthetic';
  readonly contentType: string;
  /** The body as sent, its times made recent from `now` (seconds). */
  body(now: number): string;
  /** The headers the vendor adds (its signature), for the URL it posts to. */
  headers(body: string, url: string, now: number): Promise<Record<string, string>>;
  /**
   * Where the vendor's own library sends the sample (Segment's): it is given the gateway and a
   * token, as a user configures it, and sends the body it builds; `body` and `headers` are unused.
   */
  readonly library?: (gateway: string, token: string) => Promise<void>;
  readonly expect: {
    readonly event_name: string;
    readonly event_id?: string;
    readonly value?: number;
    readonly currency?: string;
    /** The GA4 client id the event carries, or undefined: GA4 skips it, saying why. */
    readonly ga4_client_id?: string;
    /** No client id but a user_id: GA4 is sent one derived from it (docs/linkage.md), not skipped. */
    readonly ga4_derived?: true;
    /** Why Meta refuses the event, where the payload cannot give what Meta needs. */
    readonly meta_refusal?: RegExp;
  };
}

const json = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown>;
const example = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as Record<string, unknown>;
const iso = (now: number) => new Date((now - 60) * 1000).toISOString();

/** Headers made by our signer for a scheme (the vendor SDKs' check of it: signatures.test.ts). */
const signed =
  (scheme: TranslatorSignature['scheme']) =>
  async (body: string, url: string, now: number): Promise<Record<string, string>> =>
    signRequest(
      { scheme, secrets: ['X'] } as TranslatorSignature,
      TEST_SECRET,
      { method: 'POST', url, body },
      now,
    );

const stripeHeader = async (body: string) => ({
  'stripe-signature': new Stripe('sk_test_placeholder').webhooks.generateTestHeaderString({
    payload: body,
    secret: TEST_SECRET,
  }),
});

const stripeSession = (now: number, change: (o: Record<string, unknown>) => void) => {
  const e = json('stripe/checkout-session-completed.json');
  e['created'] = now - 60;
  change((e['data'] as { object: Record<string, unknown> }).object);
  return JSON.stringify(e);
};

const none = async () => ({});

export const SOURCE_CASES: readonly SourceCase[] = [
  {
    title: 'Stripe checkout.session.completed, a GA4 client id in its metadata',
    source: 'stripe',
    provenance: 'real',
    contentType: 'application/json; charset=utf-8',
    body: (now) =>
      stripeSession(now, (o) => {
        o['metadata'] = { ...(o['metadata'] as object), ga_client_id: '1874934510.1700000001' };
      }),
    headers: stripeHeader,
    expect: {
      event_name: 'purchase',
      event_id: 'evt_00000000000000',
      value: 250,
      currency: 'USD',
      ga4_client_id: '1874934510.1700000001',
    },
  },
  {
    title: 'Stripe checkout.session.completed in JPY (500 yen, no minor unit)',
    source: 'stripe',
    provenance: 'real',
    contentType: 'application/json; charset=utf-8',
    body: (now) =>
      stripeSession(now, (o) => {
        o['currency'] = 'jpy';
        o['amount_total'] = 500;
        o['amount_subtotal'] = 500;
      }).replace('"evt_00000000000000"', '"evt_00000000000000_jpy"'),
    headers: stripeHeader,
    expect: { event_name: 'purchase', event_id: 'evt_00000000000000_jpy', value: 500, currency: 'JPY' },
  },
  {
    title: 'Shopify orders/create',
    source: 'shopify',
    provenance: 'synthetic',
    contentType: 'application/json',
    body: (now) =>
      JSON.stringify({
        ...example('shopify-order-created.json'),
        created_at: iso(now),
        processed_at: iso(now),
      }),
    headers: signed('shopify'),
    expect: { event_name: 'purchase', value: 35, currency: 'EUR' },
  },
  {
    title: 'WooCommerce order.created (the REST order resource)',
    source: 'woocommerce',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) =>
      JSON.stringify({ ...json('woocommerce/order.json'), date_created_gmt: iso(now).slice(0, 19) }),
    headers: signed('woocommerce'),
    expect: { event_name: 'purchase', value: 29.35, currency: 'USD' },
  },
  {
    title: 'HubSpot contact.creation',
    source: 'hubspot',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) =>
      readFileSync(join(FIXTURES, 'hubspot/contact-creation.json'), 'utf8').replace(
        '1564113600000',
        String((now - 60) * 1000),
      ),
    headers: signed('hubspot'),
    expect: { event_name: 'lead', event_id: '1' },
  },
  {
    title: 'Paddle transaction.completed in JPY',
    source: 'paddle',
    provenance: 'synthetic',
    contentType: 'application/json',
    body: (now) =>
      JSON.stringify({ ...json('paddle/transaction-completed.synthetic.json'), occurred_at: iso(now) }),
    headers: signed('paddle'),
    expect: {
      event_name: 'purchase',
      event_id: 'evt_01hv8x2axb33yr5y238zfwcn5p',
      value: 500,
      currency: 'JPY',
      ga4_client_id: '1874934510.1700000002',
    },
  },
  {
    title: 'Typeform form_response',
    source: 'typeform',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) => {
      const e = json('typeform/form-response.json');
      (e['form_response'] as Record<string, unknown>)['submitted_at'] = iso(now).replace(/\.\d+Z$/, 'Z');
      return JSON.stringify(e);
    },
    headers: signed('typeform'),
    expect: { event_name: 'lead', event_id: 'LtWXD3crgy' },
  },
  {
    title: 'Calendly invitee.created',
    source: 'calendly',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) => JSON.stringify({ ...json('calendly/invitee-created.json'), created_at: iso(now) }),
    headers: signed('calendly'),
    expect: { event_name: 'lead' },
  },
  {
    title: 'Mailchimp subscribe (a form post, token in the URL)',
    source: 'mailchimp',
    provenance: 'synthetic',
    contentType: 'application/x-www-form-urlencoded',
    body: (now) =>
      readFileSync(join(EXAMPLES, 'mailchimp-subscribe.form'), 'utf8').replace(
        /fired_at=[^&]*/,
        `fired_at=${encodeURIComponent(iso(now).slice(0, 19).replace('T', ' '))}`,
      ),
    headers: none,
    expect: { event_name: 'lead' },
  },
  {
    title: 'GitHub issues opened',
    source: 'github',
    provenance: 'real',
    contentType: 'application/json',
    body: (now) => {
      const e = json('github/issues-opened.json');
      (e['issue'] as Record<string, unknown>)['updated_at'] = iso(now).replace(/\.\d+Z$/, 'Z');
      return JSON.stringify(e);
    },
    headers: async (body) => ({ 'x-hub-signature-256': await githubSign(TEST_SECRET, body) }),
    expect: { event_name: 'github_event' },
  },
  {
    title: 'Segment track Order Completed',
    source: 'segment',
    provenance: 'synthetic',
    contentType: 'application/json',
    body: (now) => JSON.stringify({ ...example('segment-track.json'), timestamp: iso(now) }),
    headers: none,
    expect: {
      event_name: 'purchase',
      event_id: 'api-1xT9b2mQz',
      value: 25,
      currency: 'EUR',
      ga4_client_id: '507f191e810c19729de860ea',
    },
  },
  {
    title: 'Segment spec’s Order Completed, sent by @segment/analytics-node',
    source: 'segment',
    provenance: 'real',
    contentType: 'application/json',
    body: () => '',
    headers: none,
    library: async (gateway, token) => {
      // The library as shipped, configured with the gateway's host and a token as its write key.
      const analytics = new Analytics({ writeKey: token, host: gateway, flushAt: 1 });
      analytics.track({
        messageId: 'segment-spec-order-completed',
        anonymousId: '23adfd82-aa0f-45a7-a756-24f2a7a4c895',
        event: 'Order Completed',
        properties: json('segment/order-completed-properties.json'),
      });
      await analytics.closeAndFlush();
    },
    expect: {
      event_name: 'purchase',
      event_id: 'segment-spec-order-completed',
      value: 25,
      currency: 'USD',
      ga4_client_id: '23adfd82-aa0f-45a7-a756-24f2a7a4c895',
      // The spec's call is anonymous and a server library adds no IP or user agent: nothing Meta
      // matches people on (docs/sources/segment.md).
      meta_refusal: /user_data is required/,
    },
  },
  {
    title: 'the same Order Completed, sent by @rudderstack/rudder-sdk-node (gzip labelled as a form)',
    source: 'segment',
    provenance: 'real',
    contentType: 'application/json',
    body: () => '',
    headers: none,
    library: async (gateway, token) => {
      const client = new RudderAnalytics(token, { dataPlaneUrl: gateway, logLevel: 'error' });
      // The library keeps a messageId it is given (its track()), though its types do not list one.
      const call = {
        messageId: 'rudderstack-spec-order-completed',
        userId: 'spec-user-1',
        event: 'Order Completed',
        properties: json('segment/order-completed-properties.json'),
      };
      client.track(call as unknown as Parameters<typeof client.track>[0]);
      await client.flush();
    },
    expect: {
      event_name: 'purchase',
      event_id: 'rudderstack-spec-order-completed',
      value: 25,
      currency: 'USD',
      // No anonymousId: GA4's client id is derived from the userId (docs/linkage.md).
      ga4_derived: true,
    },
  },
  {
    title: 'GA4 Measurement Protocol purchase',
    source: 'ga4-mp',
    provenance: 'synthetic',
    contentType: 'application/json',
    body: (now) =>
      JSON.stringify({ ...example('ga4-mp.json'), timestamp_micros: String((now - 60) * 1_000_000) }),
    headers: none,
    expect: {
      event_name: 'purchase',
      value: 30.03,
      currency: 'EUR',
      ga4_client_id: '1874934510.1700000000',
      // Its page_location makes it a website event for Meta, which needs the browser's user agent:
      // a Measurement Protocol body has none (docs/sources/ga4-mp.md).
      meta_refusal: /user_data\.client_user_agent is required for website events/,
    },
  },
  {
    title: 'GA4 Measurement Protocol campaign_details (Google’s sending-events example)',
    source: 'ga4-mp',
    provenance: 'real',
    contentType: 'application/json',
    body: () => readFileSync(join(FIXTURES, 'ga4-mp/campaign-details.json'), 'utf8'),
    headers: none,
    expect: { event_name: 'campaign_details', ga4_client_id: '123456.7654321' },
  },
  {
    title: 'Meta Conversions API Purchase',
    source: 'meta-capi',
    provenance: 'synthetic',
    contentType: 'application/json',
    body: (now) => {
      const e = json('meta-capi/purchase.synthetic.json') as { data: Record<string, unknown>[] };
      for (const d of e.data) d['event_time'] = now - 60;
      return JSON.stringify(e);
    },
    headers: none,
    expect: { event_name: 'purchase', event_id: 'order-4711', value: 42.5, currency: 'EUR' },
  },
  {
    title: 'Snowplow self-describing event (tracker protocol POST)',
    source: 'snowplow',
    provenance: 'real',
    contentType: 'application/json; charset=UTF-8',
    body: () => readFileSync(join(FIXTURES, 'snowplow/viewed-product.json'), 'utf8'),
    headers: none,
    expect: { event_name: 'snowplow_event', event_id: '5a305bf5-32fc-40d9-b0e8-66052f0f2c95' },
  },
];
