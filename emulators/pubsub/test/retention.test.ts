import assert from 'node:assert/strict';
import { PROJECT, type Running, rest, start } from './support/harness.ts';

/**
 * Retention is ten minutes at least, so the clock is moved instead of waited for: the
 * emulator runs in this process and reads `Date.now()` when it hands messages out.
 */
describe('Pub/Sub emulator: message retention', () => {
  let run: Running;
  const realNow = Date.now;
  beforeEach(async () => {
    run = await start();
  });
  afterEach(async () => {
    Date.now = realNow;
    await run.stop();
  });

  const base = () => `http://127.0.0.1:${run.emulator.port}/v1/projects/${PROJECT}`;
  const publish = (text: string, orderingKey?: string) =>
    rest(base(), 'POST', '/topics/kept:publish', {
      messages: [{ data: Buffer.from(text).toString('base64'), ...(orderingKey ? { orderingKey } : {}) }],
    });
  const pullTexts = async (sub = 'kept-sub') => {
    const answer = await rest(base(), 'POST', `/subscriptions/${sub}:pull`, {
      maxMessages: 10,
      returnImmediately: true,
    });
    const received = (answer.body['receivedMessages'] ?? []) as {
      ackId: string;
      message: { data: string };
    }[];
    // Nacked at once, so each is ready again for the next pull unless something drops it.
    if (received.length > 0) {
      const nack = await rest(base(), 'POST', `/subscriptions/${sub}:modifyAckDeadline`, {
        ackIds: received.map((r) => r.ackId),
        ackDeadlineSeconds: 0,
      });
      assert.equal(nack.status, 200, JSON.stringify(nack.body));
    }
    return received.map((r) => Buffer.from(r.message.data, 'base64').toString());
  };

  it('drops an unacknowledged message once it is older than the subscription’s retention', async () => {
    assert.equal((await rest(base(), 'PUT', '/topics/kept', {})).status, 200);
    const created = await rest(base(), 'PUT', '/subscriptions/kept-sub', {
      topic: `projects/${PROJECT}/topics/kept`,
      messageRetentionDuration: '600s',
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await publish('old')).status, 200);

    // Nine minutes later it is still there, pulled and nacked twice over.
    Date.now = () => realNow() + 540_000;
    assert.deepEqual(await pullTexts(), ['old']);
    assert.deepEqual(await pullTexts(), ['old']);

    // Past ten minutes it is gone, while a message published then is delivered.
    Date.now = () => realNow() + 1_200_000;
    assert.equal((await publish('new')).status, 200);
    const later = await pullTexts();
    assert.deepEqual(later, ['new']);
  });

  it('drops keyed messages of an ordered subscription past retention too, keeping the key’s order', async () => {
    assert.equal((await rest(base(), 'PUT', '/topics/kept', {})).status, 200);
    const created = await rest(base(), 'PUT', '/subscriptions/kept-ordered', {
      topic: `projects/${PROJECT}/topics/kept`,
      messageRetentionDuration: '600s',
      enableMessageOrdering: true,
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await publish('old-1', 'k')).status, 200);
    assert.equal((await publish('old-2', 'k')).status, 200);

    Date.now = () => realNow() + 540_000;
    assert.deepEqual(await pullTexts('kept-ordered'), ['old-1', 'old-2']);

    Date.now = () => realNow() + 1_200_000;
    assert.equal((await publish('new-1', 'k')).status, 200);
    assert.deepEqual(await pullTexts('kept-ordered'), ['new-1']);
    assert.deepEqual(await pullTexts('kept-ordered'), ['new-1']);
  });
});
