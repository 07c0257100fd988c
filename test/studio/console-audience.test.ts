/**
 * The overview's country, device and channel breakdowns (docs/console.md) on the BigQuery
 * emulator: each event counted once (a redelivered copy folds), '' where nothing was derived, and
 * bots left out unless asked for, their number given apart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import {
  OVERVIEW_QUERIES,
  type OverviewQuery,
  overviewSql,
  shapeOverview,
} from '../../core/console/overview.ts';
import { plan } from '../../core/plan.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { testSettings } from '../storage/support.ts';

describe('console: the overview’s country, device and channel breakdowns', function () {
  this.timeout(60_000);
  const settings = testSettings();
  const p = plan(settings);
  const range = { from: '2026-11-02T00:00:00.000Z', to: '2026-11-03T00:00:00.000Z' };
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;

  const row = (id: string, message: string, enriched?: Record<string, unknown>) => ({
    event_id: id,
    event_name: 'page_view',
    event_time: '2026-11-02T10:00:00.000Z',
    received_at: '2026-11-02T10:00:01.000Z',
    stored_at: '2026-11-02T10:00:02.000Z',
    topic: 'events',
    message_id: message,
    schema_version: 1,
    ...(enriched ? { enriched } : {}),
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-audience-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const nl = { geo: { country: 'NL' }, device: { type: 'mobile' }, channel: 'paid_search' };
    await bigquery
      .dataset(p.dataset)
      .table('events')
      .insert([
        row('a', 'm1', nl),
        // The same event redelivered: counted once.
        row('a', 'm2', nl),
        row('b', 'm3', { geo: { country: 'NL' }, device: { type: 'desktop' }, channel: 'direct' }),
        row('c', 'm4', { geo: { country: 'DE' }, device: { type: 'desktop' }, channel: 'direct' }),
        // Stored before enrichment: nothing derived.
        row('d', 'm5'),
        row('bot', 'm6', { device: { type: 'desktop' }, channel: 'direct', bot: true }),
      ]);
  });
  after(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const overview = async (bots: boolean) => {
    const sql = overviewSql((name) => tableRef(settings.project, p.dataset, name), { bots });
    const rows = await Promise.all(
      OVERVIEW_QUERIES.map(async (q) => (await bigquery.query({ query: sql[q], params: range }))[0]),
    );
    return shapeOverview(
      range,
      Object.fromEntries(OVERVIEW_QUERIES.map((q, i) => [q, rows[i] ?? []])) as Record<
        OverviewQuery,
        Record<string, unknown>[]
      >,
      { bots },
    );
  };

  it('counts each event once by country, device and channel, without bots by default', async () => {
    const o = await overview(false);
    assert.deepEqual(o.audience, {
      countries: [
        { value: 'NL', events: 2 },
        { value: '', events: 1 },
        { value: 'DE', events: 1 },
      ],
      devices: [
        { value: 'desktop', events: 2 },
        { value: '', events: 1 },
        { value: 'mobile', events: 1 },
      ],
      channels: [
        { value: 'direct', events: 2 },
        { value: '', events: 1 },
        { value: 'paid_search', events: 1 },
      ],
      bots: 1,
      botsIncluded: false,
    });
    // The stored-events figure still counts everything stored.
    assert.equal(o.totals.events, 5);
  });

  it('counts bots in the breakdowns when asked', async () => {
    const o = await overview(true);
    assert.deepEqual(o.audience.devices, [
      { value: 'desktop', events: 3 },
      { value: '', events: 1 },
      { value: 'mobile', events: 1 },
    ]);
    assert.equal(o.audience.bots, 1);
    assert.equal(o.audience.botsIncluded, true);
  });
});
