/**
 * Segment-compatible ingest (docs/senders.md): Segment's and RudderStack's own Node libraries,
 * as shipped and configured with nothing but the gateway's host and a credential, deliver
 * track, identify, page and batches through /v1/batch to the real Pub/Sub emulator, traits and
 * custom events included; the HTTP API's single-call paths take bodies without `type`; one
 * malformed call of a batch is kept for `invalid_events` (checked through the store's own
 * row builder) while the rest go on.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import { Analytics } from '@segment/analytics-node';
import { parse } from 'yaml';
import { createPublisher, type EventPublisher } from '../../adapters/publisher.ts';
import { plan } from '../../core/plan.ts';
import { messageRows, storeConfig } from '../../core/store/store.ts';
import { type Bus, startBus } from './emulator-support.ts';
import { baseSettings, fixedTranslators, post, startTestGateway, type TestGateway } from './support.ts';

const SEGMENT = parse(
  readFileSync(join(import.meta.dirname, '../../examples/translators/segment-rudderstack.yaml'), 'utf8'),
) as { spec: unknown };

interface Got {
  event: Record<string, unknown>;
  attributes: Record<string, string>;
  data: string;
  messageId: string;
}

describe('gateway: Segment and RudderStack libraries, host changed only', function () {
  this.timeout(30_000);
  let bus: Bus;
  let publisher: EventPublisher;
  let g: TestGateway;
  let token: string;
  before(async () => {
    bus = await startBus('test-project', ['events']);
    publisher = createPublisher({ project: 'test-project', emulatorHost: bus.host, totalTimeoutMs: 5000 });
    g = await startTestGateway({ publisher, translators: fixedTranslators({ segment: SEGMENT.spec }) });
    token = await g.mint(['translate:segment']);
  });
  after(async () => {
    await g.close();
    await publisher.close();
    await bus.close();
  });
  const drain = async (): Promise<Got[]> =>
    (await bus.drain('events')).map((m) => ({ ...m, event: JSON.parse(m.data) as Record<string, unknown> }));
  const byName = (got: Got[], name: string) => got.find((m) => m.event['event_name'] === name)?.event;

  const calls = (lib: {
    track(m: object): unknown;
    identify(m: object): unknown;
    page(m: object): unknown;
  }) => {
    lib.identify({
      userId: 'u-1',
      traits: {
        name: 'Ann Example',
        email: 'ann@example.com',
        plan: 'pro',
        address: { city: 'Berlin', country: 'DE' },
      },
    });
    lib.track({
      userId: 'u-1',
      event: 'Order Completed',
      properties: {
        order_id: 'o-1',
        revenue: 15,
        currency: 'eur',
        products: [{ product_id: 'p-1', name: 'Shoe', price: '15.00', quantity: '1' }],
      },
    });
    lib.track({ userId: 'u-1', event: 'Newsletter Opened', properties: { issue: 42 } });
    lib.page({ userId: 'u-1', name: 'Home', properties: { url: 'https://shop.example/', title: 'Home' } });
  };

  const checkDelivered = (got: Got[]) => {
    assert.equal(got.length, 4, JSON.stringify(got.map((m) => m.event['event_name'])));
    const identified = byName(got, 'user_identified');
    assert.deepEqual((identified?.['user'] as Record<string, unknown>)?.['email'], 'ann@example.com');
    const data = identified?.['event_data'] as Record<string, Record<string, unknown>>;
    assert.equal(data['traits']?.['plan'], 'pro');
    assert.deepEqual(data['traits']?.['address'], { city: 'Berlin', country: 'DE' });
    const purchase = byName(got, 'purchase')?.['event_data'] as Record<string, unknown>;
    assert.equal(purchase['transaction_id'], 'o-1');
    assert.equal(purchase['currency'], 'EUR');
    assert.deepEqual(purchase['items'], [{ item_id: 'p-1', item_name: 'Shoe', price: 15, quantity: 1 }]);
    const custom = byName(got, 'newsletter_opened')?.['event_data'] as Record<string, unknown>;
    assert.deepEqual(custom['properties'], { issue: 42 });
    const page = byName(got, 'page_view');
    assert.equal((page?.['page'] as Record<string, unknown>)?.['url'], 'https://shop.example/');
    for (const m of got) assert.equal(m.attributes['translator'], 'segment');
  };

  it('@segment/analytics-node: Basic auth with the token, /v1/batch, every call stored', async () => {
    const analytics = new Analytics({ writeKey: token, host: g.url });
    const errors: unknown[] = [];
    analytics.on('error', (e) => errors.push(e));
    calls(analytics);
    await analytics.closeAndFlush();
    assert.deepEqual(errors, []);
    checkDelivered(await drain());
  });

  it('@rudderstack/rudder-sdk-node: gzip labelled as a form, Basic auth, every call stored', async () => {
    const client = new RudderAnalytics(token, { dataPlaneUrl: g.url, logLevel: 'error' });
    calls(client);
    await client.flush();
    checkDelivered(await drain());
  });

  it('a refused credential is a 401 to the library (no events)', async () => {
    const analytics = new Analytics({ writeKey: 'not-a-token', host: g.url, maxRetries: 0 });
    const errors: unknown[] = [];
    analytics.on('error', (e) => errors.push(e));
    analytics.track({ userId: 'u', event: 'Signed Up' });
    await analytics.closeAndFlush();
    assert.match(errors.map((e) => String((e as { reason?: unknown }).reason)).join(), /401/);
    assert.deepEqual(await drain(), []);
  });

  it('single-call paths take bodies without `type`; the answer is Segment’s success', async () => {
    const basic = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const a = await post(`${g.url}/v1/identify`, { userId: 'u-2', traits: { plan: 'free' } }, basic);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal((a.body as { success?: boolean }).success, true);
    const g2 = await post(
      `${g.url}/v1/group`,
      { userId: 'u-2', groupId: 'acme', traits: { seats: 3 } },
      basic,
    );
    assert.equal(g2.status, 200);
    const got = await drain();
    assert.deepEqual(
      got.map((m) => m.event['event_name']),
      ['user_identified', 'user_grouped'],
    );
    assert.equal((got[1]?.event['event_data'] as Record<string, unknown> | undefined)?.['group_id'], 'acme');
  });

  it('maps the e-commerce spec: a product event’s one product is its items; other spec events keep their names', async () => {
    const basic = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const track = (event: string, properties: object) =>
      post(`${g.url}/v1/track`, { userId: 'u-4', event, properties }, basic);
    const product = {
      product_id: 507,
      sku: 'G-32',
      name: 'Monopoly',
      price: 18.99,
      quantity: 1,
      currency: 'USD',
    };
    assert.equal((await track('Product Added', product)).status, 200);
    assert.equal((await track('Product Removed', product)).status, 200);
    assert.equal(
      (await track('Item Purchased', { order_id: 'o-9', revenue: 39.95, currency: 'usd' })).status,
      200,
    );
    const got = await drain();
    assert.deepEqual(
      got.map((m) => m.event['event_name']),
      ['add_to_cart', 'product_removed', 'purchase'],
    );
    const item = { item_id: '507', item_name: 'Monopoly', price: 18.99, quantity: 1 };
    assert.deepEqual((got[0]?.event['event_data'] as Record<string, unknown>)?.['items'], [item]);
    assert.deepEqual((got[1]?.event['event_data'] as Record<string, unknown>)?.['items'], [item]);
    assert.equal((got[2]?.event['event_data'] as Record<string, unknown>)?.['value'], 39.95);
  });

  it('keeps Segment’s own Item Purchased example, which names no order or currency, with why (docs/sources/segment.md)', async () => {
    // The track example of Segment's HTTP Tracking API reference, its time made recent (the
    // gateway takes 1826 days back): an `Item Purchased` is a purchase here, and a purchase needs
    // its order id and currency, which the example does not carry.
    const basic = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const example = {
      userId: '019mr8mf4r',
      event: 'Item Purchased',
      properties: { name: 'Leap to Conclusions Mat', revenue: 14.99 },
      context: { ip: '24.5.68.47' },
      timestamp: new Date(Date.now() - 60_000).toISOString(),
    };
    const r = await post(`${g.url}/v1/track`, example, basic);
    assert.equal(r.status, 200, 'answered as Segment answers: a retry would not fix it');
    const answer = r.body as { invalidRows?: number; violations?: { field: string; description: string }[] };
    assert.equal(answer.invalidRows, 1);
    assert.deepEqual(
      answer.violations?.map((v) => `${v.field} ${v.description}`),
      ['rows[0].transaction_id is required', 'rows[0].currency is required'],
    );
    const got = await drain();
    assert.deepEqual(
      got.map((m) => m.event['invalid_call']),
      [example],
      'kept as sent for invalid_events',
    );
    // With an order id and a currency, the same call is a purchase of 14.99.
    const fixed = { ...example, properties: { ...example.properties, order_id: 'o-14', currency: 'USD' } };
    assert.equal((await post(`${g.url}/v1/track`, fixed, basic)).status, 200);
    const purchase = byName(await drain(), 'purchase');
    assert.equal((purchase?.['event_data'] as Record<string, unknown>)?.['value'], 14.99);
  });

  it('one malformed call of a batch goes to invalid_events; the others are stored', async () => {
    const basic = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const a = await post(
      `${g.url}/v1/batch`,
      {
        batch: [
          { type: 'track', userId: 'u-3', event: 'Signed Up', messageId: 'm-1' },
          { type: 'track', userId: 'u-3', event: 'Signed Up', messageId: 'm-2', timestamp: 'yesterday-ish' },
          { type: 'page', userId: 'u-3', messageId: 'm-3', properties: { url: 'https://shop.example/a' } },
        ],
      },
      basic,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.messageIds?.[1], null);
    const got = await drain();
    assert.equal(got.length, 3);
    const settings = baseSettings();
    const config = storeConfig(settings, plan(settings));
    const kinds = got.map(
      (m) =>
        messageRows(
          {
            messageId: m.messageId,
            publishTime: new Date().toISOString(),
            attributes: m.attributes,
            data: Buffer.from(m.data),
            subscription: 'events-store',
            deliveryAttempt: 1,
          },
          config,
          Date.now(),
        ).kind,
    );
    assert.deepEqual(kinds.sort(), ['event', 'event', 'invalid']);
    const invalid = got.find((m) => m.event['invalid_call']);
    assert.equal(
      (invalid?.event['invalid_call'] as Record<string, unknown> | undefined)?.['messageId'],
      'm-2',
    );
    assert.match(invalid?.attributes['invalid'] ?? '', /rows\[1\]\.event_time/);
  });

  it('an invalid call is stored with its real violations in `errors` (a malformed timestamp), not "event_name is required"', async () => {
    const basic = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const a = await post(
      `${g.url}/v1/batch`,
      {
        batch: [
          { type: 'track', userId: 'u-4', event: 'Signed Up', messageId: 'm-9', timestamp: 'yesterday-ish' },
        ],
      },
      basic,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const [m] = await drain();
    assert.ok(m?.event['invalid_call'], JSON.stringify(m?.event));
    const settings = baseSettings();
    const rows = messageRows(
      {
        messageId: m.messageId,
        publishTime: new Date().toISOString(),
        attributes: m.attributes,
        data: Buffer.from(m.data),
        subscription: 'events-store',
        deliveryAttempt: 1,
      },
      storeConfig(settings, plan(settings)),
      Date.now(),
    );
    assert.equal(rows.kind, 'invalid');
    const errors = (rows.kind === 'invalid' ? rows.row.json['errors'] : undefined) as {
      path: string;
      message: string;
    }[];
    assert.deepEqual(
      errors.map((e) => e.path),
      ['event_time'],
    );
    assert.equal(errors[0]?.message, 'does not match any allowed form');
    assert.ok(!errors.some((e) => /event_name/.test(e.path)), JSON.stringify(errors));
  });
});
