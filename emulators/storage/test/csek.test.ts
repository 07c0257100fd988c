/**
 * Customer-supplied encryption keys in the Cloud Storage emulator (csek.ts), through Google's
 * client and raw calls: the key's SHA-256 is kept with the object, its bytes and hashes need the
 * same key, a rewrite rotates it, and the refusals carry Cloud Storage's reasons.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Storage } from '@google-cloud/storage';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { call, emulatorWithFreshBuckets, tempDir } from './support/harness.ts';

const sha = (key: Buffer): string => createHash('sha256').update(key).digest('base64');

function keyHeaders(key: Buffer, prefix = 'x-goog-encryption-'): Record<string, string> {
  return {
    [`${prefix}algorithm`]: 'AES256',
    [`${prefix}key`]: key.toString('base64'),
    [`${prefix}key-sha256`]: sha(key),
  };
}

const reasonOf = (json: Record<string, unknown> | undefined): string | undefined =>
  (json?.error as { errors?: { reason?: string }[] } | undefined)?.errors?.[0]?.reason;

describe('storage emulator customer-supplied encryption keys', () => {
  const fx = emulatorWithFreshBuckets('csek');

  it('keeps the key hash, shows the hashes and bytes only to the key, rotates it by rewrite', async () => {
    const key = randomBytes(32);
    const file = fx.bucket.file('secret.txt', { encryptionKey: key });
    await file.save('secret data', { resumable: false });
    const [meta] = await file.getMetadata();
    assert.deepEqual(meta.customerEncryption, { encryptionAlgorithm: 'AES256', keySha256: sha(key) });
    assert.ok(meta.crc32c);
    assert.ok(meta.md5Hash);

    const plain = fx.bucket.file('secret.txt');
    const [seen] = await plain.getMetadata();
    assert.equal(seen.crc32c, undefined);
    assert.equal(seen.md5Hash, undefined);
    assert.equal(seen.customerEncryption?.keySha256, sha(key));
    const [listed] = await fx.bucket.getFiles();
    assert.equal(listed[0]?.metadata.crc32c, undefined);

    const media = `${fx.run.emulator.url}/storage/v1/b/${fx.bucket.name}/o/secret.txt?alt=media`;
    const none = await call(media, 'GET');
    assert.equal(none.status, 400);
    assert.equal(reasonOf(none.json), 'resourceIsEncryptedWithCustomerEncryptionKey');
    const wrong = await call(media, 'GET', undefined, keyHeaders(randomBytes(32)));
    assert.equal(wrong.status, 400);
    assert.equal(reasonOf(wrong.json), 'customerEncryptionKeyIsIncorrect');
    assert.equal((await file.download())[0].toString(), 'secret data');

    const next = randomBytes(32);
    await file.rotateEncryptionKey(next);
    const rotated = fx.bucket.file('secret.txt', { encryptionKey: next });
    assert.equal((await rotated.download())[0].toString(), 'secret data');
    assert.equal((await call(media, 'GET', undefined, keyHeaders(key))).status, 400);
    // A copy without the source's key is refused; the copy may drop the key.
    const copy = `${fx.run.emulator.url}/storage/v1/b/${fx.bucket.name}/o/secret.txt/copyTo/b/${fx.bucket.name}/o/open.txt`;
    const blind = await call(copy, 'POST', {});
    assert.equal(reasonOf(blind.json), 'resourceIsEncryptedWithCustomerEncryptionKey');
    const opened = await call(copy, 'POST', {}, keyHeaders(next, 'x-goog-copy-source-encryption-'));
    assert.equal(opened.status, 200, opened.text);
    assert.equal((await fx.bucket.file('open.txt').download())[0].toString(), 'secret data');
  });

  it('refuses a key on a plain object and malformed key headers', async () => {
    await fx.bucket.file('plain.txt').save('plain', { resumable: false });
    const media = `${fx.run.emulator.url}/storage/v1/b/${fx.bucket.name}/o/plain.txt?alt=media`;
    const extra = await call(media, 'GET', undefined, keyHeaders(randomBytes(32)));
    assert.equal(reasonOf(extra.json), 'resourceNotEncryptedWithCustomerEncryptionKey');
    const key = randomBytes(32);
    const badSha = await call(media, 'GET', undefined, {
      ...keyHeaders(key),
      'x-goog-encryption-key-sha256': sha(randomBytes(32)),
    });
    assert.equal(badSha.status, 400);
    const short = await call(media, 'GET', undefined, {
      ...keyHeaders(key),
      'x-goog-encryption-key': randomBytes(16).toString('base64'),
    });
    assert.equal(short.status, 400);
    const algo = await call(media, 'GET', undefined, {
      ...keyHeaders(key),
      'x-goog-encryption-algorithm': 'AES128',
    });
    assert.equal(algo.status, 400);
  });

  it('encrypts resumable uploads and keeps the key hash across a restart', async () => {
    const dataDir = tempDir();
    const key = randomBytes(32);
    let emulator: StorageEmulator = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });
    const before = process.env.STORAGE_EMULATOR_HOST;
    try {
      process.env.STORAGE_EMULATOR_HOST = emulator.url;
      const [bucket] = await new Storage({ projectId: 'p' }).createBucket('keyed');
      await bucket.file('big', { encryptionKey: key }).save(randomBytes(300_000), { resumable: true });
      await emulator.close();
      emulator = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });
      process.env.STORAGE_EMULATOR_HOST = emulator.url;
      const again = new Storage({ projectId: 'p', retryOptions: { autoRetry: false } }).bucket('keyed');
      const [meta] = await again.file('big').getMetadata();
      assert.equal(meta.customerEncryption?.keySha256, sha(key));
      await assert.rejects(again.file('big').download(), (e: { code?: number }) => e.code === 400);
      assert.equal((await again.file('big', { encryptionKey: key }).download())[0].length, 300_000);
    } finally {
      if (before === undefined) delete process.env.STORAGE_EMULATOR_HOST;
      else process.env.STORAGE_EMULATOR_HOST = before;
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
