/**
 * The real @google-cloud/pubsub client (gRPC) against the emulator: admin calls, publish,
 * streaming pull with ack/nack, redelivery, filters, dead letters, ordering keys.
 */
import assert from 'node:assert/strict';
import type { Message } from '@google-cloud/pubsub';
import { v1 } from '@google-cloud/pubsub';
import { credentials } from '@grpc/grpc-js';
import { PROJECT, type Running, start, until } from './support/harness.ts';

const insecure = () => credentials.createInsecure();
const errCode = (err: unknown): number => (err as { code: number }).code;

describe('pubsub emulator with the real client', () => {
  let run: Running;
  before(async () => {
    run = await start();
  });
  after(async () => {
    await run.stop();
  });

  it('creates, lists, updates and deletes topics and subscriptions', async () => {
    const ps = run.client;
    const [topic] = await ps.createTopic('admin-t');
    assert.equal(topic.name, `projects/${PROJECT}/topics/admin-t`);
    const [exists] = await topic.exists();
    assert.equal(exists, true);
    const [topics] = await ps.getTopics();
    assert.ok(topics.some((t) => t.name === topic.name));
    await assert.rejects(ps.createTopic('admin-t'), (e) => errCode(e) === 6);

    const [sub] = await topic.createSubscription('admin-s', {
      ackDeadlineSeconds: 20,
      filter: 'attributes.k = "v"',
    });
    const [meta] = await sub.getMetadata();
    assert.equal(meta.ackDeadlineSeconds, 20);
    assert.equal(meta.filter, 'attributes.k = "v"');
    const [subs] = await topic.getSubscriptions();
    assert.deepEqual(
      subs.map((s) => s.name),
      [`projects/${PROJECT}/subscriptions/admin-s`],
    );
    await sub.setMetadata({ ackDeadlineSeconds: 30 });
    assert.equal((await sub.getMetadata())[0].ackDeadlineSeconds, 30);
    // Filters are immutable: changing one is refused rather than silently dropping the backlog.
    await assert.rejects(sub.setMetadata({ filter: 'attributes.k = "w"' }), (e) => errCode(e) === 3);
    await sub.modifyPushConfig({ pushEndpoint: 'http://127.0.0.1:9/push' });
    assert.equal((await sub.getMetadata())[0].pushConfig?.pushEndpoint, 'http://127.0.0.1:9/push');

    await topic.delete();
    assert.equal((await sub.getMetadata())[0].topic, '_deleted-topic_');
    await sub.delete();
    await assert.rejects(sub.getMetadata(), (e) => errCode(e) === 5);
  });

  it('answers caller mistakes with INVALID_ARGUMENT / NOT_FOUND, never UNKNOWN', async () => {
    const ps = run.client;
    await assert.rejects(
      ps.topic('missing-topic').publishMessage({ data: Buffer.from('x') }),
      (e) => errCode(e) === 5,
    );
    await assert.rejects(ps.createTopic('goog-reserved'), (e) => errCode(e) === 3);
    const [topic] = await ps.createTopic('err-t');
    await assert.rejects(
      topic.createSubscription('err-s', { deadLetterPolicy: { deadLetterTopic: ps.topic('nope').name } }),
      (e) => errCode(e) === 5,
    );
    await assert.rejects(
      topic.createSubscription('err-s2', { filter: 'attributes.k = ' }),
      (e) => errCode(e) === 3,
    );
    // A publish over 10 MB is judged by the emulator (INVALID_ARGUMENT), not by gRPC's size limit.
    const raw = new v1.PublisherClient({
      servicePath: '127.0.0.1',
      port: run.emulator.port,
      sslCreds: insecure(),
    });
    await assert.rejects(
      raw.publish({ topic: topic.name, messages: [{ data: Buffer.alloc(10_000_001, 1) }] }, { retry: null }),
      (e) => errCode(e) === 3,
    );
    // Far past it too, with the client's default retry settings: refused at once, not retried as
    // RESOURCE_EXHAUSTED until the deadline.
    await assert.rejects(
      raw.publish(
        { topic: topic.name, messages: [{ data: Buffer.alloc(20_000_000, 1) }] },
        { timeout: 20_000 },
      ),
      (e) => errCode(e) === 3,
    );
    await raw.close();
  });

  it('ends a StreamingPull on a missing subscription with NOT_FOUND', async () => {
    const sub = run.client.subscription('no-such-subscription');
    const err = await new Promise<unknown>((resolve) => {
      sub.on('error', resolve);
      sub.on('message', () => undefined);
    });
    await sub.close().catch(() => undefined);
    assert.equal(errCode(err), 5);
  });

  it('publishes single and batched messages and delivers them by streaming pull with ack', async () => {
    const [topic] = await run.client.createTopic('pub-t');
    const [sub] = await topic.createSubscription('pub-s');
    const id = await topic.publishMessage({
      data: Buffer.from('one'),
      attributes: { a: '1' },
      orderingKey: '',
    });
    assert.match(id, /^\d+$/);
    const batched = await Promise.all(
      Array.from({ length: 250 }, (_, i) => topic.publishMessage({ data: Buffer.from(`m${i}`) })),
    );
    assert.equal(new Set(batched).size, 250);
    const seen = new Set<string>();
    sub.on('message', (m: Message) => {
      seen.add(m.data.toString());
      assert.ok(m.publishTime.getTime() > 0);
      m.ack();
    });
    await until(() => seen.size === 251);
    assert.ok(seen.has('one'));
    await sub.close();
    // Acks are settled on the server: nothing is left.
    const raw = new v1.SubscriberClient({
      servicePath: '127.0.0.1',
      port: run.emulator.port,
      sslCreds: insecure(),
    });
    await until(async () => {
      const [res] = await raw.pull({ subscription: sub.name, maxMessages: 10, returnImmediately: true });
      return (res.receivedMessages ?? []).length === 0;
    });
    await raw.close();
  });

  it('redelivers a nacked message', async () => {
    const [topic] = await run.client.createTopic('nack-t');
    const [sub] = await topic.createSubscription('nack-s');
    await topic.publishMessage({ data: Buffer.from('again') });
    let deliveries = 0;
    sub.on('message', (m: Message) => {
      deliveries++;
      if (deliveries === 1) m.nack();
      else m.ack();
    });
    await until(() => deliveries >= 2);
    await sub.close();
    assert.equal(deliveries, 2);
  });

  it('redelivers after the ack deadline passes', async () => {
    const [topic] = await run.client.createTopic('deadline-t');
    const [sub] = await topic.createSubscription('deadline-s');
    await topic.publishMessage({ data: Buffer.from('late') });
    const raw = new v1.SubscriberClient({
      servicePath: '127.0.0.1',
      port: run.emulator.port,
      sslCreds: insecure(),
    });
    const [first] = await raw.pull({ subscription: sub.name, maxMessages: 5 });
    const got = first.receivedMessages ?? [];
    assert.equal(got.length, 1);
    // Shorten the lease to 1 s and let it lapse.
    await raw.modifyAckDeadline({
      subscription: sub.name,
      ackIds: [got[0]?.ackId ?? ''],
      ackDeadlineSeconds: 1,
    });
    const [empty] = await raw.pull({ subscription: sub.name, maxMessages: 5, returnImmediately: true });
    assert.equal((empty.receivedMessages ?? []).length, 0);
    await new Promise((r) => setTimeout(r, 1100));
    const [second] = await raw.pull({ subscription: sub.name, maxMessages: 5 });
    assert.equal(second.receivedMessages?.[0]?.message?.messageId, got[0]?.message?.messageId);
    await raw.acknowledge({ subscription: sub.name, ackIds: [second.receivedMessages?.[0]?.ackId ?? ''] });
    await raw.close();
  });

  it('delivers only messages that match the filter', async () => {
    const [topic] = await run.client.createTopic('filter-t');
    const [sub] = await topic.createSubscription('filter-s', {
      filter: 'attributes.kind = "a" OR hasPrefix(attributes.kind, "x-")',
    });
    for (const kind of ['a', 'b', 'x-1', 'c', 'a']) {
      await topic.publishMessage({ data: Buffer.from(kind), attributes: { kind } });
    }
    await topic.publishMessage({ data: Buffer.from('none') });
    const seen: string[] = [];
    sub.on('message', (m: Message) => {
      seen.push(m.data.toString());
      m.ack();
    });
    await until(() => seen.length >= 3);
    await new Promise((r) => setTimeout(r, 150));
    await sub.close();
    assert.deepEqual([...seen].sort(), ['a', 'a', 'x-1']);
  });

  it('dead-letters after maxDeliveryAttempts with the CloudPubSubDeadLetter attributes', async () => {
    const [topic] = await run.client.createTopic('dl-src');
    const [dlq] = await run.client.createTopic('dl-dlq');
    const [backlog] = await dlq.createSubscription('dl-backlog');
    const [sub] = await topic.createSubscription('dl-s', {
      deadLetterPolicy: { deadLetterTopic: dlq.name, maxDeliveryAttempts: 5 },
      retryPolicy: {
        minimumBackoff: { seconds: 0, nanos: 10_000_000 },
        maximumBackoff: { seconds: 0, nanos: 50_000_000 },
      },
    });
    await topic.publishMessage({ data: Buffer.from('poison'), attributes: { k: 'v' } });
    const attempts: number[] = [];
    sub.on('message', (m: Message) => {
      attempts.push(m.deliveryAttempt);
      m.nack();
    });
    let dead: Message | undefined;
    backlog.on('message', (m: Message) => {
      dead = m;
      m.ack();
    });
    await until(() => dead !== undefined);
    await sub.close();
    await backlog.close();
    assert.deepEqual(attempts, [1, 2, 3, 4, 5]);
    assert.equal(dead?.data.toString(), 'poison');
    assert.equal(dead?.attributes['k'], 'v');
    assert.equal(dead?.attributes['CloudPubSubDeadLetterSourceDeliveryCount'], '5');
    assert.equal(dead?.attributes['CloudPubSubDeadLetterSourceSubscription'], 'dl-s');
    assert.equal(dead?.attributes['CloudPubSubDeadLetterSourceSubscriptionProject'], PROJECT);
    assert.match(dead?.attributes['CloudPubSubDeadLetterSourceTopicPublishTime'] ?? '', /^\d{4}-\d\d-\d\dT/);
  });

  it('delivers messages of one ordering key in order, also after a nack', async () => {
    const [topic] = await run.client.createTopic('order-t');
    const [sub] = await topic.createSubscription('order-s', { enableMessageOrdering: true });
    const ordered = run.client.topic('order-t', { messageOrdering: true });
    const sends: Promise<string>[] = [];
    for (let i = 0; i < 40; i++) {
      for (const key of ['k1', 'k2'])
        sends.push(ordered.publishMessage({ data: Buffer.from(String(i)), orderingKey: key }));
    }
    await Promise.all(sends);
    const got: Record<string, number[]> = { k1: [], k2: [] };
    let nacked = false;
    sub.on('message', (m: Message) => {
      const n = Number(m.data.toString());
      if (m.orderingKey === 'k1' && n === 10 && !nacked) {
        nacked = true;
        m.nack();
        return;
      }
      got[m.orderingKey ?? '']?.push(n);
      m.ack();
    });
    await until(() => new Set(got['k1']).size === 40 && (got['k2']?.length ?? 0) === 40);
    await sub.close();
    const expected = Array.from({ length: 40 }, (_, i) => i);
    assert.deepEqual(got['k2'], expected);
    // Before the nack the key was in order; the nacked message came again and nothing was lost.
    assert.deepEqual(got['k1']?.slice(0, 10), expected.slice(0, 10));
    assert.deepEqual(
      [...new Set(got['k1'])].sort((a, b) => a - b),
      expected,
    );
  });
});
