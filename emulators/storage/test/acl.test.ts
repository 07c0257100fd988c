/**
 * ACLs, anonymous callers, uniform bucket-level access and public access prevention in the Cloud
 * Storage emulator (acl.ts, acl-api.ts): an emulator with `--iam` and `--anonymous allUsers`, an
 * admin on an identity port (Google's client, which sends no token to a custom endpoint), a
 * granted-nothing member by token, and callers with no credentials at all.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AccessFile, mintToken, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { type Bucket, type CombineOptions, Storage } from '@google-cloud/storage';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { call, tempDir } from './support/harness.ts';

const ADMIN = 'user:admin@example.com';
const STRANGER = 'user:stranger@example.com';
const USER_ENTITY = 'user-stranger@example.com';

/** The status and first reason of a client error. */
async function failure(p: Promise<unknown>): Promise<{ code: unknown; reason: unknown; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: unknown; errors?: { reason?: unknown }[]; message: string };
    return { code: e.code, reason: e.errors?.[0]?.reason, message: e.message };
  }
  return assert.fail('expected the call to fail');
}

describe('storage emulator ACLs, anonymous callers, uniform access and public access prevention', () => {
  let dir: string;
  let file: string;
  let secret: string;
  let emu: StorageEmulator;
  let admin: Storage;
  let anonymous: Storage;
  let bucket: Bucket;
  let n = 0;

  const start = async (extra: { anonymous?: 'allUsers' } = { anonymous: 'allUsers' }) => {
    emu = await startStorageEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      fsync: 'none',
      iam: { file, identities: [{ member: ADMIN, port: 0 }] },
      ...extra,
    });
    admin = new Storage({ apiEndpoint: `http://127.0.0.1:${emu.identityPorts.get(ADMIN)}`, projectId: 'p' });
    anonymous = new Storage({ apiEndpoint: emu.url, projectId: 'p' });
  };
  const bearer = (member: string) => ({ authorization: `Bearer ${mintToken(secret, member)}` });

  before(async () => {
    dir = tempDir();
    file = join(dir, 'access.json');
    secret = newTokenSecret();
    const access: AccessFile = {
      tokenSecret: secret,
      policies: [{ resource: 'projects/p', bindings: [{ role: 'roles/storage.admin', members: [ADMIN] }] }],
    };
    writeFileSync(file, JSON.stringify(access));
    await start();
  });
  beforeEach(async () => {
    n += 1;
    [bucket] = await admin.createBucket(`acl-test-${n}`);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a bucket ACL: projectPrivate at first, then insert, get, update and delete of an entry', async () => {
    const [first] = await bucket.acl.get();
    assert.deepEqual(
      (first as unknown as { entity: string; role: string }[]).map((e) => `${e.entity}:${e.role}`),
      ['project-owners-0:OWNER', 'project-editors-0:OWNER', 'project-viewers-0:READER'],
    );
    const [added] = await bucket.acl.add({ entity: USER_ENTITY, role: 'WRITER' });
    assert.equal(added.role, 'WRITER');
    const [updated] = await bucket.acl.update({ entity: USER_ENTITY, role: 'READER' });
    assert.equal(updated.role, 'READER');
    const [one] = await bucket.acl.get({ entity: USER_ENTITY });
    assert.equal((one as { role: string }).role, 'READER');
    const [meta] = await bucket.getMetadata({ projection: 'full' });
    assert.ok(meta.acl?.some((e) => e.entity === USER_ENTITY && e.role === 'READER'));
    assert.ok(Array.isArray(meta.defaultObjectAcl));
    assert.deepEqual(meta.owner, { entity: 'project-owners-0' });
    const [plain] = await bucket.getMetadata();
    assert.equal(plain.acl, undefined, 'without projection=full no ACL is rendered');
    await bucket.acl.delete({ entity: USER_ENTITY });
    const gone = await failure(bucket.acl.get({ entity: USER_ENTITY }));
    assert.deepEqual([gone.code, gone.reason], [404, 'notFound']);
  });

  it('refuses a bad entity or role with 400 and deleting an absent entry with 404', async () => {
    const bad = await failure(bucket.acl.add({ entity: 'nobody', role: 'READER' }));
    assert.deepEqual([bad.code, bad.reason], [400, 'invalid']);
    const [f] = await bucket.upload(join(import.meta.dirname, 'acl.test.ts'), { destination: 'x.txt' });
    const writer = await failure(f.acl.add({ entity: USER_ENTITY, role: 'WRITER' }));
    assert.deepEqual([writer.code, writer.reason], [400, 'invalid'], 'WRITER is a bucket role only');
    const absent = await failure(bucket.acl.default.delete({ entity: USER_ENTITY }));
    assert.equal(absent.code, 404);
  });

  it('gives a new object the default object ACL with its creator as OWNER, or its predefined ACL', async () => {
    await bucket.acl.default.add({ entity: 'domain-example.org', role: 'READER' });
    const f = bucket.file('a.txt');
    await f.save('a', { resumable: false });
    const [acl] = await f.acl.get();
    const entries = (acl as unknown as { entity: string; role: string }[]).map(
      (e) => `${e.entity}:${e.role}`,
    );
    assert.ok(entries.includes('domain-example.org:READER'), entries.join());
    assert.ok(entries.includes('user-admin@example.com:OWNER'), entries.join());
    const pub = bucket.file('public.txt');
    await pub.save('p', { resumable: true, predefinedAcl: 'publicRead' });
    const [entry] = await pub.acl.get({ entity: 'allUsers' });
    assert.equal((entry as { role: string }).role, 'READER');
    const [full] = await pub.getMetadata({ projection: 'full' });
    assert.ok(full.acl?.some((e) => e.entity === 'allUsers'));
  });

  it('applies predefined ACLs on bucket insert and patch, copy, compose and object patch', async () => {
    const entries = (acl: unknown) =>
      (acl as { entity: string; role: string }[]).map((e) => `${e.entity}:${e.role}`).sort();
    const [made] = await admin.createBucket(`acl-made-${n}`, {
      predefinedAcl: 'publicRead',
      predefinedDefaultObjectAcl: 'bucketOwnerRead',
    });
    assert.ok(entries((await made.acl.get())[0]).includes('allUsers:READER'));
    assert.deepEqual(entries((await made.acl.default.get())[0]), ['project-owners-0:OWNER']);
    await made.setMetadata({ acl: null }, { predefinedAcl: 'private' });
    assert.deepEqual(entries((await made.acl.get())[0]), ['project-owners-0:OWNER']);
    const src = bucket.file('src.txt');
    await src.save('s', { resumable: false });
    const [copied] = await src.copy(bucket.file('copy.txt'), { predefinedAcl: 'publicRead' });
    assert.ok(entries((await copied.acl.get())[0]).includes('allUsers:READER'));
    // The client passes its options on as the query; its type does not name this one.
    const composeOptions: CombineOptions & { destinationPredefinedAcl: string } = {
      destinationPredefinedAcl: 'bucketOwnerFullControl',
    };
    const [composed] = await bucket.combine([src], bucket.file('composed.txt'), composeOptions);
    assert.deepEqual(entries((await composed.acl.get())[0]), [
      'project-owners-0:OWNER',
      'user-admin@example.com:OWNER',
    ]);
    await copied.setMetadata({ acl: null }, { predefinedAcl: 'private' });
    assert.deepEqual(entries((await copied.acl.get())[0]), ['user-admin@example.com:OWNER']);
    await made.delete();
  });

  it('treats a call without credentials as allUsers: 401 unless an ACL makes the object public', async () => {
    const f = bucket.file('private.txt');
    await f.save('secret', { resumable: false });
    const anon = anonymous.bucket(bucket.name).file('private.txt');
    const [isPublic] = await anon.isPublic();
    assert.equal(isPublic, false);
    const denied = await failure(anon.download());
    assert.equal(denied.code, 401);
    assert.match(denied.message, /Anonymous caller does not have storage\.objects\.get access/);
    const upload = await failure(
      anonymous.bucket(bucket.name).file('new.txt').save('x', { resumable: false }),
    );
    assert.equal(upload.code, 401);
    assert.match(upload.message, /does not have storage\.objects\.create access/);
    // A resumable start is refused alike; the client's error leaves the body in its response.
    const resumable = await call(
      `${emu.url}/upload/storage/v1/b/${bucket.name}/o?uploadType=resumable&name=new.txt`,
      'POST',
      {},
    );
    assert.equal(resumable.status, 401);
    assert.match(resumable.text, /Anonymous caller does not have storage\.objects\.create access/);
    await f.makePublic();
    const [bytes] = await anon.download();
    assert.equal(bytes.toString(), 'secret');
    assert.equal((await anon.isPublic())[0], true);
    await f.makePrivate();
    assert.equal((await anon.isPublic())[0], false);
    const listed = await failure(anonymous.bucket(bucket.name).getFiles());
    assert.equal(listed.code, 401);
    await bucket.acl.add({ entity: 'allUsers', role: 'READER' });
    const [files] = await anonymous.bucket(bucket.name).getFiles();
    assert.deepEqual(
      files.map((x) => x.name),
      ['private.txt'],
    );
  });

  it('lets a member an ACL names do what its role allows, where IAM grants it nothing', async () => {
    const f = bucket.file('shared.txt');
    await f.save('shared', { resumable: false });
    const url = `${emu.url}/storage/v1/b/${bucket.name}/o/shared.txt?alt=media`;
    assert.equal((await call(url, 'GET', undefined, bearer(STRANGER))).status, 403);
    await f.acl.add({ entity: USER_ENTITY, role: 'READER' });
    const read = await call(url, 'GET', undefined, bearer(STRANGER));
    assert.deepEqual([read.status, read.text], [200, 'shared']);
    const del = await call(
      `${emu.url}/storage/v1/b/${bucket.name}/o/shared.txt`,
      'DELETE',
      undefined,
      bearer(STRANGER),
    );
    assert.equal(del.status, 403, 'an object READER does not delete');
  });

  it('refuses ACL calls with 400 under uniform bucket-level access, and keeps the ACLs for later', async () => {
    const f = bucket.file('u.txt');
    await f.save('u', { resumable: false });
    await f.acl.update({ entity: USER_ENTITY, role: 'READER' });
    await bucket.acl.default.update({ entity: USER_ENTITY, role: 'OWNER' });
    const [before] = await f.acl.get();
    const [defaultBefore] = await bucket.acl.default.get();
    await f.makePublic();
    await bucket.setMetadata({ iamConfiguration: { uniformBucketLevelAccess: { enabled: true } } });
    const [meta] = await bucket.getMetadata();
    assert.equal(meta.iamConfiguration?.uniformBucketLevelAccess?.enabled, true);
    assert.equal(typeof meta.iamConfiguration?.uniformBucketLevelAccess?.lockedTime, 'string');
    for (const p of [
      () => f.acl.get(),
      () => f.acl.update({ entity: USER_ENTITY, role: 'OWNER' }),
      () => bucket.acl.get(),
      () => bucket.acl.default.add({ entity: USER_ENTITY, role: 'READER' }),
      () => bucket.file('v.txt').save('v', { resumable: false, predefinedAcl: 'publicRead' }),
    ]) {
      const e = await failure(p());
      assert.deepEqual([e.code, e.reason], [400, 'invalid'], e.message);
    }
    const anon = await failure(anonymous.bucket(bucket.name).file('u.txt').download());
    assert.equal(anon.code, 401, 'a public ACL does not count under uniform access');
    await bucket.setMetadata({ iamConfiguration: { uniformBucketLevelAccess: { enabled: false } } });
    const [after] = await f.acl.get();
    assert.deepEqual(after, [...(before as unknown[]), { entity: 'allUsers', role: 'READER' }]);
    assert.deepEqual((await bucket.acl.default.get())[0], defaultBefore);
  });

  it('enforces public access prevention: public grants are 412, earlier ones stop counting', async () => {
    const [fresh] = await bucket.getMetadata();
    assert.equal(fresh.iamConfiguration?.publicAccessPrevention, 'inherited');
    const bad = await failure(
      bucket.setMetadata({ iamConfiguration: { publicAccessPrevention: 'sometimes' } }),
    );
    assert.equal(bad.code, 400);
    const f = bucket.file('pap.txt');
    await f.save('pap', { resumable: false });
    await f.makePublic();
    await bucket.setMetadata({ iamConfiguration: { publicAccessPrevention: 'enforced' } });
    await bucket.setMetadata({ iamConfiguration: { uniformBucketLevelAccess: { enabled: false } } });
    const [meta] = await bucket.getMetadata();
    assert.equal(
      meta.iamConfiguration?.publicAccessPrevention,
      'enforced',
      'a uniform access change keeps it',
    );
    for (const p of [
      () => bucket.makePublic(),
      () => f.acl.add({ entity: 'allAuthenticatedUsers', role: 'READER' }),
      () => bucket.file('q.txt').save('q', { resumable: false, predefinedAcl: 'publicRead' }),
      () =>
        bucket.iam.setPolicy({ bindings: [{ role: 'roles/storage.objectViewer', members: ['allUsers'] }] }),
    ]) {
      const e = await failure(p());
      assert.deepEqual([e.code, e.reason], [412, 'conditionNotMet'], e.message);
    }
    const anon = await failure(anonymous.bucket(bucket.name).file('pap.txt').download());
    assert.equal(anon.code, 401);
    await bucket.setMetadata({ iamConfiguration: { publicAccessPrevention: 'inherited' } });
    const [bytes] = await anonymous.bucket(bucket.name).file('pap.txt').download();
    assert.equal(bytes.toString(), 'pap');
  });

  it('never makes an Authorization header without a bearer token the owner, and drops public bindings under prevention', async () => {
    // Uniform access: IAM alone decides, so only the bucket's own public binding could grant.
    await bucket.setMetadata({ iamConfiguration: { uniformBucketLevelAccess: { enabled: true } } });
    const f = bucket.file('hdr.txt');
    await f.save('h', { resumable: false });
    await bucket.iam.setPolicy({
      bindings: [{ role: 'roles/storage.objectViewer', members: ['allAuthenticatedUsers'] }],
    });
    const url = `${emu.url}/storage/v1/b/${bucket.name}/o/hdr.txt?alt=media`;
    assert.equal((await call(url, 'GET', undefined, bearer(STRANGER))).status, 200, 'before prevention');
    await bucket.setMetadata({ iamConfiguration: { publicAccessPrevention: 'enforced' } });
    assert.equal(
      (await call(url, 'GET', undefined, bearer(STRANGER))).status,
      403,
      'the binding stops counting',
    );
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'x']) {
      const read = await call(url, 'GET', undefined, { authorization });
      assert.equal(read.status, 401, `${authorization}: anonymous, not the owner`);
      const del = await call(`${emu.url}/storage/v1/b/${bucket.name}`, 'DELETE', undefined, {
        authorization,
      });
      assert.equal(del.status, 401, `${authorization}: no bucket delete`);
    }
  });

  it('keeps ACLs across a restart', async () => {
    const f = bucket.file('kept.txt');
    await f.save('k', { resumable: false });
    await f.acl.add({ entity: USER_ENTITY, role: 'OWNER' });
    await bucket.acl.add({ entity: 'group-team@example.com', role: 'WRITER' });
    await emu.close();
    await start();
    const [entry] = await admin.bucket(bucket.name).file('kept.txt').acl.get({ entity: USER_ENTITY });
    assert.equal((entry as { role: string }).role, 'OWNER');
    const [b] = await admin.bucket(bucket.name).acl.get({ entity: 'group-team@example.com' });
    assert.equal((b as { role: string }).role, 'WRITER');
  });

  it('leaves a call without credentials the owner’s without --anonymous', async () => {
    const f = bucket.file('owned.txt');
    await f.save('o', { resumable: false });
    await emu.close();
    await start({});
    const [bytes] = await anonymous.bucket(bucket.name).file('owned.txt').download();
    assert.equal(bytes.toString(), 'o');
    await emu.close();
    await start();
  });
});
