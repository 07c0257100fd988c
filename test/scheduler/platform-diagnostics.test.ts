/**
 * What platforms report per dataset (issue #62): a Meta destination with `config.diagnostics:
 * true` has received events on the Meta stand-in; the scheduler's PlatformDiagnostics job asks the
 * stand-in's Dataset Quality API and writes `platform_diagnostics` rows to the BigQuery emulator
 * (Event Match Quality, each match key's coverage), none again on a second run the same day, and
 * logs a Graph error (an unknown pixel, a bad token) without throwing or writing; the query
 * docs/delivery.md shows over the table answers from those rows.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { bigQueryInsertAll } from '../../adapters/bigquery-writer.ts';
import { plan } from '../../core/plan.ts';
import { PLATFORM_DIAGNOSTICS_TABLE } from '../../core/warehouse/platform-diagnostics.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import {
  PLATFORM_DIAGNOSTICS_KIND,
  type PlatformDiagnosticsDeps,
  platformDiagnosticsJob,
} from '../../functions/schedule/platform-diagnostics.ts';
import type { ChunkResult } from '../../functions/schedule/runner.ts';
import { type PlatformReceiver, startMetaReceiver } from '../../local/platforms/index.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { testSettings } from '../storage/support.ts';
import { firstChunk } from '../support/chunk-context.ts';

const TOKEN = 'EAAlocaldiagnostics';
const PIXEL = '123456789012345';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('scheduler: Meta dataset quality becomes platform_diagnostics rows', function () {
  this.timeout(60_000);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let standIn: PlatformReceiver;
  let settings: Settings;
  let ops: string;
  const now = new Date();
  const logged: Record<string, unknown>[] = [];

  const meta = (over: Partial<Destination> = {}): Destination => ({
    id: 'meta',
    type: 'meta_capi',
    base_url: standIn.url,
    config: { pixel_id: PIXEL, diagnostics: true },
    secrets: { access_token: 'META_TOKEN' },
    ...over,
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-platform-diagnostics-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    standIn = await startMetaReceiver({ accessToken: TOKEN });
    settings = testSettings({
      destinations: [
        meta(),
        meta({ id: 'meta-unknown', config: { pixel_id: '999', diagnostics: true } }),
        meta({ id: 'meta-bad-token', secrets: { access_token: 'OTHER_TOKEN' } }),
        meta({ id: 'meta-off', config: { pixel_id: PIXEL } }),
      ],
    });
    const p = plan(settings);
    ops = p.ops.dataset;
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    // Three purchases reach the pixel, two of them with an e-mail; one page view with neither id.
    const event = (id: string, user: Record<string, unknown>, name = 'Purchase') => ({
      event_name: name,
      event_id: id,
      event_time: Math.floor(now.getTime() / 1000) - 60,
      action_source: 'system_generated',
      user_data: { client_ip_address: '203.0.113.7', ...user },
      custom_data: { value: 10, currency: 'EUR' },
    });
    const res = await fetch(`${standIn.url}/v25.0/${PIXEL}/events?access_token=${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        data: [
          event('p1', { em: [sha('jane@example.com')] }),
          event('p2', { em: [sha('joe@example.com')] }),
          event('p3', {}),
          event('v1', {}, 'ViewContent'),
        ],
      }),
    });
    assert.equal(res.status, 200, await res.text());
  });
  after(async () => {
    await standIn?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const deps = (): PlatformDiagnosticsDeps => {
    const insert = bigQueryInsertAll(bigquery, ops);
    return {
      settings,
      project: settings.project,
      ops,
      query: async (sql, params) => (await bigquery.query({ query: sql, params }))[0],
      secret: async (name) => ({ META_TOKEN: TOKEN, OTHER_TOKEN: 'EAAwrong' })[name],
      get: async (url) => {
        const res = await fetch(url);
        return { status: res.status, body: await res.text() };
      },
      write: async (rows) => {
        const refused = await insert(
          PLATFORM_DIAGNOSTICS_TABLE,
          rows.map((r) => ({ insertId: r.insertId, json: { ...r.row } })),
        );
        assert.deepEqual(refused, []);
      },
      log: (entry) => logged.push({ ...entry }),
    };
  };
  const run = (name: string): Promise<ChunkResult> =>
    platformDiagnosticsJob(deps()).chunk(firstChunk(PLATFORM_DIAGNOSTICS_KIND, name, now));
  const rows = async (destination: string) =>
    (
      await bigquery.query({
        query: `SELECT * FROM ${tableRef(settings.project, ops, PLATFORM_DIAGNOSTICS_TABLE)} WHERE destination = @d ORDER BY event_name, metric`,
        params: { d: destination },
      })
    )[0] as Record<string, unknown>[];

  it('schedules one daily run per enabled meta destination with diagnostics: true, and no other', async () => {
    const job = platformDiagnosticsJob({
      ...deps(),
      settings: {
        ...settings,
        destinations: [...(settings.destinations ?? []), meta({ id: 'meta-disabled', enabled: false })],
      },
    });
    assert.deepEqual(
      (await job.scheduled(now)).map((s) => [s.kind, s.name, s.schedule]),
      ['meta', 'meta-unknown', 'meta-bad-token'].map((n) => [PLATFORM_DIAGNOSTICS_KIND, n, { every: '1d' }]),
    );
  });

  it("writes the day's Event Match Quality and match key coverage per event, once", async () => {
    const first = await run('meta');
    assert.equal(first.done, true);
    const written = Number(first.summary?.['written']);
    assert.ok(written > 0, JSON.stringify(first.summary));
    const got = await rows('meta');
    assert.equal(got.length, written);
    const metric = (event: string, name: string) =>
      got.find((r) => r['event_name'] === event && r['metric'] === name);
    const emq = metric('Purchase', 'event_match_quality');
    assert.ok(emq, JSON.stringify(got.map((r) => `${r['event_name']} ${r['metric']}`)));
    assert.ok(Number(emq['value']) > 0 && Number(emq['value']) <= 10, String(emq['value']));
    assert.deepEqual(
      [emq['platform'], emq['dataset'], emq['source']],
      ['meta_capi', PIXEL, 'meta dataset_quality v25.0'],
    );
    assert.deepEqual(JSON.parse(String(emq['detail'])), { match_keys: ['email', 'ip_address'] });
    assert.equal(Number(metric('Purchase', 'match_key_coverage.email')?.['value']), 66.7);
    assert.equal(Number(metric('Purchase', 'match_key_coverage.ip_address')?.['value']), 100);
    assert.ok(metric('ViewContent', 'event_match_quality'));
    assert.equal(Number(metric('Purchase', 'dedup_rate')?.['value']), 0);
    assert.deepEqual(JSON.parse(String(metric('Purchase', 'data_freshness')?.['detail'])), {
      upload_frequency: 'real_time',
    });
    // No token, no identifier: only numbers, key kinds and Meta's wording.
    const text = JSON.stringify(got);
    assert.ok(!text.includes(TOKEN) && !text.includes(sha('jane@example.com')), text);

    // The same day again (a retried chunk, a run by hand): nothing new is written.
    const second = await run('meta');
    assert.deepEqual([second.summary?.['written'], second.summary?.['already']], [0, written]);
    assert.equal((await rows('meta')).length, written);
  });

  it("docs/delivery.md's query over platform_diagnostics answers the day's match quality", async () => {
    const text = readFileSync(join(REPO_ROOT, 'docs/delivery.md'), 'utf8');
    const block = [...text.matchAll(/```sql\n([\s\S]*?)```/g)]
      .map((m) => m[1] as string)
      .find((q) => q.startsWith("-- Meta's event match quality per day"));
    assert.ok(block, 'docs/delivery.md has the platform_diagnostics query');
    const [answer] = await bigquery.query({
      query: block.replaceAll('PROJECT.eventbus_ops', `${settings.project}.${ops}`),
    });
    const purchase = (answer as Record<string, unknown>[]).find((r) => r['event_name'] === 'Purchase');
    assert.ok(purchase, JSON.stringify(answer));
    assert.ok(Number(purchase['event_match_quality']) > 0);
    assert.equal(Number(purchase['email_coverage']), 66.7);
    assert.equal(Number(purchase['dedup_rate']), 0);
  });

  it('logs what Meta refuses (an unknown pixel, a bad token) and writes nothing, without throwing', async () => {
    logged.length = 0;
    const unknown = await run('meta-unknown');
    const badToken = await run('meta-bad-token');
    for (const [r, code] of [
      [unknown, '(#100)'],
      [badToken, '(#190)'],
    ] as const) {
      assert.equal(r.done, true);
      assert.match(String(r.summary?.['skipped']), /^dataset_quality answered 400/);
      assert.ok(String(r.summary?.['skipped']).includes(code), String(r.summary?.['skipped']));
    }
    assert.deepEqual(
      logged.map((e) => [e['kind'], e['destination']]),
      [
        [PLATFORM_DIAGNOSTICS_KIND, 'meta-unknown'],
        [PLATFORM_DIAGNOSTICS_KIND, 'meta-bad-token'],
      ],
    );
    assert.ok(!JSON.stringify(logged).includes('EAAwrong'));
    assert.deepEqual([(await rows('meta-unknown')).length, (await rows('meta-bad-token')).length], [0, 0]);
  });
});
