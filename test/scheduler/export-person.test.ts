/**
 * An access request on the BigQuery emulator (issue #61, "Access requests"): two persons' events,
 * their refused payloads, deliveries, hook failures, sessions and identity graph stored as the
 * product stores them; `exportPersonQueries` for one of them returns that person's rows of every
 * table, and none of the other's. The CLI records each export in the ops table `exports`: who
 * asked, the identifiers as hashes, the rows per table.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainValue } from '../../adapters/user-sql.ts';
import { defaultRequester } from '../../cli/commands/erase.ts';
import { CREDENTIAL_ATTRIBUTE } from '../../core/event.ts';
import { erasureIdentifier, identityRunSql } from '../../core/models/identity-graph.ts';
import { modelOptions } from '../../core/models/models.ts';
import { sessionsRunSql } from '../../core/models/sessions.ts';
import { plan } from '../../core/plan.ts';
import { type ExportQuery, exportPersonQueries } from '../../core/privacy/export-person.ts';
import { expandSql, rawNeedles } from '../../core/privacy/person.ts';
import { storeConfig } from '../../core/store/store.ts';
import { erasureHash } from '../../core/suppression/erased.ts';
import { PRIVACY_TABLES } from '../../core/warehouse/privacy-audit.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { testSettings } from '../storage/support.ts';
import {
  type ModelsWarehouse,
  modelsWarehouse,
  opsRowsOfTwo,
  queryRows,
  storedRow,
} from './models-support.ts';

const T0 = Date.parse('2026-11-24T08:00:00.000Z');
const TOKEN = { [CREDENTIAL_ATTRIBUTE]: 'token' };
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();

describe('export-person: an access request returns the person’s rows and only theirs (issue #61)', function () {
  this.timeout(120_000);
  const settings = testSettings();
  const p = plan(settings);
  const config = storeConfig(settings, p);
  const options = modelOptions(settings);
  let warehouse: ModelsWarehouse;

  /** One export query's rows, plain, as the CLI runs it. */
  async function run(q: ExportQuery | undefined): Promise<Record<string, unknown>[]> {
    assert.ok(q);
    const [rows] = await warehouse.bigquery.query({ query: q.sql, params: q.params, types: q.types });
    return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
  }

  const table = (name: string) => warehouse.bigquery.dataset(p.dataset).table(name);

  /** Every table's rows for the identifiers given, as the CLI reads them. */
  async function exported(given: readonly string[]): Promise<Map<string, Record<string, unknown>[]>> {
    const named = given.map((g) => erasureIdentifier(g) ?? assert.fail(g));
    // Widened first, as the CLI does (the graph, the person's trusted events).
    const [found] = await warehouse.bigquery.query({
      query: expandSql({ project: settings.project, dataset: p.dataset, identityGraph: true }),
      params: { identifiers: named },
    });
    const identifiers = [
      ...new Set([...named, ...(found as { identifier: string }[]).map((r) => r.identifier)]),
    ];
    const out = new Map<string, Record<string, unknown>[]>();
    const queries = exportPersonQueries(
      { project: settings.project, dataset: p.dataset, identityGraph: true, ops: p.ops.dataset },
      identifiers,
      rawNeedles(given),
    );
    for (const q of queries) out.set(q.table.split('.')[1] ?? '', await run(q));
    return out;
  }

  before(async () => {
    warehouse = await modelsWarehouse(p, settings.project);
    const events = [
      // Person A: a browser, then a login, then a sign-up with an e-mail (the PII policy hashes it).
      { event_name: 'page_view', anonymous_id: 'anon-a' },
      { event_name: 'login', anonymous_id: 'anon-a', user_id: 'user-a' },
      { event_name: 'sign_up', user_id: 'user-a', user: { email: 'Ann@Example.com' } },
      // Person B.
      { event_name: 'page_view', anonymous_id: 'anon-b' },
      {
        event_name: 'sign_up',
        anonymous_id: 'anon-b',
        user_id: 'user-b',
        user: { email: 'bob@example.com' },
      },
    ].map((e, i) => storedRow(config, i + 1, at(i), e, TOKEN));
    await table('events').insert(events, { raw: true });
    const run = identityRunSql(options, new Date(T0 + 60 * 60_000));
    await queryRows(warehouse.bigquery, run.sql, run.params);
    const sessions = sessionsRunSql(options, new Date(T0 + 60 * 60_000));
    await queryRows(warehouse.bigquery, sessions.sql, sessions.params);
    const digest = (n: number) => events[n - 1]?.json['payload_digest'];
    const refused = (payload: Record<string, unknown>) => ({
      received_at: at(10),
      stored_at: at(10),
      reason: 'invalid_event',
      payload: JSON.stringify(payload),
    });
    await table('invalid_events').insert([
      refused({ event_name: 'purchase', user: { email: 'ann@example.com' } }),
      refused({ event_name: 'purchase', user_id: 'user-b' }),
      // A value that holds A's id as part of another is not A's.
      refused({ event_name: 'purchase', user_id: 'user-a2' }),
    ]);
    const delivery = (n: number) => ({
      event_id: `e${n}`,
      event_name: 'sign_up',
      destination: 'meta',
      status: 'delivered',
      replay: false,
      recorded_at: at(11),
      payload_digest: digest(n),
    });
    await table('deliveries').insert([delivery(3), delivery(5)]);
    const failure = (n: number) => ({
      recorded_at: at(12),
      hook: 'fan_out',
      event_id: `e${n}`,
      event_name: 'sign_up',
      payload_digest: digest(n),
      error: 'boom',
    });
    await table('hook_failures').insert([failure(2), failure(4)]);
    await opsRowsOfTwo(warehouse.bigquery, p.ops.dataset, at(13), ['user-a', 'user-b']);
  });
  after(() => warehouse?.close());

  it('by e-mail: A’s rows of every table, through the identity graph, and none of B’s', async () => {
    const rows = await exported(['email:ann@example.com']);
    const of = (t: string) => rows.get(t) ?? [];
    assert.deepEqual(
      of('events')
        .map((r) => r['event_id'])
        .sort(),
      ['e1', 'e2', 'e3'],
    );
    assert.equal(of('invalid_events').length, 1);
    assert.match(String(of('invalid_events')[0]?.['payload']), /ann@example\.com/);
    assert.deepEqual(
      of('deliveries').map((r) => r['event_id']),
      ['e3'],
    );
    assert.deepEqual(
      of('hook_failures').map((r) => r['event_id']),
      ['e2'],
    );
    assert.deepEqual(
      of('gateway_refusals').map((r) => r['path']),
      ['/v1/x?email=ann%40example.com'],
    );
    assert.deepEqual(
      of('sync_failed_rows').map((r) => r['key']),
      ['{"user_id":"user-a"}'],
    );
    assert.ok(of('sessions').length > 0);
    assert.ok(of('sessions').every((r) => r['visitor_id'] === 'anon-a' || r['user_id'] === 'user-a'));
    assert.deepEqual(
      of('identity_map')
        .map((r) => r['kind'])
        .sort(),
      ['anonymous_id', 'email', 'user_id'],
    );
    const text = JSON.stringify([...rows.values()]);
    for (const b of ['anon-b', 'user-b', 'bob@example.com', 'e4', 'e5', 'user-a2'])
      assert.ok(!text.includes(`"${b}"`), `B's ${b} is not in A's export`);
  });

  it('by B’s user id: B’s rows, none of A’s', async () => {
    const rows = await exported(['user_id:user-b']);
    assert.deepEqual((rows.get('events') ?? []).map((r) => r['event_id']).sort(), ['e4', 'e5']);
    assert.equal(rows.get('invalid_events')?.length, 1);
    const text = JSON.stringify([...rows.values()]);
    for (const a of ['anon-a', 'user-a', 'e1', 'e2', 'e3']) assert.ok(!text.includes(`"${a}"`), a);
  });

  it('the CLI: `eventbus export-person` writes A’s rows as JSON Lines, to stdout or a private file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventbus-export-'));
    const settingsFile = join(dir, 'settings.json');
    writeFileSync(settingsFile, JSON.stringify(settings));
    const before = process.env['BIGQUERY_EMULATOR_HOST'];
    process.env['BIGQUERY_EMULATOR_HOST'] = warehouse.bigquery.apiEndpoint;
    try {
      const { run } = await import('../../cli/main.ts');
      let out = '';
      let err = '';
      const io = { out: (t: string) => (out += t), err: (t: string) => (err += t) };
      const argv = ['export-person', 'email:Ann@Example.com', 'anonymous_id:anon-a', '--env', settingsFile];
      assert.equal(await run(argv, io), 0, err);
      const lines = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { table: string; row: Record<string, unknown> });
      const tables = new Set(lines.map((l) => l.table));
      for (const t of ['events', 'invalid_events', 'deliveries', 'hook_failures', 'sessions', 'identity_map'])
        assert.ok(tables.has(`${p.dataset}.${t}`), `${t} is in the export`);
      assert.deepEqual(
        lines
          .filter((l) => l.table === `${p.dataset}.events`)
          .map((l) => l.row['event_id'])
          .sort(),
        ['e1', 'e2', 'e3'],
      );
      for (const b of ['anon-b', 'user-b', 'bob@example.com']) assert.ok(!out.includes(`"${b}"`), b);

      const file = join(dir, 'ann.jsonl');
      assert.equal(await run([...argv, '--out', file], { out: () => {}, err: io.err }), 0, err);
      assert.equal(readFileSync(file, 'utf8'), out);
      assert.equal(statSync(file).mode & 0o077, 0, 'nobody else may read the export');

      assert.notEqual(await run(['export-person', 'name:Ann', '--env', settingsFile], io), 0);
      assert.match(err, /name:Ann/);

      // Each export's audit row: who asked (the operator unless named), hashes, rows per table.
      assert.equal(
        await run([...argv, '--requested-by', 'dpo@acme.example'], { out: () => {}, err: io.err }),
        0,
      );
      const [audit] = await warehouse.bigquery.query({
        query: `SELECT * FROM ${tableRef(settings.project, p.ops.dataset, PRIVACY_TABLES.exports)} ORDER BY requested_at`,
      });
      const rows = (audit as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
      assert.deepEqual(
        rows.map((r) => r['requested_by']),
        [defaultRequester(), defaultRequester(), 'dpo@acme.example'],
      );
      const hashes = ['email:Ann@Example.com', 'anonymous_id:anon-a']
        .map((g) => erasureHash(erasureIdentifier(g) ?? ''))
        .sort();
      for (const r of rows) {
        assert.match(String(r['export_id']), /^ex-\d{8}-[0-9a-f]{8}$/);
        assert.deepEqual(r['identifier_hashes'], hashes);
        assert.equal(JSON.parse(String(r['rows']))[`${p.dataset}.events`], 3);
      }
      assert.equal(new Set(rows.map((r) => r['export_id'])).size, 3, 'one row per export');
      assert.ok(!JSON.stringify(rows).includes('anon-a'), 'no identifier in the audit');
    } finally {
      if (before === undefined) delete process.env['BIGQUERY_EMULATOR_HOST'];
      else process.env['BIGQUERY_EMULATOR_HOST'] = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without the identity graph: only the rows of the identifiers given', async () => {
    const queries = exportPersonQueries(
      { project: settings.project, dataset: p.dataset, identityGraph: false },
      ['anonymous_id:anon-a'],
      [],
    );
    const events = await run(queries[0]);
    assert.deepEqual(events.map((r) => r['event_id']).sort(), ['e1', 'e2']);
  });
});
