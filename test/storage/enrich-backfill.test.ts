/**
 * `eventbus enrich --from --to` on the BigQuery emulator (docs/enrichment.md, "Back-fill"): rows
 * stored before enrichment existed get the `enriched` column the store function writes today;
 * a second run writes 0 rows and leaves the same counts; `--all` over rows the store function
 * enriched itself writes 0 rows (the back-fill derives exactly what store derives).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { loadEnricher } from '../../adapters/enrichment.ts';
import { plainValue } from '../../adapters/user-sql.ts';
import { backfillEnrichment } from '../../cli/commands/enrich.ts';
import { plan } from '../../core/plan.ts';
import { messageRows, type StoreConfig, storeConfig } from '../../core/store/store.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { testSettings } from './support.ts';

const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const DAY = Date.parse('2026-10-01T00:00:00.000Z');
const at = (hours: number) => new Date(DAY + hours * 3_600_000).toISOString();

describe('storage: eventbus enrich back-fills the enriched column, idempotently', function () {
  this.timeout(60_000);
  const settings = testSettings();
  const p = plan(settings);
  const plain = storeConfig(settings, p);
  const enrich = loadEnricher(settings);
  const enriching: StoreConfig = { ...plain, ...(enrich ? { enrich } : {}) };
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let n = 0;

  const store = async (config: StoreConfig, events: readonly Record<string, unknown>[]) => {
    const rows = events.map((e) => {
      n++;
      const time = e['event_time'] as string;
      const r = messageRows(
        {
          messageId: `m${n}`,
          publishTime: time,
          attributes: {},
          data: Buffer.from(JSON.stringify({ event_id: `e${n}`, event_name: 'page_view', ...e })),
          subscription: 'events-store',
          deliveryAttempt: 1,
        },
        config,
        Date.parse(time),
      );
      assert.equal(r.kind, 'event');
      return { insertId: r.row.insertId, json: r.row.json };
    });
    await bigquery.dataset(p.dataset).table('events').insert(rows, { raw: true });
  };

  const counts = async () =>
    (
      (
        await bigquery.query(
          `SELECT enriched.channel AS channel, enriched.device.type AS device, enriched.campaign.source AS source, COUNT(*) AS n FROM \`${settings.project}.${p.dataset}.events\` WHERE enriched.channel IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
        )
      )[0] as unknown[]
    ).map((r) => plainValue(r));

  const run = (all = false) =>
    backfillEnrichment(bigquery, p, settings, {
      from: new Date(DAY),
      to: new Date(DAY + 3 * 86_400_000),
      sliceHours: 24,
      all,
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-backfill-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    // Stored before enrichment existed: no enriched column filled.
    await store(plain, [
      {
        event_time: at(1),
        anonymous_id: 'a1',
        page: { url: 'https://shop.example/?utm_source=newsletter&utm_medium=email' },
        device: { user_agent: UA },
      },
      {
        event_time: at(2),
        anonymous_id: 'a2',
        page: { url: 'https://shop.example/', referrer: 'https://www.bing.com/' },
      },
      { event_time: at(30), anonymous_id: 'a3', page: { url: 'https://shop.example/?gclid=abc' } },
      // Nothing to derive from: stays without enrichment.
      { event_time: at(31), anonymous_id: 'a4' },
      // Outside the window: untouched.
      { event_time: at(24 * 5), anonymous_id: 'a5', page: { url: 'https://shop.example/?gclid=xyz' } },
    ]);
    // Stored by today's store function, enrichment included.
    await store(enriching, [
      {
        event_time: at(50),
        anonymous_id: 'a6',
        page: { url: 'https://shop.example/?fbclid=f1' },
        device: { user_agent: UA },
      },
    ]);
    // The backfill updates rows stored days ago; BigQuery refuses DML over rows still in the
    // streaming buffer (the first ~90 minutes), and the emulator as well: age them out.
    emu.ageStreamingBuffer();
  });
  after(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fills rows stored without enrichment, in the window only, with what store derives today', async () => {
    const reports = await run();
    assert.deepEqual(
      reports.map((r) => [r.from, r.read, r.derived, r.written]),
      [
        [at(0), 2, 2, 2],
        [at(24), 2, 1, 1],
        [at(48), 0, 0, 0],
      ],
    );
    assert.deepEqual(await counts(), [
      { channel: 'email', device: 'desktop', source: 'newsletter', n: 1 },
      { channel: 'organic_search', device: null, source: null, n: 1 },
      { channel: 'paid_search', device: null, source: null, n: 1 },
      { channel: 'social', device: 'desktop', source: null, n: 1 },
    ]);
    // a4 (nothing to derive) and a5 (outside the window) stay without enrichment.
    const [[bare]] = (await bigquery.query(
      `SELECT COUNT(*) AS n FROM \`${settings.project}.${p.dataset}.events\` WHERE enriched IS NULL`,
    )) as unknown as [[{ n: number }]];
    assert.equal(bare.n, 2);
  });

  it('a second run writes 0 rows and gives the same counts; --all over enriched rows writes 0 too', async () => {
    const before = await counts();
    const again = await run();
    assert.deepEqual(
      again.map((r) => r.written),
      [0, 0, 0],
    );
    const all = await run(true);
    assert.deepEqual(
      all.map((r) => [r.read, r.written]),
      [
        [2, 0],
        [2, 0],
        [1, 0],
      ],
    );
    assert.deepEqual(await counts(), before);
  });
});
