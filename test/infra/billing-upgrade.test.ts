/**
 * The billing a stack runs survives an upgrade unless the settings change it (issue #76,
 * core/deploy/billing-kept.ts): the program (infra/program.ts) under mocks, the stack's last
 * outputs answered as its StackReference to itself reads them — a stack the previous release
 * deployed (no `billing` output: its rule chose instance-based at the default peak), one this
 * release deployed (its `billing` output), and a new stack.
 */
import assert from 'node:assert/strict';
import type { Billing } from '../../core/deploy/cost.ts';
import { plan } from '../../core/plan.ts';
import type { StackConfig } from '../../infra/config.ts';
import { type ProgramOutputs, program } from '../../infra/program.ts';
import type { Settings } from '../../schemas/settings.ts';
import { BUNDLES, declare, ofType, type Recorded } from './support.ts';
import { example } from './support-functions.ts';

const FUNCTION = 'gcp:cloudfunctionsv2/function:Function';
const SERVICE = 'gcp:cloudrunv2/service:Service';
/** What a stack the previous release deployed exports: no `billing`. */
const TURN_4_OUTPUTS = { gatewayUrl: 'https://gateway-123456789012.europe-west1.run.app', dataset: 'events' };

const configOf = (settings: Settings): StackConfig => ({
  project: settings.project,
  region: settings.region,
  settingsFile: 'environments/example.yaml',
  settings,
  plan: plan(settings),
});

async function upgrade(
  settings: Settings,
  stackOutputs: Record<string, unknown>,
): Promise<{ recorded: Recorded; billing: ProgramOutputs['billing'] }> {
  let out: ProgramOutputs | undefined;
  const recorded = await declare(
    async () => {
      out = await program(configOf(settings), BUNDLES);
    },
    { stackOutputs },
  );
  assert.ok(out);
  return { recorded, billing: out.billing };
}

/** How store and forward are declared: a Cloud Function (request) or a Cloud Run service (instance). */
function shapes(recorded: Recorded): Record<'store' | 'forward', Billing | 'both' | 'none'> {
  const shape = (f: string) => {
    const fn = ofType(recorded, FUNCTION).some((r) => r.inputs['name'] === `${f}-function`);
    const service = ofType(recorded, SERVICE).some((r) => r.inputs['name'] === `${f}-service`);
    return fn && service ? 'both' : fn ? 'request' : service ? 'instance' : 'none';
  };
  return { store: shape('store'), forward: shape('forward') };
}

describe('infra: an upgrade keeps the billing a stack runs unless the settings change it', () => {
  it('keeps a stack the previous release deployed instance-billed (its rule at the default peak)', async () => {
    const settings = example();
    assert.equal(settings.cost?.billing, undefined, 'the example states no billing');
    const { recorded, billing } = await upgrade(settings, TURN_4_OUTPUTS);
    assert.deepEqual(shapes(recorded), { store: 'instance', forward: 'instance' });
    assert.deepEqual(billing, { store: 'instance', forward: 'instance' });
  });

  it('switches only what the settings now state', async () => {
    const settings = { ...example(), cost: { ...example().cost, billing: { store: 'request' as const } } };
    const { recorded, billing } = await upgrade(settings, TURN_4_OUTPUTS);
    assert.deepEqual(shapes(recorded), { store: 'request', forward: 'instance' });
    assert.deepEqual(billing, { store: 'request', forward: 'instance' });
  });

  it('keeps what this release deployed, from its billing output', async () => {
    const { recorded, billing } = await upgrade(example(), {
      ...TURN_4_OUTPUTS,
      billing: { store: 'instance', forward: 'request' },
    });
    assert.deepEqual(shapes(recorded), { store: 'instance', forward: 'request' });
    assert.deepEqual(billing, { store: 'instance', forward: 'request' });
  });

  it('gives a new stack the design’s default: Cloud Functions', async () => {
    const { recorded, billing } = await upgrade(example(), {});
    assert.deepEqual(shapes(recorded), { store: 'request', forward: 'request' });
    assert.deepEqual(billing, { store: 'request', forward: 'request' });
  });
});
