/**
 * `segment_action` destinations through the forward core (core/delivery/forward.ts) with the
 * driver forward-catalog carries (adapters/segment-actions/driver.ts), against a capturing
 * stand-in on a loopback port reached through `base_url` (every request goes to
 * `<base_url>/<original host><path>`). The requests are checked against what the upstream actions'
 * own tests expect (test/fixtures/segment-action/SOURCES.md): Klaviyo's trackEvent and Slack's
 * postToChannel. A 429 is retried, a 400 or an action's PayloadValidationError is rejected with its
 * message, and a consent-denied event never reaches the driver (the decision layer skips it).
 * Last, the forward-catalog function's handler answers a push 204 or 503 and writes the row.
 */
import assert from 'node:assert/strict';
import { decideOne } from '../../core/decision/decision.ts';
import { forwardPush } from '../../core/delivery/forward.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import { deliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import { createForwardCatalogHandler } from '../../functions/forward-catalog/handler.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { type Captured, deps, klaviyoTrackEvent, push, standIn } from '../support/catalog-delivery.ts';
import { type FrameworkServer, postPush, serveFunction } from '../support/framework-server.ts';

const NOW = new Date('2026-11-24T12:00:00.000Z');

const purchase: StoredEvent = {
  event_name: 'purchase',
  event_id: 'evt-1',
  event_time: '2022-01-01T00:00:00.000Z',
  user_id: 'u-1',
  user: { email: 'test@example.com', phone: '+14155552671' },
  consent: { analytics: 'granted' },
  event_data: { value: 10, currency: 'USD', transaction_id: 'o-1', properties: { key: 'value' } },
};

describe('segment_action destinations through the forward core', () => {
  let stand: Awaited<ReturnType<typeof standIn>>;
  before(async () => {
    stand = await standIn();
  });
  after(() => stand.server.close());
  beforeEach(() => {
    stand.captured.length = 0;
    stand.answers.length = 0;
  });

  const klaviyo = (): Destination =>
    klaviyoTrackEvent(stand.base, {
      profile: {
        email: { '@path': '$.context.traits.email' },
        phone_number: { '@path': '$.context.traits.phone' },
      },
      value: { '@path': '$.properties.total' },
      // Each event alone (Klaviyo's own switch): the batched path has its own tests
      // (segment-action-batch.test.ts).
      enable_batching: false,
    });
  const secrets = { KLAVIYO_KEY: 'fake-api-key' };

  it('klaviyo trackEvent: POSTs the event Klaviyo’s Create Event API takes, with the key, and records it delivered', async () => {
    const result = await forwardPush(push(purchase, 'klaviyo'), deps([klaviyo()], secrets, NOW));
    assert.equal(result.ack, true);
    const row = result.entries[0]?.row;
    assert.equal(row?.status, 'delivered');
    assert.equal(row?.http_status, 200);
    assert.deepEqual(row?.identifiers, ['email', 'phone']);
    assert.equal(stand.captured.length, 1);
    const req = stand.captured[0] as Captured;
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/standin/a.klaviyo.com/api/events/');
    assert.equal(req.headers.authorization, 'Klaviyo-API-Key fake-api-key');
    assert.ok(req.headers.revision, 'the API revision header');
    // The shape of upstream's "should successfully track event" expectation, from our event.
    assert.deepEqual(req.body, {
      data: {
        type: 'event',
        attributes: {
          properties: { key: 'value', value: 10, currency: 'USD', order_id: 'o-1', total: 10, revenue: 10 },
          time: '2022-01-01T00:00:00.000Z',
          value: 10,
          unique_id: 'evt-1',
          metric: { data: { type: 'metric', attributes: { name: 'Order Completed' } } },
          profile: {
            data: {
              type: 'profile',
              attributes: { email: 'test@example.com', phone_number: '+14155552671' },
            },
          },
        },
      },
    });
  });

  it('a 429 from the platform is retried: not acknowledged, a failed row with the status', async () => {
    stand.answers.push({ status: 429, body: { errors: [{ detail: 'throttled' }] } });
    const result = await forwardPush(push(purchase, 'klaviyo'), deps([klaviyo()], secrets, NOW));
    assert.equal(result.ack, false);
    const row = result.entries[0]?.row;
    assert.equal(row?.status, 'failed');
    assert.equal(row?.http_status, 429);
    assert.match(row?.reason ?? '', /^trackEvent: /);
  });

  it('a 5xx is retried, and a refused connection too', async () => {
    stand.answers.push({ status: 503, body: {} });
    const down = await forwardPush(push(purchase, 'klaviyo'), deps([klaviyo()], secrets, NOW));
    assert.equal(down.ack, false);
    assert.equal(down.entries[0]?.row.http_status, 503);
    const nowhere = { ...klaviyo(), base_url: 'http://127.0.0.1:1' };
    const refused = await forwardPush(push(purchase, 'klaviyo'), deps([nowhere], secrets, NOW));
    assert.equal(refused.ack, false);
    assert.equal(refused.entries[0]?.row.status, 'failed');
    assert.match(refused.entries[0]?.row.reason ?? '', /no answer from a\.klaviyo\.com/);
  });

  it('a 400 is rejected with the platform’s message: acknowledged, not sent again', async () => {
    stand.answers.push({ status: 400, body: { errors: [{ detail: 'metric name is too long' }] } });
    const result = await forwardPush(push(purchase, 'klaviyo'), deps([klaviyo()], secrets, NOW));
    assert.equal(result.ack, true);
    const row = result.entries[0]?.row;
    assert.equal(row?.status, 'rejected');
    assert.equal(row?.http_status, 400);
    assert.match(row?.reason ?? '', /Bad Request/);
    assert.match(row?.reason ?? '', /metric name is too long/);
  });

  it('the platform’s answer fills the ledger’s platform columns: status, request, allow-listed body, request id', async () => {
    stand.answers.push({
      status: 400,
      headers: { 'x-request-id': 'req-7f3a' },
      body: {
        errors: [
          {
            code: 'invalid',
            detail: 'test@example.com is not a valid profile',
            source: { pointer: '/data/attributes/profile' },
            meta: { echoed: 'test@example.com' },
          },
        ],
        data: { echoed: 'everything we sent' },
      },
    });
    const rejected = (await forwardPush(push(purchase, 'klaviyo'), deps([klaviyo()], secrets, NOW)))
      .entries[0]?.row;
    assert.equal(rejected?.platform_ref, 'req-7f3a');
    assert.deepEqual(JSON.parse(rejected?.platform_response ?? 'null'), {
      status: 400,
      request: 'POST https://a.klaviyo.com/api/events/',
      body: {
        errors: [
          {
            code: 'invalid',
            detail: '[email] is not a valid profile',
            source: { pointer: '/data/attributes/profile' },
          },
        ],
      },
    });
    // A delivered attempt's answer too, with the count the platform says it took.
    stand.answers.push({ status: 202, body: { events_ingested: 1, requestId: 'amp-1' } });
    const delivered = (await forwardPush(push(purchase, 'klaviyo'), deps([klaviyo()], secrets, NOW)))
      .entries[0]?.row;
    assert.equal(delivered?.status, 'delivered');
    assert.equal(delivered?.platform_ref, 'amp-1');
    assert.equal(delivered?.platform_events_received, 1);
  });

  it("an action's PayloadValidationError (an IntegrationError) is rejected with its message, before any request", async () => {
    const { user_id: _id, user: _user, ...anonymous } = purchase;
    const result = await forwardPush(push(anonymous, 'klaviyo'), deps([klaviyo()], secrets, NOW));
    assert.equal(result.ack, true);
    const row = result.entries[0]?.row;
    assert.equal(row?.status, 'rejected');
    assert.equal(
      row?.reason,
      'trackEvent: One of External ID, Anonymous ID, Phone Number or Email is required.',
    );
    assert.equal(stand.captured.length, 0);
  });

  it('slack postToChannel: POSTs the message upstream’s test expects to the webhook URL, under base_url', async () => {
    const slack: Destination = {
      id: 'slack',
      type: 'segment_action',
      destination: 'slack',
      base_url: stand.base,
      actions: [
        {
          action: 'postToChannel',
          when: ['purchase'],
          mapping: {
            url: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
            text: 'test',
            channel: 'general',
          },
        },
      ],
    };
    const result = await forwardPush(push(purchase, 'slack'), deps([slack], {}, NOW));
    assert.equal(result.entries[0]?.row.status, 'delivered');
    const req = stand.captured[0] as Captured;
    assert.equal(req.path, '/standin/hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX');
    assert.deepEqual(req.body, {
      channel: 'general',
      text: 'test',
      username: 'Segment',
      icon_url: 'https://logo.clearbit.com/segment.com',
    });
  });

  it('an event no action subscribes to is skipped by the decision layer; one that arrives anyway is rejected saying so', async () => {
    const view: StoredEvent = { ...purchase, event_name: 'page_view', event_data: {} };
    const decision = decideOne(klaviyo(), view, { isKnownEvent: () => true });
    assert.equal(decision.action, 'skip');
    assert.match(
      decision.action === 'skip' ? decision.reason : '',
      /no action of klaviyo subscribes to page_view/,
    );
    // A message published before the settings changed, or re-driven, still gets its row.
    const result = await forwardPush(push(view, 'klaviyo'), deps([klaviyo()], secrets, NOW));
    assert.equal(result.entries[0]?.row.status, 'rejected');
    assert.match(result.entries[0]?.row.reason ?? '', /no action of klaviyo takes page_view/);
    assert.equal(stand.captured.length, 0);
  });

  it('a missing secret is retried with the reason, as for every destination', async () => {
    const result = await forwardPush(push(purchase, 'klaviyo'), deps([klaviyo()], {}, NOW));
    assert.equal(result.ack, false);
    assert.match(result.entries[0]?.row.reason ?? '', /secret KLAVIYO_KEY \(api_key\) has no value/);
  });

  it('a consent-denied event is skipped by the decision layer with its reason (analytics by default)', () => {
    const denied: StoredEvent = { ...purchase, consent: { analytics: 'denied' } };
    const decision = decideOne(klaviyo(), denied, { isKnownEvent: () => true });
    assert.equal(decision.action, 'skip');
    assert.match(decision.action === 'skip' ? decision.reason : '', /analytics/);
  });
});

describe('forward-catalog: the function’s handler', () => {
  let stand: Awaited<ReturnType<typeof standIn>>;
  let server: FrameworkServer;
  const rows: LedgerEntry['row'][] = [];
  before(async () => {
    stand = await standIn();
    const settings = {
      project: 'delivery-test',
      name: 'test',
      region: 'europe-west1',
      destinations: [
        {
          id: 'klaviyo',
          type: 'segment_action',
          destination: 'klaviyo',
          base_url: stand.base,
          secrets: { api_key: 'KLAVIYO_KEY' },
          actions: [
            { action: 'trackEvent', mapping: { profile: { email: { '@path': '$.context.traits.email' } } } },
          ],
        },
      ],
    } as unknown as Settings;
    server = await serveFunction(
      'forwardCatalogTest',
      createForwardCatalogHandler({ settings, plan: plan(settings) }, () => ({
        secrets: { get: async () => 'fake-api-key', peek: () => ({ value: 'fake-api-key' }) },
        fetch: globalThis.fetch,
        ledger: {
          write: async (entries) => {
            rows.push(...entries.map((e) => e.row));
            return [];
          },
        },
      })),
    );
  });
  after(() => {
    server?.close();
    stand.server.close();
  });

  const send = (id: string) =>
    postPush(server.url, {
      ...deliveryMessage({ ...purchase, event_id: id }, 'klaviyo'),
      messageId: `m-${id}`,
      subscription: 'projects/delivery-test/subscriptions/deliveries-klaviyo',
    });

  it('answers 204 and writes a delivered row when the action delivered', async () => {
    const res = await send('h-1');
    assert.equal(res.status, 204);
    assert.equal(rows.find((r) => r.event_id === 'h-1')?.status, 'delivered');
    // Klaviyo's trackEvent is batched by default, as Segment sends it: a batch of one here.
    assert.equal(stand.captured.at(-1)?.path, '/standin/a.klaviyo.com/api/event-bulk-create-jobs/');
  });

  it('answers 503 (Pub/Sub redelivers) and writes a failed row on a 429', async () => {
    stand.answers.push({ status: 429, body: {} });
    const res = await send('h-2');
    assert.equal(res.status, 503);
    const row = rows.find((r) => r.event_id === 'h-2');
    assert.equal(row?.status, 'failed');
    assert.equal(row?.http_status, 429);
  });
});
