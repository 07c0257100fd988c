/**
 * Durability of the Secret Manager emulator, run as its own process and killed with SIGKILL:
 * every version it answered is there after a restart with its payload and state, a secret's
 * policy too, and a second emulator on the same data directory is refused.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { b64, exited, launch, PROJECT, processKeeper, rest, seed, tempDir } from './support/harness.ts';

const P = `projects/${PROJECT}`;

describe('secret manager emulator durability', function () {
  this.timeout(60_000);
  const dataDir = tempDir();
  const children = processKeeper();
  after(() => {
    children.reap();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered version, state and policy across kill -9', async () => {
    const first = await launch(dataDir);
    children.keep(first.child);
    await seed(first.url, 'durable');
    const policy = {
      bindings: [{ role: 'roles/secretmanager.secretAccessor', members: ['user:a@example.com'] }],
    };
    assert.equal(
      (await rest(first.url, 'POST', `${P}/secrets/durable:setIamPolicy`, { policy })).status,
      200,
    );
    const acked: number[] = [];
    for (let i = 1; i <= 40; i++) {
      const r = await rest(first.url, 'POST', `${P}/secrets/durable:addVersion`, {
        payload: { data: b64(`v${i}`) },
      });
      assert.equal(r.status, 200);
      acked.push(i);
    }
    assert.equal((await rest(first.url, 'POST', `${P}/secrets/durable/versions/3:destroy`, {})).status, 200);
    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await launch(dataDir);
    children.keep(second.child);
    for (const i of acked) {
      const r = await rest(second.url, 'GET', `${P}/secrets/durable/versions/${i}:access`);
      if (i === 3) assert.equal(r.json.error.status, 'FAILED_PRECONDITION');
      else assert.equal(Buffer.from(r.json.payload.data, 'base64').toString(), `v${i}`, `version ${i}`);
    }
    assert.deepEqual(
      (await rest(second.url, 'GET', `${P}/secrets/durable:getIamPolicy`)).json.bindings,
      policy.bindings,
    );
    const next = await rest(second.url, 'POST', `${P}/secrets/durable:addVersion`, {
      payload: { data: b64('after') },
    });
    assert.match(next.json.name, /\/versions\/41$/);
    await assert.rejects(launch(dataDir), /exited/);
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
  });
});
