/**
 * The Cloud Storage emulator with `--iam`: callers by token, by identity port or as the owner,
 * each call authorized as Cloud Storage does (list on the bucket with the prefix asked for,
 * overwrite needs delete), refused with Cloud Storage's 401 and 403 bodies; the access file
 * re-read when it changes. Google's client where it can show it (on identity ports: it sends no
 * token to a custom endpoint), raw HTTP with `Authorization: Bearer` for tokens.
 */
import assert from 'node:assert/strict';
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AccessFile,
  mintToken,
  newTokenSecret,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { Storage } from '@google-cloud/storage';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { call, exited, launch, tempDir } from './support/harness.ts';

const BUCKET = 'iam-test';
const BUCKET_NAME = `projects/_/buckets/${BUCKET}`;
const sa = (name: string) => `serviceAccount:${name}@p.iam.gserviceaccount.com`;
const READER = sa('reader');
const NOBODY = sa('nobody');
const PREFIXED = sa('prefixed');
const LISTER = sa('lister');
const CREATOR = sa('creator');
const LATE = sa('late');
const IDENTITIES = [READER, NOBODY, PREFIXED, LISTER, CREATOR];

const binding = (role: string, member: string, expression?: string) => ({
  role,
  members: [member],
  ...(expression ? { condition: { title: 'scoped', expression } } : {}),
});

const POLICIES: IamPolicy[] = [
  {
    resource: BUCKET_NAME,
    bindings: [
      binding('roles/storage.objectViewer', READER),
      binding(
        'roles/storage.objectViewer',
        PREFIXED,
        `resource.name.startsWith("${BUCKET_NAME}/objects/replays/")`,
      ),
      binding(
        'roles/storage.objectViewer',
        LISTER,
        'api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("replays/")',
      ),
      binding('roles/storage.objectCreator', CREATOR),
    ],
  },
];

/** The status of a client error: `code` for API calls, `response.status` for upload session starts. */
function codeOf(err: unknown): unknown {
  const e = err as { code?: unknown; response?: { status?: unknown } };
  return typeof e.code === 'number' ? e.code : e.response?.status;
}

/** Awaits a refusal with `code`, whose message names `permission` and `resource`. */
async function refused(
  p: Promise<unknown>,
  code: number,
  permission: string,
  resource: string,
): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.equal(codeOf(err), code, String(err));
    // An upload session's start is a gaxios error: the body is in its response, not its message.
    const e = err as Error & { response?: { data?: unknown } };
    const text = `${e.message} ${JSON.stringify(e.response?.data ?? '')}`;
    assert.ok(text.includes(`'${permission}'`), text);
    assert.ok(text.includes(`'${resource}'`), text);
    return;
  }
  assert.fail(`expected a ${code}`);
}

describe('storage emulator with --iam', () => {
  let dir: string;
  let file: string;
  let secret: string;
  let emu: StorageEmulator;
  const clients = new Map<string, Storage>();
  const as = (member: string) => clients.get(member) as Storage;
  const bearer = (member: string, ttl?: number) => ({
    authorization: `Bearer ${mintToken(secret, member, ttl)}`,
  });
  const objectUrl = (name: string, media = false) =>
    `${emu.url}/storage/v1/b/${BUCKET}/o/${encodeURIComponent(name)}${media ? '?alt=media' : ''}`;
  const writeAccess = (policies: IamPolicy[]) => {
    const access: AccessFile = { tokenSecret: secret, policies };
    writeFileSync(file, JSON.stringify(access));
  };

  before(async () => {
    dir = tempDir();
    file = join(dir, 'access.json');
    secret = newTokenSecret();
    writeAccess(POLICIES);
    emu = await startStorageEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      fsync: 'none',
      iam: { file, identities: IDENTITIES.map((member) => ({ member, port: 0 })) },
    });
    for (const member of IDENTITIES)
      clients.set(
        member,
        new Storage({ apiEndpoint: `http://127.0.0.1:${emu.identityPorts.get(member)}`, projectId: 'p' }),
      );
    const owner = new Storage({ apiEndpoint: emu.url, projectId: 'p' });
    // Uniform bucket-level access, as the project's buckets have it: IAM alone decides (no object
    // ACL makes a creator its reader).
    const [bucket] = await owner.createBucket(BUCKET, {
      iamConfiguration: { uniformBucketLevelAccess: { enabled: true } },
    });
    await bucket.file('replays/a.json').save('{"a":1}', { resumable: false });
    await bucket.file('other/b.json').save('{"b":2}', { resumable: false });
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets the owner (no token, main port) do everything', async () => {
    const owner = new Storage({ apiEndpoint: emu.url, projectId: 'p' });
    const [files] = await owner.bucket(BUCKET).getFiles();
    assert.deepEqual(files.map((f) => f.name).sort(), ['other/b.json', 'replays/a.json']);
    await owner.bucket(BUCKET).file('tmp.txt').save('x', { resumable: false });
    await owner.bucket(BUCKET).file('tmp.txt').delete();
    const [meta] = await owner.bucket(BUCKET).getMetadata();
    assert.equal(meta.name, BUCKET);
  });

  it('allows a granted token and refuses an ungranted one with Cloud Storage’s 403', async () => {
    const ok = await call(objectUrl('replays/a.json'), 'GET', undefined, bearer(READER));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json?.name, 'replays/a.json');

    const resource = `${BUCKET_NAME}/objects/replays/a.json`;
    const no = await call(objectUrl('replays/a.json'), 'GET', undefined, bearer(NOBODY));
    assert.equal(no.status, 403);
    const error = no.json?.error as {
      code: number;
      status: string;
      message: string;
      errors: { message: string; domain: string; reason: string }[];
      details: { reason: string; metadata: Record<string, string> }[];
    };
    assert.equal(error.code, 403);
    assert.equal(error.status, 'PERMISSION_DENIED');
    assert.ok(
      error.message.startsWith(
        'nobody@p.iam.gserviceaccount.com does not have storage.objects.get access to the Google Cloud Storage object. ',
      ),
      error.message,
    );
    assert.ok(error.message.includes(`'${resource}'`), error.message);
    assert.deepEqual(error.errors, [{ message: error.message, domain: 'global', reason: 'forbidden' }]);
    assert.equal(error.details[0]?.reason, 'IAM_PERMISSION_DENIED');
    assert.deepEqual(error.details[0]?.metadata, {
      permission: 'storage.objects.get',
      resource,
      principal: NOBODY,
    });

    // Bucket and project resources say so.
    const bucket = await call(`${emu.url}/storage/v1/b/${BUCKET}`, 'GET', undefined, bearer(READER));
    assert.equal(bucket.status, 403);
    assert.match(
      bucket.text,
      /reader@p.iam.gserviceaccount.com does not have storage.buckets.get access to the Google Cloud Storage bucket\. /,
    );
    const create = await call(
      `${emu.url}/storage/v1/b?project=p`,
      'POST',
      { name: 'new-one' },
      bearer(READER),
    );
    assert.equal(create.status, 403);
    assert.ok(create.text.includes("'storage.buckets.create' denied on resource 'projects/p'"), create.text);
  });

  it('treats a connection on an identity port as its member, without a token', async () => {
    const [body] = await as(READER).bucket(BUCKET).file('other/b.json').download();
    assert.equal(body.toString(), '{"b":2}');
    await refused(
      as(NOBODY).bucket(BUCKET).file('other/b.json').getMetadata(),
      403,
      'storage.objects.get',
      `${BUCKET_NAME}/objects/other/b.json`,
    );
    // A token still wins over the port.
    const port = emu.identityPorts.get(NOBODY);
    const viaPort = await call(
      `http://127.0.0.1:${port}/storage/v1/b/${BUCKET}/o/other%2Fb.json`,
      'GET',
      undefined,
      bearer(READER),
    );
    assert.equal(viaPort.status, 200, viaPort.text);
  });

  it('answers 401 UNAUTHENTICATED to a token that is bad, expired or signed with another secret', async () => {
    const tokens = [
      'Bearer nonsense',
      bearer(READER, -10).authorization,
      `Bearer ${mintToken(newTokenSecret(), READER)}`,
    ];
    for (const authorization of tokens) {
      const r = await call(objectUrl('replays/a.json'), 'GET', undefined, { authorization });
      assert.equal(r.status, 401, authorization);
      assert.deepEqual(r.json, {
        error: {
          code: 401,
          message: UNAUTHENTICATED_MESSAGE,
          errors: [{ message: UNAUTHENTICATED_MESSAGE, domain: 'global', reason: 'required' }],
          status: 'UNAUTHENTICATED',
        },
      });
    }
  });

  it('lists only for a grant on the list prefix, not one conditioned on object names', async () => {
    const listResource = BUCKET_NAME;
    await refused(
      as(PREFIXED).bucket(BUCKET).getFiles({ prefix: 'replays/' }),
      403,
      'storage.objects.list',
      listResource,
    );
    const [body] = await as(PREFIXED).bucket(BUCKET).file('replays/a.json').download();
    assert.equal(body.toString(), '{"a":1}');

    const [files] = await as(LISTER).bucket(BUCKET).getFiles({ prefix: 'replays/' });
    assert.deepEqual(
      files.map((f) => f.name),
      ['replays/a.json'],
    );
    await refused(as(LISTER).bucket(BUCKET).getFiles(), 403, 'storage.objects.list', listResource);
  });

  it('lets an objectCreator create but not overwrite (overwriting needs delete), in every upload form', async () => {
    const bucket = as(CREATOR).bucket(BUCKET);
    await bucket.file('made/simple.txt').save('one', { resumable: false });
    await bucket.file('made/resumable.txt').save('one', { resumable: true });
    const resource = (name: string) => `${BUCKET_NAME}/objects/${name}`;
    await refused(
      bucket.file('made/simple.txt').save('two', { resumable: false }),
      403,
      'storage.objects.delete',
      resource('made/simple.txt'),
    );
    await refused(
      bucket.file('made/resumable.txt').save('two', { resumable: true }),
      403,
      'storage.objects.delete',
      resource('made/resumable.txt'),
    );
    const media = await call(
      `${emu.url}/upload/storage/v1/b/${BUCKET}/o?uploadType=media&name=made%2Fsimple.txt`,
      'POST',
      'three',
      bearer(CREATOR),
    );
    assert.equal(media.status, 403);
    // A create-only write (ifGenerationMatch=0) cannot overwrite: the precondition answers, 412.
    await assert.rejects(
      bucket
        .file('made/simple.txt')
        .save('two', { resumable: false, preconditionOpts: { ifGenerationMatch: 0 } }),
      (err: unknown) => codeOf(err) === 412,
    );
    // Copy: get on the source, create on the destination.
    await refused(
      as(READER).bucket(BUCKET).file('replays/a.json').copy('copied.json'),
      403,
      'storage.objects.create',
      resource('copied.json'),
    );
    await refused(
      bucket.combine(['made/simple.txt'], 'made/combined.txt'),
      403,
      'storage.objects.get',
      resource('made/simple.txt'),
    );
  });

  it('refuses a media download on every path the emulator serves it', async () => {
    const resource = `${BUCKET_NAME}/objects/replays/a.json`;
    await refused(
      as(NOBODY).bucket(BUCKET).file('replays/a.json').download(),
      403,
      'storage.objects.get',
      resource,
    );
    const urls = [
      objectUrl('replays/a.json', true),
      `${emu.url}/download/storage/v1/b/${BUCKET}/o/replays%2Fa.json?alt=media`,
      `${emu.url}/b/${BUCKET}/o/replays%2Fa.json?alt=media`,
    ];
    for (const url of urls) {
      const r = await call(url, 'GET', undefined, bearer(NOBODY));
      assert.equal(r.status, 403, url);
      assert.ok(r.text.includes(`'${resource}'`), r.text);
      const ok = await call(url, 'GET', undefined, bearer(READER));
      assert.equal(ok.text, '{"a":1}', url);
    }
  });

  it('answers testIamPermissions with the subset the caller holds', async () => {
    const asked = ['storage.objects.get', 'storage.objects.create', 'storage.buckets.delete'];
    const [reader] = await as(READER).bucket(BUCKET).iam.testPermissions(asked);
    assert.deepEqual(reader, {
      'storage.objects.get': true,
      'storage.objects.create': false,
      'storage.buckets.delete': false,
    });
    const [creator] = await as(CREATOR).bucket(BUCKET).iam.testPermissions(asked);
    assert.deepEqual(creator, {
      'storage.objects.get': false,
      'storage.objects.create': true,
      'storage.buckets.delete': false,
    });
    const owner = await call(
      `${emu.url}/storage/v1/b/${BUCKET}/iam/testPermissions?permissions=storage.buckets.delete`,
      'GET',
    );
    assert.deepEqual(owner.json, {
      kind: 'storage#testIamPermissionsResponse',
      permissions: ['storage.buckets.delete'],
    });
  });

  it('serves a bucket’s IAM policy (default, set, enforced with the access file’s) as the JSON API does', async () => {
    const owner = new Storage({ apiEndpoint: emu.url, projectId: 'p' });
    const [bucket] = await owner.createBucket('iam-policy-test');
    await bucket.file('doc.txt').save('hi', { resumable: false });
    const [initial] = await bucket.iam.getPolicy();
    assert.deepEqual(initial.bindings, [
      { role: 'roles/storage.legacyBucketOwner', members: ['projectEditor:p', 'projectOwner:p'] },
      { role: 'roles/storage.legacyBucketReader', members: ['projectViewer:p'] },
    ]);
    const docUrl = `${emu.url}/storage/v1/b/iam-policy-test/o/doc.txt`;
    assert.equal((await call(docUrl, 'GET', undefined, bearer(LATE))).status, 403);
    // Granted on the bucket's own policy: the member reads its objects, and nothing more.
    const [set] = await bucket.iam.setPolicy({
      bindings: [...initial.bindings, { role: 'roles/storage.objectViewer', members: [LATE] }],
      etag: initial.etag as string,
    });
    assert.notEqual(set.etag, initial.etag);
    assert.equal((await call(docUrl, 'GET', undefined, bearer(LATE))).status, 200);
    await refused(
      call(`${emu.url}/storage/v1/b/iam-policy-test/iam`, 'GET', undefined, bearer(LATE)).then((r) => {
        if (r.status >= 400) throw Object.assign(new Error(r.text), { code: r.status });
      }),
      403,
      'storage.buckets.getIamPolicy',
      'projects/_/buckets/iam-policy-test',
    );
    const [held] = await bucket.iam.testPermissions(['storage.objects.get']);
    assert.deepEqual(held, { 'storage.objects.get': true });
    // A stale etag is 412; a condition needs version 3 and uniform bucket-level access (400).
    await assert.rejects(bucket.iam.setPolicy({ bindings: initial.bindings, etag: initial.etag as string }), {
      code: 412,
    });
    const conditional = {
      role: 'roles/storage.objectViewer',
      members: [NOBODY],
      condition: {
        title: 'always',
        expression: 'resource.name.startsWith("projects/_/buckets/iam-policy-test")',
      },
    };
    await assert.rejects(bucket.iam.setPolicy({ version: 3, bindings: [conditional] }), { code: 400 });
    await bucket.setMetadata({ iamConfiguration: { uniformBucketLevelAccess: { enabled: true } } });
    await assert.rejects(bucket.iam.setPolicy({ version: 1, bindings: [conditional] }), { code: 400 });
    await bucket.iam.setPolicy({ version: 3, bindings: [conditional] });
    await assert.rejects(bucket.iam.getPolicy(), { code: 400 });
    const [v3] = await bucket.iam.getPolicy({ requestedPolicyVersion: 3 });
    assert.deepEqual(v3.bindings, [conditional]);
    assert.equal((await call(docUrl, 'GET', undefined, bearer(NOBODY))).status, 200);
    assert.equal((await call(docUrl, 'GET', undefined, bearer(LATE))).status, 403);
    await assert.rejects(
      bucket.iam.setPolicy({ bindings: [{ role: 'roles/storage.objectViewer', members: [] }] }),
      {
        code: 400,
      },
    );
  });

  it('applies a rewritten access file without a restart', async () => {
    const before = await call(objectUrl('other/b.json'), 'GET', undefined, bearer(LATE));
    assert.equal(before.status, 403);
    writeAccess([
      ...POLICIES,
      { resource: BUCKET_NAME, bindings: [binding('roles/storage.objectViewer', LATE)] },
    ]);
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    await new Promise((r) => setTimeout(r, 250));
    const after = await call(objectUrl('other/b.json'), 'GET', undefined, bearer(LATE));
    assert.equal(after.status, 200, after.text);
  });

  it('reads --iam from its command line', async () => {
    const { child, url } = await launch(join(dir, 'cli-data'), ['--iam', file]);
    try {
      const bad = await call(`${url}/storage/v1/b`, 'GET', undefined, { authorization: 'Bearer nonsense' });
      assert.equal(bad.status, 401);
      const owner = await call(`${url}/storage/v1/b?project=p`, 'GET');
      assert.equal(owner.status, 200);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited(child), 0);
    }
  });
});

describe('storage emulator without --iam', () => {
  it('checks nothing: calls with and without a token both work', async () => {
    const dataDir = tempDir();
    const emu = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });
    try {
      assert.equal(emu.identityPorts.size, 0);
      const token = { authorization: `Bearer ${mintToken(newTokenSecret(), NOBODY)}` };
      const plain = await call(`${emu.url}/storage/v1/b?project=p`, 'POST', { name: 'open-bucket' });
      assert.equal(plain.status, 200, plain.text);
      const tokened = await call(`${emu.url}/storage/v1/b/open-bucket`, 'GET', undefined, token);
      assert.equal(tokened.status, 200, tokened.text);
      const garbage = await call(`${emu.url}/storage/v1/b`, 'GET', undefined, { authorization: 'Bearer x' });
      assert.equal(garbage.status, 200, garbage.text);
    } finally {
      await emu.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
