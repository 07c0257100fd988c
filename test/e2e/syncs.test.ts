/**
 * Syncs (reverse ETL) end to end on the local environment: a model over the warehouse (customers'
 * lifetime value from the typed `purchase` view) synced to a signed webhook (the local receiver),
 * to JSONL files in the Cloud Storage emulator, and to a topic (rows come back as stored events).
 * The diff is computed in BigQuery: a second run after a change sends only the changed row (and,
 * in mirror mode, the removal); a third run with nothing changed sends nothing. Runs are started
 * with `eventbus sync run`, as a user would, and read back with `eventbus sync runs`.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { Storage } from '@google-cloud/storage';
import { eventbusIn, localSettingsWith, publishEvent, startLocalCli } from '../support/local-start.ts';
import { until } from '../support/until.ts';

const EXTRA = `
connections:
  - id: crm-sync
    type: webhook
    url: http://127.0.0.1:8099/sync/crm
    secrets: { signing_key: WEBHOOK_SIGNING_KEY }
  - id: exports
    type: storage
    bucket: local-project-exports
  - id: meta-ads
    type: meta_audience
    url: http://127.0.0.1:8099/meta-audience
    secrets: { access_token: META_ACCESS_TOKEN }
`;

describe('end to end: syncs from warehouse SQL to a webhook, files and a topic', function () {
  // Nine sync runs one after another, each bounded below; the bounds are for a run that hangs,
  // not a slow one (beside the whole suite on a slow 2-core machine a first run took over 60 s).
  this.timeout(900_000);
  let child: ChildProcess;
  let dataDir = '';
  let settingsFile = '';
  const ports: Record<string, number> = {};
  let bigquery: BigQuery;
  let storage: Storage;
  const run = `s${Date.now().toString(36)}`;

  before(async () => {
    const local = await startLocalCli({
      prefix: 'eventbus-syncs-',
      settings: localSettingsWith('syncs.yaml', EXTRA),
      env: { EVENTBUS_TICK_SECONDS: '0' },
    });
    settingsFile = join(local.dataDir, 'syncs.yaml');
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    bigquery = new BigQuery({
      projectId: 'local-project',
      apiEndpoint: `http://127.0.0.1:${ports['bigquery']}`,
    });
    storage = new Storage({
      projectId: 'local-project',
      apiEndpoint: `http://127.0.0.1:${ports['storage']}`,
    });
    await storage.createBucket('local-project-exports');
  });

  after(async () => {
    if (child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const query = async <T>(sql: string): Promise<T[]> => (await bigquery.query({ query: sql }))[0] as T[];
  const eventbus = (...argv: string[]) => eventbusIn(dataDir)(...argv);
  const purchase = (n: number, user: string, value: number) =>
    publishEvent({ dataDir, ports }, 'purchase', {
      event_id: `${run}-${n}`,
      transaction_id: `T${n}`,
      value,
      currency: 'EUR',
      user_id: `${user}-${run}`,
    });
  const storedPurchases = (n: number) =>
    until(
      `${n} purchases stored`,
      async () => {
        const [r] = await query<{ n: number }>(
          `SELECT COUNT(*) AS n FROM events.events_dedup WHERE event_name = 'purchase' AND ENDS_WITH(user_id, '${run}')`,
        );
        return Number(r?.n) === n ? true : undefined;
      },
      30000,
    );
  type RunRow = {
    run_id: string;
    status: string;
    rows_planned: number;
    rows_sent: number;
    rows_removed: number;
  };
  const runsOf = async (name: string) =>
    JSON.parse(await eventbus('sync', 'runs', name, '--env', settingsFile, '--format', 'json')) as RunRow[];
  const runAndWait = async (name: string, count: number): Promise<RunRow> => {
    assert.match(
      await eventbus('sync', 'run', name, '--env', settingsFile),
      new RegExp(`^started Sync/${name}@`),
    );
    const runs = await until(
      `run ${count} of ${name}`,
      async () => {
        const r = await runsOf(name);
        return r.length >= count ? r : undefined;
      },
      150_000,
    );
    return runs[0] as RunRow;
  };
  const model = `SELECT user_id, SUM(value) AS ltv, COUNT(*) AS orders FROM events.purchase
WHERE ENDS_WITH(user_id, '${run}') GROUP BY user_id HAVING SUM(value) < 1000`;
  const received = async () => {
    const r = (await (await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`)).json()) as {
      received: {
        destination: string;
        verified: boolean | null;
        body: {
          run_id: string;
          page: number;
          rows: { op: string; key: { user_id: string }; data?: { ltv: number } }[];
        };
      }[];
    };
    return r.received.filter((x) => x.destination === 'crm-sync').reverse();
  };

  it('sends every row on the first run, only what changed on the second, nothing on the third', async () => {
    await purchase(1, 'ana', 100);
    await purchase(2, 'ana', 50);
    await purchase(3, 'ben', 200);
    await purchase(4, 'cy', 300);
    await purchase(5, 'dee', 400);
    await storedPurchases(5);
    const spec = (destination: unknown, mode: string) => ({
      model,
      primary_key: ['user_id'],
      mode,
      schedule: { manual: true },
      destination,
      batch_size: 2,
    });
    const docs = [
      { kind: 'Sync', name: 'ltv-crm', spec: spec({ webhook: { connection: 'crm-sync' } }, 'mirror') },
      {
        kind: 'Sync',
        name: 'ltv-files',
        spec: spec({ files: { connection: 'exports', format: 'jsonl' } }, 'upsert'),
      },
      {
        kind: 'Sync',
        name: 'ltv-events',
        spec: spec({ topic: { event_name: 'customer_ltv_changed' } }, 'upsert'),
      },
    ];
    const file = join(dataDir, 'syncs-resources.yaml');
    writeFileSync(file, docs.map((d) => JSON.stringify(d)).join('\n---\n'));
    assert.match(await eventbus('apply', '-f', file), /Sync\/ltv-crm created 1\.0/);

    // First runs: four customers each.
    for (const name of ['ltv-crm', 'ltv-files', 'ltv-events']) {
      const r = await runAndWait(name, 1);
      assert.deepEqual(
        [r.status, Number(r.rows_planned), Number(r.rows_sent), Number(r.rows_removed)],
        ['succeeded', 4, 4, 0],
        name,
      );
    }
    const pages = await received();
    assert.deepEqual(
      pages.map((p) => [p.body.page, p.body.rows.length, p.verified]),
      [
        [1, 2, true],
        [2, 2, true],
      ],
    );
    assert.deepEqual(
      pages
        .flatMap((p) => p.body.rows.map((r) => `${r.op} ${r.key.user_id.split('-')[0]} ${r.data?.ltv}`))
        .sort(),
      ['upsert ana 150', 'upsert ben 200', 'upsert cy 300', 'upsert dee 400'],
    );
    const [files] = await storage.bucket('local-project-exports').getFiles({ prefix: 'syncs/ltv-files/' });
    const names = files.map((f) => f.name.split('/').pop()).sort();
    assert.deepEqual(names, ['_SUCCESS', 'part-00001.jsonl', 'part-00002.jsonl']);
    const lines = (
      await Promise.all(
        files.filter((f) => f.name.endsWith('.jsonl')).map(async (f) => (await f.download())[0].toString()),
      )
    )
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { _op: string; user_id: string; ltv: number });
    assert.deepEqual(lines.map((l) => `${l._op} ${l.user_id.split('-')[0]} ${l.ltv}`).sort(), [
      'upsert ana 150',
      'upsert ben 200',
      'upsert cy 300',
      'upsert dee 400',
    ]);
    const events = await until('the synced rows back as events', async () => {
      const r = await query<{ user_id: string; ltv: number }>(
        `SELECT user_id, CAST(JSON_VALUE(event_data, '$.ltv') AS FLOAT64) AS ltv FROM events.events_dedup
         WHERE event_name = 'customer_ltv_changed' AND ENDS_WITH(user_id, '${run}') ORDER BY user_id`,
      );
      return r.length >= 4 ? r : undefined;
    });
    assert.deepEqual(
      events.map((e) => Number(e.ltv)),
      [150, 200, 300, 400],
    );

    // Ana buys big (her LTV leaves the model: a removal in mirror mode); Ben buys a little.
    await purchase(6, 'ana', 2000);
    await purchase(7, 'ben', 25);
    await storedPurchases(7);
    const second = await runAndWait('ltv-crm', 2);
    assert.deepEqual(
      [Number(second.rows_planned), Number(second.rows_sent), Number(second.rows_removed)],
      [2, 1, 1],
    );
    const last = (await received()).at(-1);
    assert.deepEqual(
      last?.body.rows.map((r) => `${r.op} ${r.key.user_id.split('-')[0]} ${r.data?.ltv ?? ''}`),
      ['delete ana ', 'upsert ben 225'],
    );
    const files2 = await runAndWait('ltv-files', 2);
    assert.deepEqual(
      [Number(files2.rows_sent), Number(files2.rows_removed)],
      [1, 0],
      'upsert mode sends no removals',
    );

    // Nothing changed since: the run sends nothing.
    const third = await runAndWait('ltv-crm', 3);
    assert.deepEqual([third.status, Number(third.rows_planned)], ['nothing_to_send', 0]);
    assert.equal((await received()).length, 3, 'no request for an unchanged model');
  });

  it('mirrors a Meta custom audience, keeps failed rows for the next run, reads incrementally with a cursor, and dry-runs', async () => {
    const tag = `${run}m`;
    const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    const buy = async (n: number, user: string, value: number, email?: string) => {
      const res = await fetch(`http://127.0.0.1:${ports['gateway']}/v1/topics/purchase`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          event_id: `${tag}-${n}`,
          transaction_id: `M${n}`,
          value,
          currency: 'EUR',
          user_id: `${user}-${tag}`,
          ...(email ? { user: { email } } : {}),
        }),
      });
      assert.equal(res.status, 200, await res.clone().text());
    };
    const stored = (n: number) =>
      until(
        `${n} purchases of ${tag} stored`,
        async () => {
          const [r] = await query<{ n: number }>(
            `SELECT COUNT(*) AS n FROM events.events_dedup WHERE ENDS_WITH(user_id, '${tag}')`,
          );
          return Number(r?.n) === n ? true : undefined;
        },
        30000,
      );
    await buy(1, 'fay', 100, 'Fay@Example.com');
    await buy(2, 'gus', 200, 'gus@example.com');
    await buy(3, 'hal', 300); // no e-mail: Meta cannot match this customer
    await stored(3);
    const docs = [
      {
        kind: 'Sync',
        name: 'vip-audience',
        spec: {
          model: `SELECT user_id, ANY_VALUE(user.email) AS email, SUM(CAST(JSON_VALUE(event_data, '$.value') AS FLOAT64)) AS ltv
FROM events.events_dedup WHERE event_name = 'purchase' AND ENDS_WITH(user_id, '${tag}') GROUP BY user_id HAVING ltv < 1000`,
          primary_key: ['user_id'],
          mode: 'mirror',
          schedule: { manual: true },
          destination: { meta_audience: { connection: 'meta-ads', audience_id: '23850000000001' } },
        },
      },
      {
        kind: 'Sync',
        name: 'new-orders',
        spec: {
          model: `SELECT event_id, user_id, received_at FROM events.events_dedup WHERE event_name = 'purchase' AND ENDS_WITH(user_id, '${tag}')`,
          primary_key: ['event_id'],
          cursor: 'received_at',
          mode: 'insert',
          schedule: { manual: true },
          destination: { files: { connection: 'exports', format: 'csv' } },
        },
      },
    ];
    const file = join(dataDir, 'syncs-more.yaml');
    writeFileSync(file, docs.map((d) => JSON.stringify(d)).join('\n---\n'));
    await eventbus('apply', '-f', file);

    // The dry run: the counts and the exact requests, hashed, nothing sent, no table written.
    const dry = await eventbus(
      'sync',
      'run',
      'vip-audience',
      '--env',
      settingsFile,
      '--dry-run',
      '--rows',
      '5',
    );
    assert.match(dry, /would send 3 row\(s\): 3 upsert\(s\), 0 deletion\(s\)/);
    assert.match(
      dry,
      /POST http:\/\/127\.0\.0\.1:\d+\/meta-audience\/v25\.0\/23850000000001\/users\?access_token=REDACTED/,
    );
    assert.ok(dry.includes(createHash('sha256').update('fay@example.com').digest('hex')), dry);
    assert.match(dry, /not sent \{"user_id":"hal-[^"]+"\}: no identifier Meta can match/);
    const audienceRequests = async () => {
      const r = (await (await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`)).json()) as {
        received: {
          destination: string;
          path: string;
          status: number;
          body: { payload: { schema: string[]; data: string[][] } };
        }[];
      };
      return r.received.filter((x) => x.destination === 'meta-ads').reverse();
    };
    assert.equal((await audienceRequests()).length, 0, 'the dry run sent nothing');

    // First run, followed with --wait: two users added, Hal failed with the reason, kept for next time.
    const first = await eventbus('sync', 'run', 'vip-audience', '--env', settingsFile, '--wait');
    assert.match(first, /partial/);
    const added = await audienceRequests();
    assert.deepEqual(
      added.map((r) => [r.status, r.body.payload.schema, r.body.payload.data.length]),
      [[200, ['EMAIL'], 2]],
    );
    const failedRows = await query<{ key: string; reason: string }>(
      `SELECT key, reason FROM eventbus_ops.sync_failed_rows WHERE sync = 'vip-audience'`,
    );
    assert.deepEqual(
      failedRows.map((f) => JSON.parse(f.key).user_id.split('-')[0]),
      ['hal'],
    );
    // Gus leaves the model (his LTV passes 1000): removed with DELETE, by the e-mail he was added with.
    await buy(4, 'gus', 900);
    await stored(4);
    await eventbus('sync', 'run', 'vip-audience', '--env', settingsFile, '--wait');
    const [second] = await runsOf('vip-audience');
    assert.deepEqual(
      [second?.status, Number(second?.rows_planned), Number(second?.rows_sent), Number(second?.rows_removed)],
      ['partial', 2, 0, 1],
      'Hal again (still failing), Gus removed',
    );
    const removal = (await audienceRequests()).at(-1);
    assert.deepEqual(removal?.body.payload, {
      schema: ['EMAIL'],
      data: [[createHash('sha256').update('gus@example.com').digest('hex')]],
    });
    assert.ok(
      (await audienceRequests()).every((r) => r.status === 200),
      'the stand-in took every request',
    );

    // The cursor: the first run reads everything, the next only what arrived since.
    const c1 = await eventbus('sync', 'run', 'new-orders', '--env', settingsFile, '--wait');
    assert.match(c1, /succeeded/);
    await buy(5, 'ivy', 50, 'ivy@example.com');
    await stored(5);
    await eventbus('sync', 'run', 'new-orders', '--env', settingsFile, '--wait');
    const cursorRuns = await query<{
      rows_planned: number;
      cursor_from: string | null;
      cursor_to: string | null;
    }>(
      `SELECT rows_planned, cursor_from, cursor_to FROM eventbus_ops.sync_runs WHERE sync = 'new-orders' ORDER BY finished_at`,
    );
    assert.deepEqual(
      cursorRuns.map((r) => Number(r.rows_planned)),
      [4, 1],
    );
    assert.equal(cursorRuns[0]?.cursor_from, null);
    assert.equal(
      cursorRuns[1]?.cursor_from,
      cursorRuns[0]?.cursor_to,
      'the second run starts where the first ended',
    );

    const list = JSON.parse(await eventbus('sync', 'list', '--env', settingsFile, '--format', 'json')) as {
      name: string;
      mode: string;
      destination: string;
      last_status: string;
    }[];
    const vip = list.find((l) => l.name === 'vip-audience');
    assert.deepEqual(
      [vip?.mode, vip?.destination, vip?.last_status],
      ['mirror', 'meta_audience:23850000000001', 'partial'],
    );
  });
});
