/**
 * The Firestore emulator with `--iam`: grants come from the project's policy with a condition on
 * the database's resource name (as the Pulumi program binds them); each method needs its
 * permission on `projects/{p}/databases/{d}`; refusals are 403 PERMISSION_DENIED with the
 * ErrorInfo; a token that does not verify is 401 UNAUTHENTICATED; the client's `Bearer owner`
 * is no credential (the port decides).
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AccessFile, mintToken, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { call, createDatabase, type Running, start, tempDir } from './support/harness.ts';

const sa = (name: string) => `serviceAccount:${name}@p.iam.gserviceaccount.com`;
const USER = sa('store');
const VIEWER = sa('viewer');
const OTHER = sa('other');
const DB = 'projects/p/databases/claims-db';
const DOCS = `/v1/${DB}/documents`;

describe('firestore emulator: IAM', () => {
  const dir = tempDir();
  const file = join(dir, 'access.json');
  const secret = newTokenSecret();
  let run: Running;
  const portOf = (member: string) => `http://127.0.0.1:${run.emulator.identityPorts.get(member)}`;
  before(async () => {
    const onDb = { title: 'claims database', expression: `resource.name == "${DB}"` };
    const access: AccessFile = {
      tokenSecret: secret,
      policies: [
        {
          resource: 'projects/p',
          bindings: [
            { role: 'roles/datastore.user', members: [USER], condition: onDb },
            { role: 'roles/datastore.viewer', members: [VIEWER], condition: onDb },
            {
              role: 'roles/datastore.user',
              members: [OTHER],
              condition: { title: 'x', expression: 'resource.name == "projects/p/databases/else-db"' },
            },
          ],
        },
      ],
    };
    writeFileSync(file, JSON.stringify(access));
    run = await start({
      iam: { file, identities: [USER, VIEWER, OTHER].map((member) => ({ member, port: 0 })) },
    });
    assert.equal((await createDatabase(run.emulator.url, 'claims-db')).status, 200);
  });
  after(async () => {
    await run.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a datastore.user on the database creates, reads, updates and deletes', async () => {
    const base = portOf(USER);
    const c = await call(
      base,
      'POST',
      `${DOCS}/sends?documentId=a`,
      { fields: {} },
      { authorization: 'Bearer owner' },
    );
    assert.equal(c.status, 200, JSON.stringify(c.json));
    assert.equal((await call(base, 'GET', `${DOCS}/sends/a`)).status, 200);
    assert.equal(
      (await call(base, 'PATCH', `${DOCS}/sends/a`, { fields: { x: { booleanValue: true } } })).status,
      200,
    );
    assert.equal((await call(base, 'DELETE', `${DOCS}/sends/a`)).status, 200);
    assert.equal((await call(base, 'GET', `/v1/${DB}`)).status, 200);
  });

  it('a viewer reads but cannot write: 403 PERMISSION_DENIED naming permission and resource', async () => {
    await call(run.emulator.url, 'POST', `${DOCS}/sends?documentId=v`, { fields: {} });
    assert.equal((await call(portOf(VIEWER), 'GET', `${DOCS}/sends/v`)).status, 200);
    const r = await call(portOf(VIEWER), 'POST', `${DOCS}/sends?documentId=w`, { fields: {} });
    assert.equal(r.status, 403);
    assert.equal(r.json.error?.status, 'PERMISSION_DENIED');
    assert.match(r.json.error?.message ?? '', /^Missing or insufficient permissions\./);
    const info = (r.json.error as unknown as { details: { metadata: Record<string, string> }[] }).details[0];
    assert.equal(info?.metadata.permission, 'datastore.entities.create');
    assert.equal(info?.metadata.resource, DB);
    const del = await call(portOf(VIEWER), 'DELETE', `${DOCS}/sends/v`);
    assert.equal(del.status, 403);
    assert.equal((await call(run.emulator.url, 'GET', `${DOCS}/sends/v`)).status, 200, 'nothing deleted');
  });

  it('a grant conditioned on another database does not reach this one', async () => {
    const r = await call(portOf(OTHER), 'GET', `${DOCS}/sends/v`);
    assert.equal(r.status, 403);
    const commit = await call(portOf(OTHER), 'POST', `/v1/${DB}/documents:commit`, {
      writes: [{ update: { name: `${DB}/documents/sends/o`, fields: {} } }],
    });
    assert.equal(commit.status, 403);
  });

  it('tokens: a minted one acts as its member, a bad one is 401 UNAUTHENTICATED', async () => {
    const token = mintToken(secret, VIEWER);
    const denied = await call(run.emulator.url, 'DELETE', `${DOCS}/sends/v`, undefined, {
      authorization: `Bearer ${token}`,
    });
    assert.equal(denied.status, 403);
    const bad = await call(run.emulator.url, 'GET', `${DOCS}/sends/v`, undefined, {
      authorization: 'Bearer ya29.nope',
    });
    assert.equal(bad.status, 401);
    assert.equal(bad.json.error?.status, 'UNAUTHENTICATED');
  });
});
