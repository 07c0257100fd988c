/**
 * The ledger's platform columns over the BigQuery emulator (issue #62, docs/delivery.md "What the
 * platform answered"): a `deliveries` table made before `platform_ref`, `platform_events_received`
 * and `platform_response` existed takes them in place when the environment is provisioned again
 * (its rows kept, reading NULL), and the docs' two questions ("did Google accept yesterday's
 * conversions", "Meta's events_received per day") answer as plain counting over seeded rows says.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision, tableResource } from '../../local/provision.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import { testSettings } from './support.ts';

const NEW_COLUMNS = ['platform_ref', 'platform_events_received', 'platform_response'];

/** The docs' ```sql block that starts with `-- <marker>`, pointed at the test's dataset. */
function docQuery(marker: string, project: string, dataset: string): string {
  const text = readFileSync(join(REPO_ROOT, 'docs/delivery.md'), 'utf8');
  const block = [...text.matchAll(/```sql\n([\s\S]*?)```/g)]
    .map((m) => m[1] as string)
    .find((q) => q.startsWith(`-- ${marker}`));
  assert.ok(block, `docs/delivery.md has a query "-- ${marker}"`);
  return block.replaceAll('PROJECT.events', `${project}.${dataset}`);
}

describe('ledger: the platform columns, added in place, and the docs’ questions about them', function () {
  this.timeout(60_000);
  const settings = testSettings();
  const p = plan(settings);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-platform-columns-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    bigquery = emulatorBigQuery(settings.project, emu.url);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const q = async (query: string) => (await bigquery.query({ query }))[0] as Record<string, unknown>[];
  const day = (offset: number) => {
    const d = new Date();
    d.setUTCHours(12, 0, 0, 0);
    return new Date(d.getTime() + offset * 86_400_000).toISOString();
  };

  it('adds the three columns to a ledger made before them, keeping its rows', async () => {
    const ledger = p.tables.find((t) => t.name === 'deliveries');
    assert.ok(ledger);
    await bigquery.createDataset(p.dataset);
    await bigquery
      .dataset(p.dataset)
      .createTable(
        'deliveries',
        tableResource({ ...ledger, columns: ledger.columns.filter((c) => !NEW_COLUMNS.includes(c.name)) }),
      );
    const old = {
      event_id: 'old',
      event_name: 'lead',
      destination: 'meta',
      status: 'delivered',
      replay: false,
    };
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert([{ ...old, recorded_at: day(-2) }]);
    const report = await provision(p, {
      project: settings.project,
      bigquery: emu.url,
      functionUrl: () => '',
    });
    assert.ok(
      report.updated.includes(`table deliveries (added ${NEW_COLUMNS.join(', ')})`),
      JSON.stringify(report.updated),
    );
    assert.deepEqual(report.conflicts, []);
    const [metadata] = await bigquery.dataset(p.dataset).table('deliveries').getMetadata();
    const fields = (metadata as { schema: { fields: { name: string; type: string; mode: string }[] } }).schema
      .fields;
    assert.deepEqual(
      fields.slice(-3).map((f) => [f.name, f.type, f.mode]),
      [
        ['platform_ref', 'STRING', 'NULLABLE'],
        ['platform_events_received', 'INTEGER', 'NULLABLE'], // INT64, as the REST API names it
        ['platform_response', 'STRING', 'NULLABLE'],
      ],
    );
    const rows = await q(`SELECT event_id, platform_ref, platform_response FROM ${p.dataset}.deliveries`);
    assert.deepEqual(rows, [{ event_id: 'old', platform_ref: null, platform_response: null }]);
  });

  it('answers "did Google accept yesterday\'s conversions" and "Meta\'s events_received per day"', async () => {
    const row = (over: Record<string, unknown>) => ({
      event_name: 'purchase',
      replay: false,
      attempt: 1,
      reason: null,
      ...over,
    });
    const yesterday = day(-1);
    const later = new Date(Date.parse(yesterday) + 90 * 60_000).toISOString();
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert([
        // Google Ads, yesterday: three accepted, one of them refused later by the diagnostics; one refused at once.
        ...['g1', 'g2', 'g3'].map((id) =>
          row({
            event_id: id,
            destination: 'google-ads',
            status: 'delivered',
            recorded_at: yesterday,
            platform_ref: `req-${id}`,
            reason: `requestId=req-${id}`,
          }),
        ),
        row({
          event_id: 'g3',
          destination: 'google-ads',
          status: 'rejected',
          recorded_at: later,
          platform_ref: 'req-g3',
          reason: 'platform diagnostics: google ads 111 FAILED: 1 PROCESSING_ERROR_REASON_EVENT_TOO_OLD',
        }),
        row({
          event_id: 'g4',
          destination: 'google-ads',
          status: 'rejected',
          recorded_at: yesterday,
          http_status: 400,
          reason: 'google ads INVALID_ARGUMENT (400)',
        }),
        // Two days ago: not yesterday's.
        row({
          event_id: 'g0',
          destination: 'google-ads',
          status: 'delivered',
          recorded_at: day(-2),
          platform_ref: 'req-g0',
        }),
        // Meta: two days of answers, one refusal.
        row({
          event_id: 'm1',
          destination: 'meta',
          status: 'delivered',
          recorded_at: day(-2),
          platform_ref: 'AbC',
          platform_events_received: 1,
        }),
        row({
          event_id: 'm2',
          destination: 'meta',
          status: 'delivered',
          recorded_at: yesterday,
          platform_ref: 'AbD',
          platform_events_received: 1,
        }),
        row({
          event_id: 'm3',
          destination: 'meta',
          status: 'delivered',
          recorded_at: yesterday,
          platform_ref: 'AbE',
          platform_events_received: 1,
        }),
        row({
          event_id: 'm4',
          destination: 'meta',
          status: 'rejected',
          recorded_at: yesterday,
          platform_ref: 'AbF',
          http_status: 400,
        }),
        // A skip has no attempt: not a request.
        row({
          event_id: 'm5',
          destination: 'meta',
          status: 'skipped',
          recorded_at: yesterday,
          attempt: null,
        }),
      ]);

    const google = await q(docQuery('did Google accept yesterday', settings.project, p.dataset));
    assert.deepEqual(
      google.map((r) => [r['status'], Number(r['conversions']), Number(r['refused_later'])]),
      [
        ['delivered', 3, 1],
        ['rejected', 1, 0],
      ],
    );
    const meta = await q(docQuery("Meta's events_received per day", settings.project, p.dataset));
    assert.deepEqual(
      meta.map((r) => [Number(r['requests']), Number(r['events_received']), Number(r['refused'])]),
      [
        [1, 1, 0], // two days ago: m1 (the old row has no attempt: not counted)
        [3, 2, 1],
      ],
    );
  });
});
