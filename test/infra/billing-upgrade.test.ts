/**
 * An upgrade keeps what is deployed (issues #76, #100; core/deploy/billing-kept.ts): the program
 * (infra/program.ts) under mocks, upgrading from the state each earlier program left. Each
 * fixture in test/fixtures/stack-states/ is what the program at that commit declared with its
 * own example settings (recorded by scripts/stack-state.ts, which runs that commit's program under
 * that commit's mocks); the new program reads it as the engine's
 * `pulumi:pulumi:readStackResourceOutputs` would list it, declares with the same settings, and
 * must neither change how `store` and `forward` run nor replace a data-bearing resource.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { billingStampProblems, keptFunctionOf } from '../../core/deploy/billing-kept.ts';
import type { Billing } from '../../core/deploy/cost.ts';
import { plan } from '../../core/plan.ts';
import { parseSettings } from '../../core/settings.ts';
import type { StackConfig } from '../../infra/config.ts';
import { NAMING_KEYS, type StackResource } from '../../infra/offline.ts';
import { type ProgramOutputs, program } from '../../infra/program.ts';
import type { Settings } from '../../schemas/settings.ts';
import { BUNDLES, declare, ofType, type Recorded } from './support.ts';
import { example } from './support-functions.ts';

const FUNCTION = 'gcp:cloudfunctionsv2/function:Function';
const SERVICE = 'gcp:cloudrunv2/service:Service';
const STATES = join(import.meta.dirname, '..', 'fixtures', 'stack-states');

/**
 * What each recorded release runs `store` and `forward` as, written here by hand from the history
 * (not derived from the fixture): 0ce37e97 is the last program whose rule chose instance billing
 * from the peak rate (5,000/s on the example: both instance); 56188c8b deployed Cloud Functions
 * unless `cost.billing` said otherwise, and exported no `billing`. A fixture added for a release
 * tag needs its line here.
 */
const RUNS: Readonly<Record<string, Billing>> = {
  '0ce37e97': 'instance',
  '56188c8b': 'request',
  // v0.2.0: Cloud Functions unless cost.billing says otherwise; the example says nothing.
  '9bd8104b': 'request',
};

/** The resource types that hold data: replacing one loses or moves it. */
const DATA_BEARING = [
  'gcp:bigquery/dataset:Dataset',
  'gcp:bigquery/table:Table',
  'gcp:pubsub/topic:Topic',
  'gcp:pubsub/subscription:Subscription',
  'gcp:storage/bucket:Bucket',
  'gcp:firestore/database:Database',
  'gcp:secretmanager/secret:Secret',
];

interface StateFixture {
  readonly commit: string;
  readonly settingsText: string;
  readonly resources: readonly StackResource[];
}

const fixtures = readdirSync(STATES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({
    id: f.replace(/\.json$/, ''),
    ...(JSON.parse(readFileSync(join(STATES, f), 'utf8')) as StateFixture),
  }));

const configOf = (settings: Settings): StackConfig => ({
  project: settings.project,
  region: settings.region,
  settingsFile: 'environments/example.yaml',
  settings,
  plan: plan(settings),
});

const parsed = (text: string): Settings => {
  const loaded = parseSettings(text);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.settings;
};

/** Every earlier release exported `gatewayUrl`; none before this one exported `billing`. */
const DEPLOYED = { gatewayUrl: 'https://gateway-123456789012.europe-west1.run.app', dataset: 'events' };

async function upgrade(
  settings: Settings,
  stackResources: readonly StackResource[] | undefined,
): Promise<{ recorded: Recorded; billing: ProgramOutputs['billing'] }> {
  let out: ProgramOutputs | undefined;
  const recorded = await declare(
    async () => {
      out = await program(configOf(settings), BUNDLES);
    },
    stackResources ? { stackOutputs: DEPLOYED, stackResources } : {},
  );
  assert.ok(out);
  return { recorded, billing: out.billing };
}

/** How store and forward are declared: a Cloud Function (request) or a Cloud Run service (instance). */
function shapes(recorded: Recorded): Record<'store' | 'forward', Billing | 'both' | 'none'> {
  const shape = (f: string) => {
    const fn = ofType(recorded, FUNCTION).some((r) => r.name.endsWith(`-function-${f}`));
    const service = ofType(recorded, SERVICE).some((r) => r.name.endsWith(`-service-${f}`));
    return fn && service ? 'both' : fn ? 'request' : service ? 'instance' : 'none';
  };
  return { store: shape('store'), forward: shape('forward') };
}

const naming = (values: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(NAMING_KEYS.flatMap((k) => (typeof values[k] === 'string' ? [[k, values[k]]] : [])));

describe('infra: an upgrade keeps what each earlier release deployed', () => {
  it('has a recorded state for every release it names, and names every recorded state', () => {
    assert.deepEqual(fixtures.map((f) => f.id).sort(), Object.keys(RUNS).sort());
  });

  for (const fixture of fixtures) {
    describe(`from the state ${fixture.id} left`, () => {
      let recorded: Recorded;
      let billing: ProgramOutputs['billing'];
      before(async () => {
        ({ recorded, billing } = await upgrade(parsed(fixture.settingsText), fixture.resources));
      });

      it('runs store and forward as that release did', () => {
        const runs = RUNS[fixture.id];
        assert.deepEqual(shapes(recorded), { store: runs, forward: runs });
        assert.deepEqual(billing, { store: runs, forward: runs });
      });

      it('stamps what it kept and why on store and forward, as the policy eventbus-billing-kept checks', () => {
        const runs = RUNS[fixture.id];
        const deployables = recorded.resources.filter((r) => keptFunctionOf(r.type, r.name));
        assert.equal(deployables.length, 2, 'one deployable each for store and forward');
        for (const r of deployables) {
          assert.deepEqual(billingStampProblems(r.type, r.name, r.inputs['labels'] as never), []);
          assert.deepEqual(
            Object.fromEntries(
              Object.entries(r.inputs['labels'] as Record<string, string>).filter(([k]) =>
                k.startsWith('eventbus-billing'),
              ),
            ),
            { 'eventbus-billing': runs, 'eventbus-billing-deployed': runs, 'eventbus-billing-by': 'state' },
          );
        }
      });

      it('replaces no data-bearing resource', () => {
        const before = fixture.resources.filter((r) => DATA_BEARING.includes(r.type));
        assert.ok(before.length > 10, `${before.length} data-bearing resources recorded`);
        for (const old of before) {
          const name = old.urn.slice(old.urn.lastIndexOf('::') + 2);
          const now = recorded.resources.find((r) => r.type === old.type && r.name === name);
          assert.ok(now, `${old.type} ${name} is no longer declared`);
          assert.deepEqual(naming(now.inputs), naming(old.outputs ?? {}), `${name} is renamed`);
        }
      });
    });
  }

  it('switches only what the settings now state', async () => {
    const state = fixtures.find((f) => f.id === '0ce37e97');
    assert.ok(state);
    const settings = parsed(state.settingsText);
    const { recorded, billing } = await upgrade(
      { ...settings, cost: { ...settings.cost, billing: { store: 'request' } } },
      state.resources,
    );
    assert.deepEqual(shapes(recorded), { store: 'request', forward: 'instance' });
    assert.deepEqual(billing, { store: 'request', forward: 'instance' });
  });

  it('gives a new stack the design’s default: Cloud Functions', async () => {
    const { recorded, billing } = await upgrade(example(), undefined);
    assert.deepEqual(shapes(recorded), { store: 'request', forward: 'request' });
    assert.deepEqual(billing, { store: 'request', forward: 'request' });
  });
});
