/**
 * The `erasure_failures` alert over the BigQuery emulator (docs/alerts.md, #75): the audit rows of
 * the ops table `erasures` as the erasure job leaves them, and the condition's one-row query as
 * the scheduler's alert job runs it. One request that gave up on a platform within the window
 * fires it; a plain complete one, a pending one and one that completed before the window do not.
 */
import assert from 'node:assert/strict';
import { alertQuery, alertReading } from '../../core/alerts/alerts.ts';
import { PRIVACY_TABLES } from '../../core/warehouse/privacy-audit.ts';
import { provisionedBigQuery } from '../storage/support.ts';
import { alertTablesOf } from '../support/alert-fixture.ts';

describe('alerts: erasure_failures over the erasures audit (BigQuery emulator)', function () {
  this.timeout(60_000);
  const fx = provisionedBigQuery('eventbus-erasure-alert-');
  const now = Date.now();
  const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();

  before(async () => {
    const row = (id: string, status: string, completed: number | null) => ({
      erasure_id: id,
      requested_at: ago(24 * 60),
      requested_by: 'dpo@example.com',
      identifier_hashes: ['h'],
      status,
      platforms: JSON.stringify([{ platform: 'meta_audience', target: 'buyers', status: 'failed' }]),
      passes: 6,
      completed_at: completed === null ? null : ago(completed),
    });
    await fx.bigquery
      .dataset(fx.p.ops.dataset)
      .table(PRIVACY_TABLES.erasures)
      .insert([
        row('er-given-up', 'complete_with_failures', 20),
        row('er-clean', 'complete', 10),
        row('er-pending', 'pending', null),
        row('er-older', 'complete_with_failures', 180),
      ]);
  });

  it('fires for the request that gave up within the window, and only for it', async () => {
    const tables = alertTablesOf(fx.settings.project, fx.p, fx.settings);
    const condition = { erasure_failures: { window: '1h' } };
    const q = alertQuery(condition, new Date(now), tables);
    const [rows] = await fx.bigquery.query({ query: q.sql, params: { ...q.params } });
    const reading = alertReading(condition, (rows as Record<string, unknown>[])[0] ?? {});
    assert.equal(reading.value, 1);
    assert.equal(reading.breached, true);
    const quiet = alertQuery({ erasure_failures: { window: '15m' } }, new Date(now), tables);
    const [none] = await fx.bigquery.query({ query: quiet.sql, params: { ...quiet.params } });
    assert.equal(alertReading(condition, (none as Record<string, unknown>[])[0] ?? {}).breached, false);
  });
});
