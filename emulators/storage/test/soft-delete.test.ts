/**
 * Soft delete in the Cloud Storage emulator (soft-delete.ts), through Google's client: a bucket's
 * policy keeps deleted and replaced generations, which are listed, read and restored; a deleted
 * bucket is kept and restored the same way; without a policy nothing is kept; all of it survives
 * a restart.
 */
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { call, emulatorWithFreshBuckets, tempDir } from './support/harness.ts';

const WEEK = 7 * 24 * 3600;

async function refused(p: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(p, (e: { code?: number }) => {
    assert.equal(e.code, code, String(e));
    return true;
  });
}

describe('storage emulator soft delete', () => {
  const fx = emulatorWithFreshBuckets('soft');

  it('keeps deleted and replaced generations for the policy, lists, reads and restores them', async () => {
    const bucket = fx.bucket;
    await refused(bucket.setMetadata({ softDeletePolicy: { retentionDurationSeconds: 60 } }), 400);
    await bucket.setMetadata({ softDeletePolicy: { retentionDurationSeconds: WEEK } });
    const [meta] = await bucket.getMetadata();
    assert.equal(meta.softDeletePolicy?.retentionDurationSeconds, String(WEEK));
    assert.ok(meta.softDeletePolicy?.effectiveTime);

    const file = bucket.file('a.txt');
    await file.save('first', { resumable: false });
    const [first] = await file.getMetadata();
    await file.save('second', { resumable: false });
    const [second] = await file.getMetadata();
    await file.delete();
    assert.deepEqual((await bucket.getFiles())[0], []);

    const [soft] = await bucket.getFiles({ softDeleted: true });
    assert.deepEqual(
      soft.map((f) => f.metadata.generation),
      [first.generation, second.generation],
    );
    for (const f of soft) {
      assert.ok(f.metadata.softDeleteTime);
      assert.equal(
        Date.parse(f.metadata.hardDeleteTime as string) - Date.parse(f.metadata.softDeleteTime as string),
        WEEK * 1000,
      );
    }
    const [got] = await file.get({ softDeleted: true, generation: Number(first.generation) });
    assert.equal(got.metadata.generation, first.generation);
    await refused(file.get({ softDeleted: true, generation: 1 }), 404);
    const media = await call(
      `${fx.run.emulator.url}/storage/v1/b/${bucket.name}/o/a.txt?softDeleted=true&generation=${first.generation}&alt=media`,
      'GET',
    );
    assert.equal(media.status, 400);

    const restored = await file.restore({ generation: Number(first.generation) });
    assert.notEqual(restored.generation, first.generation);
    assert.equal((await file.download())[0].toString(), 'first');
    const [left] = await bucket.getFiles({ softDeleted: true });
    assert.deepEqual(
      left.map((f) => f.metadata.generation),
      [second.generation],
    );
    // Restoring over a live object is a write: its preconditions hold.
    await refused(file.restore({ generation: Number(second.generation), ifGenerationMatch: 0 }), 412);
    // A move renames: its source is not kept as soft-deleted.
    await file.moveFileAtomic('moved.txt');
    assert.equal((await bucket.getFiles({ softDeleted: true }))[0].length, 1);
  });

  it('keeps nothing without a policy (or with 0), so a deleted generation is gone', async () => {
    const file = fx.bucket.file('b.txt');
    await file.save('x', { resumable: false });
    const [meta] = await file.getMetadata();
    await file.delete();
    assert.deepEqual((await fx.bucket.getFiles({ softDeleted: true }))[0], []);
    await refused(file.restore({ generation: Number(meta.generation) }), 404);
    await fx.bucket.setMetadata({ softDeletePolicy: { retentionDurationSeconds: 0 } });
    assert.equal((await fx.bucket.getMetadata())[0].softDeletePolicy?.retentionDurationSeconds, '0');
  });

  it('gives restore tokens in a bucket with a hierarchical namespace', async () => {
    const [bucket] = await fx.run.storage.createBucket(`hns-${fx.n}`, {
      hierarchicalNamespace: { enabled: true },
      iamConfiguration: { uniformBucketLevelAccess: { enabled: true } },
      softDeletePolicy: { retentionDurationSeconds: WEEK },
    });
    const file = bucket.file('dir/c.txt');
    await file.save('c', { resumable: false });
    const [meta] = await file.getMetadata();
    await file.delete();
    const [soft] = await file.get({ softDeleted: true, generation: Number(meta.generation) });
    const token = soft.metadata.restoreToken as string;
    assert.ok(token);
    await refused(file.restore({ generation: Number(meta.generation), restoreToken: 'other' }), 404);
    await file.restore({ generation: Number(meta.generation), restoreToken: token });
    assert.equal((await file.download())[0].toString(), 'c');
  });

  it('soft-deletes a bucket with a policy, lists, reads and restores it', async () => {
    const storage = fx.run.storage;
    const [bucket] = await storage.createBucket(`gone-${fx.n}`, {
      softDeletePolicy: { retentionDurationSeconds: WEEK },
    });
    const generation = bucket.metadata.generation as string;
    assert.match(generation, /^\d+$/);
    await bucket.file('kept.txt').save('k', { resumable: false });
    await bucket.file('kept.txt').delete();
    await bucket.delete();
    assert.equal((await bucket.exists())[0], false);

    const [dead] = await storage.getBuckets({ softDeleted: true });
    const mine = dead.find((b) => b.name === bucket.name);
    assert.equal(mine?.metadata.generation, generation);
    assert.ok(mine?.metadata.softDeleteTime);
    assert.ok(mine?.metadata.hardDeleteTime);
    assert.equal((await storage.getBuckets({ prefix: bucket.name }))[0].length, 0);
    const [read] = await storage.bucket(bucket.name).getMetadata({ softDeleted: true, generation });
    assert.equal(read.generation, generation);
    await refused(storage.bucket(bucket.name).getMetadata({ softDeleted: true, generation: '1' }), 404);

    await storage.bucket(bucket.name).restore({ generation });
    const [back] = await bucket.getMetadata();
    assert.equal(back.softDeleteTime, undefined);
    // Its soft-deleted object came back with it.
    assert.equal((await bucket.getFiles({ softDeleted: true }))[0].length, 1);
    await refused(storage.bucket(bucket.name).restore({ generation }), 404);
  });

  it('deletes a bucket without a policy for good, with its soft-deleted objects', async () => {
    const [bucket] = await fx.run.storage.createBucket(`plain-${fx.n}`);
    await bucket.delete();
    const [dead] = await fx.run.storage.getBuckets({ softDeleted: true });
    assert.equal(
      dead.some((b) => b.name === bucket.name),
      false,
    );
  });
});

describe('storage emulator soft delete across a restart', () => {
  it('keeps soft-deleted objects and buckets, and their files', async () => {
    const dataDir = tempDir();
    let emulator: StorageEmulator = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });
    try {
      const client = (): Storage =>
        new Storage({ apiEndpoint: emulator.url, projectId: 'p', retryOptions: { autoRetry: false } });
      const policy = { softDeletePolicy: { retentionDurationSeconds: WEEK } };
      const [bucket] = await client().createBucket('live', policy);
      await bucket.file('o').save('bytes', { resumable: false });
      const [meta] = await bucket.file('o').getMetadata();
      await bucket.file('o').delete();
      const [gone] = await client().createBucket('gone', policy);
      await gone.delete();
      await emulator.close();
      emulator = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });

      const live = client().bucket('live');
      assert.equal((await live.getFiles({ softDeleted: true }))[0].length, 1);
      assert.equal(readdirSync(join(dataDir, 'blobs')).length, 1);
      await live.file('o').restore({ generation: Number(meta.generation) });
      assert.equal((await live.file('o').download())[0].toString(), 'bytes');
      const [dead] = await client().getBuckets({ softDeleted: true });
      assert.deepEqual(
        dead.map((b) => b.name),
        ['gone'],
      );
      await client()
        .bucket('gone')
        .restore({ generation: dead[0]?.metadata.generation as string });
      assert.equal((await client().bucket('gone').exists())[0], true);
    } finally {
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
