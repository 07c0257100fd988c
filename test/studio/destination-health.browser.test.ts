/**
 * Destination health over the BigQuery emulator (docs/console.md#destination-health): a ledger
 * with known rows (deliveries after a failure, a rejection, a dead letter, a replay, attempts the
 * breaker held back) gives per destination the numbers worked out by hand, the same numbers as
 * plain SQL over `deliveries` and `events` (not through the views), and the page in Debian's
 * Chromium shows them at 1280 and 390 px without sideways scrolling outside its tables' boxes.
 * Its Alerts section lists the Alert resources; a test button starts a manual run of the alert.
 * Screenshots go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { RegistryClient } from '../../adapters/registry.ts';
import type { AlertStatus } from '../../core/alerts/status.ts';
import type { DestinationHealth } from '../../core/console/destination-health.ts';
import { plan } from '../../core/plan.ts';
import type { RunMessage } from '../../core/scheduler/dispatch.ts';
import { OPS_TABLES, tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { buildAssets } from '../../studio/assets.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { adminCall } from '../support/admin-call.ts';
import { seriousAxeViolations } from '../support/axe.ts';
import { onStudioPage, studioPageBrowser } from '../support/studio-page.ts';

const TOKEN = 'destination-health-admin-token-0123456789';
const HOUR = 3_600_000;

describe('studio: destination health agrees with SQL over the ledger', function () {
  this.timeout(120_000);
  // Its pages share one Chromium (test/support/studio-page.ts).
  studioPageBrowser();
  const settings = testSettings();
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('destination-health');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  /** The run messages the studio published (the scheduler's `runs` topic). */
  const started: RunMessage[] = [];
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'health-shots-'));
  mkdirSync(shots, { recursive: true });
  const h0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
  const at = (hour: number, ms: number) => new Date(h0 + hour * HOUR + ms).toISOString();
  const range = { from: at(0, 0), to: at(3, 0) };
  /** When meta-failing fired, as the Alerts section shows it. */
  let firedSince = '';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-health-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const dataset = bigquery.dataset(p.dataset);
    const event = (id: string, received: string) => ({
      event_id: id,
      event_name: 'purchase',
      event_time: received,
      received_at: received,
      stored_at: received,
      topic: 'events',
      message_id: `m-${id}`,
      schema_version: 1,
      payload_digest: `d-${id}`,
    });
    await dataset
      .table('events')
      .insert([
        event('e1', at(0, 0)),
        event('e2', at(0, 1000)),
        event('e3', at(1, 0)),
        event('e4', at(1, 0)),
      ]);
    const row = (
      id: string,
      destination: string,
      status: string,
      recorded: string,
      more: {
        reason?: string;
        http_status?: number;
        attempt?: number;
        replay?: boolean;
        identifiers?: string[];
      } = {},
    ) => ({
      event_id: id,
      event_name: 'purchase',
      destination,
      status,
      replay: more.replay ?? false,
      recorded_at: recorded,
      payload_digest: `d-${id}`,
      ...(more.reason ? { reason: more.reason } : {}),
      ...(more.http_status ? { http_status: more.http_status } : {}),
      ...(more.attempt ? { attempt: more.attempt } : {}),
      ...(more.identifiers ? { identifiers: more.identifiers } : {}),
    });
    await dataset.table('deliveries').insert([
      row('e1', 'meta', 'delivered', at(0, 200), {
        attempt: 1,
        http_status: 200,
        identifiers: ['email', 'phone'],
      }),
      row('e2', 'meta', 'failed', at(0, 2000), {
        reason: 'HTTP 500: upstream',
        http_status: 500,
        attempt: 1,
      }),
      row('e2', 'meta', 'delivered', at(0, 4000), {
        attempt: 2,
        http_status: 200,
        identifiers: ['email', 'phone'],
      }),
      row('e3', 'meta', 'rejected', at(1, 300), {
        reason: 'HTTP 400: invalid pixel',
        http_status: 400,
        attempt: 1,
      }),
      row('e4', 'meta', 'dead_lettered', at(1, 900), { reason: 'HTTP 500: upstream', attempt: 5 }),
      // A replay of e1, an hour later: 3,600,500 ms after its receipt.
      row('e1', 'meta', 'delivered', at(1, 500), { attempt: 1, replay: true, identifiers: ['email'] }),
      row('e1', 'hook', 'skipped', at(0, 100), { reason: 'no consent' }),
      row('e2', 'hook', 'delivered', at(0, 1500), { attempt: 1 }),
      // The hook stopped answering: its newest attempts were held back by the breaker.
      row('e3', 'hook', 'failed', at(2, 0), { reason: 'network error: timeout', attempt: 1 }),
      row('e3', 'hook', 'failed', at(2, 10_000), {
        reason: 'held back: hook did not answer its last 5 calls',
        attempt: 2,
      }),
      row('e4', 'hook', 'failed', at(2, 20_000), {
        reason: 'held back: hook did not answer its last 5 calls',
        attempt: 1,
      }),
      // Outside the range.
      row('e1', 'meta', 'failed', at(-1, 0), { reason: 'old' }),
      // Earlier in the page's day: every lead reached Meta with a phone then (match quality).
      row('e0', 'meta', 'delivered', at(-10, 0), { attempt: 1, identifiers: ['email', 'phone'] }),
      row('e0', 'meta', 'delivered', at(-12, 0), { attempt: 1, identifiers: ['email', 'phone'] }),
    ]);
    // meta-failing's evaluations: clear, then it fired, and it is still firing.
    const firedAt = new Date(Date.now() - 10 * 60_000).toISOString();
    const state = (minutesAgo: number, status: string, notice: string | null) => {
      const t = new Date(Date.now() - minutesAgo * 60_000).toISOString();
      return {
        alert: 'meta-failing',
        version: '1.0',
        evaluated_at: t,
        status,
        incident: status === 'firing' ? `meta-failing@${firedAt}` : null,
        clear_streak: 0,
        breached: status === 'firing',
        summary: 'meta failed …',
        recorded_at: t,
        ...(notice ? { notice } : {}),
      };
    };
    await bigquery
      .dataset(p.ops.dataset)
      .table(OPS_TABLES.alertStates)
      .insert([
        state(15, 'ok', null),
        { ...state(10, 'firing', 'fired'), evaluated_at: firedAt },
        state(5, 'firing', null),
      ]);
    firedSince = `${firedAt.slice(0, 16).replace('T', ' ')} UTC`;
    const [bucket] = await fx.run.storage.createBucket('health-registry');
    const registry = new RegistryClient(bucket);
    // Written past the studio's checks: the test settings name no connection.
    await registry.apply(
      [
        {
          kind: 'Alert',
          name: 'meta-failing',
          spec: {
            condition: { failure_rate: { destination: 'meta', above: 0.2, window: '15m' } },
            schedule: { every: '5m' },
            notify: { connection: 'ops-chat' },
          },
        },
        {
          kind: 'Alert',
          name: 'hook-failing',
          spec: {
            condition: { failure_rate: { destination: 'hook', above: 0.5, window: '15m' } },
            schedule: { every: '5m' },
            notify: { connection: 'ops-chat' },
          },
        },
      ],
      { author: 'test' },
    );
    studio = await startStudio({
      runs: {
        start: async (m) => {
          started.push(m);
        },
      },
      registry,
      adminToken: TOKEN,
      assets: await buildAssets(),
      settings,
      opsTable: (name) => tableRef(settings.project, p.ops.dataset, name),
      warehouse: {
        table: (name) => tableRef(settings.project, p.dataset, name),
        query: async (query, params) =>
          (await bigquery.query({ query, params }))[0] as Record<string, unknown>[],
      },
    });
  });
  after(async () => {
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const health = () =>
    adminCall<{ destinations: DestinationHealth[]; errors: Record<string, unknown>[] }>(
      studio.url,
      TOKEN,
      'destination-health',
      range,
    );
  const sql = async (query: string) =>
    (await bigquery.query({ query, params: range }))[0] as Record<string, unknown>[];

  it('gives the numbers worked out by hand: totals, failure rate, latency, breaker, top errors', async () => {
    const { status, json } = await health();
    assert.equal(status, 200, JSON.stringify(json));
    const meta = json.destinations.find((d) => d.destination === 'meta');
    const hook = json.destinations.find((d) => d.destination === 'hook');
    assert.deepEqual(meta?.totals, {
      delivered: 3,
      folded: 0,
      skipped: 0,
      rejected: 1,
      failed: 1,
      dead_lettered: 1,
      replayed: 1,
      held_back: 0,
    });
    assert.equal(meta?.failure_rate, 3 / 6);
    // Delivered after 200, 3,000 and 3,600,500 ms: nearest rank 2 of 3 and 3 of 3.
    assert.deepEqual(meta?.latency, { delivered: 3, p50_ms: 3000, p95_ms: 3_600_500, max_ms: 3_600_500 });
    assert.equal(meta?.breaker, 'closed');
    assert.equal(hook?.totals.held_back, 2);
    assert.equal(hook?.breaker, 'open');
    assert.deepEqual(
      json.errors.slice(0, 2).map((e) => [e['destination'], e['status'], e['reason'], e['rows_recorded']]),
      [
        ['hook', 'failed', 'held back: hook did not answer its last 5 calls', 2],
        ['hook', 'failed', 'network error: timeout', 1],
      ],
    );
    const upstream = json.errors.filter((e) => e['reason'] === 'HTTP 500: upstream');
    assert.deepEqual(upstream.map((e) => [e['status'], e['sample_event_id'], e['http_status']]).sort(), [
      ['dead_lettered', 'e4', null],
      ['failed', 'e2', 500],
    ]);
  });

  it('agrees with plain SQL over deliveries and events', async () => {
    const { json } = await health();
    const counts = await sql(
      `SELECT destination, status, COUNT(*) AS n FROM events.deliveries
       WHERE recorded_at >= TIMESTAMP(@from) AND recorded_at < TIMESTAMP(@to) GROUP BY destination, status`,
    );
    for (const c of counts) {
      const d = json.destinations.find((x) => x.destination === c['destination']);
      assert.equal(
        d?.totals[c['status'] as 'delivered'],
        Number(c['n']),
        `${c['destination']} ${c['status']}`,
      );
    }
    const [latency] = await sql(
      `SELECT COUNT(*) AS n, MAX(TIMESTAMP_DIFF(d.recorded_at, e.received_at, MILLISECOND)) AS max_ms
       FROM events.deliveries AS d JOIN events.events AS e ON e.event_id = d.event_id AND e.payload_digest = d.payload_digest
       WHERE d.destination = 'meta' AND d.status = 'delivered' AND d.recorded_at >= TIMESTAMP(@from) AND d.recorded_at < TIMESTAMP(@to)`,
    );
    const meta = json.destinations.find((d) => d.destination === 'meta');
    assert.equal(meta?.latency.delivered, Number(latency?.['n']));
    assert.equal(meta?.latency.max_ms, Number(latency?.['max_ms']));
  });

  it('refuses a range that is not a date with a 400 naming the field once', async () => {
    const r = await adminCall<{ error: { message: string; details: { fieldViolations?: unknown[] }[] } }>(
      studio.url,
      TOKEN,
      'destination-health',
      { from: 'yesterday', to: range.to },
    );
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.match(r.json.error.message, /\. from must be an RFC 3339 timestamp/);
    assert.doesNotMatch(r.json.error.message, /from from/);
    assert.ok(
      JSON.stringify(r.json.error.details).includes('"field":"from"'),
      JSON.stringify(r.json.error.details),
    );
  });

  it('says each alert firing, clear or never evaluated, and since when, from alert_states', async () => {
    const r = await adminCall<{ alerts: AlertStatus[] }>(studio.url, TOKEN, 'alert-status', {
      alerts: ['meta-failing', 'hook-failing'],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(
      r.json.alerts.map((a) => [
        a.alert,
        a.state,
        a.since === null ? null : `${a.since.slice(0, 16).replace('T', ' ')} UTC`,
      ]),
      [
        ['meta-failing', 'firing', firedSince],
        ['hook-failing', 'never evaluated', null],
      ],
    );
  });

  it('refuses a test fire of an alert that does not exist, and starts nothing', async () => {
    const before = started.length;
    const r = await adminCall<{ error: { message: string } }>(studio.url, TOKEN, 'alert-test', {
      name: 'nope',
    });
    assert.equal(r.status, 404);
    assert.match(r.json.error.message, /Alert\/nope/);
    assert.equal(started.length, before);
  });

  for (const width of [1280, 390])
    it(`shows them in the page at ${width} px`, async () => {
      await onStudioPage(`${studio.url}/destinations#token=${TOKEN}`, width, async (page) => {
        const table = page.getByRole('table', { name: 'Destinations' });
        const meta = table.locator('tr', { hasText: 'meta' });
        await meta.waitFor();
        // The page's last 24 hours hold the rows before the range too: 4 of 9 attempts failed.
        assert.match(await meta.innerText(), /44\.4 %/);
        // Match quality: the phone was on every lead before, on 2 of 3 in the last six hours.
        await page
          .getByRole('alert')
          .getByText('meta · purchase: phone fell from 100.0 % to 66.7 %')
          .waitFor();
        assert.equal(await page.getByRole('alert').count(), 1);
        assert.match(await table.locator('tr', { hasText: 'hook' }).innerText(), /held back/);
        const sample = page
          .getByRole('table', { name: 'Top errors' })
          .getByRole('link', { name: 'e3' })
          .first();
        assert.equal(await sample.getAttribute('href'), '/explorer?event_id=e3');
        // The Alerts section: the test button is in sight without scrolling the table sideways
        // (a phone's 390 px too), and starts a manual run of the alert on the scheduler.
        const sight = await page
          .getByRole('button', { name: 'Send a test message of meta-failing' })
          .evaluate((b) => {
            const box = b.getBoundingClientRect();
            const scroller = b.closest('.scroll')?.getBoundingClientRect();
            return {
              right: Math.round(box.right),
              edge: Math.min(scroller?.right ?? innerWidth, innerWidth),
            };
          });
        assert.ok(sight.right <= sight.edge, `the button ends at ${sight.right} px, past ${sight.edge} px`);
        const before = started.length;
        await page.getByRole('button', { name: 'Send a test message of meta-failing' }).click();
        await page
          .getByRole('status')
          .getByText(/Test of meta-failing 1\.0 started \(Alert\/meta-failing@/)
          .waitFor();
        assert.equal(started.length, before + 1);
        assert.deepEqual(
          { ...started.at(-1), slot: undefined },
          { kind: 'Alert', name: 'meta-failing', trigger: 'manual', slot: undefined },
        );
        const alerts = page.getByRole('table', { name: 'Alerts' });
        assert.match(
          await alerts.locator('tr', { hasText: 'meta-failing' }).innerText(),
          new RegExp(`firing\\s+${firedSince}`),
        );
        assert.match(await alerts.locator('tr', { hasText: 'hook-failing' }).innerText(), /never evaluated/);
        await page.getByText('meta: ').click();
        await page.getByRole('table', { name: 'meta by hour' }).waitFor();
        await page.screenshot({
          path: join(shots, width < 600 ? 'destinations-narrow.png' : 'destinations.png'),
          fullPage: true,
        });
        assert.deepEqual(await seriousAxeViolations(page), []);
      });
    });
});
