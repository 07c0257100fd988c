/**
 * The per-destination debugger in Debian's Chromium (docs/console.md#debugger), over the whole
 * loop: a stored event goes through the forward core to the Meta stand-in on loopback, whose
 * answer lands in the ledger on the BigQuery emulator; the destinations page links to Meta's
 * debugger, which shows the attempt with the platform's answer (its fbtrace_id as the ledger's
 * platform_ref, its events_received), the request sent (token redacted, identifiers as kinds) and the event as
 * stored; "Send this event again" starts a one-event slice replay that the scheduler's Replay job
 * runs (driven here as the schedule function would, one runChunk per run message), its message
 * goes through forward again, and the ledger holds a second row marked replay, which the page then
 * shows. At 1280 and 390 px: no sideways scrolling outside the tables' boxes, every control
 * reached by Tab, no serious axe violation. Screenshots go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { createWriteApiWriter } from '../../adapters/bigquery-write-api.ts';
import { createHttpSender } from '../../adapters/http-sender.ts';
import { createLedgerWriter } from '../../adapters/ledger-writer.ts';
import { LockStore } from '../../adapters/locks.ts';
import { RegistryClient } from '../../adapters/registry.ts';
import { ReplayStore } from '../../adapters/replays.ts';
import { sliceTableMaker } from '../../adapters/slice-table.ts';
import { assertSingleSelect, plainValue } from '../../adapters/user-sql.ts';
import { forwardPush } from '../../core/delivery/forward.ts';
import { type DeliveryMessage, decodePush, deliveryMessage } from '../../core/delivery/message.ts';
import { storedEventFromRow } from '../../core/delivery/replay.ts';
import { plan } from '../../core/plan.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import type { RunMessage } from '../../core/scheduler/dispatch.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { replayJob } from '../../functions/schedule/replays.ts';
import { type RunnerDeps, runChunk } from '../../functions/schedule/runner.ts';
import { type PlatformReceiver, startMetaReceiver } from '../../local/platforms/index.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { buildAssets } from '../../studio/assets.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { seriousAxeViolations } from '../support/axe.ts';
import { onStudioPage, studioPageBrowser } from '../support/studio-page.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'debugger-page-admin-token-0123456789';
const META_TOKEN = 'EAAGm0PX4ZCpsBAdebuggertoken';
const EVENT_ID = 'evt_debug_4f2a9c1e-7b3d-4e8a-9f61-0c2d5e8b7a13';
const EMAIL = 'dana.debug@example.com';

/** A statement's rows as plain values (the schedule function's `run`, without the bytes cap). */
async function plainRows(bq: BigQuery, query: string, params?: Record<string, unknown>) {
  const [rows] = await bq.query({ query, ...(params ? { params } : {}) });
  return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
}

describe('studio: the per-destination debugger in a browser, send again included', function () {
  this.timeout(180_000);
  // Its pages share one Chromium (test/support/studio-page.ts).
  studioPageBrowser();
  const fx = emulatorWithFreshBuckets('debugger-page');
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'debugger-shots-'));
  mkdirSync(shots, { recursive: true });
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let meta: PlatformReceiver;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let deps: RunnerDeps;
  let settings: ReturnType<typeof testSettings>;
  let p: ReturnType<typeof plan>;
  /** Run messages the studio and the runner published (the scheduler's `runs` topic). */
  const runs: RunMessage[] = [];
  /** Delivery messages the replay published (the `deliveries` topic). */
  const deliveries: DeliveryMessage[] = [];
  let ledger: ReturnType<typeof createLedgerWriter>;
  let flush: () => Promise<void>;

  /** One delivery message through the forward core to the stand-in, its ledger rows written. */
  const forward = async (m: DeliveryMessage): Promise<void> => {
    const decoded = decodePush({
      message: {
        data: Buffer.from(m.data).toString('base64'),
        attributes: m.attributes,
        messageId: `m-${Date.now()}`,
      },
      subscription: `projects/${settings.project}/subscriptions/deliveries-meta`,
      deliveryAttempt: 1,
    });
    assert.ok(decoded.ok);
    const result = await forwardPush(decoded.push, {
      destinations: settings.destinations ?? [],
      driverFor,
      getSecret: (name) => (name === 'META_TOKEN' ? META_TOKEN : undefined),
      send: createHttpSender(),
      now: () => new Date(),
    });
    await ledger.write(result.entries);
    await flush();
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-debugger-'));
    meta = await startMetaReceiver({ accessToken: META_TOKEN });
    settings = testSettings({
      destinations: [
        {
          id: 'meta',
          type: 'meta_capi',
          base_url: meta.url,
          config: { pixel_id: '123456789012345' },
          secrets: { access_token: 'META_TOKEN' },
        },
      ],
    });
    p = plan(settings);
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const writer = createWriteApiWriter(bigquery, p.dataset);
    ledger = createLedgerWriter(writer);
    flush = () => writer.flush();
    const at = new Date(Date.now() - 20 * 60_000).toISOString();
    const row = {
      event_id: EVENT_ID,
      event_name: 'purchase',
      event_time: at,
      received_at: at,
      stored_at: at,
      topic: 'events',
      message_id: 'm-debug',
      schema_version: 1,
      payload_digest: 'd-debug',
      source: 'web',
      user: { email: EMAIL, country: 'DE' },
      device: {
        ip: '198.51.100.23',
        user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130',
        locale: 'de-DE',
      },
      consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
      event_data: JSON.stringify({ value: 129.5, currency: 'EUR', transaction_id: 'T-1001' }),
    };
    await bigquery.dataset(p.dataset).table('events').insert([row]);
    // The first attempt: the stored event through forward to the stand-in, as the pipeline does.
    await forward(deliveryMessage(storedEventFromRow(row), 'meta'));

    const [bucket] = await fx.run.storage.createBucket('debugger-registry');
    const registry = new RegistryClient(bucket);
    const store = new ReplayStore(bucket);
    const bq = bigquery;
    deps = {
      locks: new LockStore(bucket),
      leaseMs: 60_000,
      publish: async (more) => {
        runs.push(...more);
      },
      jobs: [
        replayJob({
          settings,
          project: settings.project,
          dataset: p.dataset,
          ops: p.ops.dataset,
          pending: (now) => store.pending(now),
          read: (id) => store.read(id),
          finish: (r) => store.write(r),
          source: async () => {
            throw new Error('a slice replay reads no dead letters');
          },
          publish: async (m) => {
            deliveries.push(...m);
          },
          writeLedger: async (entries) => {
            await ledger.write(entries);
            await flush();
          },
          assertSelect: (sql, params) => assertSingleSelect(bq, { query: sql, params }),
          run: (sql, params) => plainRows(bq, sql, params),
          page: async (table, startIndex, maxResults) => {
            const [rows] = await bq
              .dataset(p.ops.dataset)
              .table(table)
              .getRows({ startIndex: String(startIndex), maxResults, autoPaginate: false });
            return rows as Record<string, unknown>[];
          },
          createSlice: sliceTableMaker(bq, { dataset: p.dataset, ops: p.ops.dataset }),
        }),
      ],
    };
    studio = await startStudio({
      registry,
      adminToken: TOKEN,
      assets: await buildAssets(),
      settings,
      warehouse: studioWarehouse(bigquery, settings.project, p),
      runs: {
        start: async (m) => {
          runs.push(m);
        },
      },
      checkSelect: (sql, params) => assertSingleSelect(bq, { query: sql, params }),
      warehouseRef: { project: settings.project, dataset: p.dataset },
    });
  });
  after(async () => {
    await studio?.close();
    await meta?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The ledger's rows of the event at Meta, oldest first, by plain SQL. */
  const ledgerRows = async () =>
    (
      await bigquery.query({
        query: `SELECT status, replay, platform_ref, platform_events_received FROM events.deliveries
                WHERE event_id = @id AND destination = 'meta' ORDER BY recorded_at`,
        params: { id: EVENT_ID },
      })
    )[0].map((r) => plainValue(r) as Record<string, unknown>);

  it("shows Meta's last attempt with the platform's answer, and its send again leaves a replay row", async () => {
    assert.deepEqual(await ledgerRows(), [
      { status: 'delivered', replay: false, platform_ref: 'AbCdEfGh123', platform_events_received: 1 },
    ]);
    await onStudioPage(`${studio.url}/destinations#token=${TOKEN}`, 1280, async (page) => {
      // From the destinations page, Meta's name opens its debugger.
      await page.getByRole('link', { name: 'meta: open its debugger' }).click();
      await page.waitForURL(/\/debugger\?destination=meta$/);
      assert.equal(await page.getByRole('link', { name: 'Debugger' }).getAttribute('aria-current'), 'page');
      const table = page.getByRole('table', { name: 'Attempts' });
      const first = table.locator('tbody tr');
      await first.first().waitFor();
      assert.equal(await first.count(), 1);
      assert.match(
        await first.first().innerText(),
        /delivered\s+[\d-]+ [\d:]+\s+evt_debug_\S+\s+purchase\s+200\s+ref AbCdEfGh123, 1 received/,
      );

      await page.getByRole('button', { name: new RegExp(`^Details of ${EVENT_ID}`) }).click();
      const detail = page.locator('#detail');
      const answer = page.getByLabel("The platform's answer", { exact: true });
      assert.deepEqual(JSON.parse(await answer.innerText()), { events_received: 1 });
      const sent = await page.getByLabel('What was sent', { exact: true }).innerText();
      assert.match(
        sent,
        /^POST http:\/\/127\.0\.0\.1:\d+\/v[\d.]+\/123456789012345\/events\?access_token=REDACTED/,
      );
      assert.match(sent, /"em": \[\s*"\[email\]"\s*\]/);
      assert.match(sent, /"client_ip_address": "\[ip\]"/);
      const stored = await page.getByLabel('The event as stored', { exact: true }).innerText();
      assert.match(stored, /"email": "\[email\]"/);
      assert.match(stored, /"transaction_id": "T-1001"/);
      const all = await page.locator('main').innerText();
      for (const datum of [EMAIL, '198.51.100.23', 'Chrome/130', META_TOKEN])
        assert.ok(!all.includes(datum), `the page shows ${datum}`);
      assert.match(await detail.innerText(), /Ledger status\s+delivered/);
      assert.match(await detail.innerText(), /Platform ref\s+AbCdEfGh123\s+Events received\s+1/);
      assert.match(await detail.innerText(), /Platform ref\s+AbCdEfGh123\s+Events received\s+1/);
      await page.screenshot({ path: join(shots, 'debugger-detail.png'), fullPage: true });

      // Send again: a one-event replay on the scheduler.
      await page.getByRole('button', { name: 'Send this event again' }).click();
      await page.getByText(/Replay \S+ started: evt_debug_\S+ to meta\./).waitFor();
      assert.deepEqual(
        runs.map((m) => m.kind),
        ['Replay'],
      );
      while (runs.length > 0) {
        const outcome = await runChunk(deps, runs.shift() as RunMessage);
        assert.ok(['continued', 'finished'].includes(outcome.outcome), JSON.stringify(outcome));
      }
      assert.equal(deliveries.length, 1, 'the replay publishes the one event');
      assert.equal(deliveries[0]?.attributes['replay'], 'true');
      await forward(deliveries[0] as DeliveryMessage);
      assert.deepEqual(
        (await ledgerRows()).map((r) => [r['status'], r['replay']]),
        [
          ['delivered', false],
          ['delivered', true],
        ],
      );

      await page.getByRole('button', { name: 'Show' }).click();
      await table.locator('tbody tr').nth(1).waitFor();
      const rows = table.locator('tbody tr');
      assert.match(
        await rows.nth(0).innerText(),
        /delivered\s+[\d-]+ [\d:]+\s+evt_debug_\S+\s+purchase\s+200\s+ref AbCdEfGh123, 1 received\s+(\S+\s+)?replay/,
      );
      assert.doesNotMatch(await rows.nth(1).innerText(), /replay/);
      // The filter by reason finds neither (both were delivered without one).
      await page.getByLabel('Reason contains').fill('HTTP 400');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.getByText(/No attempt to meta matches/).waitFor();
      await page.getByLabel('Reason contains').fill('');
      await page.getByLabel('Status').selectOption('delivered');
      await page.getByRole('button', { name: 'Show' }).click();
      await table.locator('tbody tr').nth(1).waitFor();
      await page.screenshot({ path: join(shots, 'debugger.png'), fullPage: true });
      assert.deepEqual(await seriousAxeViolations(page), []);
    });
  });

  it('works at 390 px: the table scrolls in its box, the detail fits', async () => {
    await onStudioPage(`${studio.url}/debugger?destination=meta#token=${TOKEN}`, 390, async (page) => {
      await page.getByRole('table', { name: 'Attempts' }).locator('tbody tr').first().waitFor();
      await page
        .getByRole('button', { name: /^Details of / })
        .first()
        .click();
      await page.getByLabel("The platform's answer", { exact: true }).waitFor();
      await page.screenshot({ path: join(shots, 'debugger-narrow.png'), fullPage: true });
      assert.deepEqual(await seriousAxeViolations(page), []);
    });
  });
});
