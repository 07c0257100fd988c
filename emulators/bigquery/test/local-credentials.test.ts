/**
 * Google's clients run as a chosen member against emulators with IAM on, loading a local
 * credentials file unchanged (emulators/common/local-sts.ts): `GOOGLE_APPLICATION_CREDENTIALS`
 * names an `external_account` file whose token exchange is the emulator's `POST /v1/token`; the
 * BigQuery and Cloud Storage clients (built with `useAuthWithCustomEndpoint: true`) exchange its
 * subject token and call as its member: what the member was granted works, the rest is refused
 * naming the member, and a file signed for another environment is refused at the exchange.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AccessFile, mintToken, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { credentialsFile } from '@eventbus/emulator-common/local-sts.ts';
import { type StorageEmulator, startStorageEmulator } from '@eventbus/storage-emulator/server.ts';
import { BigQuery } from '@google-cloud/bigquery';
import { Storage } from '@google-cloud/storage';
import { type BigQueryEmulator, startBigQueryEmulator } from '../server.ts';

const P = 'cred-project';
const ANA = 'user:ana@example.com';
const BEN = 'user:ben@example.com';

describe('local credentials: Google’s clients as a chosen member, IAM on', () => {
  let dir: string;
  let secret: string;
  let bq: BigQueryEmulator;
  let gcs: StorageEmulator;
  const outer = process.env.GOOGLE_APPLICATION_CREDENTIALS;

  /** Writes `member`'s credentials file (signed with `key`) and points the clients at it. */
  const actAs = (member: string, key = secret): void => {
    const path = join(dir, `${member.replace(/\W/g, '_')}.json`);
    const file = credentialsFile(path, member, mintToken(key, member, 600), `${bq.url}/v1/token`);
    writeFileSync(path, JSON.stringify(file));
    process.env.GOOGLE_APPLICATION_CREDENTIALS = path;
  };
  const bigquery = () =>
    new BigQuery({
      projectId: P,
      apiEndpoint: bq.url,
      useAuthWithCustomEndpoint: true,
    } as ConstructorParameters<typeof BigQuery>[0]);
  const storage = () => new Storage({ projectId: P, apiEndpoint: gcs.url, useAuthWithCustomEndpoint: true });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'local-credentials-'));
    secret = newTokenSecret();
    const access: AccessFile = {
      tokenSecret: secret,
      policies: [
        {
          resource: `projects/${P}`,
          bindings: [
            { role: 'roles/bigquery.jobUser', members: [ANA, BEN] },
            { role: 'roles/bigquery.dataViewer', members: [ANA] },
            { role: 'roles/storage.objectViewer', members: [ANA] },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'access.json'), JSON.stringify(access));
    const iam = { file: join(dir, 'access.json') };
    bq = await startBigQueryEmulator({ port: 0, dataDir: join(dir, 'bq'), streamingBufferMs: 0, iam });
    gcs = await startStorageEmulator({ port: 0, dataDir: join(dir, 'gcs'), fsync: 'none', iam });
    // The owner (no credentials) sets the scene.
    const [ds] = await new BigQuery({ projectId: P, apiEndpoint: bq.url }).createDataset('shop');
    await ds.createTable('orders', { schema: [{ name: 'id', type: 'INT64' }] });
    await ds.table('orders').insert([{ id: 1 }]);
    const [bucket] = await new Storage({ projectId: P, apiEndpoint: gcs.url }).createBucket('cred-bucket');
    await bucket.file('a.txt').save('hello', { resumable: false });
  });
  after(async () => {
    if (outer === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    else process.env.GOOGLE_APPLICATION_CREDENTIALS = outer;
    await bq?.close();
    await gcs?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets a granted member query and read objects, and refuses what it was not granted, naming it', async () => {
    actAs(ANA);
    const [rows] = await bigquery().query('SELECT id FROM shop.orders');
    assert.deepEqual(rows, [{ id: 1 }]);
    const [text] = await storage().bucket('cred-bucket').file('a.txt').download();
    assert.equal(text.toString(), 'hello');
    await assert.rejects(
      bigquery().query('DELETE FROM shop.orders WHERE TRUE'),
      (err: Error & { code?: number }) => {
        assert.equal(err.code, 403);
        assert.match(err.message, /bigquery\.tables\.updateData/);
        return true;
      },
    );
    await assert.rejects(storage().bucket('cred-bucket').file('b.txt').save('x', { resumable: false }), {
      code: 403,
    });
  });

  it('calls as the file’s member, not the owner: another member gets only its own grants', async () => {
    actAs(BEN);
    await assert.rejects(bigquery().query('SELECT id FROM shop.orders'), (err: Error & { code?: number }) => {
      assert.equal(err.code, 403);
      // ana may read the table (above); ben holds Job User only.
      assert.match(err.message, /Permission bigquery\.tables\.getData denied/);
      return true;
    });
    await assert.rejects(
      storage().bucket('cred-bucket').file('a.txt').download(),
      (err: Error & { code?: number }) => {
        assert.equal(err.code, 403);
        assert.match(err.message, /ben@example\.com does not have storage\.objects\.get access/);
        return true;
      },
    );
  });

  it('refuses at the exchange a file signed for another environment, and any other grant type', async () => {
    actAs(ANA, newTokenSecret());
    await assert.rejects(bigquery().query('SELECT 1 AS x'), /invalid_grant|not a valid token/);
    const res = await fetch(`${bq.url}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', subject_token: 'x' }).toString(),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, 'unsupported_grant_type');
  });
});
