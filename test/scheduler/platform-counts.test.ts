/**
 * What the platforms counted (issue #102): a Meta and a GA4 destination with `config.counts: true`
 * have had events delivered to their stand-ins, which report counts with a 10 % shortfall; the
 * scheduler's PlatformCounts job asks Meta's pixel stats and GA4's runReport through the egress
 * gate with each destination's own credentials and writes `platform_counts` rows to the BigQuery
 * emulator, which the reconciliation view joins. A refused token, a destination without a
 * property, missing credentials and a stand-in the gate refuses write nothing and are logged;
 * each run's outcome is the line `eventbus reconcile` prints for its destination, beside the
 * reason a platform that reports no counts, or a destination with counts off, is not asked.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { bigQueryInsertAll } from '../../adapters/bigquery-writer.ts';
import { createEgressSender } from '../../adapters/egress.ts';
import { countsReadLines, runOutcome } from '../../cli/commands/reconcile.ts';
import { plan } from '../../core/plan.ts';
import { countsRunName, PLATFORM_COUNTS_KIND } from '../../core/platforms/counted.ts';
import { afterChunk, FREE_LOCK } from '../../core/scheduler/dispatch.ts';
import { PLATFORM_COUNTS_TABLE } from '../../core/warehouse/reconciliation.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import {
  countsSender,
  countsWriter,
  type PlatformCountsDeps,
  platformCountsJob,
} from '../../functions/schedule/platform-counts.ts';
import type { ChunkResult } from '../../functions/schedule/runner.ts';
import {
  type PlatformReceiver,
  startGa4Receiver,
  startGoogleAdsReceiver,
  startMetaReceiver,
} from '../../local/platforms/index.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { testSettings } from '../storage/support.ts';
import { firstChunk } from '../support/chunk-context.ts';

const META_TOKEN = 'EAAcounts';
const GA4_TOKEN = 'ya29.counts';
const PIXEL = '123456789012345';
const DEV_TOKEN = 'dev-token-counts';

describe('scheduler: the platforms’ own counts become platform_counts rows', function () {
  this.timeout(60_000);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let meta: PlatformReceiver;
  let ga4: PlatformReceiver;
  let ads: PlatformReceiver;
  let settings: Settings;
  let dataset: string;
  const now = new Date();
  const day = now.toISOString().slice(0, 10);
  const logged: Record<string, unknown>[] = [];
  const asked: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-platform-counts-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    meta = await startMetaReceiver({ accessToken: META_TOKEN, countShortfall: 0.1 });
    ga4 = await startGa4Receiver({ accessToken: GA4_TOKEN, countShortfall: 0.1 });
    ads = await startGoogleAdsReceiver({ accessToken: GA4_TOKEN, countShortfall: 0.1 });
    const metaDest = (over: Partial<Destination> = {}): Destination => ({
      id: 'meta',
      type: 'meta_capi',
      base_url: meta.url,
      config: { pixel_id: PIXEL, counts: true },
      secrets: { access_token: 'META_TOKEN' },
      ...over,
    });
    settings = testSettings({
      destinations: [
        metaDest(),
        metaDest({ id: 'meta-bad-token', secrets: { access_token: 'OTHER' } }),
        metaDest({ id: 'meta-off', config: { pixel_id: PIXEL } }),
        metaDest({ id: 'meta-no-secret', secrets: { access_token: 'UNSET' } }),
        {
          id: 'ga4',
          type: 'ga4_mp',
          base_url: ga4.url,
          config: { measurement_id: 'G-TEST', counts: true, counts_property: '4242' },
          secrets: { api_secret: 'GA4_SECRET' },
        },
        {
          id: 'ga4-no-property',
          type: 'ga4_mp',
          base_url: ga4.url,
          config: { measurement_id: 'G-TEST', counts: true },
          secrets: { api_secret: 'GA4_SECRET' },
        },
        {
          id: 'ads',
          type: 'google_ads',
          base_url: ads.url,
          config: { operating_account_id: '1234567890', counts: true },
          secrets: { developer_token: 'DEV_TOKEN' },
          mappings: { purchase: { event: '111' } },
        },
      ],
    });
    const p = plan(settings);
    dataset = p.dataset;
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    // Twenty purchases and ten page views reach the pixel; twenty purchases reach GA4.
    // A minute ago, but never before today's midnight UTC: the counts are read for today.
    const t = Math.max(Math.floor(now.getTime() / 1000) - 60, Math.floor(Date.parse(day) / 1000));
    const data = [
      ...Array.from({ length: 20 }, (_, i) => ({ event_name: 'Purchase', event_id: `p${i}` })),
      ...Array.from({ length: 10 }, (_, i) => ({ event_name: 'PageView', event_id: `v${i}` })),
    ].map((e) => ({
      ...e,
      event_time: t,
      action_source: 'system_generated',
      user_data: { client_ip_address: '203.0.113.7' },
      custom_data: { value: 10, currency: 'EUR' },
    }));
    const sent = await fetch(`${meta.url}/v25.0/${PIXEL}/events?access_token=${META_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data }),
    });
    assert.equal(sent.status, 200);
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${ga4.url}/mp/collect?measurement_id=G-TEST&api_secret=${GA4_TOKEN}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_id: `c${i}`,
          timestamp_micros: String(now.getTime() * 1000),
          events: [{ name: 'purchase', params: { value: 10, currency: 'EUR', transaction_id: `t${i}` } }],
        }),
      });
      assert.equal(r.status, 204);
    }
    // Twenty conversions uploaded to Google Ads' conversion action 111.
    const uploaded = await fetch(`${ads.url}/v1/events:ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GA4_TOKEN}` },
      body: JSON.stringify({
        destinations: [
          {
            operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
            productDestinationId: '111',
            reference: '111',
          },
        ],
        events: Array.from({ length: 20 }, (_, i) => ({
          destinationReferences: ['111'],
          transactionId: `o${i}`,
          eventTimestamp: now.toISOString(),
          adIdentifiers: { gclid: `g${i}` },
        })),
      }),
    });
    assert.equal(uploaded.status, 200, await uploaded.text());
  });
  after(async () => {
    await meta?.close();
    await ga4?.close();
    await ads?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The job with the real gate, allowed the two stand-ins only. */
  function job(allow: readonly string[]): ReturnType<typeof platformCountsJob> {
    const send = createEgressSender({ allow: new Set(allow), component: 'test-counts', log: () => {} });
    const insert = bigQueryInsertAll(bigquery, dataset);
    const deps: PlatformCountsDeps = {
      settings,
      secret: async (name) => ({ META_TOKEN, OTHER: 'wrong', DEV_TOKEN })[name],
      accessToken: async (credentials, scope) => {
        asked.push(`${credentials}|${scope}`);
        return GA4_TOKEN;
      },
      send: countsSender(send),
      write: countsWriter(insert),
      log: (e) => logged.push(e),
    };
    return platformCountsJob(deps);
  }

  const run = async (allow: readonly string[], name: string, runId = `${name}-run`): Promise<ChunkResult> =>
    job(allow).chunk(firstChunk(PLATFORM_COUNTS_KIND, name, now, { runId, trigger: 'manual' }));

  const rows = async (destination: string) =>
    (
      await bigquery.query({
        query: `SELECT CAST(day AS STRING) AS day, event_name, counted, source FROM ${dataset}.${PLATFORM_COUNTS_TABLE} WHERE destination = @d ORDER BY event_name`,
        params: { d: destination },
      })
    )[0].map((r: Record<string, unknown>) => [r['day'], r['event_name'], Number(r['counted']), r['source']]);

  it('schedules the destinations with counts on, once a day', async () => {
    const scheduled = await job([]).scheduled(now);
    assert.deepEqual(
      scheduled.map((s) => s.name),
      ['meta', 'meta-bad-token', 'meta-no-secret', 'ga4', 'ga4-no-property', 'ads'],
    );
  });

  it('writes Meta’s and GA4’s counts of the day, 10 % short of what they received', async () => {
    const allow = [meta.url, ga4.url].map((u) => new URL(u).origin);
    await run(allow, countsRunName('meta', day));
    await run(allow, countsRunName('ga4', day));
    assert.deepEqual(await rows('meta'), [
      [day, 'PageView', 9, 'meta pixel stats v25.0'],
      [day, 'Purchase', 18, 'meta pixel stats v25.0'],
    ]);
    assert.deepEqual(await rows('ga4'), [[day, 'purchase', 18, 'ga4 runReport v1beta']]);
    // GA4's read is an OAuth token of the read-only Analytics scope, for the function's own account.
    assert.ok(asked.includes('|https://www.googleapis.com/auth/analytics.readonly'), asked.join());
    // Meta's token travelled in the query, as Meta wants, and not into the log.
    assert.ok(meta.received.some((r) => r.path === `/v25.0/${PIXEL}/stats` && r.status === 200));
    assert.ok(!JSON.stringify(logged).includes(META_TOKEN));
  });

  it('writes Google Ads’ successful uploads of the day per conversion action, with the developer token', async () => {
    await run([new URL(ads.url).origin], countsRunName('ads', day));
    assert.deepEqual(await rows('ads'), [
      [day, '111', 18, 'google ads offline_conversion_upload_conversion_action_summary v26'],
    ]);
    // The adwords scope, for the function's own account (the destination names no credentials).
    assert.ok(asked.includes('|https://www.googleapis.com/auth/adwords'), asked.join());
    const read = ads.received.find((r) => r.path === '/v26/customers/1234567890/googleAds:searchStream');
    assert.equal(read?.status, 200);
    assert.ok(!JSON.stringify(logged).includes(DEV_TOKEN));
  });

  it('a scheduled run reads yesterday and today; a retried chunk writes the same rows', async () => {
    const allow = [meta.url].map((u) => new URL(u).origin);
    const first = await run(allow, 'meta', 'meta-daily');
    await run(allow, 'meta', 'meta-daily');
    assert.deepEqual(Object.keys((first.summary?.['counted'] as object) ?? {}).length, 2);
    const [all] = await bigquery.query({
      query: `SELECT COUNT(*) AS n FROM ${dataset}.${PLATFORM_COUNTS_TABLE} WHERE destination = 'meta'`,
    });
    // Two from the manual read, two from the daily one (today's; yesterday counted nothing).
    assert.equal(Number(all[0]?.['n']), 4);
  });

  it('a refused token, a missing property and a refused origin are logged and write nothing', async () => {
    const allow = [meta.url, ga4.url].map((u) => new URL(u).origin);
    const bad = await run(allow, countsRunName('meta-bad-token', day));
    assert.match(String(bad.summary?.['skipped']), /answered 400: Invalid OAuth access token/);
    const noProperty = await run(allow, countsRunName('ga4-no-property', day));
    assert.match(String(noProperty.summary?.['skipped']), /counts_property/);
    const gated = await run([], countsRunName('meta', day), 'gated');
    assert.match(String(gated.summary?.['skipped']), /unreachable: egress refused/);
    const off = await run(allow, countsRunName('meta-off', day));
    assert.match(String(off.summary?.['skipped']), /no such destination/);
    const unset = await run(allow, countsRunName('meta-no-secret', day));
    assert.equal(unset.outcome, 'not read: no credentials');
    assert.deepEqual(await rows('meta-bad-token'), []);
    assert.deepEqual(await rows('ga4-no-property'), []);
    assert.equal(logged.length, 4);
  });

  it('each run’s outcome is the line `eventbus reconcile` prints for its destination', async () => {
    const allow = [meta.url, ga4.url].map((u) => new URL(u).origin);
    const outcomes = new Map<string, string>();
    const runs: [string, readonly string[]][] = [
      ['meta', allow],
      ['meta-bad-token', allow],
      ['meta-no-secret', allow],
      ['ga4', []],
      ['ads', [new URL(ads.url).origin]],
    ];
    for (const [id, gate] of runs) {
      const result = await run(gate, countsRunName(id, day), `${id}-outcome`);
      // What the runner keeps in the lock when the run is done, and the CLI reads back.
      const msg = {
        kind: PLATFORM_COUNTS_KIND,
        name: id,
        slot: now.toISOString(),
        trigger: 'manual' as const,
      };
      outcomes.set(id, runOutcome(afterChunk(FREE_LOCK, msg, result, now)));
    }
    outcomes.set(
      'ga4-no-property',
      runOutcome({ last_error: 'given up after 5 failed chunks: HTTP 500', last_outcome: null }),
    );
    const lines = countsReadLines(
      [
        ...(settings.destinations ?? []),
        { id: 'tiktok', type: 'tiktok_events', config: { pixel_code: 'C1' } },
        { id: 'hook', type: 'webhook', config: { url: 'https://hooks.example/x' } },
        { id: 'meta-paused', type: 'meta_capi', enabled: false, config: { pixel_id: PIXEL, counts: true } },
      ],
      outcomes,
    );
    const by = Object.fromEntries(lines.map((l) => [l.destination, l.outcome]));
    assert.equal(by['meta'], `read: 27 counted on ${day}`);
    assert.match(by['meta-bad-token'] ?? '', /^not read: answered 400: Invalid OAuth access token/);
    assert.equal(by['meta-no-secret'], 'not read: no credentials');
    assert.match(by['ga4'] ?? '', /^not read: unreachable: egress refused/);
    assert.equal(by['ga4-no-property'], 'not read: given up after 5 failed chunks: HTTP 500');
    assert.match(by['meta-off'] ?? '', /^not read: config\.counts is not true/);
    assert.match(by['tiktok'] ?? '', /^not read: the platform reports no counts to this service/);
    assert.match(by['hook'] ?? '', /^not read: the platform reports no counts: a webhook/);
    assert.match(by['meta-paused'] ?? '', /^not read: the destination is off/);
    assert.equal(by['ads'], `read: 18 counted on ${day}`);
    assert.equal(lines.length, 10);
  });
});
