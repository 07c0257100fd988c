/**
 * What the identity graph believes (issue #61, docs/sessions.md "Whose word joins persons"), on
 * the BigQuery emulator: events stored as the store function stores them, with the `credential`
 * attribute the gateway writes, then the identity run's script. A write key is public: its events
 * may attach their anonymous id to one person, never join two persons (the red-team's
 * `{anonymous_id: evil, user_id: v1}` + `{anonymous_id: evil, user.email: victim2}`); a project
 * token's events are trusted and join. A rule's copy of an event and an event reusing another's
 * event_id bring no evidence of their own. Erasing one of two persons leaves the other alone.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CREDENTIAL_ATTRIBUTE } from '../../core/event.ts';
import { identityRunSql } from '../../core/models/identity-graph.ts';
import { modelOptions } from '../../core/models/models.ts';
import { plan } from '../../core/plan.ts';
import { storeConfig } from '../../core/store/store.ts';
import { testSettings } from '../storage/support.ts';
import {
  eraseFromModels,
  type ModelsWarehouse,
  modelsWarehouse,
  queryRows,
  storedRow,
} from './models-support.ts';

const T0 = Date.parse('2026-11-24T08:00:00.000Z');
const KEY = { [CREDENTIAL_ATTRIBUTE]: 'key' };
const TOKEN = { [CREDENTIAL_ATTRIBUTE]: 'token' };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const email = (address: string) => `email:${sha256(address)}`;

describe('models: the identity graph trusts only trusted credentials (issue #61)', function () {
  this.timeout(120_000);
  const settings = testSettings();
  const p = plan(settings);
  const config = storeConfig(settings, p);
  const options = modelOptions(settings);
  let warehouse: ModelsWarehouse;
  /** Minutes after T0: each stored event takes the next one, each run moves past them. */
  let minute = 0;
  let n = 0;

  const rows = (sql: string, params?: Record<string, unknown>) => queryRows(warehouse.bigquery, sql, params);

  /** Stores events as `store` does, one a minute, each with its message attributes. */
  async function store(events: readonly (readonly [Record<string, string>, Record<string, unknown>])[]) {
    const out = events.map(([attributes, e]) =>
      storedRow(config, ++n, new Date(T0 + minute++ * 60_000).toISOString(), e, attributes),
    );
    await warehouse.bigquery.dataset(p.dataset).table('events').insert(out, { raw: true });
  }

  /** One identity run over everything stored so far; its figures. */
  async function runIdentity(): Promise<Record<string, unknown>> {
    minute += 5;
    const run = identityRunSql(options, new Date(T0 + minute * 60_000));
    minute += 5;
    const out = await rows(run.sql, run.params);
    return out.at(-1) ?? {};
  }

  async function personOf(identifier: string): Promise<string | undefined> {
    const [row] = await rows(
      `SELECT person_id FROM \`${settings.project}.${p.dataset}.identity_map\` WHERE identifier = @identifier`,
      { identifier },
    );
    return row?.['person_id'] as string | undefined;
  }

  before(async () => {
    warehouse = await modelsWarehouse(p, settings.project);
  });
  after(() => warehouse?.close());

  it('write-key events: an anonymous id seen with two strangers joins neither to the other, and erasing one leaves the other', async () => {
    // Two strangers, known to the shop's server.
    await store([
      [TOKEN, { event_name: 'login', user_id: 'v1' }],
      [TOKEN, { event_name: 'sign_up', user: { email: 'victim2@example.com' } }],
    ]);
    await runIdentity();
    // The red team's visitor, through the public write key, one run after the other.
    await store([[KEY, { event_name: 'login', anonymous_id: 'evil', user_id: 'v1' }]]);
    await runIdentity();
    await store([
      [KEY, { event_name: 'sign_up', anonymous_id: 'evil', user: { email: 'victim2@example.com' } }],
    ]);
    await runIdentity();
    const v1 = await personOf('user_id:v1');
    const victim2 = await personOf(email('victim2@example.com'));
    assert.ok(v1 && victim2);
    assert.notEqual(v1, victim2, 'two strangers stay two persons');
    // The anonymous id attached itself to the first person it claimed, and stayed there.
    assert.equal(await personOf('anonymous_id:evil'), v1);

    await eraseFromModels(warehouse.bigquery, p, settings.project, ['user_id:v1']);
    assert.equal(await personOf('user_id:v1'), undefined);
    assert.equal(await personOf(email('victim2@example.com')), victim2, 'the other stranger is not erased');
    const blocked = await rows(
      `SELECT identifier_hash FROM \`${settings.project}.${p.dataset}.identity_erasures\``,
    );
    assert.ok(!blocked.some((r) => r['identifier_hash'] === sha256(email('victim2@example.com'))));
  });

  it('write-key events: two in one run, or one naming two strangers, join nobody', async () => {
    await store([
      [KEY, { event_name: 'login', anonymous_id: 'evil-4', user_id: 'a4' }],
      [KEY, { event_name: 'sign_up', anonymous_id: 'evil-4', user: { email: 'b4@example.com' } }],
      [
        KEY,
        { event_name: 'sign_up', anonymous_id: 'evil-5', user_id: 'a5', user: { email: 'b5@example.com' } },
      ],
      [KEY, { event_name: 'sign_up', user_id: 'a6', user: { phone: '+33 6 12 34 56 78' } }],
    ]);
    await runIdentity();
    const [a4, b4, a5, b5, a6] = await Promise.all(
      ['user_id:a4', email('b4@example.com'), 'user_id:a5', email('b5@example.com'), 'user_id:a6'].map(
        personOf,
      ),
    );
    assert.ok(a4 && b4 && a5 && b5 && a6);
    assert.notEqual(a4, b4);
    assert.notEqual(a5, b5);
    assert.notEqual(a6, await personOf(`phone:${sha256('33612345678')}`));
    // The earliest event's user id wins the anonymous id; a user id before an e-mail on one event.
    assert.equal(await personOf('anonymous_id:evil-4'), a4);
    assert.equal(await personOf('anonymous_id:evil-5'), a5);
  });

  it('the same pair through a project token is the shop’s word: merged', async () => {
    await store([
      [TOKEN, { event_name: 'login', user_id: 'w1' }],
      [TOKEN, { event_name: 'sign_up', user: { email: 'w2@example.com' } }],
    ]);
    await runIdentity();
    await store([
      [TOKEN, { event_name: 'login', anonymous_id: 'crm-7', user_id: 'w1' }],
      [TOKEN, { event_name: 'sign_up', anonymous_id: 'crm-7', user: { email: 'w2@example.com' } }],
    ]);
    const figures = await runIdentity();
    assert.equal(figures['merged'], 1, JSON.stringify(figures));
    const w1 = await personOf('user_id:w1');
    assert.ok(w1);
    assert.equal(await personOf(email('w2@example.com')), w1);
    assert.equal(await personOf('anonymous_id:crm-7'), w1);
  });

  it('a browser’s anonymous id attaches to one known person, the merge recorded', async () => {
    await store([
      [TOKEN, { event_name: 'login', user_id: 'w3', user: { email: 'w3@example.com' } }],
      [KEY, { event_name: 'page_view', anonymous_id: 'phone-9', page: { url: 'https://shop.example/' } }],
    ]);
    await runIdentity();
    const browser = await personOf('anonymous_id:phone-9');
    const w3 = await personOf('user_id:w3');
    assert.ok(browser && w3 && browser !== w3);
    await store([[KEY, { event_name: 'login', anonymous_id: 'phone-9', user_id: 'w3' }]]);
    const figures = await runIdentity();
    assert.equal(figures['merged'], 1, JSON.stringify(figures));
    assert.equal(await personOf('anonymous_id:phone-9'), w3);
    const merges = await rows(
      `SELECT current_person_id FROM \`${settings.project}.${p.dataset}.identity_merges\` WHERE old_person_id = @browser`,
      { browser },
    );
    assert.deepEqual(merges, [{ current_person_id: w3 }]);
    // Once attached, another login on that browser moves nothing.
    await store([[KEY, { event_name: 'login', anonymous_id: 'phone-9', user_id: 'w4' }]]);
    await runIdentity();
    assert.equal(await personOf('anonymous_id:phone-9'), w3);
    assert.notEqual(await personOf('user_id:w4'), w3);
  });

  it('a rule’s copy of a browser event, and an event reusing a server event’s id, join nobody', async () => {
    const rule = { origin: 'Rule/copy-logins', hops: '1' };
    await store([
      [
        TOKEN,
        {
          event_name: 'purchase',
          event_id: 'order-8',
          user_id: 'a8',
          transaction_id: 'T8',
          value: 1,
          currency: 'EUR',
        },
      ],
      [
        KEY,
        {
          event_name: 'purchase',
          event_id: 'order-8',
          user_id: 'b8',
          transaction_id: 'T8',
          value: 1,
          currency: 'EUR',
        },
      ],
      [rule, { event_name: 'login', anonymous_id: 'evil-9', user_id: 'a9' }],
      [rule, { event_name: 'login', anonymous_id: 'evil-9', user: { email: 'b9@example.com' } }],
    ]);
    await runIdentity();
    const [a8, b8, a9, b9] = await Promise.all(
      ['user_id:a8', 'user_id:b8', 'user_id:a9', email('b9@example.com')].map(personOf),
    );
    assert.ok(a8 && b8 && a9 && b9);
    assert.notEqual(a8, b8);
    assert.notEqual(a9, b9);
  });
});
