/**
 * Signed URLs and POST policies (signed.ts, post-policy.ts) with `--iam`: Google's client signs
 * with a service-account key file whose public half the access file publishes
 * (emulators/common/iam-keys.ts); the emulator verifies V4 and V2 signatures, refuses a tampered,
 * expired, over-long or unpublished-key signature with Cloud Storage's XML errors, and lets IAM
 * decide for the signing service account. The same key file's self-signed JWT is the client's
 * bearer token on the JSON API.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AccessFile,
  newServiceAccountKey,
  newTokenSecret,
  type ServiceAccountKeyFile,
} from '@eventbus/emulator-common/iam-enforce.ts';
import { Storage } from '@google-cloud/storage';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { tempDir } from './support/harness.ts';

const BUCKET = 'signed-test';
const CLOSED = 'signed-closed';
const EMAIL = 'signer@p.iam.gserviceaccount.com';
const SIGNER = `serviceAccount:${EMAIL}`;
const LOGO = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));

describe('storage emulator: signed URLs and POST policies', () => {
  let dir: string;
  let emu: StorageEmulator;
  let keyFile: ServiceAccountKeyFile;
  let signer: Storage;

  const clientOf = (credentials: ServiceAccountKeyFile) =>
    new Storage({ apiEndpoint: emu.url, projectId: 'p', credentials, useAuthWithCustomEndpoint: true });

  before(async () => {
    dir = tempDir();
    const key = newServiceAccountKey(SIGNER, 'p');
    keyFile = key.keyFile;
    const access: AccessFile = {
      tokenSecret: newTokenSecret(),
      policies: [
        {
          resource: `projects/_/buckets/${BUCKET}`,
          bindings: [{ role: 'roles/storage.objectAdmin', members: [SIGNER] }],
        },
      ],
      serviceAccountKeys: [key.published],
    };
    const file = join(dir, 'access.json');
    writeFileSync(file, JSON.stringify(access));
    emu = await startStorageEmulator({ port: 0, dataDir: join(dir, 'data'), fsync: 'none', iam: { file } });
    // The owner (no credentials on the main port) seeds both buckets.
    const owner = new Storage({ apiEndpoint: emu.url, projectId: 'p' });
    const [bucket] = await owner.createBucket(BUCKET);
    await bucket.file('logo.bin').save(LOGO, { resumable: false, contentType: 'image/png' });
    await bucket.file("special/azAZ!*'()*%/file.jpg").save(LOGO, { resumable: false });
    const [closed] = await owner.createBucket(CLOSED);
    await closed.file('secret.txt').save('no', { resumable: false });
    signer = clientOf(keyFile);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const soon = () => Date.now() + 60_000;

  it('serves a V4 and a V2 signed read, special characters in the name too', async () => {
    for (const version of ['v4', 'v2'] as const)
      for (const name of ['logo.bin', "special/azAZ!*'()*%/file.jpg"]) {
        const [url] = await signer
          .bucket(BUCKET)
          .file(name)
          .getSignedUrl({ version, action: 'read', expires: soon() });
        const res = await fetch(url);
        assert.equal(res.status, 200, `${version} ${name}: ${await res.clone().text()}`);
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), LOGO);
      }
  });

  it('writes with a signed PUT and deletes with a signed DELETE', async () => {
    const file = signer.bucket(BUCKET).file('put.txt');
    const [put] = await file.getSignedUrl({
      version: 'v4',
      action: 'write',
      expires: soon(),
      contentType: 'text/plain',
    });
    const res = await fetch(put, {
      method: 'PUT',
      body: 'written',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(res.status, 200, await res.text());
    const [bytes] = await file.download();
    assert.equal(bytes.toString(), 'written');
    const [meta] = await file.getMetadata();
    assert.equal(meta.contentType, 'text/plain');
    const [del] = await file.getSignedUrl({ version: 'v2', action: 'delete', expires: soon() });
    assert.equal((await fetch(del, { method: 'DELETE' })).status, 204);
    assert.deepEqual(await file.exists(), [false]);
  });

  it('lists a bucket with a signed URL as <ListBucketResult>', async () => {
    const [url] = await signer
      .bucket(BUCKET)
      .getSignedUrl({ version: 'v4', action: 'list', expires: soon() });
    const res = await fetch(url);
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.match(body, /<ListBucketResult[^>]*><Name>signed-test<\/Name>/);
    assert.match(body, /<Key>logo\.bin<\/Key>/);
  });

  it('refuses a tampered signature or path with 403 SignatureDoesNotMatch and the string to sign', async () => {
    const [url] = await signer
      .bucket(BUCKET)
      .file('logo.bin')
      .getSignedUrl({ version: 'v4', action: 'read', expires: soon() });
    const u = new URL(url);
    const sig = u.searchParams.get('X-Goog-Signature') as string;
    u.searchParams.set('X-Goog-Signature', `${sig.slice(0, -2)}${sig.endsWith('00') ? '11' : '00'}`);
    const tampered = await fetch(u);
    const body = await tampered.text();
    assert.equal(tampered.status, 403);
    assert.match(body, /<Code>SignatureDoesNotMatch<\/Code>/);
    assert.match(
      body,
      /<StringToSign>GOOG4-RSA-SHA256\n\d{8}T\d{6}Z\n\d{8}\/auto\/storage\/goog4_request\n[0-9a-f]{64}<\/StringToSign>/,
    );
    const other = new URL(url.replace('/logo.bin', '/special%2Ffile.jpg'));
    assert.equal((await fetch(other)).status, 403);
    const [v2] = await signer
      .bucket(BUCKET)
      .file('logo.bin')
      .getSignedUrl({ version: 'v2', action: 'read', expires: soon() });
    const res = await fetch(v2, { method: 'GET', headers: { 'x-goog-extra': 'not signed' } });
    assert.equal(res.status, 403);
    assert.match(
      await res.text(),
      /<StringToSign>GET\n\n\n\d+\nx-goog-extra:not signed\n\/signed-test\/logo\.bin<\/StringToSign>/,
    );
  });

  it('refuses a signature by a key the environment did not publish', async () => {
    const stranger = clientOf(newServiceAccountKey(SIGNER, 'p').keyFile);
    for (const version of ['v4', 'v2'] as const) {
      const [url] = await stranger
        .bucket(BUCKET)
        .file('logo.bin')
        .getSignedUrl({ version, action: 'read', expires: soon() });
      const res = await fetch(url);
      assert.equal(res.status, 403, version);
      assert.match(await res.text(), /SignatureDoesNotMatch/);
    }
  });

  it('refuses an expired URL with 400 ExpiredToken, one not yet valid with 403, over 7 days with 400', async () => {
    const file = signer.bucket(BUCKET).file('logo.bin');
    const [v4] = await file.getSignedUrl({ version: 'v4', action: 'read', expires: Date.now() + 1500 });
    const [v2] = await file.getSignedUrl({ version: 'v2', action: 'read', expires: Date.now() + 1500 });
    await new Promise((done) => setTimeout(done, 2100));
    for (const url of [v4, v2]) {
      const res = await fetch(url);
      assert.equal(res.status, 400);
      assert.match(await res.text(), /<Code>ExpiredToken<\/Code>/);
    }
    const [later] = await file.getSignedUrl({
      version: 'v4',
      action: 'read',
      accessibleAt: Date.now() + 3_600_000,
      expires: Date.now() + 7_200_000,
    });
    assert.equal((await fetch(later)).status, 403);
    const [url] = await file.getSignedUrl({ version: 'v4', action: 'read', expires: soon() });
    const long = new URL(url);
    long.searchParams.set('X-Goog-Expires', '604801');
    const res = await fetch(long);
    assert.equal(res.status, 400);
    assert.match(await res.text(), /AuthorizationQueryParametersError/);
  });

  it('lets IAM decide for the signing service account', async () => {
    const [url] = await signer
      .bucket(CLOSED)
      .file('secret.txt')
      .getSignedUrl({ version: 'v4', action: 'read', expires: soon() });
    const res = await fetch(url);
    assert.equal(res.status, 403);
    const body = await res.text();
    assert.match(body, /<Code>AccessDenied<\/Code>/);
    assert.match(body, /signer@p\.iam\.gserviceaccount\.com does not have storage\.objects\.get access/);
  });

  it('takes the key file’s self-signed JWT as the service account’s bearer token', async () => {
    const [meta] = await signer.bucket(BUCKET).file('logo.bin').getMetadata();
    assert.equal(meta.size, String(LOGO.length));
    await assert.rejects(
      signer.bucket(CLOSED).file('secret.txt').getMetadata(),
      (err: Error & { code?: number }) => {
        assert.equal(err.code, 403);
        assert.match(err.message, /signer@p\.iam\.gserviceaccount\.com does not have storage\.objects\.get/);
        return true;
      },
    );
  });

  describe('POST policies', () => {
    const post = async (fields: Record<string, string>, content: string) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([content]), 'upload.txt');
      return fetch(`${emu.url}/${BUCKET}`, { method: 'POST', body: form });
    };
    const policyFor = async (name: string, conditions: unknown[] = []) => {
      const [policy] = await signer
        .bucket(BUCKET)
        .file(name)
        .generateSignedPostPolicyV4({
          expires: soon(),
          fields: { 'x-goog-meta-test': 'data' },
          conditions: conditions as never,
        });
      return policy.fields;
    };

    it('uploads a V4 policy’s form as the signer, 204', async () => {
      const res = await post(await policyFor('posted.txt'), 'my-content');
      assert.equal(res.status, 204, await res.text());
      const [bytes] = await signer.bucket(BUCKET).file('posted.txt').download();
      assert.equal(bytes.toString(), 'my-content');
      const [meta] = await signer.bucket(BUCKET).file('posted.txt').getMetadata();
      assert.deepEqual(meta.metadata, { test: 'data' });
    });

    it('checks the conditions: content-length-range, the key, every field named, the signature', async () => {
      const ranged = await policyFor('ranged.txt', [['content-length-range', 0, 4]]);
      const big = await post(ranged, 'too long');
      assert.equal(big.status, 400);
      assert.match(await big.text(), /EntityTooLarge/);
      assert.equal((await post(ranged, 'ok')).status, 204);

      const fields = await policyFor('keyed.txt');
      const renamed = await post({ ...fields, key: 'other.txt' }, 'x');
      assert.equal(renamed.status, 400);
      assert.match(await renamed.text(), /InvalidPolicyDocument/);
      const extra = await post({ ...fields, 'x-goog-meta-more': 'y' }, 'x');
      assert.equal(extra.status, 400);
      assert.match(await extra.text(), /did not reference these fields: x-goog-meta-more/);
      const policy = JSON.parse(Buffer.from(fields.policy as string, 'base64').toString());
      policy.conditions.push(['starts-with', '$key', '']);
      const forged = await post(
        { ...fields, policy: Buffer.from(JSON.stringify(policy)).toString('base64') },
        'x',
      );
      assert.equal(forged.status, 403);
      assert.match(await forged.text(), /SignatureDoesNotMatch/);
      assert.deepEqual(await signer.bucket(BUCKET).file('other.txt').exists(), [false]);
    });
  });
});
