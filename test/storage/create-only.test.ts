/**
 * A create-only write (adapters/create-only.ts) as the schedule function makes a files sync's
 * parts, with only Storage Object Creator on the bucket: on the Storage emulator with IAM (which
 * answers the precondition's 412), and against the other answer Google does not rule out (the
 * missing delete's 403): both mean the part exists; a 403 to a caller without create stays a
 * refusal.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { type CreateOnlyBucket, createOnly } from '../../adapters/create-only.ts';
import { newTokenSecret } from '../../emulators/common/iam-enforce.ts';
import { type StorageEmulator, startStorageEmulator } from '../../emulators/storage/server.ts';
import { tempDir } from '../../emulators/storage/test/support/harness.ts';

const BUCKET = 'sync-files';
const CREATOR = 'serviceAccount:eventbus-schedule@p.iam.gserviceaccount.com';
const NOBODY = 'serviceAccount:nobody@p.iam.gserviceaccount.com';

/** A bucket whose writes fail with `code`, holding `create` or not. */
function refusing(code: number, create: boolean): CreateOnlyBucket & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    file: () => ({
      save: () => Promise.reject(Object.assign(new Error(`answered ${code}`), { code })),
    }),
    iam: {
      testPermissions: (permissions: string[]) => {
        asked.push(permissions);
        return Promise.resolve([Object.fromEntries(permissions.map((p) => [p, create]))]);
      },
    },
  };
}

describe('storage: a create-only write with only Storage Object Creator', () => {
  let dir: string;
  let emu: StorageEmulator;
  const as = (member: string) =>
    new Storage({ apiEndpoint: `http://127.0.0.1:${emu.identityPorts.get(member)}`, projectId: 'p' }).bucket(
      BUCKET,
    );

  before(async () => {
    dir = tempDir();
    const file = join(dir, 'access.json');
    const policies = [
      {
        resource: `projects/_/buckets/${BUCKET}`,
        bindings: [{ role: 'roles/storage.objectCreator', members: [CREATOR] }],
      },
    ];
    writeFileSync(file, JSON.stringify({ tokenSecret: newTokenSecret(), policies }));
    emu = await startStorageEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      fsync: 'none',
      iam: { file, identities: [CREATOR, NOBODY].map((member) => ({ member, port: 0 })) },
    });
    await new Storage({ apiEndpoint: emu.url, projectId: 'p' }).createBucket(BUCKET);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a part, and finds it on the second write without replacing it', async () => {
    const bucket = as(CREATOR);
    assert.equal(
      await createOnly(bucket, 'syncs/s/part-1.jsonl', 'first\n', 'application/x-ndjson'),
      'created',
    );
    assert.equal(
      await createOnly(bucket, 'syncs/s/part-1.jsonl', 'again\n', 'application/x-ndjson'),
      'exists',
    );
    const [bytes] = await new Storage({ apiEndpoint: emu.url, projectId: 'p' })
      .bucket(BUCKET)
      .file('syncs/s/part-1.jsonl')
      .download();
    assert.equal(bytes.toString(), 'first\n');
  });

  it('refuses a caller with no grant, as the 403 it is', async () => {
    await assert.rejects(
      createOnly(as(NOBODY), 'syncs/s/part-2.jsonl', 'x\n', 'application/x-ndjson'),
      (err: { code?: number }) => err.code === 403,
    );
  });

  it('reads a 403 as the part existing only when the caller holds storage.objects.create', async () => {
    const held = refusing(403, true);
    assert.equal(await createOnly(held, 'p', 'x', 'text/plain'), 'exists');
    assert.deepEqual(held.asked, [['storage.objects.create']]);
    await assert.rejects(createOnly(refusing(403, false), 'p', 'x', 'text/plain'), {
      message: 'answered 403',
    });
    // Anything else is what it says, and asks nothing.
    const other = refusing(503, true);
    await assert.rejects(createOnly(other, 'p', 'x', 'text/plain'), { message: 'answered 503' });
    assert.deepEqual(other.asked, []);
  });
});
