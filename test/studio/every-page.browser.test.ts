/**
 * Every studio page (each HTML route studio/assets.ts serves) in Debian's Chromium over known
 * data, at 1280 and 390 px (issue #43): nothing scrolls sideways outside the pages' declared
 * scroll boxes (`scrollWidth ≤ innerWidth`), axe-core finds no serious or critical violation,
 * Tab reaches every visible control, and no script or console error happens. A screenshot of
 * each page at each size goes to <page>-desktop.png and <page>-phone.png in $SCREENSHOTS
 * (`SCREENSHOTS=docs/img` refreshes the pictures of docs/studio.md#pages), else in a temporary
 * directory, so a test run leaves the tree as it found it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Browser } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import { plan } from '../../core/plan.ts';
import { OPS_TABLES, tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { buildAssets } from '../../studio/assets.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { META_FAILING } from '../support/alert-fixture.ts';
import { launchChromium } from '../support/chromium.ts';
import { assertPageUsable } from '../support/page-checks.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'every-page-admin-token-0123456789';
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const MINUTE = 60_000;

/** The page's name in the screenshots' file names: its path, `creator` for the root. */
const pageName = (path: string): string => (path === '/' ? 'creator' : path.slice(1));

describe('studio: every page at desktop and phone sizes', function () {
  this.timeout(300_000);
  // Meta, so that the pages which list destinations (replays, health) have one to show.
  const settings = testSettings({
    destinations: [
      {
        id: 'meta',
        type: 'meta_capi',
        base_url: 'http://127.0.0.1:9/meta',
        config: { pixel_id: '123456789012345' },
        secrets: { access_token: 'meta-token' },
      },
    ],
  });
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('every-page');
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'eventbus-every-page-shots-'));
  mkdirSync(shots, { recursive: true });
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let browser: Browser;
  let pages: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-every-page-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const ago = (minutes: number) => new Date(Date.now() - minutes * MINUTE).toISOString();
    // Three hours of purchases and page views, each delivered to Meta (one refused, one retried).
    const events = Array.from({ length: 12 }, (_, i) => ({
      event_id: `evt_${i}_4f2a9c1e-7b3d-4e8a-9f61-0c2d5e8b7a13`,
      event_name: i % 3 === 0 ? 'page_view' : 'purchase',
      event_time: ago(i * 15 + 1),
      received_at: ago(i * 15 + 1),
      stored_at: ago(i * 15 + 1),
      topic: 'events',
      message_id: `m-${i}`,
      schema_version: 1,
      payload_digest: `d-${i}`,
      source: i % 2 === 0 ? 'web' : 'backend',
      event_data: JSON.stringify(i % 3 === 0 ? {} : { value: 10 * i, currency: 'EUR' }),
    }));
    await bigquery.dataset(p.dataset).table('events').insert(events);
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert(
        events.map((e, i) => ({
          event_id: e.event_id,
          event_name: e.event_name,
          destination: 'meta',
          status: i === 4 ? 'rejected' : 'delivered',
          replay: false,
          recorded_at: ago(i * 15),
          payload_digest: e.payload_digest,
          attempt: 1,
          ...(i === 4
            ? { reason: 'HTTP 400: invalid pixel', http_status: 400 }
            : { http_status: 200, identifiers: ['email', 'phone'] }),
        })),
      );
    await bigquery
      .dataset(p.dataset)
      .table('invalid_events')
      .insert([
        {
          received_at: ago(20),
          stored_at: ago(20),
          reason: 'invalid_event',
          errors: [{ path: 'value', message: 'must be a number' }],
          event_id: 'evt_bad',
          payload: JSON.stringify({ event_name: 'purchase', event_id: 'evt_bad', value: 'ten' }),
        },
      ]);
    const ops = bigquery.dataset(p.ops.dataset);
    await ops.table(OPS_TABLES.gatewayRefusals).insert([
      {
        refused_at: ago(2),
        status: 401,
        code: 'UNAUTHENTICATED',
        reason: 'bad_signature',
        source: 'translator:shopify',
        translator: 'shopify',
        path: '/v1/t/shopify',
        size: 512,
        represents: 3,
      },
    ]);
    await ops.table(OPS_TABLES.alertStates).insert([
      {
        alert: META_FAILING.name,
        version: '1.0',
        evaluated_at: ago(5),
        status: 'ok',
        clear_streak: 0,
        breached: false,
        value: 0.08,
        summary: 'meta failed 1 of 12 attempts (8%) in the last 1m; the threshold is 50%',
        recorded_at: ago(5),
      },
    ]);
    const [bucket] = await fx.run.storage.createBucket('every-page-registry');
    const registry = new RegistryClient(bucket);
    // Written past the studio's checks: the test settings name no connection.
    await registry.apply([META_FAILING], { author: 'test' });
    const assets = await buildAssets();
    pages = [...assets].filter(([, a]) => a.type.startsWith('text/html')).map(([path]) => path);
    studio = await startStudio({
      registry,
      adminToken: TOKEN,
      assets,
      settings,
      warehouse: studioWarehouse(bigquery, settings.project, p),
      opsTable: (name) => tableRef(settings.project, p.ops.dataset, name),
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the pages the docs show', () => {
    assert.deepEqual(pages.map(pageName).sort(), [
      'catalog',
      'console',
      'creator',
      'debugger',
      'destinations',
      'explorer',
      'live',
      'replays',
      'resources',
      'rules',
      'sql',
    ]);
  });

  for (const size of SIZES)
    it(`every page passes the checks at ${size.width} px`, async () => {
      const failures: string[] = [];
      for (const path of pages) {
        const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
        const problems: string[] = [];
        page.on('pageerror', (e) => problems.push(e.message));
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        try {
          await page.goto(`${studio.url}${path}#token=${TOKEN}`);
          // The page's calls have answered and drawn (the live page's tail polls seconds apart).
          await page.waitForLoadState('networkidle');
          await page.screenshot({
            path: join(shots, `${pageName(path)}-${size.name}.png`),
            fullPage: true,
          });
          await assertPageUsable(page);
          assert.deepEqual(problems, [], 'script or console errors');
        } catch (e) {
          failures.push(`${path}: ${(e as Error).message}`);
        } finally {
          await page.close();
        }
      }
      assert.deepEqual(failures, []);
    });
});
