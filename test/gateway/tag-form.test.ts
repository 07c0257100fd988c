/**
 * The tag's form of the plain route, `POST /v1/topics/events?tag=1` (gateway/envelope.ts,
 * core/translate/traits.ts; docs/gateway.md): a batch with refused events publishes the valid ones and
 * keeps the refused ones, with their reasons, for invalid_events in the same Publish call, and
 * answers 200 naming them; an event refused for its time alone takes the time it was received;
 * each event's traits are split into its `user` group. Without `tag=1` the route's contract is
 * unchanged: one refused event refuses the request.
 */
import assert from 'node:assert/strict';
import { plan } from '../../core/plan.ts';
import { messageRows, storeConfig } from '../../core/store/store.ts';
import { baseSettings, FakePublisher, ORIGIN, post, startTestGateway, type TestGateway } from './support.ts';

describe('gateway: the tag’s form (tag=1)', () => {
  const pub = new FakePublisher();
  let g: TestGateway;
  const NOW = Date.parse('2026-06-01T12:00:00.000Z');
  before(async () => {
    g = await startTestGateway({ publisher: pub, clock: () => NOW });
  });
  after(() => g.close());
  beforeEach(() => {
    pub.calls.length = 0;
  });

  const send = (body: unknown, query = 'tag=1') =>
    post(`${g.url}/v1/topics/events?${query}&key=${encodeURIComponent(g.key)}`, body, {
      'content-type': 'text/plain',
      origin: ORIGIN,
    });
  const data = (i: number) => JSON.parse(pub.calls[0]?.messages[i]?.data.toString() ?? 'null');
  const mixed = [
    { event_name: 'search', event_id: 'e1', search_term: 'shoes' },
    { event_name: 'view_content', event_id: 'e2', content_type: 'product' },
    { event_name: 'contact_us', event_id: 'e3' },
  ];

  it('publishes the valid events and keeps a refused one for invalid_events, answering 200 with its reasons', async () => {
    const a = await send(mixed);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const body = a.body as {
      messageIds: (string | null)[];
      invalidRows: number;
      violations: { field: string }[];
    };
    assert.equal(body.messageIds[1], null);
    assert.ok(body.messageIds[0] && body.messageIds[2]);
    assert.equal(body.invalidRows, 1);
    assert.deepEqual(
      body.violations.map((v) => v.field),
      ['[1].content_name'],
    );
    // One Publish call: the 200 says every event is durable, valid or not.
    assert.equal(pub.calls.length, 1);
    const messages = pub.calls[0]?.messages ?? [];
    assert.equal(messages.length, 3);
    assert.deepEqual([data(0).event_name, data(1).event_name], ['search', 'contact_us']);
    assert.deepEqual(data(2), { invalid_call: mixed[1] });
    assert.equal(messages[2]?.attributes['sender'], 'browser');
    // The store keeps it in invalid_events with the event's own reason.
    const settings = baseSettings();
    const rows = messageRows(
      {
        messageId: '9',
        publishTime: '2026-06-01T12:00:00.000Z',
        attributes: messages[2]?.attributes ?? {},
        data: messages[2]?.data ?? Buffer.alloc(0),
        subscription: 'events-store',
        deliveryAttempt: 1,
      },
      storeConfig(settings, plan(settings)),
      NOW,
    );
    assert.equal(rows.kind, 'invalid');
    const json = (rows as { row: { json: Record<string, unknown> } }).row.json;
    assert.deepEqual(json['errors'], [{ path: 'content_name', message: 'is required' }]);
    // Named by the event inside, not the wrapper.
    assert.deepEqual([json['event_id'], json['event_name']], ['e2', 'view_content']);
  });

  it('leaves the plain form’s contract as it was without tag=1: one refused event refuses the request', async () => {
    const a = await send(mixed, 'x=1');
    assert.equal(a.status, 400);
    assert.equal(pub.calls.length, 0);
  });

  it('keeps a batch whose every event is refused, setting no cookie; the Pub/Sub form ignores tag=1', async () => {
    const bad = {
      event_name: 'view_content',
      event_id: 'b1',
      anonymous_id: 'a1',
      consent: { analytics: 'granted' },
    };
    // The same event, valid: its answer sets the id.
    const good = await send([{ ...bad, event_id: 'g1', content_name: 'Shoe', content_type: 'product' }]);
    assert.match(good.headers.get('set-cookie') ?? '', /^eventbus_anonymous_id=a1;/);
    pub.calls.length = 0;
    const a = await send([bad, { ...bad, event_id: 'b2' }]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual((a.body as { messageIds: unknown[] }).messageIds, [null, null]);
    assert.equal(pub.calls[0]?.messages.length, 2);
    assert.equal(a.headers.get('set-cookie'), null);
    pub.calls.length = 0;
    const native = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish?tag=1&key=${encodeURIComponent(g.key)}`,
      bad,
      { 'content-type': 'text/plain', origin: ORIGIN },
    );
    assert.equal(native.status, 400);
    assert.match(JSON.stringify(native.body.error?.details), /"reason":"INVALID_EVENT"/);
    assert.equal(pub.calls.length, 0);
  });

  it('takes an event refused for its time alone with the time it was received', async () => {
    const late = { event_name: 'contact_us', event_id: 'e4', event_time: '2001-01-01T00:00:00Z' };
    assert.equal((await send([late], 'x=1')).status, 400);
    const a = await send([late, { ...late, event_id: 'e5', event_name: 'view_content', event_time: 'soon' }]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(data(0).event_time, '2026-06-01T12:00:00.000Z');
    // Refused for more than its time: kept aside, its time with it.
    assert.equal(data(1).invalid_call.event_time, 'soon');
    // A single event, not a batch: the same relief.
    pub.calls.length = 0;
    const one = await send({ ...late, event_id: 'e6' });
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.ok((one.body as { messageIds: unknown[] }).messageIds[0]);
    assert.equal(data(0).event_time, '2026-06-01T12:00:00.000Z');
  });

  it('splits each event’s traits into its user group, an identify’s other traits kept as its data', async () => {
    const traits = { email: 'ann@example.com', firstName: 'Ann', plan: 'gold', birthday: 'March 3' };
    const a = await send([
      { event_name: 'identify', event_id: 'i1', user_id: 'u1', traits, event_data: { ...traits } },
      { event_name: 'contact_us', event_id: 'c1', traits },
      { event_name: 'contact_us', event_id: 'c2', traits: { plan: 'gold' } },
    ]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(data(0).user, { email: 'ann@example.com', first_name: 'Ann' });
    assert.deepEqual(data(0).event_data, { plan: 'gold', birthday: 'March 3' });
    assert.deepEqual(data(1).user, { email: 'ann@example.com', first_name: 'Ann' });
    assert.deepEqual(data(1).event_data, {});
    assert.equal(data(2).user, undefined);
    assert.equal(data(2).traits, undefined);
  });

  it('refuses the request whole when a refused event is over the per-event limit, as for a valid one', async () => {
    const big = { event_name: 'view_content', event_id: 'big', note: 'x'.repeat(1_048_577) };
    const a = await send([mixed[0], big]);
    assert.equal(a.status, 413, JSON.stringify(a.body).slice(0, 300));
    assert.match(JSON.stringify(a.body.error?.details), /"reason":"EVENT_TOO_LARGE"/);
    assert.equal(pub.calls.length, 0, 'nothing published');
    // Just under the limit, it is kept for invalid_events.
    const json = JSON.stringify(big);
    const under = { ...big, note: 'x'.repeat(1_048_576 - (json.length - 1_048_577)) };
    assert.equal(Buffer.byteLength(JSON.stringify(under)), 1_048_576);
    const b = await send([mixed[0], under]);
    assert.equal(b.status, 200, JSON.stringify(b.body).slice(0, 300));
    assert.equal(pub.calls[0]?.messages.length, 2);
  });

  it('refuses, with tag=1, only the events outside a write key’s list, valid or not; without it the batch', async () => {
    const key = await g.mintKey({ events: ['search', 'view_content'] });
    const sendAs = (body: unknown, query: string) =>
      post(`${g.url}/v1/topics/events?${query}&key=${encodeURIComponent(key)}`, body, {
        'content-type': 'text/plain',
        origin: ORIGIN,
      });
    const batch = [...mixed, { event_name: 'contact_us', event_id: 'e4', content_name: { any: 'json' } }];
    const a = await sendAs(batch, 'tag=1');
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const body = a.body as {
      messageIds: (string | null)[];
      violations: { field: string; description: string }[];
    };
    assert.ok(body.messageIds[0]);
    assert.deepEqual(body.messageIds.slice(1), [null, null, null]);
    assert.deepEqual(
      body.violations.map((v) => v.field),
      ['[1].content_name', '[2].event_name', '[3].event_name'],
    );
    assert.match(body.violations[1]?.description ?? '', /^contact_us is not among the events of write key /);
    const messages = pub.calls[0]?.messages ?? [];
    assert.equal(messages.length, 4);
    assert.deepEqual(data(2), { invalid_call: mixed[2] });
    assert.match(messages[3]?.attributes['invalid'] ?? '', /^event_name: contact_us is not among/);
    // Without tag=1 the route's contract stands: one event outside the list refuses the batch.
    pub.calls.length = 0;
    const plain = await sendAs([mixed[0], mixed[2]], 'x=1');
    assert.equal(plain.status, 403);
    assert.equal(pub.calls.length, 0);
  });

  it('keeps a refused event under the warehouse’s PII policy, its traits included', async () => {
    const email = 'ann@example.com';
    const a = await send([{ event_name: 'view_content', event_id: 'p1', traits: { email, plan: 'gold' } }]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const m = pub.calls[0]?.messages[0];
    assert.ok(m && JSON.stringify(data(0)).includes(email), 'published as sent');
    const settings = baseSettings({ pii: { hash_in_warehouse: ['user.email'] } });
    const rows = messageRows(
      {
        messageId: '10',
        publishTime: '2026-06-01T12:00:00.000Z',
        attributes: m.attributes,
        data: m.data,
        subscription: 'events-store',
        deliveryAttempt: 1,
      },
      storeConfig(settings, plan(settings)),
      NOW,
    );
    const json = (rows as { row: { json: Record<string, unknown> } }).row.json;
    assert.equal(rows.kind, 'invalid');
    assert.ok(!String(json['payload']).includes(email), String(json['payload']));
    assert.match(String(json['payload']), /"plan":"gold"/);
  });
});
