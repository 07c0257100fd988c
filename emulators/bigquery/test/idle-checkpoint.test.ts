import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../store.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const walSize = (dir: string) => {
  const wal = join(dir, 'bigquery.duckdb.wal');
  return existsSync(wal) ? statSync(wal).size : 0;
};

describe('BigQuery emulator store: idle checkpoints', () => {
  let dir: string;
  let store: Store | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bq-idle-'));
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (s: Store, n: number) =>
    s.appending((conn) => conn.run(`INSERT INTO t SELECT range::VARCHAR FROM range(${n})`));

  it('folds the WAL into the file once inserts pause, and not while they go on', async () => {
    // The idle window is far longer than the gaps between inserts (40 ms plus an insert), so a
    // machine busy with other tests does not open a pause by accident; the longest gap is checked.
    const idleMs = 1500;
    store = await Store.open(dir, { idleCheckpointMs: idleMs, idleCheckpointBytes: 1 });
    await store.exclusive((conn) => conn.run('CREATE TABLE t (v VARCHAR)'));
    // Inserts every 40 ms for longer than the window: the timer keeps being pushed back.
    let last = Date.now();
    let longestGap = 0;
    for (let i = 0; i < 10; i++) {
      await insert(store, 1000);
      longestGap = Math.max(longestGap, Date.now() - last);
      last = Date.now();
      await sleep(40);
    }
    assert.ok(longestGap < idleMs, `inserts went on without a pause (longest gap ${longestGap} ms)`);
    assert.equal(store.idleCheckpoints, 0);
    assert.ok(walSize(dir) > 0, 'the inserts are in the WAL');
    const deadline = Date.now() + 10_000;
    while (store.idleCheckpoints === 0 && Date.now() < deadline) await sleep(50);
    assert.equal(store.idleCheckpoints, 1);
    assert.equal(walSize(dir), 0);
    const rows = await store.exclusive((conn) => conn.runAndReadAll('SELECT count(*)::INTEGER FROM t'));
    assert.deepEqual(rows.getRows(), [[10_000]]);
  });

  it('leaves a WAL below the size worth folding alone', async () => {
    store = await Store.open(dir, { idleCheckpointMs: 50, idleCheckpointBytes: 64 << 20 });
    await store.exclusive((conn) => conn.run('CREATE TABLE t (v VARCHAR)'));
    await insert(store, 100);
    await sleep(250);
    assert.equal(store.idleCheckpoints, 0);
    assert.ok(walSize(dir) > 0);
  });
});
