/**
 * Retention on an existing data directory: provisioning with the plan of a version before
 * per-table retention (no expiration but on gateway_refusals), then starting with today's plan,
 * patches each table's partition expiration in place: no conflict, the environment starts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Plan, plan } from '../../core/plan.ts';
import type { TablePlan } from '../../core/warehouse/warehouse.ts';
import { emulatorBigQuery, expirationChange, provision } from '../../local/provision.ts';
import { bigqueryEmulator } from '../../local/services.ts';
import { readSettingsFile } from '../../local/settings-file.ts';
import { type LocalEnvironment, startEnvironment } from '../../local/supervisor.ts';

const root = resolve(import.meta.dirname, '../..');
const settings = readSettingsFile(join(root, 'environments/local.yaml'));
const today = plan(settings);

/** The plan as the version before retention made it: only gateway_refusals expired (30 days). */
function previousPlan(p: Plan): Plan {
  const strip = (t: TablePlan): TablePlan =>
    t.timePartitioning && t.name !== 'gateway_refusals'
      ? { ...t, timePartitioning: { type: t.timePartitioning.type, field: t.timePartitioning.field } }
      : t;
  return { ...p, tables: p.tables.map(strip), ops: { ...p.ops, tables: p.ops.tables.map(strip) } };
}

describe('local provisioning: retention on an existing data directory', function () {
  this.timeout(60000);
  let dataDir: string;
  let env: LocalEnvironment | undefined;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'eventbus-provision-retention-'));
  });
  afterEach(async () => {
    await env?.stop();
    env = undefined;
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = (provisioned: boolean) =>
    startEnvironment({
      settings,
      dataDir,
      freePorts: true,
      services: [bigqueryEmulator],
      log: () => {},
      graceMs: 3000,
      provision: provisioned,
    });

  it('starts on a data directory of the previous version and patches each table’s expiration in place', async () => {
    // The previous version's state on disk.
    env = await start(false);
    const url = `http://127.0.0.1:${env.ports.bigquery}`;
    const old = await provision(previousPlan(today), {
      project: settings.project,
      bigquery: url,
      functionUrl: () => 'http://127.0.0.1:1/',
    });
    assert.deepEqual(old.conflicts, []);
    await env.stop();
    env = undefined;

    // Today's version on it: starts, and says what it changed.
    env = await start(true);
    const report = env.provisioning;
    assert.ok(report);
    assert.deepEqual(report.conflicts, []);
    assert.deepEqual(report.created, []);
    const expiring = [...today.tables, ...today.ops.tables].filter(
      (t) => t.timePartitioning?.expirationMs !== undefined && t.name !== 'gateway_refusals',
    );
    assert.ok(expiring.some((t) => t.name === 'deliveries'));
    for (const t of expiring)
      assert.ok(
        report.updated.includes(
          `table ${t.name} (partition expiration ${Number(t.timePartitioning?.expirationMs) / 86_400_000} days, was none)`,
        ),
        `${t.name} in ${report.updated.join(' | ')}`,
      );
    assert.ok(report.unchanged.includes('table gateway_refusals'));
    assert.ok(report.unchanged.includes('table events'), 'events keeps no expiration by default');

    const bigquery = emulatorBigQuery(settings.project, `http://127.0.0.1:${env.ports.bigquery}`);
    const [meta] = await bigquery.dataset(today.dataset).table('deliveries').getMetadata();
    assert.equal(Number(meta.timePartitioning?.expirationMs), 400 * 86_400_000);
    assert.equal(meta.timePartitioning?.field, 'recorded_at');
    await env.stop();

    // A third start finds nothing left to change.
    env = await start(true);
    assert.deepEqual(env.provisioning?.updated, []);
    assert.deepEqual(env.provisioning?.conflicts, []);
  });
});

describe('local provisioning: expirationChange', () => {
  const day = 86_400_000;
  it('says a new, changed or removed expiration on the same partitioning', () => {
    const have = { type: 'DAY', field: 'recorded_at' };
    assert.equal(
      expirationChange(have, { ...have, expirationMs: String(90 * day) }),
      'partition expiration 90 days, was none',
    );
    assert.equal(
      expirationChange(
        { ...have, expirationMs: String(30 * day) },
        { ...have, expirationMs: String(7 * day) },
      ),
      'partition expiration 7 days, was 30 days',
    );
    assert.equal(
      expirationChange({ ...have, expirationMs: String(30 * day) }, have),
      'partition expiration none, was 30 days',
    );
  });

  it('says nothing when the expiration is the same (string or number) or the partitioning differs', () => {
    const have = { type: 'DAY', field: 'recorded_at', expirationMs: String(30 * day) };
    assert.equal(expirationChange(have, { ...have, expirationMs: 30 * day }), undefined);
    assert.equal(
      expirationChange(have, { type: 'DAY', field: 'RECORDED_AT', expirationMs: String(30 * day) }),
      undefined,
    );
    assert.equal(
      expirationChange(have, { type: 'DAY', field: 'other', expirationMs: String(day) }),
      undefined,
    );
    assert.equal(
      expirationChange(undefined, { type: 'DAY', field: 'recorded_at', expirationMs: String(day) }),
      undefined,
    );
  });
});
