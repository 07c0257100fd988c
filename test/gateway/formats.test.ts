/**
 * Formats and transforms real senders need (docs/translators.md), each through the translator
 * endpoint on a loopback port: a form post with bracketed keys (nesting capped), JSON held in a
 * form field, gzip and deflate bodies (a small gzip that inflates past the cap is 413), a base64
 * field, amounts in minor units scaled by the currency's ISO 4217 exponent (JPY 0, EUR 2, KWD
 * 3), a list index in a source (`em.0`), and types converted inside `each`.
 */
import assert from 'node:assert/strict';
import { deflateSync, gzipSync } from 'node:zlib';
import {
  FakePublisher,
  fixedTranslators,
  post,
  reasonOf,
  startTestGateway,
  type TestGateway,
} from './support.ts';

const TRANSLATORS = {
  // Mailchimp's webhook: a form post, fields nested by brackets.
  mailchimp: {
    event: 'lead',
    format: { type: 'form', max_depth: 3 },
    fields: [
      { target: 'user.email', source: 'data.email' },
      { target: 'user.first_name', source: 'data.merges.FNAME' },
      { target: 'tags', source: 'data.tags' },
    ],
  },
  // Unbounce: form fields, and every field again as JSON in `data.json` (values are lists).
  unbounce: {
    event: 'lead',
    format: { type: 'form' },
    fields: [
      { target: 'user.email', source: 'data.json', transforms: ['json', { path: 'email.0' }] },
      { target: 'page.url', source: 'page_url' },
    ],
  },
  // A Snowplow-like self-describing event: base64url JSON in a field.
  snowplow: {
    event: 'view_content',
    format: { type: 'json' },
    fields: [
      { target: 'content_id', source: 'ue_px', transforms: ['base64', 'json', { path: 'data.data.sku' }] },
      { target: 'content_name', source: 'ue_px', transforms: ['base64', 'json', { path: 'data.data.name' }] },
      { target: 'content_type', value: 'product' },
    ],
  },
  // Stripe: amounts in the currency's smallest unit.
  stripe: {
    event: 'purchase',
    format: { type: 'json' },
    fields: [
      { target: 'transaction_id', source: 'id' },
      { target: 'value', source: 'amount', transforms: [{ major_units: { source: 'currency' } }] },
      { target: 'currency', source: 'currency', transforms: ['uppercase'] },
    ],
  },
  // Meta's Conversions API user_data: pre-hashed values in lists.
  capi: {
    event: 'lead',
    format: { type: 'json', records: 'data' },
    fields: [
      { target: 'user.email', source: 'user_data.em.0' },
      { target: 'user.phone', source: 'user_data.ph.0' },
    ],
  },
  // Shopify's order: line items with prices and quantities as text.
  shopify: {
    event: 'purchase',
    format: { type: 'json' },
    fields: [
      { target: 'transaction_id', source: 'id', transforms: ['string'] },
      { target: 'value', source: 'total_price', transforms: ['number'] },
      { target: 'currency', source: 'currency' },
      {
        target: 'items',
        source: 'line_items',
        transforms: [
          {
            each: {
              item_id: { source: 'product_id', transforms: ['string'] },
              item_name: 'title',
              price: { source: 'price', transforms: ['number'] },
              quantity: { source: 'quantity', transforms: ['integer'] },
            },
          },
        ],
      },
    ],
  },
  csv: {
    event: 'lead',
    format: { type: 'csv' },
    fields: [{ target: 'user.email', source: 'email' }],
  },
};

describe('gateway: formats and transforms of real senders', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let auth: Record<string, string>;
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub, translators: fixedTranslators(TRANSLATORS) });
    auth = { authorization: `Bearer ${await g.mint(['translate:*'])}` };
  });
  afterEach(() => g.close());

  const url = (name: string) => `${g.url}/v1/translators/${name}`;
  const sent = (i = 0) => JSON.parse(pub.calls.at(-1)?.messages[i]?.data.toString() ?? '{}');
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  it('reads a form post with bracketed keys; nesting past max_depth is refused', async () => {
    const body =
      'type=subscribe&fired_at=2026-11-23+10%3A00%3A00&data%5Bemail%5D=ann%40example.com&data[merges][FNAME]=Ann&data[tags][]=a&data[tags][]=b';
    const a = await post(url('mailchimp'), body, { ...auth, ...form }, true);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const e = sent();
    assert.equal(e.user.email, 'ann@example.com');
    assert.equal(e.user.first_name, 'Ann');
    assert.deepEqual(e.event_data.tags, ['a', 'b']);
    const deep = await post(url('mailchimp'), 'data[a][b][c][d]=1', { ...auth, ...form }, true);
    assert.equal(deep.status, 400);
    assert.equal(reasonOf(deep), 'UNREADABLE_PAYLOAD');
    assert.match(JSON.stringify(deep.body.error?.details), /nests 4 levels deep; at most 3/);
  });

  it('reads JSON held in a form field, and indexes into its list', async () => {
    const json = JSON.stringify({ email: ['ann@example.com'], name: ['Ann'] });
    const body = `page_url=https%3A%2F%2Fshop.example%2Foffer&email=ann%40example.com&data.json=${encodeURIComponent(json)}`;
    const a = await post(url('unbounce'), body, { ...auth, ...form }, true);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(sent().user.email, 'ann@example.com');
    assert.equal(sent().page.url, 'https://shop.example/offer');
  });

  it('inflates gzip and deflate bodies; a 1 MB gzip that inflates past the cap is 413', async () => {
    const csv = 'email\nann@example.com\n';
    const gz = await post(
      url('csv'),
      gzipSync(csv),
      { ...auth, 'content-type': 'text/csv', 'content-encoding': 'gzip' },
      true,
    );
    assert.equal(gz.status, 200, JSON.stringify(gz.body));
    const df = await post(
      url('csv'),
      deflateSync(csv),
      { ...auth, 'content-type': 'text/csv', 'content-encoding': 'deflate' },
      true,
    );
    assert.equal(df.status, 200, JSON.stringify(df.body));
    // 100 gzip members of 10 MB of zeros each: about 1 MB on the wire, 1 GB inflated.
    const member = gzipSync(Buffer.alloc(10_000_000));
    const bomb = Buffer.concat(Array.from({ length: Math.ceil(1_000_000 / member.length) }, () => member));
    assert.ok(bomb.length >= 1_000_000 && bomb.length < 1_100_000);
    const a = await post(
      url('csv'),
      bomb,
      { ...auth, 'content-type': 'text/csv', 'content-encoding': 'gzip' },
      true,
    );
    assert.equal(a.status, 413);
    assert.equal(pub.published, 2);
  });

  it('decodes base64 (URL-safe) holding JSON', async () => {
    const ue = Buffer.from(JSON.stringify({ data: { data: { sku: 'SKU-1', name: 'Shoe' } } })).toString(
      'base64url',
    );
    const a = await post(url('snowplow'), { e: 'ue', ue_px: ue }, auth);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual([sent().event_data.content_id, sent().event_data.content_name], ['SKU-1', 'Shoe']);
    const bad = await post(url('snowplow'), { ue_px: '***' }, auth);
    assert.equal(bad.status, 400);
  });

  it('scales minor units by the ISO 4217 exponent: JPY 0, EUR 2, KWD 3', async () => {
    for (const [currency, amount, value] of [
      ['jpy', 1500, 1500],
      ['eur', 1999, 19.99],
      ['kwd', 1500, 1.5],
    ] as const) {
      const a = await post(url('stripe'), { id: `ch_${currency}`, amount, currency }, auth);
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(sent().event_data.value, value, currency);
    }
    const unknown = await post(url('stripe'), { id: 'ch_x', amount: 100, currency: 'euro' }, auth);
    assert.equal(unknown.status, 400);
  });

  it('indexes into lists in a source path (em.0, ph.0)', async () => {
    const em = 'a'.repeat(64);
    const a = await post(
      url('capi'),
      { data: [{ user_data: { em: [em, 'b'.repeat(64)], ph: ['c'.repeat(64)] } }] },
      auth,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(sent().user.email, em);
    assert.equal(sent().user.phone, 'c'.repeat(64));
  });

  it('converts types inside each: text prices and quantities of line items', async () => {
    const a = await post(
      url('shopify'),
      {
        id: 450789469,
        total_price: '30.00',
        currency: 'EUR',
        line_items: [{ product_id: 632910392, title: 'IPod Nano', price: '15.00', quantity: '2' }],
      },
      auth,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(sent().event_data.items, [
      { item_id: '632910392', item_name: 'IPod Nano', price: 15, quantity: 2 },
    ]);
    const bad = await post(
      url('shopify'),
      { id: 1, total_price: '1', currency: 'EUR', line_items: [{ product_id: 1, price: 'lots' }] },
      auth,
    );
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /price: expected a number/);
  });
});
