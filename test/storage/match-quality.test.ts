/**
 * Match quality over the BigQuery emulator (docs/console.md#match-quality): a ledger made before
 * the `identifiers` column existed takes it in place when the environment is provisioned again
 * (BigQuery's schema update: a REPEATED column may be added to an existing table); the
 * `match_quality` view and the page's query then give the shares plain SQL over the same rows
 * gives, leave out rows written before the column, and flag an identifier that stopped coming.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { matchSql, shapeMatch } from '../../core/console/destination-health.ts';
import { plan } from '../../core/plan.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision, tableResource } from '../../local/provision.ts';
import { testSettings } from './support.ts';

describe('match quality: the ledger’s identifiers column, its view and its drop warning', function () {
  this.timeout(60_000);
  const settings = testSettings();
  const p = plan(settings);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  const day1 = '2026-03-01';
  const day2 = '2026-03-02';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-match-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    bigquery = emulatorBigQuery(settings.project, emu.url);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds the column to an existing ledger, and the shares agree with plain SQL', async () => {
    // The ledger as it was before: no identifiers column.
    const ledger = p.tables.find((t) => t.name === 'deliveries');
    assert.ok(ledger);
    await bigquery.createDataset(p.dataset);
    await bigquery
      .dataset(p.dataset)
      .createTable(
        'deliveries',
        tableResource({ ...ledger, columns: ledger.columns.filter((c) => c.name !== 'identifiers') }),
      );
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert([
        {
          event_id: 'old',
          event_name: 'lead',
          destination: 'meta',
          status: 'delivered',
          replay: false,
          recorded_at: `${day1}T08:00:00Z`,
        },
      ]);
    const report = await provision(p, {
      project: settings.project,
      bigquery: emu.url,
      functionUrl: () => '',
    });
    assert.ok(
      report.updated.includes('table deliveries (added identifiers)'),
      JSON.stringify(report.updated),
    );

    const row = (id: string, day: string, identifiers: string[]) => ({
      event_id: id,
      event_name: 'lead',
      destination: 'meta',
      status: 'delivered',
      replay: false,
      recorded_at: `${day}T12:00:00Z`,
      identifiers,
    });
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert([
        // Day 1: four leads, all with an e-mail, two with a phone.
        row('a', day1, ['email', 'ip', 'phone']),
        row('b', day1, ['email', 'phone']),
        row('c', day1, ['email']),
        row('d', day1, ['email', 'ip']),
        // Day 2: the e-mail is gone from half of them (a mapping change), the phone from all.
        row('e', day2, ['email', 'ip']),
        row('f', day2, ['ip']),
      ]);
    const q = async (query: string, params: Record<string, unknown> = {}) =>
      (await bigquery.query({ query, params }))[0] as Record<string, unknown>[];

    const view = await q(
      `SELECT CAST(day AS STRING) AS day, identifier, requests, delivered FROM ${p.dataset}.match_quality WHERE destination = 'meta' ORDER BY day, identifier`,
    );
    const plain = await q(
      `SELECT CAST(DATE(recorded_at) AS STRING) AS day, i AS identifier, COUNT(*) AS requests
       FROM ${p.dataset}.deliveries CROSS JOIN UNNEST(identifiers) AS i
       WHERE status = 'delivered' GROUP BY day, identifier ORDER BY day, identifier`,
    );
    assert.deepEqual(
      view.map((r) => [r['day'], r['identifier'], Number(r['requests'])]),
      plain.map((r) => [r['day'], r['identifier'], Number(r['requests'])]),
    );
    // The row from before the column is not counted as a request without identifiers.
    assert.deepEqual(
      [...new Set(view.map((r) => `${r['day']} ${Number(r['delivered'])}`))],
      [`${day1} 4`, `${day2} 2`],
    );

    const shares = shapeMatch(
      await q(
        matchSql((t) => tableRef(settings.project, p.dataset, t)),
        {
          from: `${day1}T00:00:00Z`,
          to: `${day2}T23:59:59Z`,
          recent: `${day2}T00:00:00Z`,
        },
      ),
    );
    const by = (id: string) => shares.find((s) => s.identifier === id);
    assert.deepEqual(by('email'), {
      destination: 'meta',
      event_name: 'lead',
      identifier: 'email',
      recent: 0.5,
      before: 1,
      dropped: true,
    });
    assert.deepEqual([by('phone')?.recent, by('phone')?.before, by('phone')?.dropped], [0, 0.5, true]);
    assert.deepEqual([by('ip')?.recent, by('ip')?.before, by('ip')?.dropped], [1, 0.5, false]);
  });
});
