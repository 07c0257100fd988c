/**
 * Retention in the Cloud Storage emulator (retention.ts), through Google's client: a bucket's
 * retention policy and its lock, temporary and event-based holds, and object retention, each
 * refusing a delete or an overwrite with 403 until it ends, and all of it kept across a restart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Storage } from '@google-cloud/storage';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { call, emulatorWithFreshBuckets, tempDir } from './support/harness.ts';

interface ClientError {
  code?: number;
  errors?: { reason?: string }[];
}

async function refused(p: Promise<unknown>, code: number, reason?: string): Promise<void> {
  try {
    await p;
  } catch (err) {
    const e = err as ClientError;
    assert.equal(e.code, code, String(err));
    if (reason) assert.equal(e.errors?.[0]?.reason, reason, String(err));
    return;
  }
  assert.fail(`expected a ${code}`);
}

const noRetry = { retryOptions: { autoRetry: false } } as const;

describe('storage emulator retention and holds', () => {
  const fx = emulatorWithFreshBuckets('held');

  it('keeps an object for the retention period, then lets it go', async () => {
    const bucket = fx.bucket;
    await bucket.setRetentionPeriod(2);
    const [meta] = await bucket.getMetadata();
    assert.equal(meta.retentionPolicy?.retentionPeriod, '2');
    assert.ok(meta.retentionPolicy?.effectiveTime);
    const file = bucket.file('kept.txt');
    await file.save('one', { resumable: false });
    const [expiry] = await file.getExpirationDate();
    const [fileMeta] = await file.getMetadata();
    assert.equal(expiry.getTime(), Date.parse(fileMeta.timeCreated as string) + 2000);

    const raw = `${fx.run.emulator.url}/storage/v1/b/${bucket.name}/o/kept.txt`;
    const del = await call(raw, 'DELETE');
    assert.equal(del.status, 403);
    assert.equal(
      (del.json?.error as { errors?: { reason?: string }[] } | undefined)?.errors?.[0]?.reason,
      'retentionPolicyNotMet',
    );
    // An overwrite replaces the object: refused the same way, whichever upload carries it.
    const client = new Storage({ projectId: 'p', ...noRetry });
    const same = client.bucket(bucket.name).file('kept.txt');
    await refused(same.save('two', { resumable: false }), 403, 'retentionPolicyNotMet');
    await refused(same.save('two', { resumable: true }), 403);
    await refused(same.move('elsewhere.txt'), 403);
    // Metadata still changes.
    await same.setMetadata({ contentType: 'text/plain' });

    await new Promise((r) => setTimeout(r, Math.max(0, expiry.getTime() - Date.now() + 50)));
    await same.delete();
    assert.equal((await same.exists())[0], false);
  });

  it('locks a policy: it can grow but not shrink or go, and the lock needs the metageneration', async () => {
    const bucket = fx.bucket;
    await bucket.setRetentionPeriod(10);
    const [meta] = await bucket.getMetadata();
    await refused(bucket.lock('999'), 412);
    const lock = await call(`${fx.run.emulator.url}/storage/v1/b/${bucket.name}/lockRetentionPolicy`, 'POST');
    assert.equal(lock.status, 400);
    await bucket.lock(String(meta.metageneration));
    const [locked] = await bucket.getMetadata();
    assert.equal(locked.retentionPolicy?.isLocked, true);
    await refused(bucket.setRetentionPeriod(5), 403);
    await refused(bucket.removeRetentionPeriod(), 403);
    await bucket.setRetentionPeriod(20);
    const [longer] = await bucket.getMetadata();
    assert.deepEqual(
      [longer.retentionPolicy?.retentionPeriod, longer.retentionPolicy?.isLocked],
      ['20', true],
    );
    await refused(fx.run.storage.bucket('unlocked-nothing').lock('1'), 404);
  });

  it('refuses a retention period out of range and removes one that is not locked', async () => {
    const bucket = fx.bucket;
    await refused(bucket.setRetentionPeriod(0), 400);
    await refused(bucket.setMetadata({ retentionPolicy: { retentionPeriod: 'soon' } }), 400);
    await bucket.setRetentionPeriod(30);
    await bucket.removeRetentionPeriod();
    const [meta] = await bucket.getMetadata();
    assert.equal(meta.retentionPolicy, undefined);
    await refused(bucket.lock(String(meta.metageneration)), 400);
  });

  it('holds an object under a temporary or event-based hold, and by the bucket default', async () => {
    const bucket = fx.bucket;
    const file = bucket.file('held.txt');
    await file.save('x', { resumable: false });
    for (const hold of ['temporaryHold', 'eventBasedHold'] as const) {
      await file.setMetadata({ [hold]: true });
      assert.equal(file.metadata[hold], true);
      await refused(file.delete(), 403, 'retentionPolicyNotMet');
      await refused(file.save('y', { resumable: false }), 403);
      await file.setMetadata({ [hold]: false });
    }
    await bucket.setMetadata({ defaultEventBasedHold: true });
    const fresh = bucket.file('fresh.txt');
    await fresh.save('z', { resumable: false });
    assert.equal(fresh.metadata.eventBasedHold, true);
    await refused(fresh.delete(), 403);
    await fresh.setMetadata({ eventBasedHold: false });
    await fresh.delete();
    await file.delete();
  });

  it('object retention: only on buckets created with it, unlocked shortened with the override only', async () => {
    const until = new Date(Date.now() + 60_000).toISOString();
    await refused(
      fx.bucket.file('r.txt').save('r', {
        resumable: false,
        metadata: { retention: { mode: 'Unlocked', retainUntilTime: until } },
      }),
      400,
    );
    const [bucket] = await fx.run.storage.createBucket(`retained-${fx.n}`, { enableObjectRetention: true });
    assert.deepEqual(bucket.metadata.objectRetention, { mode: 'Enabled' });
    const file = bucket.file('r.txt');
    await file.save('r', {
      resumable: false,
      metadata: { retention: { mode: 'Unlocked', retainUntilTime: until } },
    });
    const [meta] = await file.getMetadata();
    assert.deepEqual(meta.retention, { mode: 'Unlocked', retainUntilTime: until });
    await refused(file.delete(), 403, 'retentionPolicyNotMet');
    await refused(file.setMetadata({ retention: null }), 403);
    const later = new Date(Date.now() + 120_000).toISOString();
    await file.setMetadata({ retention: { mode: 'Locked', retainUntilTime: later } });
    await refused(file.setMetadata({ retention: null }, { overrideUnlockedRetention: true }), 403);

    const other = bucket.file('s.txt');
    await other.save('s', {
      resumable: false,
      metadata: { retention: { mode: 'Unlocked', retainUntilTime: until } },
    });
    const [cleared] = await other.setMetadata({ retention: null }, { overrideUnlockedRetention: true });
    assert.equal(cleared.retention, undefined);
    await other.delete();
  });
});

// Its own suite: the one above points STORAGE_EMULATOR_HOST, which the client prefers to apiEndpoint.
describe('storage emulator retention across a restart', () => {
  it('keeps policies, locks, holds and object retention', async () => {
    const dataDir = tempDir();
    let emulator: StorageEmulator = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });
    try {
      const client = (): Storage => new Storage({ apiEndpoint: emulator.url, projectId: 'p', ...noRetry });
      const [bucket] = await client().createBucket('kept', { enableObjectRetention: true });
      await bucket.setRetentionPeriod(3600);
      const [meta] = await bucket.getMetadata();
      await bucket.lock(String(meta.metageneration));
      const until = new Date(Date.now() + 3_600_000).toISOString();
      await bucket.file('a').save('a', {
        resumable: false,
        metadata: { temporaryHold: true, retention: { mode: 'Locked', retainUntilTime: until } },
      });
      await emulator.close();
      emulator = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });
      const again = client().bucket('kept');
      const [after] = await again.getMetadata();
      assert.deepEqual(
        [after.retentionPolicy?.retentionPeriod, after.retentionPolicy?.isLocked, after.objectRetention],
        ['3600', true, { mode: 'Enabled' }],
      );
      const [file] = await again.file('a').getMetadata();
      assert.equal(file.temporaryHold, true);
      assert.deepEqual(file.retention, { mode: 'Locked', retainUntilTime: until });
      await refused(again.file('a').delete(), 403);
    } finally {
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
