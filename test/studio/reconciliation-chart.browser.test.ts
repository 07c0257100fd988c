/**
 * The destination page's reconciliation over the BigQuery emulator (docs/console.md#reconciliation):
 * a day where Meta counted fewer events than it accepted gives, through the `destination-health`
 * call, permitted → sent → accepted → counted per day with the top reason of each gap and its
 * sample event; a webhook says its platform reports no counts; the page draws the bars, the
 * ratios and the gap links to the debugger at 1280 and 390 px. Screenshots go to $SCREENSHOTS
 * (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { RegistryClient } from '../../adapters/registry.ts';
import type { DestinationReconciliation } from '../../core/console/reconciliation-chart.ts';
import { plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { buildAssets } from '../../studio/assets.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { adminCall } from '../support/admin-call.ts';
import { seriousAxeViolations } from '../support/axe.ts';
import { dayEvent, dayLedgerRow, RECONCILIATION_DESTINATIONS } from '../support/reconciliation-fixture.ts';
import { onStudioPage, studioPageBrowser } from '../support/studio-page.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'reconciliation-chart-admin-token-0123456789';
const DAY = 86_400_000;

describe('studio: the destination page reconciles permitted, sent, accepted and counted', function () {
  this.timeout(120_000);
  // Its pages share one Chromium (test/support/studio-page.ts).
  studioPageBrowser();
  const settings = testSettings({ destinations: RECONCILIATION_DESTINATIONS } as never);
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('reconciliation-chart');
  // Yesterday (UTC): inside the page's 14 days whatever the hour.
  const day = new Date(Date.now() - DAY).toISOString().slice(0, 10);
  // The day before: Meta alone (the webhook's first ledger day is \`day\`), not counted yet.
  const before1 = new Date(Date.now() - 2 * DAY).toISOString().slice(0, 10);
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'reconciliation-shots-'));
  mkdirSync(shots, { recursive: true });
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-reconciliation-chart-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const ds = bigquery.dataset(p.dataset);
    await ds
      .table('events')
      .insert([
        ...Array.from({ length: 6 }, (_, i) => dayEvent(day, i)),
        dayEvent(before1, 6),
        dayEvent(before1, 7),
      ]);
    const row = (i: number, destination: string, status: string, extra: Record<string, unknown> = {}) =>
      dayLedgerRow(day, i, destination, status, extra);
    await ds.table('deliveries').insert([
      // meta: e0 skipped for consent, e1 refused, e2 never answered; e3..e5 accepted.
      row(0, 'meta', 'skipped', { reason: 'consent: ads not granted' }),
      row(1, 'meta', 'rejected', { reason: 'HTTP 400: invalid email hash', http_status: 400, attempt: 1 }),
      row(2, 'meta', 'dead_lettered', { reason: 'network error: timeout', attempt: 5 }),
      ...[3, 4, 5].map((i) => row(i, 'meta', 'delivered', { http_status: 200, attempt: 1 })),
      ...[6, 7].map((i) => dayLedgerRow(before1, i, 'meta', 'delivered', { http_status: 200, attempt: 1 })),
      // hook: every event delivered; a webhook reports no counts.
      ...Array.from({ length: 6 }, (_, i) => row(i, 'hook', 'delivered', { http_status: 204, attempt: 1 })),
    ]);
    // Meta counted 2 of the 3 it accepted.
    await ds.table('platform_counts').insert([
      {
        day,
        reported_at: new Date().toISOString(),
        destination: 'meta',
        platform: 'meta_capi',
        event_name: 'Purchase',
        counted: 2,
        source: 'meta pixel stats v25.0',
      },
    ]);
    const [bucket] = await fx.run.storage.createBucket('reconciliation-registry');
    studio = await startStudio({
      runs: { start: async () => {} },
      registry: new RegistryClient(bucket),
      adminToken: TOKEN,
      assets: await buildAssets(),
      settings,
      warehouse: studioWarehouse(bigquery, settings.project, p),
    });
  });
  after(async () => {
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers each destination’s days and the top reason of each gap with a sample event', async () => {
    const to = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000).toISOString();
    const { status, json } = await adminCall<{ reconciliation: DestinationReconciliation[] }>(
      studio.url,
      TOKEN,
      'destination-health',
      { from: new Date(Date.parse(to) - DAY).toISOString(), to },
    );
    assert.equal(status, 200, JSON.stringify(json));
    const meta = json.reconciliation.find((d) => d.destination === 'meta');
    const hook = json.reconciliation.find((d) => d.destination === 'hook');
    assert.equal(meta?.platform, 'meta_capi');
    assert.deepEqual(
      meta?.days.map((d) => [d.day, d.permitted, d.sent, d.accepted, d.counted, d.not_reported]),
      [
        [before1, 2, 2, 2, null, false],
        [day, 5, 4, 3, 2, false],
      ],
    );
    assert.equal(meta?.days[1]?.counted_ratio, 2 / 3);
    assert.deepEqual(
      meta?.days[1]?.reasons.map((r) => [r.gap, r.reason, r.events, r.sample_event_id]),
      [
        ['skipped', 'consent: ads not granted', 1, 'e0'],
        ['unsent', 'network error: timeout', 1, 'e2'],
        ['refused', 'HTTP 400: invalid email hash', 1, 'e1'],
      ],
    );
    assert.deepEqual(
      hook?.days.map((d) => [d.permitted, d.sent, d.accepted, d.counted, d.not_reported]),
      [[6, 6, 6, null, true]],
    );
  });

  it('refuses a range that is not a date, and reads nothing', async () => {
    const { status, json } = await adminCall<{ error: { status: string } }>(
      studio.url,
      TOKEN,
      'destination-health',
      { from: 'yesterday', to: 'now' },
    );
    assert.equal(status, 400);
    assert.equal(json.error.status, 'INVALID_ARGUMENT');
  });

  for (const width of [1280, 390])
    it(`draws the chart, its ratios and the gap links at ${width} px`, async () => {
      await onStudioPage(`${studio.url}/destinations#token=${TOKEN}`, width, async (page) => {
        const chart = page.getByRole('table', { name: 'meta: reconciliation per day' });
        await chart.waitFor();
        const row = chart.locator('tr', { hasText: day });
        assert.match(await row.innerText(), /permitted\s*5/);
        assert.match(await row.innerText(), /counted\s*2/);
        assert.match(await row.innerText(), /66\.7 % of accepted/);
        const hook = page.getByRole('table', { name: 'hook: reconciliation per day' });
        assert.match(await hook.innerText(), /not reported by the platform/);
        assert.match(await chart.locator('tr', { hasText: before1 }).innerText(), /counted\s*not read yet/);
        // Two days of Meta: the same figures as lines (charts.ts), with their legend.
        const legend = page.locator('.uplot', { hasText: 'meta: per day' });
        await legend.waitFor();
        assert.match(await legend.innerText(), /permitted[\s\S]*sent[\s\S]*accepted[\s\S]*counted/);
        assert.equal(await page.locator('.uplot').count(), 1);
        const link = page
          .getByRole('list', { name: `meta ${day}: reasons for the gaps` })
          .getByRole('link', { name: /HTTP 400: invalid email hash/ });
        assert.equal(await link.getAttribute('href'), '/debugger?destination=meta&event=e1');
        await page.screenshot({
          path: join(shots, width < 600 ? 'reconciliation-narrow.png' : 'reconciliation.png'),
          fullPage: true,
        });
        assert.deepEqual(await seriousAxeViolations(page), []);
      });
    });
});
