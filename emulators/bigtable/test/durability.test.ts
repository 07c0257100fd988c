/**
 * Durability of the Bigtable emulator, run as its own process and killed with SIGKILL: every
 * write it answered is there after a restart on the same data directory (a row's mutations all
 * or none), the schema too, cells past their GC rule are collected on restart, and a second
 * emulator on the directory in use is refused. (The command's --iam: iam.test.ts.)
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { processKeeper } from '@eventbus/emulator-common/test-support/emulator-process.ts';
import { clientOf, endpointOf, exited, launch, tempDir } from './support/harness.ts';

type Cells = Record<string, Record<string, { value: string; timestamp: string }[]>>;

describe('bigtable emulator durability', function () {
  this.timeout(60_000);
  const dataDir = tempDir();
  const keeper = processKeeper();
  after(() => {
    keeper.reap();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered write across kill -9, and collects on restart', async () => {
    const first = await launch(dataDir, ['--gc-interval-ms', '0']);
    keeper.keep(first.child);
    const bt = clientOf(endpointOf(first.url));
    const [table] = await bt
      .instance('i')
      .createTable('durable', { families: [{ name: 'cf', rule: { versions: 1 } }, 'log'] });
    // Two versions where the rule keeps one: still both until a collection.
    await table.row('versions').save({ cf: { q: { value: 'old', timestamp: 1000 } } });
    await table.row('versions').save({ cf: { q: { value: 'new', timestamp: 2000 } } });
    const acked = new Set<number>();
    let i = 0;
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const k = i++;
        try {
          await table.row(`r${String(k).padStart(5, '0')}`).save({ log: { a: `a${k}`, b: `b${k}` } });
          acked.add(k);
        } catch {
          return;
        }
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    while (acked.size < 60) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    stop = true;
    // What was answered before the kill; the calls in flight are the client's to retry (it
    // retries UNAVAILABLE for a while), so they are left to fail on their own, unawaited.
    const answered = new Set(acked);
    await exited(first.child);
    void Promise.allSettled(workers).then(() => bt.close());

    const second = await launch(dataDir, ['--gc-interval-ms', '0']);
    keeper.keep(second.child);
    const again = clientOf(endpointOf(second.url));
    const t2 = again.instance('i').table('durable');
    const [families] = await t2.getFamilies();
    assert.deepEqual(families.map((f) => f.id).sort(), ['cf', 'log']);
    const [rows] = await t2.getRows({ prefix: 'r' });
    const found = new Map(rows.map((r) => [r.id, r.data as Cells]));
    for (const k of answered) {
      const data = found.get(`r${String(k).padStart(5, '0')}`);
      assert.ok(data, `row ${k} answered but lost`);
    }
    // A row is whole or absent: never one of its two cells without the other.
    for (const data of found.values()) assert.deepEqual(Object.keys(data['log'] ?? {}).sort(), ['a', 'b']);
    const [versions] = await t2.row('versions').get();
    assert.deepEqual(
      (versions.data as Cells)['cf']?.['q']?.map((c) => c.value),
      ['new'],
    );
    await assert.rejects(launch(dataDir), /exited/);
    await again.close();
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
  });
});
