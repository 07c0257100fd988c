/**
 * The reconciliation views over the BigQuery emulator (docs/storage.md, "Reconciliation"): a day
 * of stored events, their ledger rows and a platform's counts give permitted, sent, accepted and
 * counted per destination, the newest count of a day wins, a destination whose platform reports
 * no counts says so, and reconciliation_gaps names the reasons behind each gap.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
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
  const q = async (query: string) =>
    (await bigquery.query({ query }))[0].map((r: Record<string, unknown>) =>
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
});
