/**
 * The engine's log: compaction while running keeps exactly the live state, and a torn tail
 * (a crash in the middle of a write) is cut off on open without losing earlier records.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readLog } from '@eventbus/emulator-common/append-log.ts';
import { protos } from '@google-cloud/pubsub';
import { Engine } from '../engine.ts';
import { decodePublishRequest } from '../wire.ts';
import { tempDir, until } from './support/harness.ts';

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
    // The records' bytes, not the file's: the file is grown ahead of them (append-log.ts).
    await until(() => readLog(log).validBytes < 64 * 1024);
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
    // A crash mid-write leaves a partial frame where the records end (over the zeros the file
    // was grown by): a length that promises more bytes than were written.
    const log = join(dir, 'pubsub.log');
    const intact = readLog(log).records.length;
    const fd = openSync(log, 'r+');
    writeSync(fd, Buffer.from([0xff, 0x00, 0x00, 0x00, 0x12, 0x34]), 0, 6, readLog(log).validBytes);
    closeSync(fd);
    assert.equal(readLog(log).records.length, intact);
    const reopened = await Engine.open({ dataDir: dir, fsync: 'always' });
    assert.equal(reopened.stats(SUB).unacked, 2);
    await reopened.publish(TOPIC, [message(3)]);
    await reopened.close();
    const again = await Engine.open({ dataDir: dir, fsync: 'none' });
    assert.equal(again.stats(SUB).unacked, 3);
    await again.close();
  });

  it('replays a gRPC publish logged as its request bytes: same ids, data, attributes, ordering keys', async () => {
    const { engine, dir } = await fresh();
    // As the client sends it (protobufjs from @google-cloud/pubsub), decoded as the gRPC server does.
    const raw = Buffer.from(
      protos.google.pubsub.v1.PublishRequest.encode({
        topic: TOPIC,
        messages: [
          { data: Buffer.from('first'), attributes: { a: '1', b: 'ü' } },
          { data: Buffer.from('second'), attributes: { a: '1', b: 'ü' } },
          { attributes: { a: '2' } },
        ],
      }).finish(),
    );
    const req = decodePublishRequest(raw);
    const before = await engine.publish(req.topic, req.messages, req.raw);
    const later = await engine.publish(TOPIC, [message(4)]);
    const original = await engine.pull(SUB, 10, false);
    await engine.close();
    const reopened = await Engine.open({ dataDir: dir, fsync: 'none' });
    const got = await reopened.pull(SUB, 10, false);
    const view = (ds: typeof got) =>
      ds.map((d) => ({
        id: d.message.id,
        time: d.message.publishTime,
        data: d.message.data.toString('hex'),
        attributes: { ...d.message.attributes },
        key: d.message.orderingKey,
        size: d.message.size,
      }));
    assert.deepEqual(view(got), view(original));
    assert.deepEqual(
      got.map((d) => String(d.message.id)),
      [...before, ...later],
    );
    assert.equal(got[2]?.message.data.length, 0);
    assert.deepEqual({ ...got[1]?.message.attributes }, { a: '1', b: 'ü' });
    // New ids continue after the replayed ones.
    const next = await reopened.publish(TOPIC, [message(5)]);
    assert.ok(Number(next[0]) > Number(later[0]));
    await reopened.close();
  });

  it('refuses a second emulator on the same data directory while the first runs', async () => {
    const { engine, dir } = await fresh();
    await assert.rejects(Engine.open({ dataDir: dir, fsync: 'none' }), /in use by another emulator/);
    await engine.close();
    const next = await Engine.open({ dataDir: dir, fsync: 'none' });
    await next.close();
  });
});
