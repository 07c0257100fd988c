/**
 * GA4's BigQuery export joined per event (docs/storage.md, "Reconciliation"): a GA4 destination
 * whose config links the export counts, of its sent events, those whose `event_id` parameter is in
 * the export's `events_*` tables (daily and intraday, one event once) from the day before to three
 * days after; a deliberate gap (an event never exported, one exported outside that window) shows as
 * counted below sent; a day the export has no table of yet is not counted; GA4's runReport rows of
 * the destination give way to the export.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { plan } from '../../core/plan.ts';
import { reconciliationRangeSql } from '../../core/warehouse/reconciliation.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { dayEvent, dayLedgerRow } from '../support/reconciliation-fixture.ts';
import { testSettings } from './support.ts';

/** GA4's export schema, as far as the join reads it ("[GA4] BigQuery Export schema"). */
const VALUE_TYPES: Record<string, string> = {
  string_value: 'STRING',
  int_value: 'INTEGER',
  float_value: 'FLOAT',
  double_value: 'FLOAT',
};
const EXPORT_SCHEMA = {
  fields: [
    ...['event_date', 'event_name'].map((name) => ({ name, type: 'STRING' })),
    {
      name: 'event_params',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'key', type: 'STRING' },
        {
          name: 'value',
          type: 'RECORD',
          fields: Object.entries(VALUE_TYPES).map(([name, type]) => ({ name, type })),
        },
      ],
    },
  ],
};

/** An exported event: its name and parameters (strings as string_value, numbers as int_value). */
const exported = (date: string, name: string, params: Record<string, string | number>) => ({
  event_date: date,
  event_name: name,
  event_params: Object.entries(params).map(([key, v]) => ({
    key,
    value: typeof v === 'number' ? { int_value: v } : { string_value: v },
  })),
});

describe('reconciliation: GA4’s BigQuery export counted per event', function () {
  this.timeout(60_000);
  const settings = testSettings({
    destinations: [
      {
        id: 'ga4',
        type: 'ga4_mp',
        config: { measurement_id: 'G-1', counts_bigquery_export: 'storage-test.analytics_4242' },
        secrets: { api_secret: 's' },
      },
    ],
  } as never);
  const p = plan(settings);
  const day = '2026-03-02';
  const later = '2026-03-10';
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-ga4-export-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    // The export exists before the view that reads it, as the customer links it first.
    const [ga] = await bigquery.createDataset('analytics_4242');
    const table = async (id: string, rows: Record<string, unknown>[]) => {
      const [t] = await ga.createTable(id, { schema: EXPORT_SCHEMA });
      await t.insert(rows);
    };
    await table('events_20260302', [
      ...[1, 2, 3, 4, 5, 6].map((i) => exported('20260302', 'purchase', { event_id: `e${i}`, value: 10 })),
      // GA4's own events carry no event_id of ours; another sender's id is not ours either.
      exported('20260302', 'session_start', { ga_session_id: 7 }),
      exported('20260302', 'purchase', { event_id: 'not-ours' }),
    ]);
    // The streaming table of the next day (the property's day ran ahead of UTC): e6 again, once.
    await table('events_intraday_20260303', [
      exported('20260303', 'purchase', { event_id: 'e6' }),
      exported('20260303', 'purchase', { event_id: 'e7' }),
    ]);
    // Five days on: outside GA4's late-arrival window of the day, not counted for it.
    await table('events_20260307', [exported('20260307', 'purchase', { event_id: 'e8' })]);
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    const ds = bigquery.dataset(p.dataset);
    const other = { ...dayEvent(later, 0), event_id: 'f0', message_id: 'mf0', payload_digest: 'df0' };
    await ds.table('events').insert([...Array.from({ length: 10 }, (_, i) => dayEvent(day, i)), other]);
    await ds.table('deliveries').insert([
      dayLedgerRow(day, 0, 'ga4', 'skipped', { reason: 'consent: analytics not granted' }),
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) =>
        dayLedgerRow(day, i, 'ga4', 'delivered', { http_status: 204, attempt: 1 }),
      ),
      {
        ...dayLedgerRow(later, 0, 'ga4', 'delivered', { http_status: 204, attempt: 1 }),
        event_id: 'f0',
        payload_digest: 'df0',
      },
    ]);
    // GA4's runReport count of the day: the export's per-event join wins over it.
    await ds.table('platform_counts').insert([
      {
        day,
        reported_at: `${day}T23:00:00Z`,
        destination: 'ga4',
        platform: 'ga4_mp',
        event_name: 'purchase',
        counted: 100,
        source: 'ga4 runReport v1beta',
      },
    ]);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the sent events found in the export within its window; the rest is the gap', async () => {
    const [rows] = await bigquery.query(
      `SELECT CAST(day AS STRING) AS day, permitted, sent, accepted, counted, counted_source
       FROM ${p.dataset}.reconciliation WHERE destination = 'ga4' ORDER BY day`,
    );
    const num = (v: unknown) => (v === null ? null : Number(v));
    assert.deepEqual(
      rows.map((r: Record<string, unknown>) => [
        r['day'],
        ...['permitted', 'sent', 'accepted', 'counted'].map((k) => num(r[k])),
        r['counted_source'],
      ]),
      [
        // e1..e7 found (e6 in two tables, once); e8 outside the window and e9 never exported.
        [day, 9, 9, 9, 7, 'ga4_bigquery_export'],
        // The export has no table of this day yet: not counted, rather than 0.
        [later, 1, 1, 1, null, null],
      ],
    );
  });

  it('the range form the studio and `eventbus reconcile` run counts the same', async () => {
    const sql = reconciliationRangeSql(settings, (name) => `${p.dataset}.${name}`, {
      from: 'from',
      to: 'to',
    });
    const [rows] = await bigquery.query({
      query: `SELECT counted, counted_source FROM (${sql.days}) WHERE destination = 'ga4'`,
      params: { from: day, to: day },
    });
    assert.deepEqual(
      rows.map((r: Record<string, unknown>) => [Number(r['counted']), r['counted_source']]),
      [[7, 'ga4_bigquery_export']],
    );
  });

  it('sees an export table written after the view, as BigQuery resolves the wildcard when read', async () => {
    const [t] = await bigquery
      .dataset('analytics_4242')
      .createTable('events_20260310', { schema: EXPORT_SCHEMA });
    await t.insert([exported('20260310', 'purchase', { event_id: 'f0' })]);
    const [rows] = await bigquery.query(
      `SELECT counted, counted_source FROM ${p.dataset}.reconciliation WHERE destination = 'ga4' AND day = '${later}'`,
    );
    assert.deepEqual(
      rows.map((r: Record<string, unknown>) => [Number(r['counted']), r['counted_source']]),
      [[1, 'ga4_bigquery_export']],
    );
  });
});
