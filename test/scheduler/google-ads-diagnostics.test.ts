/**
 * Google Ads' later diagnostics (issue #62): two conversions go through the forward core to the
 * Data Manager stand-in and are accepted (`delivered`, `platform_ref` = the requestId); one came
 * from a click outside every conversion window, which the stand-in reports afterwards in
 * `requestStatus:retrieve`. The scheduler's GoogleAdsDiagnostics job, run an hour later against
 * the BigQuery emulator, writes one `rejected` row tied to that attempt, and none on a second run.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import {
  createLedgerBigQueryWriter,
  createLedgerWriter,
  LEDGER_TABLE,
} from '../../adapters/ledger-writer.ts';
import { forwardPush } from '../../core/delivery/forward.ts';
import { DIAGNOSIS_REASON } from '../../core/delivery/ledger.ts';
import { decodePush, deliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import {
  DIAGNOSTICS_KIND,
  googleAdsDiagnosticsJob,
} from '../../functions/schedule/google-ads-diagnostics.ts';
import type { ChunkResult } from '../../functions/schedule/runner.ts';
import { type GoogleAdsReceiver, startGoogleAdsReceiver } from '../../local/platforms/index.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import type { Destination } from '../../schemas/settings.ts';
import { testSettings } from '../storage/support.ts';

const TOKEN = 'ya29.local-diagnostics';
const DAY = 86_400_000;

describe('scheduler: Google Ads diagnostics become ledger rows tied to the attempt', function () {
  this.timeout(60_000);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let standIn: GoogleAdsReceiver;
  let ads: Destination;
  const now = new Date();
  const sentAt = new Date(now.getTime() - 90 * 60_000);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-diagnostics-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    standIn = await startGoogleAdsReceiver({ accessToken: TOKEN });
    ads = {
      id: 'ads',
      type: 'google_ads',
      base_url: standIn.url,
      config: { operating_account_id: '1234567890' },
      mappings: { purchase: { event: '111' } },
    };
  });
  after(async () => {
    await standIn?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const purchase = (id: string, at: Date): StoredEvent => ({
    event_name: 'purchase',
    event_id: id,
    event_time: at.toISOString(),
    payload_digest: `digest-${id}`,
    event_data: {
      transaction_id: `T-${id}`,
      value: 59.9,
      currency: 'EUR',
      items: [{ item_id: 'SKU1', price: 59.9, quantity: 1 }],
    },
    campaign: { gclid: `Cj0KCQ-${id}` },
    user: { email: 'jane.doe@example.com' },
    consent: { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' },
  });

  it('writes a rejected row for the conversion Google reports too old, once', async () => {
    const settings = testSettings({ destinations: [ads] });
    const p = plan(settings);
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const ledger = createLedgerWriter(createLedgerBigQueryWriter(bigquery, p.dataset));

    // Two conversions through the forward core, an hour and a half ago; one from a click 100 days old.
    const events = [purchase('fresh', sentAt), purchase('expired', new Date(sentAt.getTime() - 100 * DAY))];
    for (const event of events) {
      const m = deliveryMessage(event, 'ads');
      const push = decodePush({
        message: {
          data: Buffer.from(m.data).toString('base64'),
          attributes: m.attributes,
          messageId: event.event_id,
        },
        subscription: 'projects/p/subscriptions/deliveries-ads',
        deliveryAttempt: 1,
      });
      assert.ok(push.ok);
      const result = await forwardPush(push.push, {
        destinations: [ads],
        driverFor,
        getSecret: () => undefined,
        accessToken: async () => TOKEN,
        send: async (request) => {
          const res = await fetch(request.url, {
            method: request.method,
            headers: request.headers,
            body: request.body,
          });
          return { kind: 'response', status: res.status, headers: {}, body: await res.text() };
        },
        now: () => sentAt,
      });
      assert.equal(result.entries[0]?.row.status, 'delivered', result.summary);
      assert.equal(await ledger.write(result.entries).then((r) => r.length), 0);
    }

    const ledgerTable = tableRef(settings.project, p.dataset, LEDGER_TABLE);
    const q = async (sql: string) => (await bigquery.query({ query: sql }))[0] as Record<string, unknown>[];
    const delivered = await q(
      `SELECT event_id, platform_ref FROM ${ledgerTable} WHERE status = 'delivered' ORDER BY event_id`,
    );
    assert.equal(delivered.length, 2);
    assert.ok(
      delivered.every((r) => typeof r['platform_ref'] === 'string'),
      JSON.stringify(delivered),
    );

    const job = googleAdsDiagnosticsJob({
      settings,
      project: settings.project,
      dataset: p.dataset,
      ledgerTable: LEDGER_TABLE,
      query: async (sql, params) => (await bigquery.query({ query: sql, params }))[0],
      secret: async () => undefined,
      accessToken: async () => TOKEN,
      get: async (url, headers) => {
        const res = await fetch(url, { headers });
        return { status: res.status, body: await res.text() };
      },
      writeLedger: async (entries) => {
        assert.equal((await ledger.write(entries)).length, 0);
      },
    });
    assert.deepEqual(
      (await job.scheduled(now)).map((s) => [s.kind, s.name, s.schedule]),
      [[DIAGNOSTICS_KIND, 'ads', { every: '1h' }]],
    );
    const run = (): Promise<ChunkResult> =>
      job.chunk({
        run: { kind: DIAGNOSTICS_KIND, name: 'ads', slot: now.toISOString(), trigger: 'schedule' },
        runId: 'r',
        cursor: undefined,
        chunk: 0,
        now,
        fence: async () => {},
      });
    const first = await run();
    assert.equal(first.done, true);
    assert.deepEqual(
      [first.summary?.['requests'], first.summary?.['asked'], first.summary?.['failed']],
      [2, 2, 1],
    );

    const rejected = await q(
      `SELECT event_id, event_name, attempt, replay, payload_digest, reason, platform_ref, platform_response FROM ${ledgerTable} WHERE status = 'rejected'`,
    );
    assert.equal(rejected.length, 1, JSON.stringify(rejected));
    const row = rejected[0] ?? {};
    const original = delivered.find((r) => r['event_id'] === 'expired');
    assert.deepEqual(
      [
        row['event_id'],
        row['event_name'],
        Number(row['attempt']),
        row['replay'],
        row['payload_digest'],
        row['platform_ref'],
      ],
      ['expired', 'purchase', 1, false, 'digest-expired', original?.['platform_ref']],
    );
    assert.match(
      String(row['reason']),
      new RegExp(`^${DIAGNOSIS_REASON}: google ads .*FAILED: 1 PROCESSING_ERROR_REASON_EVENT_TOO_OLD`),
    );
    assert.match(String(row['platform_response']), /PROCESSING_ERROR_REASON_EVENT_TOO_OLD/);

    // The same slot again (a retried chunk): the diagnosed request is not asked, no second row.
    const second = await run();
    assert.deepEqual([second.summary?.['requests'], second.summary?.['failed']], [1, 0]);
    assert.equal((await q(`SELECT event_id FROM ${ledgerTable} WHERE status = 'rejected'`)).length, 1);
  });

  it('asks every request once over several chunks, though the failed ones leave the list', async () => {
    // 250 delivered requests, every fifth refused: the first chunk's refusals are diagnosed rows
    // when the second chunk queries again, so an offset into the list would skip as many ids.
    const refs = Array.from({ length: 250 }, (_, i) => `req-${String(i).padStart(3, '0')}`);
    const written: string[] = [];
    const asked: string[] = [];
    const job = googleAdsDiagnosticsJob({
      settings: testSettings({ destinations: [ads] }),
      project: 'p',
      dataset: 'events',
      ledgerTable: LEDGER_TABLE,
      query: async (sql) =>
        sql.includes("status = 'delivered'")
          ? refs.map((ref) => ({ event_id: ref, event_name: 'purchase', attempt: 1, platform_ref: ref }))
          : written.map((ref) => ({ platform_ref: ref })),
      secret: async () => undefined,
      accessToken: async () => TOKEN,
      get: async (url) => {
        const ref = new URL(url).searchParams.get('requestId') ?? '';
        asked.push(ref);
        const failed = Number(ref.slice(4)) % 5 === 0;
        return {
          status: 200,
          body: JSON.stringify({
            requestStatusPerDestination: [{ requestStatus: failed ? 'FAILED' : 'SUCCESS' }],
          }),
        };
      },
      writeLedger: async (entries) => {
        written.push(...entries.map((e) => String(e.row.platform_ref)));
      },
    });
    let cursor: unknown;
    for (let chunk = 0; chunk < 5; chunk++) {
      const result = await job.chunk({
        run: { kind: DIAGNOSTICS_KIND, name: 'ads', slot: now.toISOString(), trigger: 'schedule' },
        runId: 'r',
        cursor,
        chunk,
        now,
        fence: async () => {},
      });
      if (result.done) break;
      cursor = result.cursor;
    }
    assert.deepEqual(asked, refs);
    assert.equal(written.length, 50);
  });

  it('asks nothing for a destination in test mode (validateOnly keeps no request)', async () => {
    const job = googleAdsDiagnosticsJob({
      settings: testSettings({ destinations: [{ ...ads, test_mode: true }] }),
      project: 'p',
      dataset: 'events',
      ledgerTable: LEDGER_TABLE,
      query: async () => assert.fail('no query'),
      secret: async () => undefined,
      accessToken: async () => TOKEN,
      get: async () => assert.fail('no call'),
      writeLedger: async () => assert.fail('no row'),
    });
    assert.deepEqual(await job.scheduled(now), []);
  });
});
