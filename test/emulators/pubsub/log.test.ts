/**
 * The engine's log: compaction while running keeps exactly the live state, and a torn tail
 * (a crash in the middle of a write) is cut off on open without losing earlier records.
 */
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../emulators/pubsub/engine.ts';
import { tempDir, until } from './support.ts';

const TOPIC = 'projects/p/topics/t';
const SUB = 'projects/p/subscriptions/s';

describe('pubsub emulator log', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function fresh(compactBytes?: number): Promise<{ engine: Engine; dir: string }> {
    const dir = tempDir();
    dirs.push(dir);
    const engine = await Engine.open({
      dataDir: dir,
      fsync: 'none',
      ...(compactBytes ? { compactBytes } : {}),
    });
    await engine.createTopic({}, TOPIC);
    await engine.createSubscription({ topic: TOPIC }, SUB);
    return { engine, dir };
  }

  const message = (i: number) => ({
    data: Buffer.alloc(100, i % 256),
    attributes: { i: String(i) },
    orderingKey: '',
  });

  it('compacts a grown log down to the live messages, and replays it exactly', async () => {
    const { engine, dir } = await fresh(64 * 1024);
    const log = join(dir, 'pubsub.log');
    for (let b = 0; b < 50; b++) {
      await engine.publish(
        TOPIC,
        Array.from({ length: 100 }, (_, i) => message(b * 100 + i)),
      );
      const got = await engine.pull(SUB, 100, false);
      // Keep the very last batch's last 10 messages unacknowledged.
      const acks = b === 49 ? got.slice(0, 90) : got;
      await engine.acknowledge(
        SUB,
        acks.map((d) => d.ackId),
      );
    }
    await until(() => statSync(log).size < 64 * 1024);
    await engine.close();
    const reopened = await Engine.open({ dataDir: dir, fsync: 'none' });
    assert.equal(reopened.stats(SUB).unacked, 10);
    const left = await reopened.pull(SUB, 100, false);
    assert.deepEqual(
      left.map((d) => d.message.attributes['i']).sort(),
      Array.from({ length: 10 }, (_, i) => String(4990 + i)).sort(),
    );
    await reopened.close();
  });

  it('cuts a torn tail on open and keeps writing after it', async () => {
    const { engine, dir } = await fresh();
    await engine.publish(TOPIC, [message(1), message(2)]);
    await engine.close();
    // A crash mid-write leaves a partial frame: a length that promises more bytes than exist.
    appendFileSync(join(dir, 'pubsub.log'), Buffer.from([0xff, 0x00, 0x00, 0x00, 0x12, 0x34]));
    const reopened = await Engine.open({ dataDir: dir, fsync: 'always' });
    assert.equal(reopened.stats(SUB).unacked, 2);
    await reopened.publish(TOPIC, [message(3)]);
    await reopened.close();
    const again = await Engine.open({ dataDir: dir, fsync: 'none' });
    assert.equal(again.stats(SUB).unacked, 3);
    await again.close();
  });

  it('refuses a second emulator on the same data directory while the first runs', async () => {
    const { engine, dir } = await fresh();
    await assert.rejects(Engine.open({ dataDir: dir, fsync: 'none' }), /in use by another emulator/);
    await engine.close();
    const next = await Engine.open({ dataDir: dir, fsync: 'none' });
    await next.close();
  });
});
