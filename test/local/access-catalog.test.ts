/**
 * forward-catalog's grants enforced by the emulators (issue #65): the local settings with a
 * catalogue destination added, IAM on. Each of its access needs the emulators can answer (the
 * delivery ledger's insert, the erased list object, and the
 * refused insert into events) is called as forward-catalog and met; with forward-catalog's
 * bindings taken out of the access file, each allowed one is refused. Its destination secrets
 * have no emulator: test/infra/forward-catalog.test.ts checks them offline.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { accessNeeds, workloadMember } from '../../core/access/needs.ts';
import { CATALOG_FUNCTION } from '../../core/deploy/catalog-function.ts';
import { plan as planOf } from '../../core/plan.ts';
import { localToken, readAccessFile, writeAccessFile } from '../../local/access-file.ts';
import { endpointsOf, probeNeeds, startEmulators, unmetLines } from '../../local/access-probe.ts';
import { environmentFile, readSettingsFile } from '../../local/settings-file.ts';
import type { LocalEnvironment } from '../../local/supervisor.ts';
import { KLAVIYO, withDestinations } from '../infra/support-catalog.ts';

const settings = withDestinations(readSettingsFile(environmentFile('local')), KLAVIYO);
const needs = accessNeeds(planOf(settings), settings).filter((n) => n.who === CATALOG_FUNCTION);

describe('local: the emulators enforce forward-catalog’s grants', function () {
  this.timeout(120_000);
  let env: LocalEnvironment;
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'access-catalog-'));
    env = await startEmulators(settings, dataDir);
  });
  after(async () => {
    await env?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const probe = () =>
    probeNeeds(needs, endpointsOf(env), (who) => localToken(dataDir, who, settings.project));

  it('its ledger insert and erased list are allowed as it, events refused', async () => {
    const tried = (await probe()).filter((r) => r.tried);
    const asked = tried.map((r) => `${r.need.denied ? '-' : '+'}${r.need.permission} ${r.need.code}`);
    for (const code of [
      '+bigquery.tables.updateData adapters/bigquery-write-api.ts',
      '+storage.objects.get adapters/suppression-list.ts',
      '-bigquery.tables.updateData -',
    ])
      assert.ok(asked.includes(code), `${code} tried (${asked.join('; ')})`);
    assert.deepEqual(unmetLines(tried), []);
  });

  it('without its bindings, each of those calls is refused', async () => {
    const full = readAccessFile(dataDir)?.policies ?? [];
    const member = workloadMember(CATALOG_FUNCTION, settings.project);
    const stripped = full.map((p) => ({
      ...p,
      bindings: p.bindings.map((b) => ({ ...b, members: b.members.filter((m) => m !== member) })),
    }));
    assert.notDeepEqual(stripped, full, 'forward-catalog holds bindings');
    writeAccessFile(dataDir, stripped);
    try {
      await sleep(250); // the emulators look at the file's time at most every 200 ms
      const allowed = (await probe()).filter((r) => r.tried && !r.need.denied);
      assert.ok(allowed.length >= 3, `${allowed.length} allowed needs tried`);
      assert.deepEqual(
        allowed
          .filter((r) => r.tried && r.status !== 403)
          .map((r) => `${r.need.permission} ${r.need.resource}`),
        [],
      );
    } finally {
      writeAccessFile(dataDir, full);
    }
  });
});
