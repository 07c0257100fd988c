/**
 * The reconciliation views over the BigQuery emulator (docs/storage.md, "Reconciliation"): a day
 * of stored events, their ledger rows and a platform's counts give permitted, sent, accepted and
 * counted per destination, the newest count of a day wins, a destination whose platform reports
 * no counts says so, and reconciliation_gaps names the reasons behind each gap. The studio's and
 * the CLI's queries (the views' range form) give the view's rows for their days, bound every
 * table they read to the range's partitions, and give nothing for a range without the day.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { reconcileDaySql } from '../../cli/commands/reconcile.ts';
import { reconciliationSql } from '../../core/console/reconciliation-chart.ts';
import { plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import { dayEvent, dayLedgerRow, RECONCILIATION_DESTINATIONS } from '../support/reconciliation-fixture.ts';
import { testSettings } from './support.ts';

describe('reconciliation: permitted, sent, accepted and counted per day and destination', function () {
  this.timeout(60_000);
  const settings = testSettings({ destinations: RECONCILIATION_DESTINATIONS } as never);
  const p = plan(settings);
  const day = '2026-03-02';
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  const q = async (query: string, params: Record<string, string> = {}) =>
    (await bigquery.query({ query, params }))[0].map((r: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(r, (_k, v) => (v && typeof v === 'object' && 'value' in v ? v.value : v))),
    ) as Record<string, unknown>[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-reconcile-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    const ds = bigquery.dataset(p.dataset);
    const events = Array.from({ length: 10 }, (_, i) => dayEvent(day, i));
    // A copy of e0 (a redelivery) is one event.
    await ds.table('events').insert([...events, { ...events[0], message_id: 'm0b' }]);
    const row = (i: number, destination: string, status: string, extra: Record<string, unknown> = {}) =>
      dayLedgerRow(day, i, destination, status, extra);
    await ds.table('deliveries').insert([
      // meta: e0 skipped for consent; e1 refused; e2 failed without an answer, then dead-lettered;
      // e3..e9 delivered, e9 twice (a redelivery); e8 later refused by a diagnosis.
      row(0, 'meta', 'skipped', { reason: 'consent: ads not granted' }),
      row(1, 'meta', 'rejected', { reason: 'bad email', http_status: 400, attempt: 1 }),
      row(2, 'meta', 'failed', { reason: 'timeout', attempt: 1 }),
      row(2, 'meta', 'dead_lettered', { reason: 'timeout', attempt: 5 }),
      ...[3, 4, 5, 6, 7, 8, 9].map((i) => row(i, 'meta', 'delivered', { http_status: 200, attempt: 1 })),
      row(9, 'meta', 'delivered', { http_status: 200, attempt: 2 }),
      row(8, 'meta', 'rejected', { reason: 'platform diagnostics: too old', attempt: 1 }),
      // hook: every event delivered.
      ...Array.from({ length: 10 }, (_, i) => row(i, 'hook', 'delivered', { http_status: 204, attempt: 1 })),
    ]);
    await ds.table('platform_counts').insert([
      // An earlier read of the day, then a later one that supersedes it per event name.
      {
        day,
        reported_at: `${day}T23:00:00Z`,
        destination: 'meta',
        platform: 'meta_capi',
        event_name: 'Purchase',
        counted: 3,
        source: 'meta pixel stats v25.0',
      },
      {
        day,
        reported_at: '2026-03-03T06:00:00Z',
        destination: 'meta',
        platform: 'meta_capi',
        event_name: 'Purchase',
        counted: 5,
        source: 'meta pixel stats v25.0',
      },
    ]);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives each figure, its ratio and the count’s source', async () => {
    const rows = await q(
      `SELECT CAST(day AS STRING) AS day, destination, platform, permitted, sent, accepted, counted, counted_source,
         skipped, refused, refused_later, dead_lettered, unsent, sent_ratio, accepted_ratio, counted_ratio
       FROM ${p.dataset}.reconciliation ORDER BY destination`,
    );
    const num = (v: unknown) => (v === null ? null : Number(v));
    assert.deepEqual(
      rows.map((r) => [
        r['day'],
        r['destination'],
        r['platform'],
        ...['permitted', 'sent', 'accepted', 'counted'].map((k) => num(r[k])),
        r['counted_source'],
      ]),
      [
        [day, 'hook', 'webhook', 10, 10, 10, null, 'the platform reports no counts'],
        [day, 'meta', 'meta_capi', 9, 8, 6, 5, 'meta pixel stats v25.0'],
      ],
    );
    const meta = rows[1] ?? {};
    assert.deepEqual(
      ['skipped', 'refused', 'refused_later', 'dead_lettered', 'unsent'].map((k) => num(meta[k])),
      [1, 1, 1, 1, 1],
    );
    assert.equal(Math.round(Number(meta['sent_ratio']) * 1000), Math.round((8 / 9) * 1000));
    assert.equal(Number(meta['accepted_ratio']), 6 / 8);
    assert.equal(Math.round(Number(meta['counted_ratio']) * 1000), Math.round((5 / 6) * 1000));
  });

  it('names the reasons behind each gap, with an event to open in the debugger', async () => {
    const rows = await q(
      `SELECT stage, reason, events, sample_event_id FROM ${p.dataset}.reconciliation_gaps
       WHERE destination = 'meta' ORDER BY stage, reason`,
    );
    assert.deepEqual(
      rows.map((r) => [r['stage'], r['reason'], Number(r['events']), r['sample_event_id']]),
      [
        ['refused', 'bad email', 1, 'e1'],
        ['refused_later', 'platform diagnostics: too old', 1, 'e8'],
        ['skipped', 'consent: ads not granted', 1, 'e0'],
        ['unsent', 'timeout', 1, 'e2'],
      ],
    );
  });

  it('runs the query docs/storage.md shows under "Reconciliation" unchanged', async () => {
    const all = readFileSync(join(REPO_ROOT, 'docs/storage.md'), 'utf8');
    const from = all.indexOf('\n## Reconciliation');
    const section = all.slice(from, all.indexOf('\n## ', from + 1));
    const query = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(query, 'the section shows a query');
    const rows = await q(query.replaceAll('events.', `${p.dataset}.`));
    assert.ok(rows.every((r) => 'counted_ratio' in r && 'counted_source' in r));
  });

  describe('the range form the studio and the CLI read', () => {
    const ref = (name: string) => `${p.dataset}.${name}`;
    const figures = (rows: Record<string, unknown>[]) =>
      rows.map((r) =>
        ['day', 'destination', 'permitted', 'sent', 'accepted', 'counted'].map((k) =>
          r[k] === null || k === 'day' || k === 'destination' ? r[k] : Number(r[k]),
        ),
      );

    it('gives the view’s rows for the day, and none for a range without it', async () => {
      const studio = reconciliationSql(settings, ref);
      const view = await q(
        `SELECT CAST(day AS STRING) AS day, destination, permitted, sent, accepted, counted FROM ${ref('reconciliation')} ORDER BY destination`,
      );
      assert.equal(view.length, 2);
      const page = await q(studio.days, { since: '2026-02-25', until: day });
      assert.deepEqual(figures(page), figures(view));
      const gaps = await q(studio.gaps, { since: day, until: day });
      assert.deepEqual(
        gaps.filter((g) => g['destination'] === 'meta').map((g) => g['stage']),
        ['refused', 'refused_later', 'skipped', 'unsent'],
      );
      assert.deepEqual(await q(studio.days, { since: '2026-03-03', until: '2026-03-16' }), []);
      assert.deepEqual(await q(studio.gaps, { since: '2026-02-01', until: '2026-03-01' }), []);
      const cli = reconcileDaySql(settings, p.dataset);
      const printed = await q(
        `SELECT CAST(day AS STRING) AS day, * EXCEPT (day) FROM (${cli.days}) ORDER BY destination`,
        {
          day,
        },
      );
      assert.deepEqual(figures(printed), figures(view));
      assert.equal((await q(cli.gaps, { day })).length, 4);
      assert.deepEqual(await q(cli.days, { day: '2026-03-01' }), []);
    });

    it('bounds every read of a partitioned table by its partitioning column', () => {
      const reads = (sql: string, table: string) =>
        (sql.match(new RegExp(`(FROM|JOIN) ${ref(table).replaceAll('.', '\\.')}\\b`, 'g')) ?? []).length;
      const count = (sql: string, text: string) => sql.split(text).length - 1;
      const cases = [
        ['studio', reconciliationSql(settings, ref), 'since', 'until'],
        ['cli', reconcileDaySql(settings, p.dataset), 'day', 'day'],
      ] as const;
      for (const [who, sql, from, to] of cases)
        for (const text of [sql.days, sql.gaps]) {
          assert.ok(reads(text, 'deliveries') > 0, who);
          assert.equal(
            count(text, `recorded_at >= TIMESTAMP_SUB(TIMESTAMP(@${from}), INTERVAL 24 HOUR)`),
            reads(text, 'deliveries'),
            `${who}: each read of deliveries is bounded\n${text}`,
          );
          assert.equal(
            count(
              text,
              `event_time >= TIMESTAMP(@${from}) AND e.event_time < TIMESTAMP_ADD(TIMESTAMP(@${to}), INTERVAL 1 DAY)`,
            ) +
              count(
                text,
                `WHERE event_time >= TIMESTAMP(@${from}) AND event_time < TIMESTAMP_ADD(TIMESTAMP(@${to}), INTERVAL 1 DAY)`,
              ),
            reads(text, 'events_dedup'),
            `${who}: each read of events is bounded\n${text}`,
          );
          assert.equal(
            count(text, `day >= CAST(@${from} AS DATE) AND day <= CAST(@${to} AS DATE)`),
            reads(text, 'platform_counts'),
            `${who}: each read of platform_counts is bounded`,
          );
        }
    });
  });
});
