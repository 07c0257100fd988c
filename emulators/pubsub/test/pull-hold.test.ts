/**
 * An empty unary pull without returnImmediately is held as Pub/Sub may hold it: up to the
 * caller's deadline (gRPC's, or REST's `X-Server-Timeout`), answered at once when a message
 * arrives meanwhile, and with returnImmediately answered at once. A caller that gave up takes
 * nothing: the next message goes to the next pull, not to a lease no one holds.
 */
import assert from 'node:assert/strict';
import { v1 } from '@google-cloud/pubsub';
import { credentials } from '@grpc/grpc-js';
import { pullHoldMs } from '../engine.ts';
import { PROJECT, type Running, rest, start } from './support/harness.ts';

const SUB = `projects/${PROJECT}/subscriptions/hold-s`;

describe('pubsub emulator: an empty pull is held up to its deadline', () => {
  let run: Running;
  let raw: v1.SubscriberClient;
  before(async () => {
    run = await start();
    const [topic] = await run.client.createTopic('hold-t');
    await topic.createSubscription('hold-s');
    raw = new v1.SubscriberClient({
      servicePath: '127.0.0.1',
      port: run.emulator.port,
      sslCreds: credentials.createInsecure(),
    });
  });
  after(async () => {
    await raw.close();
    await run.stop();
  });

  const publish = (text: string) => run.client.topic('hold-t').publishMessage({ data: Buffer.from(text) });

  it('holds a gRPC pull to its deadline, then the caller sees DEADLINE_EXCEEDED', async () => {
    const started = Date.now();
    await assert.rejects(
      raw.pull({ subscription: SUB, maxMessages: 1 }, { timeout: 1500, retry: null }),
      (err: { code?: number }) => err.code === 4,
    );
    // Not answered empty after a short wait: held until the caller gave up.
    assert.ok(Date.now() - started >= 1400, `${Date.now() - started} ms`);
  });

  it('gives a message published after a caller cancelled to the next pull, not to the caller gone', async () => {
    // Held for 20 s by the server; the caller hangs up after 300 ms.
    const gone = new AbortController();
    const held = fetch(`${run.emulator.url}/v1/${SUB}:pull`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-server-timeout': '20' },
      body: JSON.stringify({ maxMessages: 1 }),
      signal: gone.signal,
    });
    await new Promise((r) => setTimeout(r, 300));
    gone.abort();
    await assert.rejects(held, { name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 100));
    await publish('after-the-deadline');
    const [got] = await raw.pull({ subscription: SUB, maxMessages: 1, returnImmediately: true });
    const [m] = got.receivedMessages ?? [];
    assert.equal(Buffer.from(m?.message?.data ?? '').toString(), 'after-the-deadline');
    await raw.acknowledge({ subscription: SUB, ackIds: [m?.ackId ?? ''] });
  });

  it('answers a held pull as soon as a message arrives', async () => {
    const started = Date.now();
    const pulled = raw.pull({ subscription: SUB, maxMessages: 1 }, { timeout: 20_000 });
    setTimeout(() => void publish('while-held'), 300);
    const [got] = await pulled;
    const [m] = got.receivedMessages ?? [];
    assert.equal(Buffer.from(m?.message?.data ?? '').toString(), 'while-held');
    assert.ok(Date.now() - started < 10_000);
    await raw.acknowledge({ subscription: SUB, ackIds: [m?.ackId ?? ''] });
  });

  it('answers returnImmediately at once, over gRPC and REST', async () => {
    const started = Date.now();
    const [got] = await raw.pull({ subscription: SUB, maxMessages: 1, returnImmediately: true });
    assert.equal((got.receivedMessages ?? []).length, 0);
    const answer = await rest(run.emulator.url, 'POST', `/v1/${SUB}:pull`, {
      maxMessages: 1,
      returnImmediately: true,
    });
    assert.deepEqual(answer, { status: 200, body: {} });
    assert.ok(Date.now() - started < 400, `${Date.now() - started} ms`);
  });

  it('holds a REST pull for its X-Server-Timeout, then answers it empty', async () => {
    const started = Date.now();
    const res = await fetch(`${run.emulator.url}/v1/${SUB}:pull`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-server-timeout': '1' },
      body: JSON.stringify({ maxMessages: 1 }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {});
    assert.ok(Date.now() - started >= 900, `${Date.now() - started} ms`);
  });

  it('bounds the hold: the deadline, at most a minute; ten seconds with none', () => {
    assert.equal(pullHoldMs(1500), 1500);
    assert.equal(pullHoldMs(3_600_000), 60_000);
    assert.equal(pullHoldMs(undefined), 10_000);
    assert.equal(pullHoldMs(Number.POSITIVE_INFINITY), 10_000);
    assert.equal(pullHoldMs(-5), 0);
  });
});
