/**
 * The emulators' append log (emulators/common/append-log.ts): the file grows ahead of the
 * records in zero-filled steps, records are written over the zeros, and reading stops at them;
 * the fdatasync runs on the loop while the disk is quick and in libuv's pool once it is not.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppendLog,
  frame,
  frameParts,
  INLINE_SYNC_MS,
  readLog,
  syncAverage,
} from '../../../emulators/common/append-log.ts';

const record = (i: number, size = 100) => Buffer.alloc(size, i % 251).fill(String(i), 0);

describe('emulators: append log', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'append-log-'));
    path = join(dir, 'test.log');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes records over zeros it grew the file by, and reads back exactly the records', async () => {
    const log = await AppendLog.create(path, 'always', []);
    const records = Array.from({ length: 50 }, (_, i) => record(i));
    await Promise.all(records.map((r) => log.append(frame(r))));
    const framed = records.reduce((n, r) => n + 8 + r.length, 0);
    assert.equal(log.size, framed);
    // The file is longer than its records (the first step is 64 KB), and the rest is zeros.
    assert.equal(statSync(path).size, log.fileBytes);
    assert.ok(log.fileBytes >= 64 * 1024, `${log.fileBytes}`);
    const bytes = readFileSync(path);
    assert.ok(bytes.subarray(framed).every((b) => b === 0));
    const read = readLog(path);
    assert.deepEqual(read.records, records);
    assert.equal(read.validBytes, framed);
    await log.close();
  });

  it('grows by its own size, up to 4 MB a step, and fits a record larger than a step', async () => {
    const log = await AppendLog.create(path, 'none', []);
    const sizes: number[] = [];
    const records: Buffer[] = [];
    for (let i = 0; i < 40; i++) {
      const r = record(i, 7000);
      records.push(r);
      await log.append(frame(r));
      if (sizes.at(-1) !== log.fileBytes) sizes.push(log.fileBytes);
    }
    assert.deepEqual(sizes, [64 * 1024, 128 * 1024, 256 * 1024, 512 * 1024]);
    const big = record(99, 9 * 1024 * 1024);
    records.push(big);
    await log.append(frame(big));
    assert.ok(log.fileBytes >= log.size && log.fileBytes - log.size < 4 * 1024 * 1024, `${log.fileBytes}`);
    assert.deepEqual(readLog(path).records, records);
    await log.close();
  });

  it('reopens a grown file: the records before the zeros, then appends after them', async () => {
    const first = await AppendLog.create(path, 'always', []);
    await first.append(frame(record(1)));
    await first.append(frameParts([Buffer.from('two:'), record(2)]));
    await first.close();
    const { records } = readLog(path);
    assert.equal(records.length, 2);
    // As the engines reopen: the file replaced by what was read, then appended to.
    const again = await AppendLog.create(path, 'always', records.map(frame));
    await again.append(frame(record(3)));
    await again.close();
    assert.deepEqual(readLog(path).records, [
      record(1),
      Buffer.concat([Buffer.from('two:'), record(2)]),
      record(3),
    ]);
  });

  it('stops at a torn frame written over the zeros and keeps what came before', async () => {
    const log = await AppendLog.create(path, 'always', []);
    await log.append(frame(record(1)));
    const end = log.size;
    await log.close();
    // A crash in the middle of the next write: its header promises more than was written.
    const torn = frame(record(2, 500)).subarray(0, 300);
    const fd = openSync(path, 'r+');
    writeSync(fd, torn, 0, torn.length, end);
    closeSync(fd);
    assert.deepEqual(readLog(path), { records: [record(1)], validBytes: end });
  });

  it('refuses an empty record: a frame of length 0 is where zeros end the log', () => {
    assert.throws(() => frame(Buffer.alloc(0)), /empty record/);
    assert.throws(() => frameParts([Buffer.alloc(0), Buffer.alloc(0)]), /empty record/);
  });

  it('compacts to exactly the snapshot, then grows again', async () => {
    const log = await AppendLog.create(path, 'always', []);
    for (let i = 0; i < 20; i++) await log.append(frame(record(i)));
    // The snapshot stands for everything logged so far, the queued records too: the append
    // comes once the compaction has run (at the next batch boundary).
    log.requestCompaction(() => [frame(record(100))]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(statSync(path).size, 108);
    await log.append(frame(record(101)));
    assert.deepEqual(readLog(path).records, [record(100), record(101)]);
    assert.equal(statSync(path).size, log.fileBytes);
    await log.close();
  });

  it('fdatasyncs on the loop while the disk is quick, and in the pool once the recent ones are slow', async () => {
    const quick = await AppendLog.create(path, 'always', [], 60_000);
    assert.equal(quick.syncsOnLoop, true);
    await quick.append(frame(record(1)));
    assert.equal(quick.syncsOnLoop, true);
    await quick.close();
    // Any real fdatasync takes longer than a nanosecond: after the first, the pool.
    const slow = await AppendLog.create(path, 'always', readLog(path).records.map(frame), 1e-6);
    assert.equal(slow.syncsOnLoop, true);
    await slow.append(frame(record(2)));
    assert.equal(slow.syncsOnLoop, false);
    await Promise.all([slow.append(frame(record(3))), slow.append(frame(record(4)))]);
    assert.equal(slow.syncsOnLoop, false);
    await slow.close();
    assert.deepEqual(
      readLog(path).records,
      [1, 2, 3, 4].map((i) => record(i)),
    );
  });

  it('moves the fdatasync to the pool after one 10 ms sync, and back after four quick ones', () => {
    let average = syncAverage(0, 10);
    assert.ok(average >= INLINE_SYNC_MS, `${average}`);
    const quick: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      average = syncAverage(average, 0.1);
      quick.push(average < INLINE_SYNC_MS);
    }
    assert.deepEqual(quick, [false, false, false, true]);
  });
});
