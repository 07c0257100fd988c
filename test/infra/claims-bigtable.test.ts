/**
 * The send-once claims in Cloud Bigtable under Pulumi's mocks (infra/claims-bigtable.ts,
 * `claims.store: bigtable`): the instance plan().claims.bigtable names, deletion-protected, with
 * one cluster of the planned zone, nodes and storage; the `claims` table with the adapter's
 * family, deletion-protected; the family's GC rule; roles/bigtable.user on the table for the
 * workloads that hold Firestore's claims grant; both Bigtable APIs enabled first. And the switch
 * of a deployed stack (the state v0.2.0 left, with Firestore claims): the database and its fields
 * are declared again unchanged, the Bigtable resources are additions, the functions wait for them.
 * And the access table (core/access/needs.ts): the claims' Bigtable calls are granted by what is
 * declared, and the gateway and the studio cannot write claims.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAIM_FAMILY, CLAIM_MAX_AGE_SECONDS } from '../../adapters/bigtable-claims.ts';
import { accessNeeds } from '../../core/access/needs.ts';
import { plan } from '../../core/plan.ts';
import { parseSettings } from '../../core/settings.ts';
import type { StackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { NAMING_KEYS, type StackResource } from '../../infra/offline.ts';
import type { Settings } from '../../schemas/settings.ts';
import { isBinding, policiesOf, unmet } from './access-support.ts';
import { BUNDLES, type Declared, declare, dependenciesOf, forwardAfter, ofType, urnOf } from './support.ts';

const INSTANCE = 'gcp:bigtable/instance:Instance';
const TABLE = 'gcp:bigtable/table:Table';
const GC = 'gcp:bigtable/gCPolicy:GCPolicy';
const TABLE_MEMBER = 'gcp:bigtable/tableIamMember:TableIamMember';
const DATABASE = 'gcp:firestore/database:Database';
const FIELD = 'gcp:firestore/field:Field';
const MEMBER = 'gcp:projects/iAMMember:IAMMember';
const SERVICE = 'gcp:projects/service:Service';
const STATE = join(import.meta.dirname, '..', 'fixtures', 'stack-states', '9bd8104b.json');

const parsed = (text: string): Settings => {
  const loaded = parseSettings(text);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.settings;
};

const configOf = (settings: Settings): StackConfig => ({
  project: settings.project,
  region: settings.region,
  settingsFile: 'environments/example.yaml',
  settings,
  plan: plan(settings),
});

const exampleText = () =>
  readFileSync(join(import.meta.dirname, '..', '..', 'environments', 'example.yaml'), 'utf8');
const withBigtable = (text: string, extra = '') => `${text}\nclaims:\n  store: bigtable\n${extra}`;

const whoOf = (members: readonly Declared[]) =>
  members.map((g) => /eventbus-([a-z-]+)@/.exec(String(g.inputs['member']))?.[1]).sort();

describe('infra: the claims in Bigtable (claims.store: bigtable)', () => {
  it('declares nothing of Bigtable for the default store', async () => {
    const recorded = await declare(() => declareEnvironment(configOf(parsed(exampleText())), BUNDLES));
    for (const type of [INSTANCE, TABLE, GC, TABLE_MEMBER])
      assert.equal(ofType(recorded, type).length, 0, type);
    assert.ok(!ofType(recorded, SERVICE).some((s) => String(s.inputs['service']).startsWith('bigtable')));
  });

  it('the instance, table, GC rule and table grants the plan names, after the APIs', async () => {
    const settings = parsed(withBigtable(exampleText(), '  bigtable: { nodes: 2, storage: HDD }\n'));
    const config = configOf(settings);
    const bt = config.plan.claims.bigtable;
    assert.ok(bt);
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));

    const [instance, ...moreInstances] = ofType(recorded, INSTANCE);
    assert.ok(instance);
    assert.equal(moreInstances.length, 0);
    assert.equal(instance.inputs['name'], bt.instance);
    assert.equal(instance.inputs['project'], settings.project);
    assert.equal(instance.inputs['deletionProtection'], true);
    assert.deepEqual(instance.inputs['clusters'], [
      { clusterId: `${settings.region}-b`, zone: `${settings.region}-b`, numNodes: 2, storageType: 'HDD' },
    ]);

    const [table, ...moreTables] = ofType(recorded, TABLE);
    assert.ok(table);
    assert.equal(moreTables.length, 0);
    assert.equal(table.inputs['name'], 'claims');
    assert.equal(table.inputs['instanceName'], bt.instance);
    assert.equal(table.inputs['deletionProtection'], 'PROTECTED');
    assert.deepEqual(table.inputs['columnFamilies'], [{ family: CLAIM_FAMILY }]);

    const [gc, ...moreGc] = ofType(recorded, GC);
    assert.ok(gc);
    assert.equal(moreGc.length, 0);
    assert.equal(gc.inputs['columnFamily'], CLAIM_FAMILY);
    assert.equal(gc.inputs['table'], 'claims');
    assert.deepEqual(gc.inputs['maxAge'], { duration: `${CLAIM_MAX_AGE_SECONDS / 3600}h` });
    assert.equal(CLAIM_MAX_AGE_SECONDS / 3600, 192, 'seven days of claims and a day more');

    // The same workloads as Firestore's claims grant: store and the deliverers.
    const grants = ofType(recorded, TABLE_MEMBER);
    const firestoreGrants = ofType(recorded, MEMBER).filter(
      (m) => m.inputs['role'] === 'roles/datastore.user',
    );
    assert.ok(grants.length >= 2);
    assert.deepEqual(whoOf(grants), whoOf(firestoreGrants));
    assert.ok(whoOf(grants).includes('store') && whoOf(grants).includes('forward'));
    for (const g of grants) {
      assert.equal(g.inputs['role'], 'roles/bigtable.user');
      assert.equal(g.inputs['table'], 'claims');
      assert.equal(g.inputs['instanceName'], bt.instance);
    }

    for (const api of ['bigtableadmin.googleapis.com', 'bigtable.googleapis.com']) {
      const service = ofType(recorded, SERVICE).find((s) => s.inputs['service'] === api);
      assert.ok(service, `${api} is enabled`);
      assert.ok(dependenciesOf(recorded, urnOf(recorded, instance)).has(urnOf(recorded, service)), api);
    }
  });

  it('switching a deployed stack keeps the Firestore claims and adds Bigtable', async () => {
    const state = JSON.parse(readFileSync(STATE, 'utf8')) as {
      settingsText: string;
      resources: readonly StackResource[];
    };
    const old = state.resources.filter((r) => r.type === DATABASE || r.type === FIELD);
    assert.ok(
      old.some((r) => r.type === DATABASE),
      'the old state has the Firestore claims database',
    );
    assert.ok(!state.resources.some((r) => r.type.startsWith('gcp:bigtable')));

    const config = configOf(parsed(withBigtable(state.settingsText)));
    const recorded = await declare(() => declareEnvironment(config, BUNDLES), {
      stackOutputs: { gatewayUrl: 'https://gateway-123456789012.europe-west1.run.app', dataset: 'events' },
      stackResources: state.resources,
    });
    const naming = (values: Readonly<Record<string, unknown>>) =>
      Object.fromEntries(NAMING_KEYS.flatMap((k) => (typeof values[k] === 'string' ? [[k, values[k]]] : [])));
    for (const r of old) {
      const name = r.urn.slice(r.urn.lastIndexOf('::') + 2);
      const now = recorded.resources.find((d) => d.type === r.type && d.name === name);
      assert.ok(now, `${r.type} ${name} is kept`);
      assert.deepEqual(naming(now.inputs), naming(r.outputs ?? {}), `${name} is not renamed`);
    }
    const oldNames = new Set(state.resources.map((r) => r.urn.slice(r.urn.lastIndexOf('::') + 2)));
    const added = recorded.resources.filter((d) => d.type.startsWith('gcp:bigtable'));
    assert.deepEqual(
      [...new Set(added.map((d) => d.type))].sort(),
      [GC, INSTANCE, TABLE, TABLE_MEMBER].sort(),
    );
    for (const d of added) assert.ok(!oldNames.has(d.name), `${d.name} is new`);

    // Code that claims runs only once its table grant exists.
    const grant = ofType(recorded, TABLE_MEMBER)[0] as Declared;
    assert.ok(forwardAfter(recorded, grant), 'forward after its Bigtable grant');
  });

  it("grants each workload's Bigtable calls, and refuses the gateway's and the studio's", async () => {
    const config = configOf(parsed(withBigtable(exampleText())));
    const bt = config.plan.claims.bigtable;
    assert.ok(bt);
    const recorded = await declare(() => declareEnvironment(config, BUNDLES));
    const needs = accessNeeds(config.plan, config.settings);
    const table = `projects/${config.project}/instances/${bt.instance}/tables/claims`;
    const onTable = needs.filter((n) => n.resource === table);
    const granted = onTable.filter((n) => !n.denied).map((n) => `${n.who} ${n.permission}`);
    const deliverers = config.plan.functions.map((f) => f.name).filter((n) => n.startsWith('forward'));
    assert.deepEqual(
      granted.sort(),
      ['store', ...deliverers]
        .flatMap((w) => [`${w} bigtable.tables.mutateRows`, `${w} bigtable.tables.readRows`])
        .sort(),
    );
    assert.deepEqual(
      onTable
        .filter((n) => n.denied)
        .map((n) => n.who)
        .sort(),
      ['gateway', 'studio'],
    );
    const policies = policiesOf(recorded.resources.filter(isBinding), config.project);
    assert.deepEqual(unmet(needs, policies, config.project), []);
  });
});
