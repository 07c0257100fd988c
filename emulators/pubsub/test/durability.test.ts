/**
 * Durability: the emulator runs as a child process, is killed with SIGKILL, and restarted on the
 * same data dir. Every answered publish is delivered again; nothing acknowledged reappears.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { childrenOnTempDir, errorOf, exited, launch, rest, tempDir } from './support/harness.ts';

describe('pubsub emulator durability', () => {
  const { dataDir, children } = childrenOnTempDir();

  it('keeps answered publishes and forgets acknowledged messages across kill -9', async () => {
    const first = await launch(dataDir);
    children.push(first.child);
    const base = first.url;
    assert.equal((await rest(base, 'PUT', '/v1/projects/p/topics/dur')).status, 200);
    assert.equal(
      (await rest(base, 'PUT', '/v1/projects/p/subscriptions/dur-s', { topic: 'projects/p/topics/dur' }))
        .status,
      200,
    );
    const published: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, batch) => {
        const messages = Array.from({ length: 10 }, (_, i) => ({
          data: Buffer.from(`${batch}-${i}`).toString('base64'),
        }));
        const res = await rest(base, 'POST', '/v1/projects/p/topics/dur:publish', { messages });
        published.push(...(res.body['messageIds'] as string[]));
      }),
    );
    assert.equal(published.length, 200);
    const pulled = await rest(base, 'POST', '/v1/projects/p/subscriptions/dur-s:pull', { maxMessages: 50 });
    const received = pulled.body['receivedMessages'] as { ackId: string; message: { messageId: string } }[];
    assert.equal(received.length, 50);
    const acked = new Set(received.map((r) => r.message.messageId));
    const ack = await rest(base, 'POST', '/v1/projects/p/subscriptions/dur-s:acknowledge', {
      ackIds: received.map((r) => r.ackId),
    });
    assert.equal(ack.status, 200);

    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await launch(dataDir);
    children.push(second.child);
    const remaining = new Set<string>();
    for (let i = 0; i < 10 && remaining.size < 150; i++) {
      const res = await rest(second.url, 'POST', '/v1/projects/p/subscriptions/dur-s:pull', {
        maxMessages: 1000,
      });
      for (const r of (res.body['receivedMessages'] ?? []) as { message: { messageId: string } }[]) {
        remaining.add(r.message.messageId);
      }
    }
    assert.deepEqual([...remaining].sort(), published.filter((id) => !acked.has(id)).sort());
    // Resources survived too, and new ids do not collide with old ones.
    const again = await rest(second.url, 'PUT', '/v1/projects/p/topics/dur');
    assert.equal(errorOf(again).status, 'ALREADY_EXISTS');
    const more = await rest(second.url, 'POST', '/v1/projects/p/topics/dur:publish', {
      messages: [{ data: 'eA==' }],
    });
    assert.ok(!published.includes((more.body['messageIds'] as string[])[0] as string));

    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
  });

  it('keeps counting delivery attempts across restarts, so the last one still dead-letters', async () => {
    const dir = tempDir();
    try {
      const s = '/v1/projects/p/subscriptions';
      let run = await launch(dir);
      children.push(run.child);
      for (const t of ['att', 'att-dl', 'att-sync'])
        assert.equal((await rest(run.url, 'PUT', `/v1/projects/p/topics/${t}`)).status, 200);
      assert.equal(
        (await rest(run.url, 'PUT', `${s}/att-dl-s`, { topic: 'projects/p/topics/att-dl' })).status,
        200,
      );
      const sub = await rest(run.url, 'PUT', `${s}/att-s`, {
        topic: 'projects/p/topics/att',
        deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/att-dl', maxDeliveryAttempts: 5 },
      });
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      const data = Buffer.from('poison').toString('base64');
      assert.equal(
        (await rest(run.url, 'POST', '/v1/projects/p/topics/att:publish', { messages: [{ data }] })).status,
        200,
      );

      /** Pulls the message, nacks it, and says which attempt it was. */
      const attempt = async (url: string): Promise<number> => {
        for (let i = 0; i < 50; i++) {
          const pulled = await rest(url, 'POST', `${s}/att-s:pull`, {
            maxMessages: 1,
            returnImmediately: true,
          });
          const got = (pulled.body['receivedMessages'] ?? []) as { ackId: string; deliveryAttempt: number }[];
          const first = got[0];
          if (first) {
            await rest(url, 'POST', `${s}/att-s:modifyAckDeadline`, {
              ackIds: [first.ackId],
              ackDeadlineSeconds: 0,
            });
            return first.deliveryAttempt;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('no redelivery');
      };
      assert.equal(await attempt(run.url), 1);
      assert.equal(await attempt(run.url), 2);
      // kill -9. The counts go to the log quietly (nobody waits on them); the log is one ordered
      // group commit, so a publish answered after them means they are on disk too.
      assert.equal(
        (
          await rest(run.url, 'POST', '/v1/projects/p/topics/att-sync:publish', {
            messages: [{ data: 'eQ==' }],
          })
        ).status,
        200,
      );
      run.child.kill('SIGKILL');
      await exited(run.child);
      run = await launch(dir);
      children.push(run.child);
      // Opening compacts the log into a snapshot: stop again at once, so the next start
      // reads the counts from the snapshot alone.
      run.child.kill('SIGTERM');
      assert.equal(await exited(run.child), 0);
      run = await launch(dir);
      children.push(run.child);
      assert.equal(await attempt(run.url), 3);
      assert.equal(await attempt(run.url), 4);
      assert.equal(await attempt(run.url), 5);
      // The fifth attempt was the last: dead-lettered, not redelivered.
      let dead: { message: { data: string; attributes?: Record<string, string> } }[] = [];
      for (let i = 0; i < 50 && dead.length === 0; i++) {
        const pulled = await rest(run.url, 'POST', `${s}/att-dl-s:pull`, {
          maxMessages: 1,
          returnImmediately: true,
        });
        dead = (pulled.body['receivedMessages'] ?? []) as typeof dead;
        if (dead.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(dead[0]?.message.data, data);
      assert.equal(dead[0]?.message.attributes?.['CloudPubSubDeadLetterSourceDeliveryCount'], '5');
      run.child.kill('SIGTERM');
      await exited(run.child);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
