/**
 * Syncs (core/syncs/syncs.ts): checking a spec against the settings' connections, the diff SQL per
 * mode, what a page of changes becomes for files and topics, deterministic ids and file names.
 * Pure; the SQL itself runs on the BigQuery emulator in test/e2e/syncs.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { audiencePage, audienceSession } from '../../../core/platforms/meta/audience.ts';
import { resourceViolations } from '../../../core/registry/resources.ts';
import { commitStatements, planStatements } from '../../../core/syncs/sync-sql.ts';
import {
  changesOf,
  fileBody,
  filePaths,
  modelSource,
  type SyncVersion,
  syncEvents,
  syncViolations,
  webhookRejections,
} from '../../../core/syncs/syncs.ts';
import type { Connection } from '../../../schemas/settings.ts';
import type { SyncSpec } from '../../../schemas/sync.ts';

const CONNECTIONS: Connection[] = [
  { id: 'crm', type: 'webhook', url: 'https://crm.example/sync' },
  { id: 'exports', type: 'storage', bucket: 'acme-exports' },
];
const spec = (over: Partial<SyncSpec> = {}): SyncSpec => ({
  model: 'SELECT user_id, SUM(value) AS ltv FROM events.purchase GROUP BY user_id',
  primary_key: ['user_id'],
  mode: 'upsert',
  schedule: { every: '1h' },
  destination: { webhook: { connection: 'crm' } },
  ...over,
});

describe('syncs: checking a Sync spec', () => {
  it('accepts a sync whose connection exists with the right type', () => {
    assert.deepEqual(syncViolations(spec(), 'spec', CONNECTIONS), []);
    assert.deepEqual(
      syncViolations(
        spec({ destination: { files: { connection: 'exports', format: 'csv' } } }),
        'spec',
        CONNECTIONS,
      ),
      [],
    );
  });

  it('names unknown and mistyped connections, bad schedules, and mirror to a topic', () => {
    const problems = (s: SyncSpec) =>
      syncViolations(s, 'spec', CONNECTIONS).map((v) => `${v.field}: ${v.description}`);
    assert.deepEqual(problems(spec({ destination: { files: { connection: 'crm' } } })), [
      'spec.destination.files.connection: "crm" is a webhook connection, not storage',
    ]);
    assert.match(
      problems(spec({ destination: { webhook: { connection: 'nope' } } }))[0] ?? '',
      /unknown connection "nope"/,
    );
    assert.match(problems(spec({ schedule: { every: '10s' } }))[0] ?? '', /^spec\.schedule: .*at least 1m/);
    assert.match(
      problems(spec({ mode: 'mirror', destination: { topic: { event_name: 'ltv_changed' } } }))[0] ?? '',
      /^spec\.mode: mirror sends deletions/,
    );
    assert.deepEqual(
      syncViolations({ ...spec(), primary_key: [] }, 'spec', CONNECTIONS).map((v) => v.field),
      ['spec.primary_key'],
    );
  });
});

describe('syncs: the diff in BigQuery', () => {
  const plan = (mode: SyncSpec['mode']) => planStatements(spec({ mode }), 'eventbus_ops', 'customer-ltv');

  it('snapshots the model with a key and a row hash, into per-sync tables of the ops dataset', () => {
    const [state, snapshot] = plan('upsert');
    assert.match(state ?? '', /^CREATE TABLE IF NOT EXISTS eventbus_ops\.sync_state__customer_ltv /);
    assert.match(snapshot ?? '', /TO_HEX\(SHA256\(TO_JSON_STRING\(STRUCT\(m\.user_id\)\)\)\) AS __key/);
    assert.match(snapshot ?? '', /TO_HEX\(SHA256\(TO_JSON_STRING\(m\)\)\) AS __hash FROM \(SELECT user_id/);
    assert.match(
      snapshot ?? '',
      /CREATE OR REPLACE TABLE eventbus_ops\.sync_snap__customer_ltv AS SELECT __key, __hash FROM sync_model;/,
    );
    assert.equal(modelSource('events.customers'), '`events.customers`');
    assert.equal(modelSource('SELECT 1;'), '(SELECT 1)');
  });

  it('sends new rows (insert), new and changed (upsert), those and deletions (mirror), or all (full)', () => {
    const changes = (mode: SyncSpec['mode']) => plan(mode)[1] ?? '';
    assert.match(changes('insert'), /WHERE st\.__key IS NULL\)$/);
    assert.match(changes('upsert'), /WHERE st\.__key IS NULL OR st\.__hash != m\.__hash\)$/);
    assert.match(
      changes('mirror'),
      /UNION ALL SELECT st\.__key, st\.__row, CAST\(NULL AS STRING\), CAST\(NULL AS STRING\), CAST\(NULL AS STRING\), 'delete'/,
    );
    assert.match(changes('full'), /WHERE TRUE\)$/);
    assert.doesNotMatch(changes('upsert'), /'delete'/);
  });

  it('commits exactly the rows of a sent page, numbers only', () => {
    const [sql = '', ...more] = commitStatements(spec(), 'eventbus_ops', 'ltv', [3, 4, Number.NaN]);
    assert.equal(more.length, 0);
    assert.match(sql, /WHERE c\.__n IN \(3, 4\)\) u ON/);
    assert.match(sql, /WHEN MATCHED AND u\.__op = 'delete' THEN DELETE/);
  });
});

describe('syncs: what destinations receive', () => {
  const rows = [
    { __n: 2, __key: '{"user_id":"u2"}', __row: '{"user_id":"u2","ltv":20}', __op: 'upsert' },
    {
      __n: 1,
      __key: '{"user_id":"u1"}',
      __row: '{"user_id":"u1","ltv":"=HYPERLINK(\\"x\\")"}',
      __op: 'upsert',
    },
    { __n: 3, __key: '{"user_id":"u3"}', __row: '{"user_id":"u3","ltv":5}', __op: 'delete' },
  ];

  it('reads a page in change order, mapping rows with fields when given', () => {
    const plain = changesOf(spec(), rows);
    assert.deepEqual(
      plain.map((c) => [c.n, c.op, c.key]),
      [
        [1, 'upsert', { user_id: 'u1' }],
        [2, 'upsert', { user_id: 'u2' }],
        [3, 'delete', { user_id: 'u3' }],
      ],
    );
    const mapped = changesOf(
      spec({ fields: { customer: 'user_id', lifetime_value: { from: 'ltv', transform: ['number'] } } }),
      rows,
    );
    assert.deepEqual(mapped[1]?.data, { customer: 'u2', lifetime_value: 20 });
  });

  it('writes JSONL, or CSV whose cells cannot start a formula', () => {
    const changes = changesOf(spec(), rows);
    assert.equal(
      fileBody(changes, 'jsonl').split('\n')[0],
      '{"_op":"upsert","user_id":"u1","ltv":"=HYPERLINK(\\"x\\")"}',
    );
    const csv = fileBody(changes, 'csv').split('\r\n');
    assert.equal(csv[0], '_op,user_id,ltv');
    assert.equal(csv[1], `upsert,u1,"'=HYPERLINK(""x"")"`);
    assert.equal(csv[3], 'delete,u3,');
  });

  it('neutralises every cell a spreadsheet would read as a formula: = + - @, TAB and CR first', () => {
    const cells = ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1+1', '\r=1+1', 'plain'];
    const csv = fileBody(
      cells.map((v, n) => ({ n, op: 'upsert' as const, key: { id: n }, data: { v } })),
      'csv',
    ).split('\r\n');
    assert.deepEqual(csv.slice(1, -1), [
      `upsert,"'=1+1"`,
      `upsert,"'+1"`,
      `upsert,"'-1"`,
      `upsert,"'@SUM(A1)"`,
      `upsert,"'\t=1+1"`,
      // A CR inside a quoted cell is data, not a line break; the cell starts with ' either way.
      `upsert,"'\r=1+1"`,
      'upsert,plain',
    ]);
  });

  it('names parts and the manifest per run, and publishes upserts as events with deterministic ids', () => {
    const p = filePaths('ltv', '2026-11-22T10:00:00.000Z', 'Sync/ltv@2026-11-22T10:00:00.000Z', 'jsonl');
    assert.match(p.part(1), /^syncs\/ltv\/dt=2026-11-22\/run-[0-9a-f]{16}\/part-00001\.jsonl$/);
    assert.match(p.success, /\/_SUCCESS$/);
    const sync: SyncVersion = {
      name: 'ltv',
      version: '1.0',
      spec: spec({ destination: { topic: { event_name: 'ltv_changed' } } }),
    };
    const events = syncEvents(sync, changesOf(sync.spec, rows), '2026-11-22T10:00:00.000Z');
    assert.deepEqual(
      events.map((e) => [e.body['event_name'], e.body['user_id'], e.body['event_time']]),
      [
        ['ltv_changed', 'u1', '2026-11-22T10:00:00.000Z'],
        ['ltv_changed', 'u2', '2026-11-22T10:00:00.000Z'],
      ],
    );
    assert.deepEqual(events[0]?.attributes, { origin: 'Sync/ltv', hops: '1' });
    const again = syncEvents(sync, changesOf(sync.spec, rows), '2026-11-22T10:00:00.000Z');
    assert.equal(again[0]?.body['event_id'], events[0]?.body['event_id'], 'a retried run folds');
  });
});

describe('syncs: cursors, row-level failures and Meta custom audiences', () => {
  const change = (n: number, op: 'upsert' | 'delete', data: Record<string, unknown>) => ({
    n,
    op,
    key: { user_id: `u${n}` },
    data,
  });

  it('reads only rows past the high-water mark with a cursor, and refuses a cursor in mirror mode', () => {
    const statements = planStatements(spec({ cursor: 'updated_at' }), 'ops', 'ltv');
    assert.equal(statements.length, 4);
    assert.match(
      statements[1] ?? '',
      /^CREATE TABLE IF NOT EXISTS ops\.sync_cursor__ltv AS SELECT MAX\(m\.updated_at\) AS value .* WHERE FALSE$/,
    );
    assert.match(
      statements[2] ?? '',
      /CROSS JOIN ops\.sync_cursor__ltv cur WHERE cur\.value IS NULL OR m\.updated_at > cur\.value;$/m,
    );
    assert.match(statements[3] ?? '', /AS cursor_from, .* AS cursor_to FROM ops\.sync_changes__ltv$/);
    // Without a cursor: no cursor table, the whole model.
    assert.equal(planStatements(spec(), 'ops', 'ltv').length, 3);
    assert.deepEqual(
      syncViolations(spec({ mode: 'mirror', cursor: 'updated_at' }), 'spec', CONNECTIONS).map((v) => v.field),
      ['spec.cursor'],
    );
  });

  it('takes the rows a webhook rejects by key, whatever the order of the key’s columns', () => {
    const changes = [change(1, 'upsert', {}), change(2, 'upsert', {})];
    assert.deepEqual(
      webhookRejections(
        JSON.stringify({
          rejected: [{ key: { user_id: 'u2' }, reason: 'unknown customer' }, { key: { user_id: 'x' } }],
        }),
        changes,
      ).map((r) => [r.change.n, r.reason]),
      [[2, 'unknown customer']],
    );
    assert.deepEqual(webhookRejections('{"ok":true}', changes), []);
    assert.deepEqual(webhookRejections('not json', changes), []);
  });

  it('checks a meta_audience destination’s connection', () => {
    const connections: Connection[] = [
      ...CONNECTIONS,
      { id: 'ads', type: 'meta_audience', secrets: { access_token: 'META_AUDIENCE_TOKEN' } },
    ];
    assert.deepEqual(
      syncViolations(
        spec({ mode: 'mirror', destination: { meta_audience: { connection: 'ads', audience_id: '2385' } } }),
        'spec',
        connections,
      ),
      [],
    );
    assert.deepEqual(
      syncViolations(
        spec({ destination: { meta_audience: { connection: 'crm', audience_id: '2385' } } }),
        'spec',
        connections,
      ).map((v) => `${v.field}: ${v.description}`),
      ['spec.destination.meta_audience.connection: "crm" is a webhook connection, not meta_audience'],
    );
  });

  it('refuses a google_ads_audience sync whose Customer Match terms nobody accepted, naming terms_of_service', () => {
    const ads = (over: Partial<Connection> = {}): Connection[] => [
      ...CONNECTIONS,
      { id: 'ads', type: 'google_ads_audience', ...over },
    ];
    const list = { connection: 'ads', operating_account_id: '1234567890', user_list_id: '5550001' };
    const problems = (terms: boolean, connections: Connection[]) =>
      syncViolations(
        spec({
          destination: {
            google_ads_audience: { ...list, ...(terms ? { terms_of_service: 'accepted' } : {}) },
          },
        }),
        'spec',
        connections,
      ).map((v) => `${v.field}: ${v.description}`);
    const [refusal, ...rest] = problems(false, ads());
    assert.deepEqual(rest, []);
    assert.match(
      refusal ?? '',
      /^spec\.destination\.google_ads_audience\.terms_of_service: must be accepted: Google adds Customer Match members only when/,
    );
    assert.match(refusal ?? '', /set terms_of_service: accepted here or on connection ads$/);
    // Said by the sync, or once by its connection.
    assert.deepEqual(problems(true, ads()), []);
    assert.deepEqual(problems(false, ads({ terms_of_service: 'accepted' })), []);
    // What `eventbus apply` and the studio's apply check: the document, with the settings' connections.
    const doc = { kind: 'Sync', name: 'vip', spec: spec({ destination: { google_ads_audience: list } }) };
    assert.deepEqual(
      resourceViolations(doc, 'documents[0]', { connections: ads() }).map((v) => v.field),
      ['documents[0].spec.destination.google_ads_audience.terms_of_service'],
    );
  });

  it('builds the audience payload with the Conversions API’s normalisation and hashing', () => {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const page = audiencePage([
      change(1, 'upsert', { email: '  Ana@Example.COM ', phone: '06 6988 4000', country: 'Italy', ltv: 9 }),
      change(2, 'upsert', { email: 'bo@example.com', external_id: 'C-2' }),
      change(3, 'delete', { email: 'gone@example.com' }),
      change(4, 'upsert', { ltv: 1, phone: 'none' }),
    ]);
    assert.deepEqual(page.add?.payload.schema, ['EMAIL', 'PHONE', 'COUNTRY', 'EXTERN_ID']);
    assert.deepEqual(page.add?.payload.data, [
      [sha('ana@example.com'), sha('390669884000'), sha('it'), ''],
      [sha('bo@example.com'), '', '', 'C-2'],
    ]);
    assert.deepEqual(page.remove?.payload, { schema: ['EMAIL'], data: [[sha('gone@example.com')]] });
    assert.deepEqual(
      page.failed.map((f) => f.change.n),
      [4],
    );
    assert.match(page.failed[0]?.reason ?? '', /no identifier Meta can match/);
    const s = audienceSession('Sync/ltv@2026-11-23T07:00:00Z', 2, true, 20_000);
    assert.ok(Number.isSafeInteger(s.session_id) && s.session_id > 0);
    assert.deepEqual(
      { ...s, session_id: 0 },
      { session_id: 0, batch_seq: 2, last_batch_flag: true, estimated_num_total: 20_000 },
    );
  });
});
