/**
 * `platform_diagnostics` in the plan (core/warehouse/platform-diagnostics.ts): an ops table
 * partitioned by `reported_at`, kept 400 days unless `warehouse.retention` says otherwise; and
 * the schedule function reads a Meta destination's access token only when its diagnostics are on.
 */
import assert from 'node:assert/strict';
import { plan } from '../../../core/plan.ts';
import { PLATFORM_DIAGNOSTICS_TABLE } from '../../../core/warehouse/platform-diagnostics.ts';
import { DAY_MS } from '../../../core/warehouse/retention.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const base: Settings = { name: 'd', project: 'diagnostics-test', region: 'europe-west1' };
const meta = (config: Destination['config'], over: Partial<Destination> = {}): Destination => ({
  id: 'meta',
  type: 'meta_capi',
  config: { pixel_id: '123456789012345', ...config },
  secrets: { access_token: 'meta-capi-token' },
  ...over,
});
const scheduleSecrets = (settings: Settings) =>
  plan(settings).functions.find((f) => f.name === 'schedule')?.secrets ?? [];

describe('warehouse: platform_diagnostics (what platforms report per dataset)', () => {
  it('is an ops table partitioned by reported_at, kept 400 days by default', () => {
    const p = plan(base);
    assert.equal(
      p.tables.find((t) => t.name === PLATFORM_DIAGNOSTICS_TABLE),
      undefined,
    );
    const t = p.ops.tables.find((x) => x.name === PLATFORM_DIAGNOSTICS_TABLE);
    assert.ok(t);
    assert.deepEqual(
      t.columns.map((c) => [c.name, c.type, c.mode]),
      [
        ['reported_at', 'TIMESTAMP', 'REQUIRED'],
        ['destination', 'STRING', 'REQUIRED'],
        ['platform', 'STRING', 'REQUIRED'],
        ['dataset', 'STRING', 'REQUIRED'],
        ['event_name', 'STRING', 'REQUIRED'],
        ['metric', 'STRING', 'REQUIRED'],
        ['value', 'FLOAT64', 'NULLABLE'],
        ['detail', 'STRING', 'NULLABLE'],
        ['source', 'STRING', 'REQUIRED'],
      ],
    );
    assert.deepEqual(t.timePartitioning, {
      type: 'DAY',
      field: 'reported_at',
      expirationMs: String(400 * DAY_MS),
    });
    const kept = plan({ ...base, warehouse: { retention: { platform_diagnostics: 90 } } });
    assert.equal(
      kept.ops.tables.find((x) => x.name === PLATFORM_DIAGNOSTICS_TABLE)?.timePartitioning?.expirationMs,
      String(90 * DAY_MS),
    );
  });

  it("gives the schedule function a Meta destination's access token only with diagnostics: true", () => {
    assert.deepEqual(scheduleSecrets({ ...base, destinations: [meta({})] }), []);
    assert.deepEqual(scheduleSecrets({ ...base, destinations: [meta({ diagnostics: true })] }), [
      'meta-capi-token',
    ]);
    assert.deepEqual(
      scheduleSecrets({ ...base, destinations: [meta({ diagnostics: true }, { enabled: false })] }),
      [],
    );
  });
});
