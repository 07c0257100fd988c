/**
 * The emulators' append log (emulators/common/append-log.ts): the file grows ahead of the
 * records in zero-filled steps, records are written over the zeros, and reading stops at them;
 * the fdatasync runs on the loop while the disk is quick and in libuv's pool once it is not.
 */
import assert from 'node:assert/strict';
import fs, { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppendLog, frame, frameParts, INLINE_SYNC_MS, readLog, syncAverage } from '../append-log.ts';

const record = (i: number, size = 100) => Buffer.alloc(size, i % 251).fill(String(i), 0);

type Fs = typeof fs;
/**
 * Replaces some of node:fs's functions for the length of `body`, for the log's named imports
 * too (syncBuiltinESMExports): a disk that fills up, or a record of the order of the calls.
 */
async function withFs<T>(patch: Partial<Fs>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(patch).map((k) => [k, fs[k as keyof Fs]]));
  Object.assign(fs, patch);
  syncBuiltinESMExports();
  try {
    return await body();
  } finally {
    Object.assign(fs, saved);
    syncBuiltinESMExports();
  }
}
const noSpace = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

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
    // Any real fdatasync takes longer than a nanosecond: after the first that did not also
    // flush the zeros of a growth (not the disk's pace), the pool.
    const slow = await AppendLog.create(path, 'always', readLog(path).records.map(frame), 1e-6);
    assert.equal(slow.syncsOnLoop, true);
    await slow.append(frame(record(2)));
    assert.equal(slow.syncsOnLoop, true);
    await slow.append(frame(record(3)));
    assert.equal(slow.syncsOnLoop, false);
    await Promise.all([slow.append(frame(record(4))), slow.append(frame(record(5)))]);
    assert.equal(slow.syncsOnLoop, false);
    await slow.close();
    assert.deepEqual(
      readLog(path).records,
      [1, 2, 3, 4, 5].map((i) => record(i)),
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

  it('grows by 4 MB steps once the file is 4 MB', async () => {
    const log = await AppendLog.create(path, 'none', []);
    const sizes: number[] = [];
    for (let i = 0; i < 200; i++) {
      await log.append(frame(record(i, 64 * 1024 - 8)));
      if (sizes.at(-1) !== log.fileBytes) sizes.push(log.fileBytes);
    }
    const MB = 1024 * 1024;
    assert.deepEqual(
      sizes.map((n) => n / MB),
      [0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 12, 16],
    );
    assert.equal(readLog(path).records.length, 200);
    await log.close();
  });

  it('answers an append only after an fdatasync that started after its write, on the loop and in the pool', async () => {
    for (const threshold of [60_000, 0]) {
      rmSync(path, { force: true });
      const calls: string[] = [];
      const { writeSync: w, writevSync: wv, fdatasyncSync: ds, fdatasync: d } = fs;
      const log = await AppendLog.create(path, 'always', [], threshold);
      await withFs(
        {
          writeSync: ((...a: Parameters<typeof w>) => {
            calls.push('write');
            return w(...a);
          }) as typeof w,
          writevSync: ((...a: Parameters<typeof wv>) => {
            calls.push('write');
            return wv(...a);
          }) as typeof wv,
          fdatasyncSync: ((fd: number) => {
            calls.push('sync');
            ds(fd);
          }) as typeof ds,
          fdatasync: ((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) =>
            d(fd, (err) => {
              calls.push('sync');
              cb(err);
            })) as typeof d,
        },
        async () => {
          const answered = Promise.all([log.append(frame(record(1))), log.append(frame(record(2)))]).then(
            () => calls.push('answered'),
          );
          // On the loop, the answers come in the flush's own turn: done by the next immediate.
          await new Promise((resolve) => setImmediate(resolve));
          assert.equal(calls.includes('answered'), threshold > 0, `threshold ${threshold}: ${calls}`);
          await answered;
        },
      );
      // One batch: the zeros the file grew by, the records, one fdatasync, then the answers.
      assert.deepEqual(calls.slice(-3), ['write', 'sync', 'answered'], calls.join());
      assert.ok(
        calls.slice(0, -2).every((c) => c === 'write'),
        calls.join(),
      );
      await log.close();
    }
  });

  it('grows by only what a batch needs when a whole step does not fit on the disk', async () => {
    const log = await AppendLog.create(path, 'always', []);
    await log.append(frame(record(1)));
    const w = fs.writeSync;
    // A disk with room for 100 KB in this file.
    const limited = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
      if (position + length > 100 * 1024) throw noSpace();
      return w(fd, buffer, offset, length, position);
    }) as typeof w;
    await withFs(
      {
        writeSync: limited,
        writevSync: ((fd: number, bufs: Buffer[], position: number) =>
          limited(
            fd,
            Buffer.concat(bufs),
            0,
            bufs.reduce((n, b) => n + b.length, 0),
            position,
          )) as typeof fs.writevSync,
      },
      async () => {
        // The file is 64 KB; a step of 64 KB would make it 128: only the ~70 KB the batch needs.
        await log.append(frame(record(2, 70 * 1024)));
        assert.equal(log.fileBytes, log.size);
        await assert.rejects(log.append(frame(record(3, 40 * 1024))), /ENOSPC/);
      },
    );
    // Room again: the log goes on, and the refused record is not in it.
    await log.append(frame(record(4)));
    await log.close();
    assert.deepEqual(readLog(path).records, [record(1), record(2, 70 * 1024), record(4)]);
  });

  it('never brings back a refused batch whose write failed half-way, even once a shorter one lands on it', async () => {
    const log = await AppendLog.create(path, 'always', []);
    await log.append(frame(record(0)));
    const { writevSync: wv, writeSync: w } = fs;
    let failing = true;
    await withFs(
      {
        // Writes A, B and half of C, then the disk fails the rest.
        writevSync: ((fd: number, bufs: Buffer[], position: number) => {
          const all = Buffer.concat(bufs);
          return failing ? w(fd, all, 0, all.length - 50, position) : wv(fd, bufs, position);
        }) as typeof wv,
        writeSync: ((...a: Parameters<typeof w>) => {
          if (failing && ArrayBuffer.isView(a[1]) && a[1].byteLength !== 1024 * 1024) throw noSpace();
          return w(...a);
        }) as typeof w,
      },
      async () => {
        const refused = ['A', 'B', 'C'].map((name) => log.append(frame(Buffer.from(name.repeat(100)))));
        for (const r of refused) await assert.rejects(r, /ENOSPC/);
        failing = false;
      },
    );
    // As long as A: without the zeros put back, B would follow it on reopen.
    await log.append(frame(Buffer.from('D'.repeat(100))));
    await log.close();
    assert.deepEqual(readLog(path).records, [record(0), Buffer.from('D'.repeat(100))]);
  });
});
