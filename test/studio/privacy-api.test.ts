/**
 * The studio's privacy actions (issue #61) against the Cloud Storage and BigQuery emulators: an
 * admin's erasure request lands in the registry bucket as `eventbus erase` writes it, with the
 * caller as `requested_by`, an editor's is refused; bad identifiers are a 400 naming each; an
 * access request gives the named person's rows only, as a JSON Lines file, and records who asked
 * in the ops table `exports`; `erasure-status` reads the erasures' audit rows.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { RegistryClient } from '../../adapters/registry.ts';
import { plainValue } from '../../adapters/user-sql.ts';
import { sha256 } from '../../core/pii.ts';
import { plan } from '../../core/plan.ts';
import { AUDIT_PARAM_TYPES, auditSql, ERASURE_REQUESTS_PREFIX } from '../../core/privacy/erasure.ts';
import { ok } from '../../core/step.ts';
import { erasureHash } from '../../core/suppression/erased.ts';
import { PRIVACY_TABLES } from '../../core/warehouse/privacy-audit.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { EXPORT_UNDER_COLUMN_SECURITY } from '../../studio/privacy-api.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'privacy-api-admin-token-0123456789';
const ADMIN = 'ada@acme.example';
const EDITOR = 'ed@acme.example';
const VIEWER = 'vi@acme.example';
const T0 = Date.parse('2026-11-24T08:00:00.000Z');
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();

type Json = Record<string, unknown>;

describe('studio: erasure and access requests on the admin API (issue #61)', function () {
  this.timeout(60_000);
  const settings = testSettings();
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('studio-privacy');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;
  const logged: unknown[] = [];

  const opsRows = async (table: string): Promise<Json[]> => {
    const [rows] = await bigquery.query({
      query: `SELECT * FROM ${tableRef(settings.project, p.ops.dataset, table)}`,
    });
    return (rows as unknown[]).map((r) => plainValue(r) as Json);
  };

  /** A POST as an IAP caller (`email`) or, without one, with the admin token. */
  async function call(action: string, body: unknown, email?: string): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (email) headers['x-goog-iap-jwt-assertion'] = email;
    else headers['authorization'] = `Bearer ${TOKEN}`;
    return fetch(`${studio.url}/v1/admin/${action}`, { method: 'POST', headers, body: JSON.stringify(body) });
  }

  const erasureObjects = async () =>
    (await fx.bucket.getFiles({ prefix: ERASURE_REQUESTS_PREFIX }))[0].map((f) => f.name);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-privacy-api-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    const event = (id: string, minute: number, who: Json) => ({
      event_id: id,
      event_name: 'page_view',
      event_time: at(minute),
      received_at: at(minute),
      stored_at: at(minute),
      topic: 'events',
      message_id: `m-${id}`,
      schema_version: 1,
      ...who,
    });
    const dataset = bigquery.dataset(p.dataset);
    await dataset.table('events').insert([
      event('a1', 0, { anonymous_id: 'anon-a', user_id: 'user-a' }),
      event('a2', 1, { user_id: 'user-a' }),
      event('b1', 2, { anonymous_id: 'anon-b', user_id: 'user-b' }),
      // A's e-mail only in a custom field of an event no identifier column ties to A (#75), and
      // another address in the same field.
      event('c1', 4, {
        anonymous_id: 'anon-c',
        event_data: JSON.stringify({ form: { contact: 'Ann@Example.com' } }),
      }),
      event('c2', 5, {
        anonymous_id: 'anon-d',
        event_data: JSON.stringify({ form: { contact: 'bob@example.com' } }),
      }),
    ]);
    const refused = (payload: Json) => ({
      received_at: at(3),
      stored_at: at(3),
      reason: 'invalid_event',
      payload: JSON.stringify(payload),
    });
    await dataset
      .table('invalid_events')
      .insert([
        refused({ event_name: 'purchase', user: { email: 'ann@example.com' } }),
        refused({ event_name: 'purchase', user_id: 'user-b' }),
      ]);
  });
  after(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      adminName: 'ops-admin',
      settings,
      warehouse: studioWarehouse(bigquery, settings.project, p),
      warehouseRef: { project: settings.project, dataset: p.dataset },
      opsTable: (name) => tableRef(settings.project, p.ops.dataset, name),
      // The signed header's verification is test/studio/auth.test.ts's: here it is the email.
      iap: {
        verify: async (jwt) => ok(jwt),
        access: { viewers: [`user:${VIEWER}`], editors: [`user:${EDITOR}`], admins: [`user:${ADMIN}`] },
      },
      log: (e) => logged.push(e),
    });
  });
  afterEach(() => studio.close());

  it('refuses an editor the erasure and the export (403): a destructive action is an admin’s', async () => {
    for (const action of ['erasures', 'export-person']) {
      const res = await call(action, { identifiers: ['user_id:user-a'] }, EDITOR);
      assert.equal(res.status, 403, action);
      const body = (await res.json()) as { error: { status: string; message: string } };
      assert.equal(body.error.status, 'PERMISSION_DENIED');
      assert.match(body.error.message, /ed@acme\.example is a studio editor/);
    }
    assert.deepEqual(await erasureObjects(), []);
  });

  it('records an admin’s erasure request as the CLI does, with the caller as requested_by (201)', async () => {
    const res = await call('erasures', { identifiers: ['email:Ann@Example.com', 'user_id:user-a'] }, ADMIN);
    assert.equal(res.status, 201);
    const answer = (await res.json()) as Json;
    assert.equal(answer['status'], 'recorded');
    assert.match(String(answer['erasure_id']), /^er-\d{8}-[0-9a-f]{8}$/);
    assert.match(String(answer['pending']), /streaming buffer/);
    const name = `${ERASURE_REQUESTS_PREFIX}${answer['erasure_id']}.json`;
    assert.deepEqual(await erasureObjects(), [name]);
    const [bytes] = await fx.bucket.file(name).download();
    const request = JSON.parse(bytes.toString('utf8')) as Json;
    assert.equal(request['requested_by'], ADMIN);
    assert.equal(request['erasure_id'], answer['erasure_id']);
    assert.deepEqual(request['raw'], ['ann@example.com']);
    assert.ok((request['identifiers'] as string[]).includes('user_id:user-a'));
    assert.ok(
      (request['identifiers'] as string[]).every((i) => !i.includes('Ann@')),
      'the e-mail hashed',
    );

    // The admin token stands for its named admin.
    const byToken = await call('erasures', { identifiers: ['anonymous_id:anon-a'] });
    assert.equal(byToken.status, 201);
    const id = ((await byToken.json()) as Json)['erasure_id'];
    const [second] = await fx.bucket.file(`${ERASURE_REQUESTS_PREFIX}${id}.json`).download();
    assert.equal((JSON.parse(second.toString('utf8')) as Json)['requested_by'], 'ops-admin');
  });

  it('answers bad identifiers 400 INVALID_REQUEST with a violation for each, and records nothing', async () => {
    const res = await call('erasures', { identifiers: ['name:Ann', 'user_id:ok', 'nonsense'] }, ADMIN);
    assert.equal(res.status, 400);
    const body = (await res.json()) as {
      error: { status: string; details: { '@type': string; fieldViolations?: { field: string }[] }[] };
    };
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    const violations = body.error.details.find((d) => d['@type'].endsWith('BadRequest'))?.fieldViolations;
    assert.deepEqual(
      violations?.map((v) => v.field),
      ['identifiers[0]', 'identifiers[2]'],
    );
    for (const identifiers of [[], 'user_id:a', [7]]) {
      const r = await call('erasures', { identifiers }, ADMIN);
      assert.equal(r.status, 400, JSON.stringify(identifiers));
    }
    const exported = await call('export-person', { identifiers: ['name:Ann'] }, ADMIN);
    assert.equal(exported.status, 400);
    assert.deepEqual(await erasureObjects(), []);
  });

  it('exports only the named person’s rows as a JSON Lines file, and records who asked in `exports`', async () => {
    const res = await call(
      'export-person',
      { identifiers: ['user_id:user-a', 'email:ann@example.com'] },
      ADMIN,
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const disposition = res.headers.get('content-disposition') ?? '';
    const id = /^attachment; filename="(ex-\d{8}-[0-9a-f]{8})\.jsonl"$/.exec(disposition)?.[1];
    assert.ok(id, disposition);
    const text = await res.text();
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { table: string; row: Json });
    const of = (t: string) =>
      lines
        .filter((l) => l.table === `${p.dataset}.${t}` && !(l as { match?: string }).match)
        .map((l) => l.row);
    assert.deepEqual(
      of('events')
        .map((r) => r['event_id'])
        .sort(),
      ['a1', 'a2'],
    );
    // c1 holds A's e-mail only in event_data.form.contact: a "possible" row, with the field's path.
    const possible = lines.filter((l) => (l as { match?: string }).match === 'possible');
    assert.deepEqual(
      possible.map((l) => [l.table, l.row['event_id'], (l as { fields?: string[] }).fields]),
      [[`${p.dataset}.events`, 'c1', ['$.event_data.form.contact']]],
    );
    assert.equal(of('invalid_events').length, 1);
    assert.match(String(of('invalid_events')[0]?.['payload']), /ann@example\.com/);
    for (const b of ['anon-b', 'user-b', 'b1'])
      assert.ok(!text.includes(`"${b}"`), `B's ${b} is not in A's file`);

    const audit = (await opsRows(PRIVACY_TABLES.exports)).find((r) => r['export_id'] === id);
    assert.ok(audit, 'the exports row');
    assert.equal(audit['requested_by'], ADMIN);
    assert.deepEqual(
      audit['identifier_hashes'],
      [erasureHash('user_id:user-a'), erasureHash(`email:${sha256('ann@example.com')}`)].sort(),
    );
    assert.deepEqual(JSON.parse(String(audit['rows'])), {
      [`${p.dataset}.events`]: 2,
      [`${p.dataset}.events (possible)`]: 1,
      [`${p.dataset}.invalid_events`]: 1,
      [`${p.dataset}.deliveries`]: 0,
      [`${p.dataset}.hook_failures`]: 0,
      // Refused requests and failed sync rows holding one of A's values (none here).
      [`${p.ops.dataset}.gateway_refusals`]: 0,
      [`${p.ops.dataset}.sync_failed_rows`]: 0,
      // The models are on (the identity graph): their tables are read too.
      [`${p.dataset}.sessions`]: 0,
      [`${p.dataset}.identity_map`]: 0,
      [`${p.dataset}.identity_merges`]: 0,
    });
    assert.ok(!JSON.stringify(audit).includes('user-a'), 'no identifier in the audit row');
  });

  it('exports a person named without an e-mail or phone too (no empty array parameter)', async () => {
    const res = await call('export-person', { identifiers: ['anonymous_id:anon-b'] }, ADMIN);
    assert.equal(res.status, 200);
    const rows = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { table: string; row: Json });
    // Widened through B's trusted events, as an erasure would be: B's events, and B's other rows.
    assert.deepEqual(
      rows.filter((l) => l.table === `${p.dataset}.events`).map((l) => l.row['event_id']),
      ['b1'],
    );
  });

  it('answers 200 "nothing held" for a person it holds nothing about, whatever identifiers name them (#75)', async () => {
    for (const identifiers of [
      // A person id the graph does not know, a value too short to look for: no needle at all.
      ['0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'],
      ['user_id:ab'],
      ['user_id:nobody-ever'],
      ['email:nobody@nowhere.example'],
      ['phone:+15550000000'],
      ['anonymous_id:never-seen', 'email:nobody@nowhere.example'],
    ]) {
      const res = await call('export-person', { identifiers }, ADMIN);
      const text = await res.text();
      assert.equal(res.status, 200, `${identifiers.join(', ')}: ${text}`);
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      assert.deepEqual(
        lines,
        [{ nothing_held: true, identifiers: identifiers.length }],
        identifiers.join(', '),
      );
    }
  });

  it('erasure-status gives the audit rows (hashes, never identifiers), one by id, and a recorded one', async () => {
    // As the scheduler's erasure job writes them (its audit MERGE).
    const insert = (id: string, minute: number, status: string) =>
      bigquery.query({
        query: auditSql(settings.project, p.ops.dataset),
        params: {
          erasure_id: id,
          requested_at: at(minute),
          requested_by: 'ops-admin',
          hashes: [erasureHash('user_id:user-a')],
          status,
          removed: JSON.stringify({ [`${p.dataset}.events`]: 2 }),
          waiting: [],
          platforms: '[]',
          passes: 1,
        },
        types: { hashes: [...AUDIT_PARAM_TYPES.hashes], waiting: [...AUDIT_PARAM_TYPES.waiting] },
      });
    await insert('er-20261124-00000001', 10, 'complete');
    await insert('er-20261124-00000002', 20, 'pending');
    const all = await call('erasure-status', {}, VIEWER);
    assert.equal(all.status, 200, JSON.stringify(logged));
    const rows = ((await all.json()) as { erasures: Json[] }).erasures;
    assert.deepEqual(
      rows.map((r) => [r['erasure_id'], r['status']]),
      [
        ['er-20261124-00000002', 'pending'],
        ['er-20261124-00000001', 'complete'],
      ],
    );
    assert.deepEqual(rows[0]?.['identifier_hashes'], [erasureHash('user_id:user-a')]);

    const one = await call('erasure-status', { erasure_id: 'er-20261124-00000001' }, VIEWER);
    assert.deepEqual(
      ((await one.json()) as { erasures: Json[] }).erasures.map((r) => r['status']),
      ['complete'],
    );

    // Recorded, its first pass not yet run: the object is there, no row yet.
    const made = await call('erasures', { identifiers: ['user_id:user-b'] }, ADMIN);
    const id = ((await made.json()) as Json)['erasure_id'];
    const recorded = await call('erasure-status', { erasure_id: id }, VIEWER);
    assert.deepEqual(((await recorded.json()) as Json)['erasures'], [{ erasure_id: id, status: 'recorded' }]);

    assert.equal((await call('erasure-status', { erasure_id: 'er-20261124-0000ffff' }, VIEWER)).status, 404);
    assert.equal((await call('erasure-status', { erasure_id: "x' OR 1=1" }, VIEWER)).status, 400);
  });

  it('refuses an access request under pii.column_security, saying why and what to run, and records nothing', async () => {
    const before = (await opsRows(PRIVACY_TABLES.exports)).length;
    await studio.close();
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      adminName: 'ops-admin',
      settings: { ...settings, pii: { ...settings.pii, column_security: true } },
      warehouse: studioWarehouse(bigquery, settings.project, p),
      warehouseRef: { project: settings.project, dataset: p.dataset },
      opsTable: (name) => tableRef(settings.project, p.ops.dataset, name),
    });
    const res = await call('export-person', { identifiers: ['email:ann@example.com'] });
    assert.equal(res.status, 400);
    const error = ((await res.json()) as { error: { status: string; message: string } }).error;
    assert.equal(error.status, 'FAILED_PRECONDITION');
    assert.equal(error.message, `This studio is not set up for that: ${EXPORT_UNDER_COLUMN_SECURITY}`);
    assert.equal((await opsRows(PRIVACY_TABLES.exports)).length, before);
  });
});
