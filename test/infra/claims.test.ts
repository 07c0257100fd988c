/**
 * The send-once claims' Firestore database under Pulumi's mocks (infra/claims.ts): the database
 * plan().claims names, in the region, delete-protected in production; a TTL policy on expire_at
 * for identities and sends, and every field the code writes into a claim exempt from indexing; roles/datastore.user for store and the
 * deliverers only, conditioned on this database; firestore.googleapis.com enabled first. And the
 * upgrade from a release without claims (old state → new program): everything the old program
 * declared is declared again unchanged in name and type, the claims are additions only, the API
 * wait runs again for the new API, and the functions wait for the claims' grants.
 */
import assert from 'node:assert/strict';
import { claimDocument } from '../../adapters/firestore-claims.ts';
import { createIdentityClaims } from '../../adapters/identity-claims.ts';
import { claimSend, settleFirst, settleSend } from '../../core/claims/send-once.ts';
import { createConsentWait } from '../../core/delivery/consent-wait.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { memoryClaims } from '../support/memory-claims.ts';
import {
  BUNDLES,
  type Declared,
  declare,
  dependenciesOf,
  forwardAfter,
  ofType,
  SETTINGS_FILES,
  urnOf,
} from './support.ts';

const DATABASE = 'gcp:firestore/database:Database';
const FIELD = 'gcp:firestore/field:Field';
const MEMBER = 'gcp:projects/iAMMember:IAMMember';
const SERVICE = 'gcp:projects/service:Service';
const SLEEP = 'time:index/sleep:Sleep';

/**
 * The fields of every claim document the code writes (collection.field), through the Firestore
 * adapter's own document body: the send-once claim taken, settled and written by a first fan-out,
 * and an identity claim.
 */
async function writtenClaimFields(): Promise<Set<string>> {
  const store = memoryClaims();
  const id = 'a'.repeat(64);
  const now = Date.now();
  const r = {
    store,
    id,
    holder: 'm1',
    attempt: 2,
    now,
    timeoutMs: 1000,
    force: false,
    privileged: false,
    horizon: undefined,
  };
  const v = await claimSend(r);
  assert.ok(v.go && v.ticket);
  await settleSend(store, v.ticket, 'delivered', 'HTTP 200');
  await settleFirst({ ...r, id: 'b'.repeat(64), detail: 'HTTP 200' });
  await createIdentityClaims(store)({
    digest: 'c'.repeat(64),
    event_time: '2026-11-27T00:00:00Z',
    message_id: 'm1',
  });
  // An event decided before its consent platform answered waits in its page view's record.
  const early = {
    event_name: 'page_view',
    event_id: 'e1',
    event_time: '2026-11-27T00:00:00Z',
    anonymous_id: 'a1',
  };
  const ga4 = { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-1' } } as const;
  await createConsentWait({
    settings: { name: 't', project: 'p', region: 'r', destinations: [ga4] },
    records: store,
    publish: async () => {},
  })(
    [],
    [{ event: { ...early, event_data: {} }, destination: 'ga4', reason: 'consent analytics missing' }],
    now,
  );
  const out = new Set<string>();
  for (const [name, held] of store.records) {
    const space = name.slice(0, name.indexOf('/'));
    for (const field of Object.keys(claimDocument(held.fields, held.expireAt).fields))
      out.add(`${space}.${field}`);
  }
  return out;
}

describe('infra: the claims database (Firestore)', () => {
  for (const { settingsFile, project, region } of SETTINGS_FILES)
    it(`${settingsFile}: database, TTL fields and conditioned grants`, async () => {
      const config = loadStackConfig({ project, region, settingsFile });
      const recorded = await declare(() => declareEnvironment(config, BUNDLES));
      const { claims, production } = config.plan;
      const [db, ...others] = ofType(recorded, DATABASE);
      assert.ok(db);
      assert.equal(others.length, 0);
      assert.equal(db.inputs['name'], claims.database);
      assert.equal(db.inputs['locationId'], region);
      assert.equal(db.inputs['type'], 'FIRESTORE_NATIVE');
      assert.equal(
        db.inputs['deleteProtectionState'],
        production ? 'DELETE_PROTECTION_ENABLED' : 'DELETE_PROTECTION_DISABLED',
      );
      assert.equal(db.inputs['deletionPolicy'], production ? 'ABANDON' : 'DELETE');

      const fields = ofType(recorded, FIELD);
      const ttl = fields.filter((f) => f.inputs['ttlConfig'] !== undefined);
      assert.deepEqual(ttl.map((f) => f.inputs['collection']).sort(), ['identities', 'pending', 'sends']);
      for (const f of ttl) {
        assert.equal(f.inputs['field'], 'expire_at');
        assert.deepEqual(f.inputs['ttlConfig'], {});
      }
      for (const f of fields) {
        assert.deepEqual(f.inputs['indexConfig'], {}, 'no single-field index: nothing queries claims');
        assert.equal(f.inputs['database'], claims.database);
      }
      // Every field the code writes into a claim is declared exempt from indexing.
      const declared = new Set(fields.map((f) => `${f.inputs['collection']}.${f.inputs['field']}`));
      const written = await writtenClaimFields();
      assert.ok(written.size >= 9, [...written].join(', '));
      for (const w of written) assert.ok(declared.has(w), `${w} is written but not exempt from indexing`);

      const grants = ofType(recorded, MEMBER).filter((m) => m.inputs['role'] === 'roles/datastore.user');
      const who = grants.map((g) => /eventbus-([a-z-]+)@/.exec(String(g.inputs['member']))?.[1]).sort();
      const deliverers = config.plan.functions.map((f) => f.name).filter((n) => n.startsWith('forward'));
      assert.deepEqual(who, ['store', ...deliverers].sort());
      for (const g of grants)
        assert.equal(
          (g.inputs['condition'] as { expression: string }).expression,
          `resource.name == "projects/${project}/databases/${claims.database}"`,
        );

      const api = ofType(recorded, SERVICE).find((s) => s.inputs['service'] === 'firestore.googleapis.com');
      assert.ok(api, 'firestore.googleapis.com is enabled');
      assert.ok(
        dependenciesOf(recorded, urnOf(recorded, db)).has(urnOf(recorded, api)),
        'the API before the database',
      );
    });

  it('upgrades a release without claims by additions only', async () => {
    const { settingsFile, project, region } = SETTINGS_FILES[0];
    const config = loadStackConfig({ project, region, settingsFile });
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));
    const isClaims = (d: Declared) =>
      d.type === DATABASE ||
      d.type === FIELD ||
      d.type === 'eventbus:infra:Claims' ||
      (d.type === MEMBER && d.inputs['role'] === 'roles/datastore.user') ||
      (d.type === SERVICE && d.inputs['service'] === 'firestore.googleapis.com');
    const added = recorded.resources.filter(isClaims);
    // Every addition is new: no resource of the previous release is renamed into one of them.
    const names = recorded.resources.map((r) => `${r.type} ${r.name}`);
    assert.equal(new Set(names).size, names.length, 'logical names are unique');
    const resources = added.filter((d) => d.type !== 'eventbus:infra:Claims');
    assert.ok(
      resources.every((d) => d.name.includes('-claims') || d.name.endsWith('-api-firestore')),
      JSON.stringify(resources.map((d) => `${d.type} ${d.name}`)),
    );
    // The old state's API wait had no Firestore: the new list replaces the sleep, so the
    // database is created only after the newly enabled API has settled.
    const sleep = ofType(recorded, SLEEP)[0] as Declared;
    assert.match((sleep.inputs['triggers'] as { apis: string }).apis, /firestore\.googleapis\.com/);
    const db = ofType(recorded, DATABASE)[0] as Declared;
    assert.ok(dependenciesOf(recorded, urnOf(recorded, db)).has(urnOf(recorded, sleep)));
    // Code that claims (the functions) is updated only once the grants exist.
    const grant = added.find((d) => d.type === MEMBER) as Declared;
    assert.ok(forwardAfter(recorded, grant), 'forward after its claims grant');
  });
});
