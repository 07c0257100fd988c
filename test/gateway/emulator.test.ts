import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { createPublisher, type EventPublisher } from '../../adapters/publisher.ts';
import { type Bus, startBus } from './emulator-support.ts';
import { baseSettings, post, startTestGateway, type TestGateway } from './support.ts';

describe('gateway with the real Pub/Sub emulator', () => {
  let bus: Bus;
  let publisher: EventPublisher;
  let g: TestGateway;
  before(async () => {
    bus = await startBus('test-project', ['events', 'backend_events']);
    publisher = createPublisher({ project: 'test-project', emulatorHost: bus.host, totalTimeoutMs: 2000 });
    g = await startTestGateway({ publisher, settings: baseSettings() });
  });
  after(async () => {
    await g.close();
    await publisher.close();
    await bus.close();
  });

  it('answers messageIds only for what the emulator stored, with attributes', async () => {
    const auth = { authorization: `Bearer ${g.token}` };
    const batch = Array.from({ length: 1000 }, (_, i) => ({
      event_name: 'search',
      search_term: `q${i}`,
      user_id: `u${i}`,
    }));
    const a = await post(`${g.url}/v1/topics/events`, batch, auth);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const got = await bus.drain('events');
    assert.equal(got.length, 1000);
    assert.deepEqual(
      got.map((m) => m.messageId),
      a.body.messageIds,
    );
    const first = JSON.parse(got[0]?.data ?? '{}');
    assert.equal(first.event_data.search_term, 'q0');
    assert.equal(got[0]?.attributes['event_id'], first.event_id);
    assert.equal(got[0]?.attributes['schema_version'], '1');
  });

  it('keeps concurrent requests apart: each gets exactly its own ids', async () => {
    const auth = { authorization: `Bearer ${g.token}` };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(`${g.url}/v1/topics/events`, { event_name: 'search', search_term: `c${i}` }, auth),
      ),
    );
    const ids = answers.map((a) => a.body.messageIds ?? []);
    assert.ok(
      ids.every((x) => x.length === 1),
      JSON.stringify(ids),
    );
    const got = await bus.drain('events');
    const byId = new Map(got.map((m) => [m.messageId, JSON.parse(m.data).event_data.search_term]));
    for (const [i, x] of ids.entries()) assert.equal(byId.get(x[0] as string), `c${i}`);
  });

  it('folds an event_id given several times in one request: published once, every copy answered with its id', async () => {
    const auth = { authorization: `Bearer ${g.token}` };
    const same = { event_name: 'search', search_term: 'dup', event_id: 'evt-dup-1' };
    const batch = [same, same, { event_name: 'search', search_term: 'other', event_id: 'evt-2' }, same];
    const a = await post(`${g.url}/v1/topics/events`, batch, auth);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const ids = a.body.messageIds as string[];
    assert.equal(ids.length, 4);
    assert.equal(new Set([ids[0], ids[1], ids[3]]).size, 1);
    assert.notEqual(ids[2], ids[0]);
    const got = await bus.drain('events');
    assert.deepEqual(got.map((m) => m.attributes['event_id']).sort(), ['evt-2', 'evt-dup-1']);
    assert.deepEqual(got.map((m) => m.messageId).sort(), [ids[0], ids[2]].sort());
  });

  it('publishes nothing for a rejected batch', async () => {
    const auth = { authorization: `Bearer ${g.token}` };
    const a = await post(
      `${g.url}/v1/topics/events`,
      [{ event_name: 'search', search_term: 'ok' }, { event_name: 'search' }],
      auth,
    );
    assert.equal(a.status, 400);
    assert.deepEqual(await bus.drain('events'), []);
  });

  it('answers 503 with Retry-After within seconds when the bus is down', async () => {
    // A port that refuses connections: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const down = createPublisher({
      project: 'test-project',
      emulatorHost: `127.0.0.1:${port}`,
      totalTimeoutMs: 1500,
    });
    const g2 = await startTestGateway({ publisher: down });
    try {
      const started = Date.now();
      const a = await post(
        `${g2.url}/v1/topics/events`,
        { event_name: 'page_view' },
        { authorization: `Bearer ${g2.token}` },
      );
      assert.equal(a.status, 503);
      assert.equal(a.body.error?.status, 'UNAVAILABLE');
      assert.ok(a.headers.get('retry-after'));
      assert.ok(Date.now() - started < 10_000, 'must not wait for the client library retries');
    } finally {
      await g2.close();
      await down.close();
    }
  });
});
