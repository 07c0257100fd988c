/**
 * What syncs keep in the ops dataset (issue #61, Medium 3; docs/syncs.md, "What a sync keeps"):
 * the Sync job runs chunk by chunk against the BigQuery emulator (the plan's SQL for real) and
 * sends to the Customer Match and Meta stand-ins and a loopback webhook. After each run no row of
 * `sync_state__`, `sync_snap__` or `sync_changes__` holds a person's e-mail or phone, in any
 * spelling: audiences keep the identifiers they were sent (hashed), a webhook only its key. The
 * diff still sends only what changed, a member leaving the model is removed by the hashes that
 * added it, and a state an earlier version wrote (key and row as JSON) is converted by the next
 * run without sending anything again.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { createHttpSender } from '../../adapters/http-sender.ts';
import type { Snapshot } from '../../adapters/registry.ts';
import { plainValue } from '../../adapters/user-sql.ts';
import { plan } from '../../core/plan.ts';
import { customerMatchIdentifiers } from '../../core/platforms/google-ads/audience.ts';
import { dryRunQueries, syncTables } from '../../core/syncs/sync-sql.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import type { ChunkContext } from '../../functions/schedule/runner.ts';
import type { SyncJobDeps } from '../../functions/schedule/sync-runtime.ts';
import { syncJob } from '../../functions/schedule/syncs.ts';
import {
  type GoogleAdsReceiver,
  type PlatformReceiver,
  standInCredentials,
  startGoogleAdsReceiver,
  startMetaReceiver,
} from '../../local/platforms/index.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { testSettings } from '../storage/support.ts';
import { loopbackTokens } from '../support/loopback-tokens.ts';

const PEOPLE = [
  { user_id: 'u1', email: 'Ana.Vip@Example.com', phone: '+49 151 23456701', ltv: 300 },
  { user_id: 'u2', email: 'bo.vip@example.com', phone: '0151 23456702', ltv: 200 },
  { user_id: 'u3', email: 'cy@example.com', phone: '+49 151 23456703', ltv: 50 },
];

/** Every spelling of each person's e-mail and phone a table could hold. */
const RAW = PEOPLE.flatMap((p) => [
  p.email,
  p.email.toLowerCase(),
  p.phone,
  p.phone.replace(/\D/g, ''),
  `49${p.phone.replace(/\D/g, '').replace(/^(49|0)/, '')}`,
]);

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const VIPS = 'SELECT user_id, email, phone, ltv FROM people WHERE ltv >= 100';

describe('syncs keep no raw e-mail or phone in the ops dataset (Sync job on the BigQuery emulator)', function () {
  this.timeout(120_000);
  const settings = testSettings();
  const p = plan(settings);
  const ops = p.ops.dataset;
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let ads: GoogleAdsReceiver;
  let meta: PlatformReceiver;
  let webhook: Server;
  const hooked: { rows: { op: string; key: Record<string, unknown>; data?: Record<string, unknown> }[] }[] =
    [];
  const runs: Record<string, unknown>[] = [];
  const syncs = new Map<string, { name: string; version: string; spec: SyncSpec }>();
  let deps: SyncJobDeps;
  let slot = 0;
  /** What audience syncs published on the events topic. */
  const published: Record<string, unknown>[] = [];

  const sync = (name: string, model: string, key: string[], destination: SyncSpec['destination']) =>
    syncs.set(name, {
      name,
      version: '1',
      spec: { model, primary_key: key, mode: 'mirror', schedule: { manual: true }, destination } as SyncSpec,
    });

  const query = async (sql: string) => {
    const [rows] = await bigquery.query({ query: sql, defaultDataset: { datasetId: p.dataset } });
    return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
  };

  /** Runs a sync to its end, chunk by chunk as the runner would; its `sync_runs` row. */
  async function runSync(name: string): Promise<Record<string, unknown>> {
    const job = syncJob(deps);
    const run = {
      kind: 'Sync',
      name,
      slot: `2026-11-25T10:${String(++slot).padStart(2, '0')}:00.000Z`,
      trigger: 'manual' as const,
    };
    let cursor: unknown = null;
    for (let chunk = 0; chunk < 50; chunk++) {
      const ctx: ChunkContext = {
        run,
        runId: `Sync/${name}@${run.slot}`,
        cursor,
        chunk,
        now: new Date(),
        fence: async () => {},
      };
      const result = await job.chunk(ctx);
      if (result.done) return runs.at(-1) ?? {};
      cursor = result.cursor;
    }
    throw new Error(`${name} did not finish`);
  }

  /** The JSON of every row of a sync's state, snapshot and changes tables. */
  async function keptRows(name: string): Promise<string[]> {
    const t = syncTables(`${settings.project}.${ops}`, name);
    const out: string[] = [];
    for (const table of [t.state, t.snapshot, t.changes])
      for (const r of await query(`SELECT TO_JSON_STRING(t) AS j FROM \`${table}\` t`))
        out.push(String(r['j']));
    return out;
  }

  /** The raw e-mails and phones found in a sync's tables (none expected). */
  async function rawFound(name: string): Promise<string[]> {
    const rows = (await keptRows(name)).join('\n').toLowerCase();
    return RAW.filter((v) => rows.includes(v.toLowerCase()));
  }

  const members = (p: (typeof PEOPLE)[number]) =>
    customerMatchIdentifiers({ email: p.email, phone: p.phone, country: 'DE' }).map((id) =>
      JSON.stringify(id),
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-sync-privacy-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    ads = await startGoogleAdsReceiver();
    meta = await startMetaReceiver();
    webhook = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        hooked.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const port = (webhook.address() as AddressInfo).port;
    await query(
      'CREATE TABLE people (user_id STRING, email STRING, phone STRING, country STRING, ltv INT64)',
    );
    await query(
      `INSERT INTO people (user_id, email, phone, country, ltv) VALUES ${PEOPLE.map(
        (x) => `('${x.user_id}', '${x.email}', '${x.phone}', 'DE', ${x.ltv})`,
      ).join(', ')}`,
    );
    const connections: Settings['connections'] = [
      { id: 'crm', type: 'webhook', url: `http://127.0.0.1:${port}/sync` },
      { id: 'ads', type: 'google_ads_audience', url: ads.url, secrets: { credentials: 'ADS_CREDS' } },
      { id: 'meta', type: 'meta_audience', url: meta.url, secrets: { access_token: 'META_TOKEN' } },
    ];
    const audience = (list: string) => ({
      google_ads_audience: {
        connection: 'ads',
        operating_account_id: '123-456-7890',
        user_list_id: list,
        terms_of_service: 'accepted' as const,
      },
    });
    sync(
      'cm-vip',
      'SELECT user_id, email, phone, country FROM people WHERE ltv >= 100',
      ['user_id'],
      audience('5550001'),
    );
    // Keyed by the e-mail itself: the key is personal data too.
    sync('meta-vip', 'SELECT email, phone, country FROM people WHERE ltv >= 100', ['email'], {
      meta_audience: { connection: 'meta', audience_id: '4242' },
    });
    sync('crm-all', 'SELECT user_id, email, phone, ltv FROM people', ['user_id'], {
      webhook: { connection: 'crm' },
    });
    sync(
      'cm-old',
      'SELECT user_id, email, phone, country FROM people WHERE ltv >= 100',
      ['user_id'],
      audience('5550002'),
    );
    sync('crm-old', VIPS, ['user_id'], { webhook: { connection: 'crm' } });
    // An audience (Engage's events) whose members carry their consent.
    await query('CREATE TABLE members (user_id STRING, email STRING, consent STRING)');
    await query(
      `INSERT INTO members (user_id, email, consent) VALUES ('u1', '${PEOPLE[0]!.email}', '{"analytics":"granted","ads":"granted"}'), ('u2', '${PEOPLE[1]!.email}', '{"analytics":"granted"}')`,
    );
    sync('aud-vip', 'SELECT user_id, email, consent FROM members', ['user_id'], {
      audience: { key: 'vip', call: 'track', destinations: ['braze'] },
    });
    deps = {
      settings: { ...settings, connections },
      ops,
      syncs: async () => ({ resources: syncs }) as unknown as Snapshot,
      secret: async (name) =>
        name === 'ADS_CREDS' ? standInCredentials(ads.url) : name === 'META_TOKEN' ? 'token' : undefined,
      send: createHttpSender(),
      accessToken: loopbackTokens(),
      assertSelect: async () => {},
      run: query,
      page: async (table, startIndex, maxResults) => {
        const [rows] = await bigquery
          .dataset(ops)
          .table(table)
          .getRows({ startIndex: String(startIndex), maxResults, autoPaginate: false });
        return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
      },
      writeFile: async () => 'created',
      publish: async (_topic, body) => {
        published.push(body as Record<string, unknown>);
        return undefined;
      },
      writeRun: async (row) => {
        runs.push(row);
      },
      writeFailedRows: async (rows) => {
        assert.fail(`no row should fail: ${JSON.stringify(rows.map((r) => r.row))}`);
      },
    };
  });
  after(async () => {
    await new Promise((resolve) => webhook?.close(resolve));
    await ads?.close();
    await meta?.close();
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps no raw e-mail or phone in sync_state, sync_snap or sync_changes after a run (Medium 3)', async () => {
    for (const name of ['cm-vip', 'meta-vip', 'crm-all']) {
      const row = await runSync(name);
      assert.equal(row['status'], 'succeeded', name);
      assert.deepEqual(await rawFound(name), [], `${name} keeps raw personal data`);
    }
    // What was sent: hashes to the audiences, the rows as they are to the webhook (by design).
    assert.deepEqual(ads.members('5550001'), [...members(PEOPLE[0]!), ...members(PEOPLE[1]!)].sort());
    const posted = meta.received.filter((r) => r.method === 'POST');
    assert.equal(posted.length, 1);
    assert.equal(JSON.stringify(posted[0]?.body).includes('@'), false);
    assert.deepEqual(
      hooked
        .at(-1)
        ?.rows.map((r) => r.data?.['email'])
        .sort(),
      PEOPLE.map((x) => x.email).sort(),
    );
    // The state keeps the key's digest, the row's digest and only what a deletion needs.
    const [cm] = await query(`SELECT __key, __hash, __row FROM ${syncTables(ops, 'cm-vip').state} LIMIT 1`);
    assert.match(String(cm?.['__key']), /^[0-9a-f]{64}$/);
    assert.match(String(cm?.['__hash']), /^[0-9a-f]{64}$/);
    assert.match(String(cm?.['__row']), /^\[\{"(emailAddress|phoneNumber)":"[0-9a-f]{64}"\}/);
    const crm = await query(`SELECT __row FROM ${syncTables(ops, 'crm-all').state} ORDER BY __row`);
    assert.deepEqual(
      crm.map((r) => r['__row']),
      ['{"user_id":"u1"}', '{"user_id":"u2"}', '{"user_id":"u3"}'],
    );
  });

  it('still sends only what changed, and removes a member by the hashes it was added with', async () => {
    for (const name of ['cm-vip', 'meta-vip', 'crm-all'])
      assert.equal((await runSync(name))['status'], 'nothing_to_send', name);
    // u1's value changes (only the webhook's model sees it); u2 leaves the audiences.
    await query("UPDATE people SET ltv = 310 WHERE user_id = 'u1'");
    await query("UPDATE people SET ltv = 20 WHERE user_id = 'u2'");
    const hooks = hooked.length;
    const crm = await runSync('crm-all');
    assert.deepEqual([crm['rows_sent'], crm['rows_removed']], [2, 0]);
    assert.deepEqual(
      hooked
        .slice(hooks)
        .flatMap((h) => h.rows.map((r) => [r.op, r.key['user_id'], r.data?.['ltv']]))
        .sort((x, y) => String(x[1]).localeCompare(String(y[1]))),
      [
        ['upsert', 'u1', 310],
        ['upsert', 'u2', 20],
      ],
    );
    const cm = await runSync('cm-vip');
    assert.deepEqual([cm['rows_sent'], cm['rows_removed']], [0, 1]);
    assert.deepEqual(ads.members('5550001'), members(PEOPLE[0]!).sort());
    const metaRun = await runSync('meta-vip');
    assert.deepEqual([metaRun['rows_sent'], metaRun['rows_removed']], [0, 1]);
    const added = meta.received.find((r) => r.method === 'POST')?.body as {
      payload: { schema: string[]; data: string[][] };
    };
    const removed = meta.received.find((r) => r.method === 'DELETE')?.body as typeof added;
    const bo = added.payload.data.find((row) => row.includes(sha('bo.vip@example.com')));
    const asSent = (schema: string[], row: string[] | undefined) =>
      Object.fromEntries(schema.map((k, i) => [k, row?.[i] ?? '']).filter(([, v]) => v !== ''));
    assert.deepEqual(
      asSent(removed.payload.schema, removed.payload.data[0]),
      asSent(added.payload.schema, bo),
    );
    assert.deepEqual(
      meta.received.flatMap((r) => r.problems),
      [],
    );
    for (const name of ['cm-vip', 'meta-vip', 'crm-all']) assert.deepEqual(await rawFound(name), [], name);
  });

  it('converts a state an earlier version wrote (key and row as JSON) without sending anything again', async () => {
    await query("UPDATE people SET ltv = 200 WHERE user_id = 'u2'");
    // What the earlier version left after a run: the key's and the row's JSON, raw.
    for (const [name, model] of [
      ['cm-old', 'SELECT user_id, email, phone, country FROM people WHERE ltv >= 100'],
      ['crm-old', VIPS],
    ] as const)
      await query(
        `CREATE TABLE ${syncTables(ops, name).state} AS SELECT TO_JSON_STRING(STRUCT(m.user_id)) AS __key, TO_HEX(SHA256(TO_JSON_STRING(m))) AS __hash, TO_JSON_STRING(m) AS __row, CURRENT_TIMESTAMP() AS synced_at FROM (${model}) m`,
      );
    const before = await query(`SELECT TO_JSON_STRING(t) AS j FROM ${syncTables(ops, 'cm-old').state} t`);
    assert.ok(
      before.some((r) => String(r['j']).includes(PEOPLE[0]!.email)),
      'the earlier state is raw',
    );
    // The dry run reads the earlier state as a run converts it: nothing to send.
    for (const name of ['cm-old', 'crm-old']) {
      const spec = syncs.get(name)?.spec as SyncSpec;
      const [counts] = await query(dryRunQueries(spec, ops, name, { state: true, cursor: false }, 3).counts);
      assert.deepEqual([Number(counts?.['planned']), Number(counts?.['removals'])], [0, 0], name);
    }
    const [adsBefore, hooksBefore] = [ads.received.length, hooked.length];
    const crm = await runSync('crm-old');
    assert.equal(crm['status'], 'nothing_to_send');
    const cm = await runSync('cm-old');
    // Two restates: the identifiers of the rows the earlier state kept whole, computed and kept.
    assert.deepEqual(
      [cm['status'], cm['rows_planned'], cm['rows_sent'], cm['rows_removed']],
      ['succeeded', 2, 0, 0],
    );
    assert.equal(hooked.length, hooksBefore, 'the webhook got nothing again');
    assert.equal(ads.received.length, adsBefore, 'Customer Match got nothing again');
    for (const name of ['cm-old', 'crm-old']) assert.deepEqual(await rawFound(name), [], name);
    // The converted state still removes by the right hashes, and deletes by the right key.
    await query("UPDATE people SET ltv = 0 WHERE user_id = 'u1'");
    assert.equal((await runSync('cm-old'))['rows_removed'], 1);
    const removal = ads.received.at(-1);
    assert.equal(removal?.path, '/v1/audienceMembers:remove');
    const removed = removal?.body as { audienceMembers: { userData: { userIdentifiers: unknown[] } }[] };
    assert.deepEqual(
      removed.audienceMembers.map((m) => m.userData.userIdentifiers.map((id) => JSON.stringify(id))),
      [members(PEOPLE[0]!)],
    );
    assert.equal((await runSync('crm-old'))['rows_removed'], 1);
    assert.deepEqual(hooked.at(-1)?.rows, [{ op: 'delete', key: { user_id: 'u1' } }]);
  });

  it('an audience member whose consent withdraws a purpose: its exit with the entry consent, then its entry', async () => {
    await runSync('aud-vip');
    assert.deepEqual(
      published.map((b) => `${b['event_name']} ${b['user_id']}`),
      ['audience_entered u1', 'audience_entered u2'],
    );
    published.length = 0;
    // u1 withdraws ads; u2 grants ads (nothing withdrawn).
    await query(`UPDATE members SET consent = '{"analytics":"granted","ads":"denied"}' WHERE user_id = 'u1'`);
    await query(
      `UPDATE members SET consent = '{"analytics":"granted","ads":"granted"}' WHERE user_id = 'u2'`,
    );
    await runSync('aud-vip');
    assert.deepEqual(
      published.map((b) => `${b['event_name']} ${b['user_id']}`),
      ['audience_exited u1', 'audience_entered u1', 'audience_entered u2'],
    );
    assert.deepEqual(published[0]?.['audience_entry_consent'], { analytics: 'granted', ads: 'granted' });
    assert.deepEqual(published[0]?.['consent'], { analytics: 'granted', ads: 'denied' });
    assert.equal(published[1]?.['audience_entry_consent'], undefined);
    // The state now keeps the new consent: the same row again sends nothing.
    published.length = 0;
    assert.equal((await runSync('aud-vip'))['status'], 'nothing_to_send');
    assert.deepEqual(published, []);
    assert.deepEqual(await rawFound('aud-vip'), []);
  });
});
