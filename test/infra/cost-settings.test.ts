/**
 * The cheap production wins of docs/scale.md as Pulumi declares them (issue #42): the Cloud
 * Logging exclusion of successful request logs, on by default and off when settings say so, and
 * `forward`'s concurrency and max_instances sized by the cost model unless settings fix them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { forwardSizing } from '../../core/deploy/cost.ts';
import { type Plan, plan } from '../../core/plan.ts';
import { parseSettings } from '../../core/settings.ts';
import { Functions } from '../../infra/functions.ts';
import { RequestLogs } from '../../infra/request-logs.ts';
import type { Settings } from '../../schemas/settings.ts';
import { declare, ofType } from './support.ts';

const EXCLUSION = 'gcp:logging/projectExclusion:ProjectExclusion';
const FUNCTION = 'gcp:cloudfunctionsv2/function:Function';

function example(): Settings {
  const loaded = parseSettings(
    readFileSync(resolve(import.meta.dirname, '../../environments/example.yaml'), 'utf8'),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.settings;
}

const withCost = (cost: NonNullable<Settings['cost']>): Settings => ({ ...example(), cost });

async function declaredFunctions(p: Plan, settings: Settings) {
  const recorded = await declare(
    () =>
      new Functions('acme-prod', {
        plan: p,
        settings,
        sourceBucket: 'sources',
        sourceObjects: { store: 'store.zip', forward: 'forward.zip', schedule: 'schedule.zip' },
        serviceAccounts: { store: 'store@x', forward: 'forward@x', schedule: 'schedule@x' },
        buildServiceAccount: 'projects/p/serviceAccounts/build@x',
        invoker: 'serviceAccount:push@x',
        settingsFile: { secretId: 'settings', version: '1' },
      }),
  );
  const forward = ofType(recorded, FUNCTION).find((f) => f.inputs['name'] === 'forward');
  assert.ok(forward, 'forward is declared');
  return forward.inputs['serviceConfig'];
}

describe('infra: cost settings (request-log exclusion, forward sized by the model)', () => {
  it('excludes successful request logs of the gateway, store and forward by default, keeping errors and refusals', async () => {
    const recorded = await declare(() => new RequestLogs('acme-prod', { plan: plan(example()) }));
    const exclusions = ofType(recorded, EXCLUSION);
    assert.equal(exclusions.length, 1);
    const filter: string = exclusions[0]?.inputs['filter'];
    assert.match(filter, /log_id\("run\.googleapis\.com\/requests"\)/);
    assert.match(filter, /resource\.labels\.service_name=\("gateway" OR "store" OR "forward"\)/);
    // Only successes: a 4xx refusal or 5xx error has status >= 400 and is not matched.
    assert.match(filter, /httpRequest\.status<400/);
    assert.equal(exclusions[0]?.inputs['project'], 'acme-outdoor-prod');
  });

  it('keeps every request log when cost.exclude_success_logs is false', async () => {
    const p = plan(withCost({ exclude_success_logs: false }));
    const recorded = await declare(() => new RequestLogs('acme-prod', { plan: p }));
    assert.deepEqual(ofType(recorded, EXCLUSION), []);
  });

  it("sizes forward's concurrency and max_instances from the model and the peak rate", async () => {
    const settings = withCost({ peak_events_per_second: 1000 });
    const p = plan(settings);
    const sized = forwardSizing({ vcpu: 1, peakEventsPerSecond: 1000, destinations: p.destinations.length });
    const config = await declaredFunctions(p, settings);
    assert.equal(config['maxInstanceRequestConcurrency'], sized.concurrency);
    assert.equal(config['maxInstanceCount'], sized.max_instances);
    // Not the fixed defaults: the CPU, not the wait on the platform, fills an instance.
    assert.ok(sized.concurrency > 80, `concurrency ${sized.concurrency}`);
    const busier = plan(withCost({ peak_events_per_second: 4000 }));
    const f = busier.functions.find((x) => x.name === 'forward');
    assert.ok(f && f.sizing.max_instances > sized.max_instances, 'a higher peak gets more instances');
  });

  it("keeps forward's concurrency and max_instances when settings set them", async () => {
    const settings: Settings = {
      ...example(),
      functions: { ...example().functions, forward: { concurrency: 40, max_instances: 7 } },
    };
    const config = await declaredFunctions(plan(settings), settings);
    assert.equal(config['maxInstanceRequestConcurrency'], 40);
    assert.equal(config['maxInstanceCount'], 7);
  });
});

describe('cost model: forwardSizing', () => {
  it('fills the CPU, not the wait: concurrency = vCPU × 60 % × latency / CPU per delivery', () => {
    // 1 × 0.6 × 0.4 / 0.0006 = 400 concurrent deliveries; 1000 req/s an instance; peak 2 × 1500/1000.
    assert.deepEqual(
      forwardSizing({
        vcpu: 1,
        peakEventsPerSecond: 500,
        destinations: 3,
        cpuSecondsPerRequest: 0.0006,
        latencySeconds: 0.4,
      }),
      { concurrency: 400, max_instances: 3 },
    );
  });

  it("stays inside Cloud Run's limits", () => {
    const s = forwardSizing({
      vcpu: 8,
      peakEventsPerSecond: 1_000_000,
      destinations: 10,
      cpuSecondsPerRequest: 1e-6,
    });
    assert.deepEqual(s, { concurrency: 1000, max_instances: 1000 });
  });
});
