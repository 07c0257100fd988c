/**
 * Catalogue sources routed by the vendor's topic header (issue 80): Shopify's `X-Shopify-Topic`
 * and WooCommerce's `X-WC-Webhook-Topic`, through the gateway as `eventbus source add` makes the
 * translators, each delivery signed under the test secret. A checkout is a `begin_checkout`, an
 * order a `purchase`, and the two never share an event id (even where the checkout's numeric id
 * is the order's); a redelivered order folds, a checkout's update keeps its id; another topic is kept as not
 * mapped with its topic named, nothing published as an event; a body without the header is an
 * order, as the sources' docs say.
 */
import assert from 'node:assert/strict';
import { iso, json, shopifyTopicHeaders, signed } from '../support/source-cases.ts';
import { startCatalogueGateway } from './catalogue-gateway.ts';
import { type FakePublisher, post, type TestGateway } from './support.ts';

interface Published {
  event_name?: string;
  event_id?: string;
  user?: { email?: string; external_id?: string };
  event_data?: Record<string, unknown>;
  invalid_call?: unknown;
}

interface Answer {
  messageIds: (string | null)[];
  invalidRows?: number;
  violations?: { field: string; description: string }[];
}

describe('gateway: catalogue sources routed by the vendor’s topic header', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  before(async () => {
    ({ g, pub } = await startCatalogueGateway({ consent: ['ads', 'analytics'] }));
  });
  after(() => g.close());

  /** Posts a signed body with its headers; the answer and what was published. */
  const deliver = async (
    source: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<{ answer: Answer; published: Published[] }> => {
    const before = pub.calls.length;
    const a = await post(
      `${g.url}/v1/translators/${source}`,
      body,
      { 'content-type': 'application/json', ...headers },
      true,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const published = pub.calls
      .slice(before)
      .flatMap((call) => call.messages.map((m) => JSON.parse(m.data.toString()) as Published));
    return { answer: a.body as Answer, published };
  };

  const now = () => iso(Math.floor(Date.now() / 1000));
  const shopify = async (topic: string | undefined, body: string) =>
    deliver('shopify', body, await shopifyTopicHeaders(topic)(body));
  const checkout = (change: Record<string, unknown> = {}) =>
    JSON.stringify({ ...json('shopify/checkout-created.synthetic.json'), created_at: now(), ...change });
  const order = (change: Record<string, unknown> = {}) =>
    JSON.stringify({ ...json('shopify/order-created-with-customer.json'), processed_at: now(), ...change });

  it('Shopify checkouts/create is a begin_checkout with the checkout’s total, items and buyer', async () => {
    const { published } = await shopify('checkouts/create', checkout());
    assert.equal(published.length, 1);
    const e = published[0];
    assert.equal(e?.event_name, 'begin_checkout');
    assert.equal(e?.event_id, '0a6c1c5d0f8e4bb7a2f8a4a1d2c3b4e5', 'the checkout’s token');
    assert.equal(e?.event_data?.['value'], 199);
    assert.equal(e?.event_data?.['currency'], 'USD');
    assert.equal(e?.event_data?.['webhook'], 'checkouts/create');
    assert.equal(e?.event_data?.['transaction_id'], undefined, 'a checkout is no transaction');
    assert.deepEqual(e?.event_data?.['items'], [
      {
        item_id: '921728736',
        item_name: 'IPod Touch 8GB',
        item_variant: 'Black',
        item_brand: 'Apple',
        price: 199,
        quantity: 1,
      },
    ]);
    assert.equal(e?.user?.email, 'jane@example.com');
    assert.equal(e?.user?.external_id, '1073339474');
  });

  it('a checkouts/update keeps the checkout’s event id; the order it becomes never shares it', async () => {
    const first = (await shopify('checkouts/create', checkout())).published[0];
    const update = (await shopify('checkouts/update', checkout({ updated_at: now(), phone: '+15555555555' })))
      .published[0];
    assert.equal(update?.event_name, 'begin_checkout');
    assert.equal(update?.event_id, first?.event_id, 'the checkout’s own id');
    // The order's numeric id is the checkout's (the fixture's on purpose), with and without its
    // GraphQL id: the order's event id is its key's digest, never the checkout's token or id.
    const withGid = (await shopify('orders/create', order())).published[0];
    const { admin_graphql_api_id: _gid, ...bare } = json('shopify/order-created-with-customer.json');
    const numeric = (await shopify('orders/create', JSON.stringify({ ...bare, processed_at: now() })))
      .published[0];
    const { token: _token, ...noToken } = json('shopify/checkout-created.synthetic.json');
    const byId = (await shopify('checkouts/create', JSON.stringify({ ...noToken, created_at: now() })))
      .published[0];
    assert.equal(withGid?.event_name, 'purchase');
    assert.equal(numeric?.event_name, 'purchase');
    assert.equal(byId?.event_name, 'begin_checkout');
    assert.equal(byId?.event_id, '1073459980', 'a checkout without a token: its own id');
    const ids = [first?.event_id, withGid?.event_id, numeric?.event_id, byId?.event_id];
    assert.equal(new Set(ids).size, 4, JSON.stringify(ids));
  });

  it('Shopify orders/create is a purchase, and a redelivered order folds', async () => {
    const body = order();
    const a = (await shopify('orders/create', body)).published[0];
    const again = (await shopify('orders/create', body)).published[0];
    assert.equal(a?.event_name, 'purchase');
    assert.equal(a?.event_data?.['transaction_id'], '#1002');
    assert.equal(a?.event_data?.['value'], 199);
    assert.equal(a?.event_data?.['webhook'], 'orders/create');
    assert.equal(again?.event_id, a?.event_id);
  });

  it('another Shopify topic is kept as not mapped, its topic named; no purchase', async () => {
    for (const topic of ['orders/updated', 'refunds/create']) {
      const { answer, published } = await shopify(topic, order());
      assert.deepEqual(answer.messageIds, [null], topic);
      assert.equal(answer.invalidRows, 1, topic);
      assert.deepEqual(
        answer.violations?.map((v) => [v.field, v.description]),
        [
          [
            'rows[0].event_name',
            `${topic} is not among the events of translator shopify (its spec's \`events\`)`,
          ],
        ],
        topic,
      );
      assert.equal(published.length, 1, topic);
      assert.ok(published[0]?.invalid_call, `${topic}: kept as the call as sent`);
      assert.equal(published[0]?.event_name, undefined, topic);
    }
  });

  it('a Shopify order posted without X-Shopify-Topic is a purchase, as before', async () => {
    const { published } = await shopify(undefined, order());
    assert.equal(published[0]?.event_name, 'purchase');
    assert.equal(published[0]?.event_data?.['webhook'], undefined);
  });

  const woo = async (topic: string | undefined) => {
    const body = JSON.stringify({ ...json('woocommerce/order.json'), date_created_gmt: now().slice(0, 19) });
    const url = `${g.url}/v1/translators/woocommerce`;
    const sig = await signed('woocommerce')(body, url, Math.floor(Date.now() / 1000));
    return deliver('woocommerce', body, { ...sig, ...(topic ? { 'x-wc-webhook-topic': topic } : {}) });
  };

  it('WooCommerce order.created is a purchase; order.updated is kept as not mapped; no header is an order', async () => {
    const created = (await woo('order.created')).published[0];
    assert.equal(created?.event_name, 'purchase');
    assert.equal(created?.event_data?.['value'], 29.35);
    assert.equal(created?.event_data?.['webhook'], 'order.created');
    const updated = await woo('order.updated');
    assert.deepEqual(updated.answer.messageIds, [null]);
    assert.match(
      updated.answer.violations?.[0]?.description ?? '',
      /^order\.updated is not among the events of translator woocommerce/,
    );
    assert.ok(updated.published[0]?.invalid_call);
    const bare = (await woo(undefined)).published[0];
    assert.equal(bare?.event_name, 'purchase');
    assert.equal(bare?.event_id, created?.event_id, 'the same order folds');
  });
});
