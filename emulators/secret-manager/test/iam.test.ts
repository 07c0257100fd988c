/**
 * The Secret Manager emulator with `--iam`: project-level grants from the access file, with IAM
 * conditions on `resource.name` seen with the project NUMBER (as Secret Manager shows names to
 * IAM); per-secret policies set through setIamPolicy; refusals are 403 PERMISSION_DENIED naming
 * the permission; testIamPermissions answers what the caller holds.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AccessFile, mintToken, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { NUMBER, PROJECT, type Running, rest, seed, start, tempDir } from './support/harness.ts';

const sa = (name: string) => `serviceAccount:${name}@${PROJECT}.iam.gserviceaccount.com`;
const GATEWAY = sa('gateway');
const STUDIO = sa('studio');
const P = `projects/${PROJECT}`;
const ACCESS = 'secretmanager.versions.access';

describe('secret manager emulator: IAM', () => {
  const dir = tempDir();
  const file = join(dir, 'access.json');
  const secret = newTokenSecret();
  let run: Running;
  const as = (member: string) => `http://127.0.0.1:${run.emulator.identityPorts.get(member)}`;
  const write = (expression: string) => {
    const access: AccessFile = {
      tokenSecret: secret,
      policies: [
        {
          resource: P,
          bindings: [
            {
              role: 'roles/secretmanager.secretAccessor',
              members: [GATEWAY],
              condition: { title: 'translator secrets', expression },
            },
          ],
        },
      ],
    };
    writeFileSync(file, JSON.stringify(access));
  };
  before(async () => {
    write(`resource.name.startsWith("projects/${NUMBER}/secrets/translator-")`);
    run = await start({
      iam: { file, identities: [GATEWAY, STUDIO].map((member) => ({ member, port: 0 })) },
    });
    await seed(run.emulator.url, 'translator-stripe', 'whsec_1');
    await seed(run.emulator.url, 'meta-token', 'EAAB');
  });
  after(async () => {
    await run.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a project grant conditioned on the number-form prefix reads the secrets under it, and no other', async () => {
    const ok = await rest(as(GATEWAY), 'GET', `${P}/secrets/translator-stripe/versions/latest:access`);
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(Buffer.from(ok.json.payload.data, 'base64').toString(), 'whsec_1');
    const other = await rest(as(GATEWAY), 'GET', `${P}/secrets/meta-token/versions/latest:access`);
    assert.equal(other.status, 403);
    assert.equal(other.json.error.status, 'PERMISSION_DENIED');
    assert.equal(
      other.json.error.message,
      `Permission '${ACCESS}' denied for resource '${P}/secrets/meta-token/versions/latest' (or it may not exist).`,
    );
    const info = other.json.error.details[0];
    assert.equal(info.reason, 'IAM_PERMISSION_DENIED');
    assert.equal(info.metadata.permission, ACCESS);
    assert.equal(info.metadata.principal, GATEWAY);
    // No metadata or write permission comes with the accessor role.
    assert.equal((await rest(as(GATEWAY), 'GET', `${P}/secrets/translator-stripe`)).status, 403);
    const add = await rest(as(GATEWAY), 'POST', `${P}/secrets/translator-stripe:addVersion`, {
      payload: { data: '' },
    });
    assert.equal(add.status, 403);
    assert.match(add.json.error.message, /secretmanager\.versions\.add/);
  });

  it('a condition written with the project ID never matches: Secret Manager names the number', async () => {
    write(`resource.name.startsWith("projects/${PROJECT}/secrets/translator-")`);
    try {
      await new Promise((r) => setTimeout(r, 250)); // the access file is looked at every 200 ms
      const r = await rest(as(GATEWAY), 'GET', `${P}/secrets/translator-stripe/versions/latest:access`);
      assert.equal(r.status, 403);
    } finally {
      write(`resource.name.startsWith("projects/${NUMBER}/secrets/translator-")`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  it('a missing secret under the granted prefix is 404; outside it, 403 before existence', async () => {
    const missing = await rest(as(GATEWAY), 'GET', `${P}/secrets/translator-nope/versions/latest:access`);
    assert.equal(missing.status, 404);
    const outside = await rest(as(GATEWAY), 'GET', `${P}/secrets/nope/versions/latest:access`);
    assert.equal(outside.status, 403);
  });

  it("a secret's own policy (setIamPolicy) grants on that secret; conditions need version 3", async () => {
    const base = run.emulator.url;
    assert.equal(
      (await rest(as(STUDIO), 'GET', `${P}/secrets/meta-token/versions/latest:access`)).status,
      403,
    );
    const empty = await rest(base, 'GET', `${P}/secrets/meta-token:getIamPolicy`);
    assert.deepEqual(empty.json, { etag: 'ACAB' });
    const v1 = await rest(base, 'POST', `${P}/secrets/meta-token:setIamPolicy`, {
      policy: {
        bindings: [
          {
            role: 'roles/secretmanager.secretAccessor',
            members: [STUDIO],
            condition: { expression: 'true' },
          },
        ],
      },
    });
    assert.equal(v1.status, 400);
    assert.equal(v1.json.error.status, 'INVALID_ARGUMENT');
    const set = await rest(base, 'POST', `${P}/secrets/meta-token:setIamPolicy`, {
      policy: { bindings: [{ role: 'roles/secretmanager.secretAccessor', members: [STUDIO] }] },
    });
    assert.equal(set.status, 200, JSON.stringify(set.json));
    assert.ok(set.json.etag);
    const stale = await rest(base, 'POST', `${P}/secrets/meta-token:setIamPolicy`, {
      policy: { etag: empty.json.etag, bindings: [] },
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.error.status, 'ABORTED');
    assert.deepEqual((await rest(base, 'GET', `${P}/secrets/meta-token:getIamPolicy`)).json.bindings, [
      { role: 'roles/secretmanager.secretAccessor', members: [STUDIO] },
    ]);
    assert.equal(
      (await rest(as(STUDIO), 'GET', `${P}/secrets/meta-token/versions/latest:access`)).status,
      200,
    );
    assert.equal(
      (await rest(as(STUDIO), 'GET', `${P}/secrets/translator-stripe/versions/1:access`)).status,
      403,
    );
    // Setting a policy is itself a permission the studio lacks.
    const escalate = await rest(as(STUDIO), 'POST', `${P}/secrets/translator-stripe:setIamPolicy`, {
      policy: { bindings: [{ role: 'roles/secretmanager.secretAccessor', members: [STUDIO] }] },
    });
    assert.equal(escalate.status, 403);
    assert.match(escalate.json.error.message, /secretmanager\.secrets\.setIamPolicy/);
  });

  it('testIamPermissions answers what the caller holds; a missing secret holds nothing (not 404)', async () => {
    const asked = { permissions: [ACCESS, 'secretmanager.versions.add'] };
    const held = await rest(as(GATEWAY), 'POST', `${P}/secrets/translator-stripe:testIamPermissions`, asked);
    assert.deepEqual(held.json, { permissions: [ACCESS] });
    const none = await rest(as(GATEWAY), 'POST', `${P}/secrets/meta-token:testIamPermissions`, asked);
    assert.deepEqual(none.json, {});
    const missing = await rest(as(GATEWAY), 'POST', `${P}/secrets/translator-gone:testIamPermissions`, asked);
    assert.equal(missing.status, 200);
    assert.deepEqual(missing.json, {});
    const bad = await rest(as(GATEWAY), 'POST', `${P}/secrets/translator-stripe:testIamPermissions`, {
      permissions: ['storage.objects.get'],
    });
    assert.equal(bad.status, 400);
  });

  it('tokens: a minted one acts as its member, a bad one is 401 UNAUTHENTICATED', async () => {
    const token = mintToken(secret, GATEWAY);
    const path = `${P}/secrets/translator-stripe/versions/latest:access`;
    assert.equal(
      (await rest(run.emulator.url, 'GET', path, undefined, { authorization: `Bearer ${token}` })).status,
      200,
    );
    const other = `${P}/secrets/meta-token/versions/latest:access`;
    assert.equal(
      (await rest(run.emulator.url, 'GET', other, undefined, { authorization: `Bearer ${token}` })).status,
      403,
    );
    const bad = await rest(run.emulator.url, 'GET', path, undefined, { authorization: 'Bearer ya29.nope' });
    assert.equal(bad.status, 401);
    assert.equal(bad.json.error.status, 'UNAUTHENTICATED');
  });
});
