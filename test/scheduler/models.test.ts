/**
 * Sessions and identity kept by the scheduler (docs/sessions.md), on the emulators: a scripted
 * journey (anonymous visits on a phone and a laptop, a sign-up with an e-mail on the laptop, a
 * purchase logged in on the phone the next day) stored as the store function stores it, then the
 * `Model` job run by tick and runChunk under real locks: one person, three sessions, the right
 * first and last touch; a run over unchanged data writes nothing; erasure removes the person for
 * good; the dashboard SQL of docs/sessions.md runs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { loadEnricher } from '../../adapters/enrichment.ts';
import { LockStore } from '../../adapters/locks.ts';
import { plainValue } from '../../adapters/user-sql.ts';
import { plan } from '../../core/plan.ts';
import type { RunMessage } from '../../core/scheduler/dispatch.ts';
import { storeConfig } from '../../core/store/store.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { type Running, start as startStorage } from '../../emulators/storage/test/support/harness.ts';
import { MODEL_KIND, modelJob } from '../../functions/schedule/models.ts';
import { type RunnerDeps, runChunk, tick } from '../../functions/schedule/runner.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import { testSettings } from '../storage/support.ts';
import { eraseFromModels, queryRows, storedRow } from './models-support.ts';

const PHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const LAPTOP_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

const DAY1 = Date.parse('2026-11-02T08:00:00.000Z');
const at = (minutes: number) => new Date(DAY1 + minutes * 60_000).toISOString();

/** The journey, in the order it happens: [minutes after day 1 08:00, event]. */
const DAY_ONE: readonly [number, Record<string, unknown>][] = [
  [
    0,
    {
      event_name: 'page_view',
      anonymous_id: 'phone-1',
      page: {
        url: 'https://shop.example/shoes?utm_source=google&utm_medium=cpc&utm_campaign=autumn&gclid=Cj0KCQ',
        referrer: 'https://www.google.com/',
      },
      device: { user_agent: PHONE_UA },
    },
  ],
  [
    5,
    {
      event_name: 'page_view',
      anonymous_id: 'phone-1',
      page: { url: 'https://shop.example/shoes/red', referrer: 'https://shop.example/shoes' },
      device: { user_agent: PHONE_UA },
    },
  ],
  [
    120,
    {
      event_name: 'page_view',
      anonymous_id: 'laptop-1',
      page: { url: 'https://shop.example/' },
      device: { user_agent: LAPTOP_UA },
    },
  ],
  [
    130,
    {
      event_name: 'sign_up',
      anonymous_id: 'laptop-1',
      user: { email: ' Ann@Example.com ' },
      page: { url: 'https://shop.example/account/new', referrer: 'https://shop.example/' },
      device: { user_agent: LAPTOP_UA },
    },
  ],
  [
    140,
    {
      event_name: 'page_view',
      anonymous_id: 'crawler-1',
      page: { url: 'https://shop.example/' },
      device: { user_agent: BOT_UA },
    },
  ],
];

const DAY_TWO: readonly [number, Record<string, unknown>][] = [
  [
    1440,
    {
      event_name: 'page_view',
      anonymous_id: 'phone-1',
      page: { url: 'https://shop.example/shoes/red', referrer: 'https://m.facebook.com/' },
      device: { user_agent: PHONE_UA },
    },
  ],
  [
    1450,
    {
      event_name: 'purchase',
      anonymous_id: 'phone-1',
      user_id: 'u-1',
      user: { email: 'ann@example.com' },
      page: { url: 'https://shop.example/checkout/done', referrer: 'https://shop.example/cart' },
      device: { user_agent: PHONE_UA },
      transaction_id: 'T-1001',
      value: 89.9,
      currency: 'EUR',
    },
  ],
];

describe('scheduler: sessions and identity_map kept by the Model job', function () {
  this.timeout(120_000);
  const settings = testSettings();
  const p = plan(settings);
  // The store function's own enrichment step, as it loads it at cold start.
  const enrich = loadEnricher(settings);
  const config = { ...storeConfig(settings, p), ...(enrich ? { enrich } : {}) };
  const dataset = `\`${settings.project}.${p.dataset}`;
  let dir: string;
  let emu: BigQueryEmulator;
  let storage: Running;
  let bigquery: BigQuery;
  let deps: RunnerDeps;
  let now = new Date(DAY1);
  const published: RunMessage[] = [];
  const summaries: Record<string, unknown>[] = [];
  let n = 0;

  const rows = (sql: string, params?: Record<string, unknown>) => queryRows(bigquery, sql, params);

  /** Stores events as the store function does (enrichment included), each arriving 1 s after it happened. */
  async function store(events: readonly [number, Record<string, unknown>][]): Promise<void> {
    const out = events.map(([minutes, e]) => storedRow(config, ++n, at(minutes), e));
    await bigquery.dataset(p.dataset).table('events').insert(out, { raw: true });
  }

  /** One scheduler minute at `when`: the tick dispatches both models, each runs to the end. */
  async function runModels(when: Date): Promise<Record<string, Record<string, unknown>>> {
    now = when;
    summaries.length = 0;
    const report = await tick(deps);
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.dispatched.map((r) => r.split('@')[0]).sort(), [
      `${MODEL_KIND}/identity_map`,
      `${MODEL_KIND}/sessions`,
    ]);
    while (published.length > 0) {
      const outcome = await runChunk(deps, published.shift() as RunMessage);
      assert.equal(outcome.outcome, 'finished', JSON.stringify(outcome));
    }
    return Object.fromEntries(summaries.map((s) => [s['model'] as string, s]));
  }

  const snapshot = async () => ({
    sessions: await rows(`SELECT * FROM ${dataset}.sessions\` ORDER BY session_start`),
    identity: await rows(`SELECT * FROM ${dataset}.identity_map\` ORDER BY identifier`),
    merges: await rows(`SELECT * FROM ${dataset}.identity_merges\` ORDER BY old_person_id`),
    watermarks: await rows(`SELECT * FROM ${dataset}.model_watermarks\` ORDER BY model`),
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-models-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    storage = await startStorage();
    const [bucket] = await storage.storage.createBucket('models-locks');
    deps = {
      locks: new LockStore(bucket),
      leaseMs: 60_000,
      now: () => now,
      publish: async (runs) => {
        published.push(...runs);
      },
      log: (entry) => {
        if (entry['message'] === 'run finished') summaries.push({ ...entry });
        if (entry['severity'] === 'ERROR') summaries.push({ ...entry });
      },
      jobs: [
        modelJob({
          settings,
          query: async (sql, params, types) =>
            ((await bigquery.query({ query: sql, params, types }))[0] as unknown[]).map(
              (r) => plainValue(r) as Record<string, unknown>,
            ),
        }),
      ],
    };
  });
  after(async () => {
    await emu?.close();
    await storage?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('day one: two visitors, two persons (the laptop with its e-mail), the crawler nowhere', async () => {
    await store(DAY_ONE);
    const s = await runModels(new Date(DAY1 + 4 * 3_600_000));
    assert.equal(s['sessions']?.['written'], 2, JSON.stringify(s));
    const snap = await snapshot();
    assert.deepEqual(
      snap.sessions.map((r) => [r['visitor_id'], r['events'], r['channel'], r['converted']]),
      [
        ['phone-1', 2, 'paid_search', false],
        ['laptop-1', 2, 'direct', true],
      ],
    );
    const persons = new Set(snap.identity.map((r) => r['person_id']));
    assert.equal(persons.size, 2);
    assert.deepEqual(
      snap.identity.map((r) => r['kind']),
      ['anonymous_id', 'anonymous_id', 'email'],
    );
    assert.ok(!snap.identity.some((r) => String(r['identifier']).includes('crawler')));
  });

  it('a run over unchanged data writes 0 rows (the watermarks included)', async () => {
    const before = await snapshot();
    const s = await runModels(new Date(DAY1 + 5 * 3_600_000));
    assert.equal(s['sessions']?.['written'], 0);
    assert.equal(s['sessions']?.['deleted'], 0);
    assert.equal(s['identity_map']?.['written'], 0);
    assert.equal(s['identity_map']?.['merged'], 0);
    assert.deepEqual(await snapshot(), before);
  });

  it('day two: the logged-in purchase merges both devices into one person, recorded old → new', async () => {
    const before = await snapshot();
    await store(DAY_TWO);
    const s = await runModels(new Date(DAY1 + 26 * 3_600_000));
    assert.equal(s['identity_map']?.['merged'], 1, JSON.stringify(s));
    const snap = await snapshot();
    const persons = new Set(snap.identity.map((r) => r['person_id']));
    assert.equal(persons.size, 1, JSON.stringify(snap.identity));
    const person = [...persons][0] as string;
    assert.deepEqual(
      snap.identity.map((r) => r['identifier']),
      ['anonymous_id:laptop-1', 'anonymous_id:phone-1', `email:${sha256('ann@example.com')}`, 'user_id:u-1'],
    );
    // The person id that stopped being one resolves to the current one.
    assert.equal(snap.merges.length, 1);
    const old = snap.merges[0]?.['old_person_id'];
    assert.ok(new Set(before.identity.map((r) => r['person_id'])).has(old));
    assert.equal(snap.merges[0]?.['current_person_id'], person);
    assert.deepEqual(
      await rows(`SELECT person_id FROM ${dataset}.person_ids\` WHERE published_person_id = @old`, { old }),
      [{ person_id: person }],
    );
    assert.deepEqual(
      snap.sessions.map((r) => [r['visitor_id'], r['user_id'], r['events'], r['channel'], r['conversions']]),
      [
        ['phone-1', null, 2, 'paid_search', 0],
        ['laptop-1', null, 2, 'direct', 1],
        ['phone-1', 'u-1', 2, 'social', 1],
      ],
    );
  });

  it('first touch is the phone’s paid search visit; last touch the last non-direct session before each conversion', async () => {
    const first = await rows(
      `SELECT event_name, channel, source, medium, campaign FROM ${dataset}.first_touch\` ORDER BY event_time`,
    );
    assert.deepEqual(first, [
      { event_name: 'sign_up', channel: 'paid_search', source: 'google', medium: 'cpc', campaign: 'autumn' },
      { event_name: 'purchase', channel: 'paid_search', source: 'google', medium: 'cpc', campaign: 'autumn' },
    ]);
    const last = await rows(`SELECT event_name, channel FROM ${dataset}.last_touch\` ORDER BY event_time`);
    assert.deepEqual(last, [
      // The laptop's direct visit does not take the credit from the earlier paid click.
      { event_name: 'sign_up', channel: 'paid_search' },
      { event_name: 'purchase', channel: 'social' },
    ]);
  });

  it('runs the dashboard SQL of docs/sessions.md unchanged', async () => {
    const text = readFileSync(join(REPO_ROOT, 'docs/sessions.md'), 'utf8');
    const queries = [...text.matchAll(/```sql\n([\s\S]*?)```/g)]
      .map((m) => (m[1] as string).trim())
      .filter((q) => !q.includes('@identifier'))
      .map((q) => q.replaceAll('my-project.events.', `${settings.project}.${p.dataset}.`));
    assert.ok(queries.length >= 4, `${queries.length} queries`);
    for (const q of queries) {
      const r = await rows(q.replace(/CURRENT_TIMESTAMP\(\)/g, `TIMESTAMP '${at(2 * 1440)}'`));
      assert.ok(r.length > 0, `no rows from:\n${q}`);
    }
  });

  it('erasing the person removes them from identity_map and sessions, and later runs do not bring them back', async () => {
    const erased = await eraseFromModels(bigquery, p, settings.project, ['user_id:u-1']);
    assert.equal(erased.length, 4, erased.join(', '));
    const snap = await snapshot();
    assert.deepEqual(snap.identity, []);
    assert.deepEqual(snap.sessions, []);
    assert.deepEqual(snap.merges, []);
    await store([
      [1500, { event_name: 'page_view', anonymous_id: 'phone-1', page: { url: 'https://shop.example/' } }],
    ]);
    await runModels(new Date(DAY1 + 27 * 3_600_000));
    const after = await snapshot();
    assert.deepEqual(after.identity, []);
    assert.deepEqual(after.sessions, []);
  });

  it('a chain too long for one run’s label passes is written as far as it got, and the next runs finish it while the watermark waits', async () => {
    // x1 – y1 – x2 – y2 – … : each event links an anonymous id and a user id, each id on two events.
    const chain: [number, Record<string, unknown>][] = [];
    for (let i = 0; i < 120; i++) {
      chain.push([1600, { event_name: 'login', anonymous_id: `x${i}`, user_id: `y${i}` }]);
      chain.push([1601, { event_name: 'login', anonymous_id: `x${i + 1}`, user_id: `y${i}` }]);
    }
    await store(chain);
    const watermark = async () =>
      (await rows(`SELECT watermark FROM ${dataset}.model_watermarks\` WHERE model = 'identity_map'`))[0];
    const before = await watermark();
    const first = await runModels(new Date(DAY1 + 28 * 3_600_000));
    assert.ok(Number(first['identity_map']?.['unsettled']) > 0, JSON.stringify(first));
    assert.deepEqual(await watermark(), before, 'the watermark waits for the tangle to settle');
    let runs = 1;
    for (let hour = 29; runs < 10; hour++, runs++) {
      const s = await runModels(new Date(DAY1 + hour * 3_600_000));
      if (Number(s['identity_map']?.['unsettled']) === 0) break;
    }
    assert.ok(runs < 10, 'settled within 10 runs');
    assert.notDeepEqual(await watermark(), before);
    const persons = await rows(
      `SELECT COUNT(DISTINCT person_id) AS n, COUNT(*) AS ids FROM ${dataset}.identity_map\` WHERE identifier LIKE 'anonymous_id:x%' OR identifier LIKE 'user_id:y%'`,
    );
    assert.deepEqual(persons, [{ n: 1, ids: 241 }]);
    // Every person id the earlier runs wrote resolves to the one person.
    const resolved = await rows(
      `SELECT DISTINCT p.person_id FROM ${dataset}.identity_merges\` AS m JOIN ${dataset}.person_ids\` AS p ON p.published_person_id = m.old_person_id WHERE m.merged_at IS NOT NULL`,
    );
    assert.equal(resolved.length, 1);
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
