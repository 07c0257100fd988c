/** Retention in the Pulumi program: every table's partition expiration is the plan's. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAY_MS } from '../../core/warehouse/retention.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, declare, ofType, settingsText } from './support.ts';

const TABLE = 'gcp:bigquery/table:Table';

/** The declared tables' expirationMs by table name, the datasets, and the plan the program was given. */
async function declaredExpirations(extra: string) {
  const dir = mkdtempSync(join(tmpdir(), 'eventbus-retention-'));
  try {
    const file = join(dir, 'env.yaml');
    writeFileSync(file, `${settingsText('test/fixtures/settings/valid/minimal.yaml')}\n${extra}\n`);
    const config = loadStackConfig({ project: 'minimal-project', region: 'us-central1', settingsFile: file });
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));
    const declared = new Map(
      ofType(recorded, TABLE).map((t) => [
        String(t.inputs['tableId']),
        (t.inputs['timePartitioning'] as { expirationMs?: number } | undefined)?.expirationMs,
      ]),
    );
    const datasets = new Map(
      ofType(recorded, 'gcp:bigquery/dataset:Dataset').map((d) => [
        String(d.inputs['datasetId']),
        d.inputs['maxTimeTravelHours'] as string | undefined,
      ]),
    );
    return { declared, datasets, plan: config.plan };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('infra: retention as partition expiration', () => {
  it('gives every partitioned table of both datasets the plan’s expirationMs (defaults)', async () => {
    const { declared, plan } = await declaredExpirations('experimental:\n  rules: true');
    const planned = [...plan.tables, ...plan.ops.tables].filter((t) => t.timePartitioning);
    assert.ok(planned.length > 0);
    for (const t of planned) {
      assert.ok(declared.has(t.name), `table ${t.name} declared`);
      const ms = t.timePartitioning?.expirationMs;
      assert.equal(declared.get(t.name), ms === undefined ? undefined : Number(ms), t.name);
    }
    assert.equal(declared.get('events'), undefined);
    assert.equal(declared.get('deliveries'), 400 * DAY_MS);
    assert.equal(declared.get('invalid_events'), 90 * DAY_MS);
    assert.equal(declared.get('gateway_refusals'), 30 * DAY_MS);
  });

  it('declares the settings’ own retention and the partition_expiration_days fallback', async () => {
    const { declared } = await declaredExpirations(
      'warehouse:\n  partition_expiration_days: 1095\n  retention:\n    events: 730\n    gateway_refusals: 7',
    );
    assert.equal(declared.get('events'), 730 * DAY_MS);
    assert.equal(declared.get('deliveries'), 1095 * DAY_MS);
    assert.equal(declared.get('hook_failures'), 1095 * DAY_MS);
    assert.equal(declared.get('gateway_refusals'), 7 * DAY_MS);
    assert.equal(declared.get('sync_failed_rows'), 90 * DAY_MS);
  });

  it('declares a shorter time-travel window on both datasets when the settings ask for one (#75)', async () => {
    const defaults = await declaredExpirations('');
    assert.equal(defaults.datasets.size, 2);
    for (const hours of defaults.datasets.values()) assert.equal(hours, undefined, "BigQuery's 7 days");
    const { datasets, plan } = await declaredExpirations('warehouse:\n  time_travel_hours: 48');
    assert.deepEqual([...datasets.values()], ['48', '48']);
    assert.equal(plan.timeTravelHours, 48);
  });
});
