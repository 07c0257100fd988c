/**
 * The warehouse's SQL on the BigQuery emulator: every view of the plan runs, and each
 * dashboard query of docs/storage.md runs unchanged and gives the expected answer.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { runQuery, selectOnly } from '../../cli/commands/sql.ts';
import { sliceQuery, storedEventFromRow } from '../../core/delivery/replay.ts';
import { plan } from '../../core/plan.ts';
import { messageRows, storeConfig } from '../../core/store/store.ts';
import type { InsertRow } from '../../core/warehouse/rows.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import { testSettings } from './support.ts';

/** The ```sql blocks of docs/storage.md, in order. */
function docQueries(): string[] {
  // The "Dashboard queries" section's (the reconciliation's runs in reconciliation.test.ts).
  const all = readFileSync(join(REPO_ROOT, 'docs/storage.md'), 'utf8');
  const from = all.indexOf('\n## Dashboard queries');
  const text = all.slice(from, all.indexOf('\n## ', from + 1));
  return [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());
}

/** The queries of README.md's ```sql blocks (several per block, each ending with `;`), in order. */
function readmeQueries(): string[] {
  const text = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  return [...text.matchAll(/```sql\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] as string)
      .split(/;\s*(?:\n|$)/)
      .map((q) => q.trim())
      .filter((q) => q !== ''),
  );
}

describe('storage: warehouse SQL on the BigQuery emulator', function () {
  this.timeout(30_000);
  const settings = testSettings();
  const p = plan(settings);
  const config = storeConfig(settings, p);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;

  const now = Date.now();
  const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();
  let n = 0;
  const eventRow = (event: Record<string, unknown>): InsertRow => {
    n++;
    const out = messageRows(
      {
        messageId: `m${n}`,
        publishTime: ago(1),
        attributes: {},
        data: Buffer.from(JSON.stringify(event)),
        subscription: 'events-store',
        deliveryAttempt: 1,
      },
      config,
      now,
    );
    if (out.kind === 'suppressed') throw new Error('suppressed without a list');
    return out.row;
  };

  /** The per-hour query's rows as [hour (ISO), event_name, events]. */
  const perHourRows = (rows: Record<string, unknown>[] | undefined) =>
    (rows ?? []).map((r) => {
      const hour = r['hour'] as { value?: string } | string;
      return [
        new Date(typeof hour === 'string' ? hour : String(hour.value)).toISOString(),
        r['event_name'],
        Number(r['events']),
      ];
    });
  /**
   * BigQuery's answer to it, worked out from the fixture: the distinct events (v1's copy folded)
   * by the hour their time falls in, then by name, in that order.
   */
  const perHourExpected = () => {
    const fixture: [string, number][] = [
      ['view_content', 30],
      ['view_content', 20],
      ['view_content', 10],
      ['purchase', 5],
      ['page_view', 50],
    ];
    const counts = new Map<string, number>();
    for (const [name, minutes] of fixture) {
      const hour = new Date(Math.floor((now - minutes * 60_000) / 3_600_000) * 3_600_000).toISOString();
      counts.set(`${hour} ${name}`, (counts.get(`${hour} ${name}`) ?? 0) + 1);
    }
    return [...counts.entries()]
      .map(([key, events]) => [...(key.split(' ') as [string, string]), events])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])));
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-wh-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const events = [
      {
        event_name: 'view_content',
        event_id: 'v1',
        event_time: ago(30),
        user_id: 'u1',
        anonymous_id: 'a1',
        content_name: 'Shoe',
        content_type: 'product',
      },
      {
        event_name: 'view_content',
        event_id: 'v2',
        event_time: ago(20),
        anonymous_id: 'a2',
        content_name: 'Shoe',
        content_type: 'product',
      },
      {
        event_name: 'view_content',
        event_id: 'v3',
        event_time: ago(10),
        user_id: 'u3',
        content_name: 'Hat',
        content_type: 'product',
      },
      {
        event_name: 'purchase',
        event_id: 'p1',
        event_time: ago(5),
        user_id: 'u1',
        transaction_id: 't1',
        value: 40,
        currency: 'EUR',
        items: [{ item_id: 'shoe' }],
      },
      { event_name: 'page_view', event_id: 'pv1', event_time: ago(50), anonymous_id: 'a1' },
    ];
    const rows = events.map(eventRow);
    // The same v1 once more, stored later under another insertId: the view folds it.
    const again = eventRow(events[0] as Record<string, unknown>);
    const table = (t: string) => bigquery.dataset(p.dataset).table(t);
    await table('events').insert([...rows, { ...again, insertId: 'v1/again' }], { raw: true });
    const invalid = messageRows(
      {
        messageId: 'bad1',
        publishTime: ago(2),
        attributes: {},
        data: Buffer.from(JSON.stringify({ event_name: 'view_content' })),
        subscription: 'events-store',
        deliveryAttempt: 1,
      },
      config,
      now,
    );
    if (invalid.kind !== 'invalid') throw new Error(`expected invalid, got ${invalid.kind}`);
    await table('invalid_events').insert([invalid.row], { raw: true });
    const ledger = (destination: string, status: string, i: number) => ({
      insertId: `${destination}-${i}`,
      json: {
        event_id: `v${i}`,
        event_name: 'view_content',
        destination,
        status,
        reason: null,
        attempt: 1,
        http_status: 200,
        replay: false,
        recorded_at: ago(3),
      },
    });
    await table('deliveries').insert(
      [
        ledger('meta', 'delivered', 1),
        ledger('meta', 'rejected', 2),
        ledger('meta', 'failed', 3),
        ledger('webhook', 'delivered', 1),
      ],
      { raw: true },
    );
  });

  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs only a single SELECT: DML, DDL and scripts are refused by a dry run before anything runs', async () => {
    const count = async () =>
      Number((await runQuery(bigquery, p, 'SELECT COUNT(*) AS n FROM deliveries', 10))[0]?.['n']);
    const before = await count();
    for (const q of [
      "DELETE FROM deliveries WHERE destination = 'meta'",
      "INSERT INTO deliveries (destination) VALUES ('x')",
      'DROP TABLE deliveries',
    ]) {
      await assert.rejects(runQuery(bigquery, p, q, 10), (e: Error) => {
        assert.equal(e.name, 'NotASelectError', `${q}: ${e.message}`);
        return true;
      });
    }
    // A script's dry run says SCRIPT (the emulator runs scripts now, as BigQuery does).
    await assert.rejects(
      runQuery(bigquery, p, 'SELECT 1; DELETE FROM deliveries WHERE TRUE', 10),
      (e: Error) => {
        assert.equal(e.name, 'NotASelectError');
        assert.match(e.message, /this is SCRIPT/);
        return true;
      },
    );
    // replay --where is SQL inside the slice query: one condition only, never pasted, and the
    // same guard keeps what runs a single SELECT.
    assert.throws(
      () => sliceQuery(bigquery.projectId, p.dataset, 'TRUE); DELETE FROM deliveries WHERE (TRUE'),
      /where closes a parenthesis it did not open/,
    );
    const subquery = sliceQuery(bigquery.projectId, p.dataset, '(SELECT TRUE)');
    await assert.doesNotReject(
      selectOnly(bigquery, { query: subquery, params: { from: new Date(0), to: new Date() } }),
    );
    assert.equal(await count(), before, 'nothing was deleted or inserted');
  });

  it('runs every view of the plan', async () => {
    for (const view of p.views) {
      await assert.doesNotReject(runQuery(bigquery, p, `SELECT * FROM ${view.name}`, 10), view.name);
    }
  });

  it('gives one row per event_id in events_dedup and typed columns in the event views', async () => {
    const all = await runQuery(bigquery, p, "SELECT COUNT(*) AS n FROM events WHERE event_id = 'v1'", 10);
    assert.equal(Number(all[0]?.['n']), 2);
    const dedup = await runQuery(
      bigquery,
      p,
      "SELECT COUNT(*) AS n FROM events_dedup WHERE event_id = 'v1'",
      10,
    );
    assert.equal(Number(dedup[0]?.['n']), 1);
    const purchase = await runQuery(bigquery, p, 'SELECT transaction_id, value, currency FROM purchase', 10);
    assert.deepEqual(purchase, [{ transaction_id: 't1', value: 40, currency: 'EUR' }]);
    const identities = await runQuery(
      bigquery,
      p,
      'SELECT user_id, anonymous_id, events FROM identities',
      10,
    );
    assert.deepEqual(identities, [{ user_id: 'u1', anonymous_id: 'a1', events: 1 }]);
  });

  it('has five dashboard queries in docs/storage.md', () => {
    assert.equal(docQueries().length, 5);
  });

  it('runs the dashboard queries unchanged and answers them', async () => {
    const [perHour, topContent, funnel, deliveries, invalid] = await Promise.all(
      docQueries().map((q) => runQuery(bigquery, p, q, 100)),
    );
    assert.equal(
      perHour?.reduce((sum, r) => sum + Number(r['events']), 0),
      5,
      'five distinct events in the last 7 days',
    );
    assert.deepEqual(perHourRows(perHour), perHourExpected());
    assert.deepEqual(
      topContent?.map((r) => [r['content_name'], Number(r['views']), Number(r['people'])]),
      [
        ['Shoe', 2, 2],
        ['Hat', 1, 1],
      ],
    );
    assert.deepEqual(
      funnel?.map((r) => [Number(r['viewers']), Number(r['purchasers']), Number(r['conversion'])]),
      [[3, 1, 0.3333]],
    );
    assert.deepEqual(
      deliveries?.map((r) => [
        r['destination'],
        Number(r['delivered']),
        Number(r['rejected']),
        Number(r['failed_attempts']),
        Number(r['success_rate']),
      ]),
      [
        ['meta', 1, 1, 1, 0.5],
        ['webhook', 1, 0, 0, 1],
      ],
    );
    assert.deepEqual(
      invalid?.map((r) => [r['reason'], r['field'], Number(r['events'])]),
      [
        ['invalid_event', 'content_name', 1],
        ['invalid_event', 'content_type', 1],
      ],
    );
  });

  it('runs the five dashboard queries of README.md unchanged, with the same answers', async () => {
    const queries = readmeQueries();
    assert.equal(queries.length, 5);
    const [perHour, topContent, deliveries, funnel, invalid] = await Promise.all(
      queries.map((q) => runQuery(bigquery, p, q, 100)),
    );
    assert.equal(
      perHour?.reduce((sum, r) => sum + Number(r['events']), 0),
      5,
    );
    assert.deepEqual(perHourRows(perHour), perHourExpected());
    assert.deepEqual(
      topContent?.map((r) => [r['content_name'], Number(r['views'])]),
      [
        ['Shoe', 2],
        ['Hat', 1],
      ],
    );
    assert.deepEqual(
      deliveries?.map((r) => [r['destination'], Number(r['delivered']), Number(r['rejected'])]),
      [
        ['meta', 1, 1],
        ['webhook', 1, 0],
      ],
    );
    assert.deepEqual(
      funnel?.map((r) => [Number(r['viewers']), Number(r['purchasers']), Number(r['conversion'])]),
      [[3, 1, 0.3333]],
    );
    assert.deepEqual(
      invalid?.map((r) => [r['reason'], r['field'], Number(r['events'])]),
      [
        ['invalid_event', 'content_name', 1],
        ['invalid_event', 'content_type', 1],
      ],
    );
  });

  // Last: the row it adds would change the dashboard queries' answers above.
  it('replays a defined event with its definition version (forward maps it with its definition)', async () => {
    await bigquery
      .dataset(p.dataset)
      .table('events')
      .insert([
        {
          event_id: 'defined-1',
          event_name: 'quote_asked',
          event_time: ago(20),
          received_at: ago(20),
          stored_at: ago(20),
          topic: 'events',
          message_id: 'md1',
          schema_version: 0,
          event_data: JSON.stringify({ amount: 3 }),
          definition_version: 'quote_asked@1.0',
        },
      ]);
    const [rows] = await bigquery.query({
      query: sliceQuery(bigquery.projectId, p.dataset, "event_id = 'defined-1'"),
      params: { from: new Date(now - 3_600_000), to: new Date(now) },
    });
    const events = (rows as Record<string, unknown>[]).map(storedEventFromRow);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.definition_version, 'quote_asked@1.0');
    assert.deepEqual(events[0]?.event_data, { amount: 3 });
  });
});
