/**
 * The shipped webhook translators (examples/translators/stripe-checkout.yaml, shopify-orders.yaml
 * and mailchimp-audience.yaml) through the endpoint, as the vendor sends them: the recorded
 * sample, signed (Stripe's by its own SDK), becomes one valid purchase with its amounts in major
 * units and typed line items, and a redelivery keeps its event id; Mailchimp's form post, with
 * a token in its URL, becomes a lead, after the GET Mailchimp sends to check the URL.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { parse } from 'yaml';
import { signRequest } from '../../core/translate/signatures.ts';
import { translatorViolations } from '../../core/translate/spec.ts';
import { FakePublisher, fixedTranslators, post, startTestGateway, type TestGateway } from './support.ts';

const EXAMPLES = join(import.meta.dirname, '../../examples/translators');
const spec = (file: string) => {
  const doc = parse(readFileSync(join(EXAMPLES, file), 'utf8')) as { name: string; spec: unknown };
  assert.deepEqual(translatorViolations(doc.spec, 'spec'), []);
  return doc;
};
const sample = (file: string) =>
  JSON.parse(readFileSync(join(EXAMPLES, 'samples', file), 'utf8')) as Record<string, unknown>;

const SECRETS: Record<string, string> = {
  'eventbus-translator-stripe': 'whsec_example_for_tests_only',
  'eventbus-translator-shopify': 'shpss_example_for_tests_only',
};

/** The parts of a published event these tests read. */
interface Published {
  event_name: string;
  event_id: string;
  event_time: string;
  user_id?: string;
  user: Record<string, unknown>;
  event_data: Record<string, unknown>;
}

describe('gateway: the shipped webhook translators', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  const stripe = spec('stripe-checkout.yaml');
  const shopify = spec('shopify-orders.yaml');
  const mailchimp = spec('mailchimp-audience.yaml');
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({
      publisher: pub,
      translators: fixedTranslators({
        [stripe.name]: stripe.spec,
        [shopify.name]: shopify.spec,
        [mailchimp.name]: mailchimp.spec,
      }),
      secrets: { get: async (name) => SECRETS[name] },
    });
  });
  afterEach(() => g.close());
  const events = () =>
    pub.calls.flatMap((c) => c.messages.map((m) => JSON.parse(m.data.toString()) as Published));

  it('Stripe checkout.session.completed: a purchase in major units, signed by Stripe’s SDK', async () => {
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ ...sample('stripe-checkout-session-completed.json'), created: now - 5 });
    const header = () =>
      new Stripe('sk_test_placeholder').webhooks.generateTestHeaderString({
        payload: body,
        secret: SECRETS['eventbus-translator-stripe'] as string,
      });
    const url = `${g.url}/v1/translators/stripe-checkout`;
    const a = await post(url, body, { 'stripe-signature': header() }, true);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal((await post(url, body, { 'stripe-signature': header() }, true)).status, 200);
    const [e, again] = events();
    assert.equal(e?.event_id, 'evt_1QxExample0001');
    assert.equal(again?.event_id, e?.event_id);
    assert.equal(e?.event_time, new Date((now - 5) * 1000).toISOString());
    assert.deepEqual(
      [
        e?.event_data.transaction_id,
        e?.event_data.value,
        e?.event_data.currency,
        e?.event_data.tax,
        e?.event_data.shipping,
      ],
      ['cs_test_a1Example0001', 15, 'EUR', 1, 1],
    );
    assert.equal(e?.user.email, 'ana.lima@example.com');
    assert.equal(e?.user_id, 'user-4711');
  });

  it('Shopify orders/create: a purchase with typed line items; a redelivery keeps its event id', async () => {
    const order = sample('shopify-order-created.json');
    const at = new Date(Date.now() - 60_000).toISOString();
    const body = JSON.stringify({ ...order, created_at: at, processed_at: at });
    const headers = signRequest(
      { scheme: 'shopify', secrets: ['eventbus-translator-shopify'] },
      SECRETS['eventbus-translator-shopify'] as string,
      { method: 'POST', url: '', body },
      0,
    );
    const url = `${g.url}/v1/translators/shopify-orders`;
    const a = await post(url, body, headers, true);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal((await post(url, body, headers, true)).status, 200);
    const [e, again] = events();
    assert.equal(again?.event_id, e?.event_id);
    assert.deepEqual(
      [e?.event_data.transaction_id, e?.event_data.value, e?.event_data.currency, e?.event_data.coupon],
      ['#1001', 35, 'EUR', 'AUTUMN'],
    );
    assert.deepEqual(e?.event_data.items, [
      {
        item_id: '8123456789012',
        item_name: 'IPod Nano - 8GB',
        item_variant: 'Pink',
        item_brand: 'Apple',
        price: 15,
        quantity: 2,
      },
      { item_id: '8123456789013', item_name: 'Case', item_brand: 'Acme', price: 0, quantity: 1 },
    ]);
    assert.equal(e?.user.email, 'ana.lima@example.com');
    const unsigned = await post(url, body, {}, true);
    assert.equal(unsigned.status, 401);
  });

  it('Mailchimp: the URL check (GET) and a subscribe form post with the token in the URL', async () => {
    const token = await g.mint(['translate:mailchimp']);
    const url = `${g.url}/v1/translators/mailchimp/${token}`;
    const check = await fetch(url);
    assert.equal(check.status, 200);
    assert.equal((await fetch(`${g.url}/v1/translators/mailchimp/${token.slice(0, -3)}abc`)).status, 401);
    const at = new Date(Date.now() - 60_000).toISOString().slice(0, 19);
    const form = readFileSync(join(EXAMPLES, 'samples', 'mailchimp-subscribe.form'), 'utf8').replace(
      /fired_at=[^&]*/,
      `fired_at=${encodeURIComponent(at.replace('T', ' '))}`,
    );
    const a = await post(url, form, { 'content-type': 'application/x-www-form-urlencoded' }, true);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const [e] = events();
    assert.equal(e?.event_name, 'lead');
    assert.equal(e?.event_time, `${at}.000Z`);
    assert.deepEqual(
      [e?.user.email, e?.user.first_name, e?.user.last_name],
      ['ana.lima@example.com', 'Ana', 'Lima'],
    );
    assert.deepEqual([e?.event_data.lead_type, e?.event_data.list_id], ['newsletter', 'a6b5da1054']);
  });
});
