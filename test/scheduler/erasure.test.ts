/**
 * Erasure end to end on the emulators (issue #61, "Done when"): persons A and B stored as the
 * product stores them — events with an e-mail, a phone, a user id, an IP and a URL with `?email=`,
 * a refused payload, a hook failure, a refused request, the models run, a sync's state, changes
 * and failed row — then an erasure request for A's e-mail run by the scheduler's erasure job
 * (functions/schedule/erasures.ts) over the real BigQuery and Cloud Storage emulators. The first
 * pass meets the streaming buffer and waits; once the rows left it, the next completes. Then no
 * table of any dataset holds A's e-mail, phone, user id, anonymous id or their hashes, B's rows are
 * all there, the `erasures` row has the counts, and A's next event is stored without them.
 */

import assert from 'node:assert/strict';
import type { Bucket } from '@google-cloud/storage';
import { erasureRequest } from '../../cli/commands/erase.ts';
import { CREDENTIAL_ATTRIBUTE } from '../../core/event.ts';
import { identityRunSql } from '../../core/models/identity-graph.ts';
import { modelOptions } from '../../core/models/models.ts';
import { sessionsRunSql } from '../../core/models/sessions.ts';
import { sha256 } from '../../core/pii.ts';
import { plan } from '../../core/plan.ts';
import {
  ERASURE_REQUESTS_PREFIX,
  type ErasureRequest,
  SUPPRESSION_OBJECT,
} from '../../core/privacy/erasure.ts';
import { messageRows, storeConfig } from '../../core/store/store.ts';
import { erasureHash, type Suppression, stripIdentifiers } from '../../core/suppression/erased.ts';
import { keptForExit } from '../../core/syncs/audience-events.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { erasureRuntime } from '../../functions/schedule/erasure-runtime.ts';
import { type ErasedPerson, erasureJob, SUPPRESSION_SETTLE_MS } from '../../functions/schedule/erasures.ts';
import type { ChunkContext } from '../../functions/schedule/runner.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { testSettings } from '../storage/support.ts';
import {
  type ModelsWarehouse,
  modelsWarehouse,
  opsRowsOfTwo,
  queryRows,
  storedRow,
} from './models-support.ts';

const T0 = Date.now() - 2 * 3600_000;
const TOKEN = { [CREDENTIAL_ATTRIBUTE]: 'token' };
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();

const A = { email: 'Ann@Example.com', phone: '+33 6 12 34 56 78', user: 'user-a', anon: 'anon-a' };
const B = { email: 'bob@example.com', phone: '+44 20 7946 0000', user: 'user-b', anon: 'anon-b' };

/** Every form of a person's identifiers a table could hold: raw, normalised, hashed. */
function forms(p: typeof A): string[] {
  const digits = p.phone.replace(/[^0-9]/g, '');
  const email = p.email.toLowerCase();
  return [
    email,
    email.replace('@', '%40'),
    sha256(email),
    p.phone,
    digits,
    `+${digits}`,
    sha256(digits),
    sha256(`+${digits}`),
    p.user,
    p.anon,
  ];
}

describe('erasure: a person leaves every table, and stays out (issue #61)', function () {
  this.timeout(120_000);
  const settings = testSettings({ pii: { hash_in_warehouse: ['user.phone'] } });
  const p = plan(settings);
  const config = storeConfig(settings, p);
  const fx = emulatorWithFreshBuckets('erasure');
  let warehouse: ModelsWarehouse;
  const table = (dataset: string, name: string) => warehouse.bigquery.dataset(dataset).table(name);
  const ops = p.ops.dataset;
  const syncModel = `SELECT user_id, user.email AS email FROM \`${settings.project}.${p.dataset}.events\` WHERE user_id IS NOT NULL`;

  before(async () => {
    warehouse = await modelsWarehouse(p, settings.project);
    const person = (x: typeof A, base: number) => [
      {
        event_name: 'page_view',
        anonymous_id: x.anon,
        page: { url: `https://shop.example/welcome?email=${encodeURIComponent(x.email)}` },
        device: { ip: base === 0 ? '203.0.113.7' : '198.51.100.9' },
      },
      { event_name: 'login', anonymous_id: x.anon, user_id: x.user },
      { event_name: 'sign_up', user_id: x.user, user: { email: x.email, phone: x.phone } },
    ];
    const events = [...person(A, 0), ...person(B, 3)].map((e, i) =>
      storedRow(config, i + 1, at(i), e, TOKEN),
    );
    // Streamed, as store writes them: in the streaming buffer for the emulator's 30 s.
    await table(p.dataset, 'events').insert(events, { raw: true });
    const options = modelOptions(settings);
    const upto = new Date(T0 + 60 * 60_000);
    for (const run of [identityRunSql(options, upto), sessionsRunSql(options, upto)])
      await queryRows(warehouse.bigquery, run.sql, run.params);
    const refused = (payload: Record<string, unknown>) => ({
      received_at: at(10),
      stored_at: at(10),
      reason: 'invalid_event',
      payload: JSON.stringify(payload),
    });
    await table(p.dataset, 'invalid_events').insert([
      refused({ event_name: 'purchase', user: { email: 'ann@example.com' } }),
      refused({ event_name: 'purchase', user_id: B.user }),
    ]);
    const failure = (n: number) => ({
      recorded_at: at(12),
      hook: 'fan_out',
      event_id: `e${n}`,
      event_name: 'login',
      error: 'boom',
    });
    await table(p.dataset, 'hook_failures').insert([failure(2), failure(5)]);
    await opsRowsOfTwo(warehouse.bigquery, ops, at(13), [A.user, B.user]);
    // A mirror sync's state as a run leaves it: the key's digest and, for deletions, the key.
    const pk = 'TO_JSON_STRING(STRUCT(m.user_id))';
    await queryRows(
      warehouse.bigquery,
      `CREATE TABLE \`${settings.project}.${ops}.sync_state__crm\` AS SELECT DISTINCT TO_HEX(SHA256(${pk})) AS __key, 'h' AS __hash, ${pk} AS __row, CURRENT_TIMESTAMP() AS synced_at FROM (${syncModel}) m`,
    );
    await queryRows(
      warehouse.bigquery,
      `CREATE TABLE \`${settings.project}.${ops}.sync_changes__crm\` AS SELECT 1 AS __n, TO_HEX(SHA256(${pk})) AS __key, ${pk} AS __pk, 'h' AS __hash, TO_JSON_STRING(m) AS __row, CAST(NULL AS STRING) AS __kept, 'upsert' AS __op FROM (${syncModel}) m`,
    );
    // An audience sync (Engage-style, mirror mode) keeps each member's key and consent for its
    // exit event (core/syncs/audience-events.ts): A's member has left the model (its exit not yet
    // sent), so only the kept [key, consent] names A; B's is current.
    const audience = { mode: 'mirror', primary_key: ['user_id'] } as unknown as SyncSpec;
    const kept = (user: string, n: number) =>
      keptForExit(audience, [
        {
          n,
          op: 'upsert',
          key: { user_id: user },
          data: { user_id: user, consent: { advertising: 'granted' } },
        },
      ]).get(n) ?? '';
    await queryRows(
      warehouse.bigquery,
      `CREATE TABLE \`${settings.project}.${ops}.sync_state__vip\` AS SELECT * FROM UNNEST([
         STRUCT('exit-pending' AS __key, 'h' AS __hash, @a AS __row, CURRENT_TIMESTAMP() AS synced_at),
         STRUCT(TO_HEX(SHA256(TO_JSON_STRING(STRUCT(@bu AS user_id)))), 'h', @b, CURRENT_TIMESTAMP())])`,
      { a: kept(A.user, 1), b: kept(B.user, 2), bu: B.user },
    );
  });
  after(() => warehouse?.close());

  /** The erasure job over the emulators, its clock `now`, with the platforms it told. */
  function job(bucket: Bucket, now: () => Date, told: ErasedPerson[]) {
    return erasureJob({
      ...erasureRuntime({ bigquery: warehouse.bigquery, bucket, dataset: p.dataset }),
      options: async () => ({
        project: settings.project,
        dataset: p.dataset,
        ops,
        identityGraph: true,
        actionRuns: false,
        syncs: [
          { name: 'crm', model: syncModel, primary_key: ['user_id'] },
          { name: 'vip', model: syncModel, primary_key: ['user_id'] },
        ],
      }),
      notify: async (person) => {
        told.push(person);
        return [
          {
            platform: 'ga4',
            target: 'ga4',
            status: 'sent',
            detail: 'deletionRequestTime 2026',
            at: now().toISOString(),
          },
        ];
      },
      now,
    });
  }
  const ctx = (): ChunkContext => ({
    run: { kind: 'Erasure', name: 'erasures', slot: new Date().toISOString(), trigger: 'schedule' },
    runId: 'Erasure/erasures',
    cursor: null,
    chunk: 0,
    now: new Date(),
    fence: async () => {},
  });

  /** Every row of every table of the product's datasets, as JSON. */
  async function everyRow(): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const dataset of [p.dataset, ops]) {
      const [tables] = await warehouse.bigquery.dataset(dataset).getTables();
      for (const t of tables) {
        if (t.metadata?.type === 'VIEW') continue;
        const rows = await queryRows(
          warehouse.bigquery,
          `SELECT TO_JSON_STRING(t) AS j FROM \`${settings.project}.${dataset}.${t.id}\` AS t`,
        );
        out.set(
          `${dataset}.${t.id}`,
          rows.map((r) => String(r['j'])),
        );
      }
    }
    return out;
  }
  const holding = (rows: Map<string, string[]>, needles: readonly string[]) =>
    [...rows].flatMap(([t, list]) =>
      needles
        .filter((n) => list.some((j) => j.toLowerCase().includes(n.toLowerCase())))
        .map((n) => `${t}: ${n}`),
    );

  it('waits for the streaming buffer, then leaves no trace of A in any table, B intact, and the counts in `erasures`', async () => {
    const before = await everyRow();
    assert.ok(holding(before, forms(A)).length >= 8, 'A is everywhere to begin with');
    const bBefore = holding(before, forms(B));
    const request = erasureRequest(['email:Ann@Example.com'], 'dpo@example.com', new Date());
    const name = `${ERASURE_REQUESTS_PREFIX}${request.erasure_id}.json`;
    await fx.bucket.file(name).save(JSON.stringify(request));
    let now = new Date();
    const told: ErasedPerson[] = [];
    const erasures = job(fx.bucket, () => now, told);
    assert.equal((await erasures.scheduled(now)).length, 1, 'a pending request schedules the job');

    const first = await erasures.chunk(ctx());
    assert.match(String(first.summary?.[request.erasure_id]), /waiting: .*events/);
    const pending = JSON.parse((await fx.bucket.file(name).download())[0].toString()) as ErasureRequest;
    assert.ok(pending.expanded?.includes(`user_id:${A.user}`), 'the graph and the events widened it');
    assert.ok(pending.expanded?.includes(`anonymous_id:${A.anon}`));
    const [audit] = await queryRows(
      warehouse.bigquery,
      `SELECT * FROM \`${settings.project}.${ops}.erasures\``,
    );
    assert.equal(audit?.['status'], 'pending');
    assert.equal(audit?.['requested_by'], 'dpo@example.com');
    // The erased list is out before any row goes: second-order hashes, never what platforms get.
    const list = JSON.parse((await fx.bucket.file(SUPPRESSION_OBJECT).download())[0].toString()) as {
      hashes: string[];
    };
    assert.ok(list.hashes.includes(erasureHash(`email:${sha256('ann@example.com')}`)));
    assert.ok(!list.hashes.includes(sha256('ann@example.com')));
    assert.equal(told.length, 1, 'the platforms are told once');
    assert.deepEqual(told[0]?.emails, ['ann@example.com']);

    // Too early (the buffer): nothing new; once the rows left it and the list settled, complete.
    const emulator = warehouse.bigquery.apiEndpoint;
    await fetch(`${emulator}/emulator/streaming-buffer:age`, { method: 'POST' });
    now = new Date(now.getTime() + SUPPRESSION_SETTLE_MS + 1000);
    const second = await erasures.chunk(ctx());
    assert.equal(second.summary?.[request.erasure_id], 'complete');
    assert.equal(
      (await fx.bucket.file(name).exists())[0],
      false,
      'the request (with the identifiers) is gone',
    );
    assert.equal(told.length, 1);

    const afterRows = await everyRow();
    assert.deepEqual(holding(afterRows, forms(A)), [], 'no table holds A');
    assert.deepEqual(holding(afterRows, forms(B)), bBefore, 'B is where B was');
    const [done] = await queryRows(
      warehouse.bigquery,
      `SELECT * FROM \`${settings.project}.${ops}.erasures\``,
    );
    assert.equal(done?.['status'], 'complete');
    assert.ok(done?.['completed_at']);
    const removed = JSON.parse(String(done?.['removed'])) as Record<string, number>;
    assert.deepEqual(Object.fromEntries(Object.entries(removed).filter(([, n]) => n > 0)), {
      [`${p.dataset}.events`]: 3,
      [`${p.dataset}.invalid_events`]: 1,
      [`${p.dataset}.hook_failures`]: 1,
      [`${p.dataset}.sessions`]: removed[`${p.dataset}.sessions`],
      [`${p.dataset}.identity_map`]: 4,
      [`${p.dataset}.identity_erasures`]: removed[`${p.dataset}.identity_erasures`],
      [`${ops}.gateway_refusals`]: 1,
      [`${ops}.sync_failed_rows`]: 1,
      [`${ops}.sync_state__crm`]: 1,
      // The audience member's kept key and consent, found by its kept JSON alone.
      [`${ops}.sync_state__vip`]: 1,
      // One row per model row: A’s login and sign-up.
      [`${ops}.sync_changes__crm`]: 2,
    });
    assert.ok((removed[`${p.dataset}.sessions`] ?? 0) >= 1);
    assert.deepEqual(
      JSON.parse(String(done?.['platforms'])).map((x: { status: string }) => x.status),
      ['sent'],
    );
    const hashes = done?.['identifier_hashes'] as string[];
    assert.ok(hashes.length >= 4 && hashes.every((h) => /^[0-9a-f]{64}$/.test(h)));
    for (const f of forms(A)) assert.ok(!hashes.includes(f), 'the audit keeps no value and no platform hash');

    // A's next event: stored (and so forwarded) without what identifies them; B's untouched.
    const suppression: Suppression = { hashes: new Set(list.hashes), mode: 'strip' };
    const withList = { ...config, suppression: () => suppression };
    const next = (event: Record<string, unknown>) =>
      messageRows(
        {
          messageId: `next-${event['event_name']}`,
          publishTime: new Date().toISOString(),
          data: Buffer.from(JSON.stringify(event)),
          attributes: {},
          subscription: 'events-store',
          deliveryAttempt: 1,
        },
        withList,
        Date.now(),
      );
    const a = next({
      event_name: 'purchase',
      value: 10,
      currency: 'EUR',
      transaction_id: 'T1',
      user: { email: 'ann@example.com' },
      anonymous_id: 'anon-new',
    });
    assert.equal(a.kind, 'event');
    const text = JSON.stringify(a);
    assert.ok(!text.includes('ann@example.com') && !text.includes(sha256('ann@example.com')), text);
    assert.ok(!text.includes('anon-new'), 'the event’s other identifiers go with it');
    const b = next({
      event_name: 'purchase',
      value: 10,
      currency: 'EUR',
      transaction_id: 'T2',
      user: { email: B.email },
    });
    assert.ok(JSON.stringify(b).includes(sha256(B.email)) || JSON.stringify(b).includes(B.email));
    const dropped = messageRows(
      {
        messageId: 'x',
        publishTime: new Date().toISOString(),
        data: Buffer.from(JSON.stringify({ event_name: 'login', user_id: A.user })),
        attributes: {},
        deliveryAttempt: 1,
        subscription: 'events-store',
      },
      { ...config, suppression: () => ({ ...suppression, mode: 'drop' }) },
      Date.now(),
    );
    assert.equal(dropped.kind, 'suppressed');
    assert.deepEqual(stripIdentifiers({ event_name: 'x', campaign: { utm_source: 's', fbclid: 'f' } }), {
      event_name: 'x',
      campaign: { utm_source: 's' },
    });
  });
});
