/** Retention: each personal-data table's partition expiration in the plan, its defaults and precedence. */
import assert from 'node:assert/strict';
import { plan } from '../../../core/plan.ts';
import { checkSettings } from '../../../core/settings.ts';
import {
  DAY_MS,
  DEFAULT_RETENTION_DAYS,
  RETENTION_TABLES,
  type RetentionTable,
  retentionDays,
} from '../../../core/warehouse/retention.ts';
import type { Settings } from '../../../schemas/settings.ts';

const base: Settings = {
  name: 'r',
  project: 'r-project',
  region: 'europe-west1',
  experimental: { rules: true },
};

/** Days each retention table's partitions are kept in plan(settings), from its expirationMs. */
function keptDays(settings: Settings): Record<RetentionTable, number | undefined> {
  const p = plan(settings);
  const all = [...p.tables, ...p.ops.tables];
  return Object.fromEntries(
    RETENTION_TABLES.map((name) => {
      const t = all.find((x) => x.name === name);
      assert.ok(t?.timePartitioning, `partitioned table ${name} in the plan`);
      const ms = t.timePartitioning.expirationMs;
      return [name, ms === undefined ? undefined : Number(ms) / DAY_MS];
    }),
  ) as Record<RetentionTable, number | undefined>;
}

describe('warehouse: retention (partition expiration per table)', () => {
  it('names every partitioned table the product writes personal or request data into', () => {
    const p = plan(base);
    const partitioned = [...p.tables, ...p.ops.tables].filter((t) => t.timePartitioning).map((t) => t.name);
    for (const name of RETENTION_TABLES) assert.ok(partitioned.includes(name), name);
  });

  it('keeps by default: refusals 30 days, invalid events, hook failures and failed sync rows 90, the ledgers and platform diagnostics 400, events forever', () => {
    assert.deepEqual(keptDays(base), {
      events: undefined,
      invalid_events: 90,
      deliveries: 400,
      hook_failures: 90,
      action_runs: 400,
      gateway_refusals: 30,
      sync_failed_rows: 90,
      sessions: undefined, // as the events
      platform_diagnostics: 400,
    });
    assert.deepEqual(Object.fromEntries(RETENTION_TABLES.map((t) => [t, retentionDays(base, t)])), {
      events: undefined,
      sessions: undefined,
      ...DEFAULT_RETENTION_DAYS,
    });
  });

  it('takes each table’s own warehouse.retention value over its default', () => {
    const retention = {
      events: 730,
      invalid_events: 7,
      deliveries: 1,
      hook_failures: 14,
      action_runs: 60,
      gateway_refusals: 3,
      sync_failed_rows: 5,
      sessions: 365,
      platform_diagnostics: 30,
    };
    assert.deepEqual(keptDays({ ...base, warehouse: { retention } }), retention);
  });

  it('falls back to partition_expiration_days for the dataset’s tables with no own value, never for the ops tables', () => {
    const kept = keptDays({
      ...base,
      warehouse: { partition_expiration_days: 1095, retention: { invalid_events: 30 } },
    });
    assert.deepEqual(kept, {
      events: 1095,
      invalid_events: 30, // its own value wins over the fallback
      deliveries: 1095,
      hook_failures: 1095,
      action_runs: 1095,
      gateway_refusals: 30, // the ops tables never took partition_expiration_days
      sync_failed_rows: 90,
      sessions: 1095, // as the events they came from
      platform_diagnostics: 400, // an ops table
    });
  });

  it('leaves a setting that only uses partition_expiration_days as it was for every table of the dataset', () => {
    const p = plan({ ...base, warehouse: { partition_expiration_days: 400 } });
    for (const t of p.tables.filter((x) => RETENTION_TABLES.includes(x.name as RetentionTable)))
      assert.equal(t.timePartitioning?.expirationMs, String(400 * DAY_MS), t.name);
  });

  it('refuses a retention below one day, a fraction, or a table it does not know', () => {
    for (const retention of [{ events: 0 }, { deliveries: 1.5 }, { identity_map: 30 }]) {
      const result = checkSettings({ ...base, warehouse: { retention } });
      assert.equal(result.ok, false, JSON.stringify(retention));
    }
    assert.equal(checkSettings({ ...base, warehouse: { retention: { events: 1 } } }).ok, true);
  });
});
