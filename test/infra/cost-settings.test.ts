/**
 * The cheap production wins of docs/scale.md as Pulumi declares them (issue #42): the Cloud
 * Logging exclusion of successful request logs, on by default and off when settings say so,
 * `forward`'s concurrency and max_instances sized by the cost model unless settings fix them, and
 * store and forward as Cloud Functions (request-based billing, the design) unless `cost.billing`
 * makes them instance-billed Cloud Run services (issue #60).
 */
import assert from 'node:assert/strict';
import * as pulumi from '@pulumi/pulumi';
import { forwardSizing } from '../../core/deploy/cost.ts';
import { type Plan, plan } from '../../core/plan.ts';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { RequestLogs } from '../../infra/request-logs.ts';
import type { Settings } from '../../schemas/settings.ts';
import { BUNDLES, declare, ofType, SETTINGS_FILES } from './support.ts';
import { declareFunctions, example, INSTANCE, minimal, withCost } from './support-functions.ts';

const EXCLUSION = 'gcp:logging/projectExclusion:ProjectExclusion';
const FUNCTION = 'gcp:cloudfunctionsv2/function:Function';
const SERVICE = 'gcp:cloudrunv2/service:Service';
const INVOKER = 'gcp:cloudrunv2/serviceIamMember:ServiceIamMember';

/** forward's sizing as declared: a Cloud Function's serviceConfig or a Cloud Run service's template. */
async function declaredForward(p: Plan, settings: Settings) {
  const { recorded } = await declareFunctions(p, settings);
  const fn = ofType(recorded, FUNCTION).find((f) => f.inputs['name'] === 'forward-function');
  if (fn) return fn.inputs['serviceConfig'];
  const service = ofType(recorded, SERVICE).find((f) => f.inputs['name'] === 'forward-service');
  assert.ok(service, 'forward is declared');
  const t = service.inputs['template'];
  return {
    maxInstanceRequestConcurrency: t.maxInstanceRequestConcurrency,
    maxInstanceCount: t.scaling.maxInstanceCount,
  };
}

describe('infra: cost settings (request-log exclusion, forward sized by the model)', () => {
  it('excludes successful request logs of the gateway, store and forward by default, keeping errors and refusals', async () => {
    const recorded = await declare(() => new RequestLogs('acme-prod', { plan: plan(example()) }));
    const exclusions = ofType(recorded, EXCLUSION);
    assert.equal(exclusions.length, 1);
    const filter: string = exclusions[0]?.inputs['filter'];
    assert.match(filter, /log_id\("run\.googleapis\.com\/requests"\)/);
    assert.match(
      filter,
      /resource\.labels\.service_name=\("gateway" OR "store-function" OR "forward-function"\)/,
    );
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
    const config = await declaredForward(p, settings);
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
    const config = await declaredForward(plan(settings), settings);
    assert.equal(config['maxInstanceRequestConcurrency'], 40);
    assert.equal(config['maxInstanceCount'], 7);
  });
});

describe('infra: cost.billing (store and forward request- or instance-billed)', () => {
  for (const [name, settings] of [
    ['environments/example.yaml', example],
    ['minimal settings', minimal],
  ] as const) {
    it(`runs store and forward as gen2 Cloud Functions on nodejs24 by default (${name})`, async () => {
      const p = plan(settings());
      assert.deepEqual(
        p.functions.map((f) => [f.name, f.billing, f.service]),
        [
          ['store', 'request', 'store-function'],
          ['forward', 'request', 'forward-function'],
          ['schedule', 'request', 'schedule'],
        ],
      );
      const { recorded } = await declareFunctions(p, settings());
      assert.deepEqual(ofType(recorded, SERVICE), []);
      const fns = ofType(recorded, FUNCTION);
      // Which resource registers first is Pulumi's promise order, not the program's meaning.
      assert.deepEqual(fns.map((f) => f.inputs['name']).sort(), [
        'forward-function',
        'schedule',
        'store-function',
      ]);
      for (const f of fns) assert.equal(f.inputs['buildConfig'].runtime, 'nodejs24');
    });
  }

  it('runs them as Cloud Run services with CPU always allocated, from their service bundles, under cost.billing: instance', async () => {
    const settings = withCost(INSTANCE);
    const p = plan(settings);
    assert.deepEqual(
      p.functions.map((f) => [f.name, f.billing]),
      [
        ['store', 'instance'],
        ['forward', 'instance'],
        ['schedule', 'request'],
      ],
    );
    const { recorded } = await declareFunctions(p, settings);
    assert.deepEqual(
      ofType(recorded, FUNCTION).map((f) => f.inputs['name']),
      ['schedule'],
    );
    const services = ofType(recorded, SERVICE);
    assert.deepEqual(services.map((s) => s.inputs['name']).sort(), ['forward-service', 'store-service']);
    for (const s of services) {
      const name = s.inputs['name'];
      const f = p.functions.find((x) => x.service === name)!;
      const t = s.inputs['template'];
      const c = t.containers[0];
      // Instance-based billing is Cloud Run's cpuIdle false ("CPU always allocated").
      assert.equal(c.resources.cpuIdle, false, name);
      assert.deepEqual(c.resources.limits, { cpu: String(f.sizing.cpu), memory: f.sizing.memory });
      // Run from its bundle with no build: node main.js on Google's Node 24 base image.
      assert.equal(c.image, 'scratch');
      assert.deepEqual([...c.commands, ...c.args], ['node', 'main.js']);
      assert.equal(c.sourceCode.cloudStorageSource.object, `${f.name}-service-0123456789abcdef.tar.gz`);
      // The framework hands every path to the function: Cloud Run waits for the port, not /health.
      assert.deepEqual(c.startupProbe.tcpSocket, {});
      assert.equal(c.startupProbe.httpGet, undefined);
      const env = Object.fromEntries(c.envs.map((e: { name: string; value: string }) => [e.name, e.value]));
      assert.equal(env['HOST'], '0.0.0.0');
      assert.equal(env['GOOGLE_CLOUD_PROJECT'], p.project);
      assert.equal(t.serviceAccount, `${f.name}@x`);
      assert.equal(t.maxInstanceRequestConcurrency, f.sizing.concurrency);
      assert.deepEqual(t.scaling, {
        minInstanceCount: f.sizing.min_instances,
        maxInstanceCount: f.sizing.max_instances,
      });
      assert.equal(t.timeout, `${f.sizing.timeout_seconds}s`);
      // Private: Cloud Run checks run.invoker (only the push identity holds it).
      assert.equal(s.inputs['invokerIamDisabled'], undefined);
      assert.equal(s.inputs['ingress'], 'INGRESS_TRAFFIC_ALL');
    }
  });

  it('lets only the push identity invoke the services, and gives their run.app URLs as push endpoints', async () => {
    const settings = withCost(INSTANCE);
    const { recorded, endpoints } = await declareFunctions(plan(settings), settings);
    const invokers = ofType(recorded, INVOKER);
    assert.deepEqual(invokers.map((m) => String(m.inputs['name']).split('/').pop()).sort(), [
      'forward-service',
      'schedule',
      'store-service',
    ]);
    for (const m of invokers) {
      assert.equal(m.inputs['role'], 'roles/run.invoker');
      assert.equal(m.inputs['member'], 'serviceAccount:push@x');
    }
    // The mocks give a Cloud Run service and a Cloud Function's service the same run.app form.
    assert.equal(endpoints['store'], 'https://store-service-mock-ew.a.run.app');
    assert.equal(endpoints['forward'], 'https://forward-service-mock-ew.a.run.app');
    assert.equal(endpoints['schedule'], 'https://schedule-mock-ew.a.run.app');
  });

  it('keeps them Cloud Functions when cost.billing says request', async () => {
    const settings = withCost({ billing: { store: 'request', forward: 'request' } });
    const { recorded } = await declareFunctions(plan(settings), settings);
    assert.deepEqual(ofType(recorded, SERVICE), []);
    assert.deepEqual(
      ofType(recorded, FUNCTION)
        .map((f) => f.inputs['name'])
        .sort(),
      ['forward-function', 'schedule', 'store-function'],
    );
  });

  it('never lets a rate switch the billing: only cost.billing does, per function', () => {
    // The peak only sizes; the sustained rate only makes the model recommend (billing-advice.ts).
    for (const cost of [
      { peak_events_per_second: 1_000_000 },
      { peak_events_per_second: 1 },
      { sustained_events_per_second: 100_000 },
    ]) {
      assert.deepEqual(
        plan(withCost(cost)).functions.map((f) => f.billing),
        ['request', 'request', 'request'],
        JSON.stringify(cost),
      );
    }
    const mixed = plan(withCost({ sustained_events_per_second: 100_000, billing: { forward: 'instance' } }));
    assert.deepEqual(
      mixed.functions.map((f) => f.billing),
      ['request', 'instance', 'request'],
    );
    const forced = plan(withCost({ peak_events_per_second: 1, billing: { store: 'instance' } }));
    assert.equal(forced.functions[0]?.billing, 'instance');
  });

  it('refuses instance-based billing without the service bundle, naming it', async () => {
    const settings = withCost(INSTANCE);
    await assert.rejects(
      declareFunctions(plan(settings), settings, false),
      /store: instance-based billing runs its "store-service" bundle/,
    );
  });
});

describe('cost model: forwardSizing', () => {
  it('fills the CPU, not the wait: the 60 % of the concurrency in flight uses 60 % of the CPU', () => {
    // Cloud Run keeps 60 % of the concurrency in flight: 1 × 0.6 × 0.4 / (0.0006 × 0.6) = 666.7,
    // rounded up to 667 concurrent deliveries; 1000 req/s an instance; peak 2 × 1500/1000.
    assert.deepEqual(
      forwardSizing({
        vcpu: 1,
        peakEventsPerSecond: 500,
        destinations: 3,
        cpuSecondsPerRequest: 0.0006,
        latencySeconds: 0.4,
      }),
      { concurrency: 667, max_instances: 3 },
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

describe('infra: the billing recommendation in pulumi up’s preview', () => {
  it('pulumi up’s preview says the cheaper billing first, with the month both ways and the line', async () => {
    const { settingsFile, project, region } = SETTINGS_FILES[0];
    const config = loadStackConfig({ project, region, settingsFile });
    const said: string[] = [];
    const warn = pulumi.log.warn;
    pulumi.log.warn = (message: string) => {
      said.push(message);
      return Promise.resolve();
    };
    try {
      await declare(() => declareEnvironment(config, BUNDLES));
    } finally {
      pulumi.log.warn = warn;
    }
    assert.match(
      said[0] ?? '',
      /^RECOMMENDED BILLING: at the stated 1,000 events\/s sustained, .* \$[\d,]+ a month less\. Switch with one line under cost: in the settings: billing: \{ gateway: instance, store: instance, forward: instance \}/,
    );
  });
});
