/**
 * The organisation policy pack (infra/policy) over what the program registers under mocks: the
 * Pulumi CLI, which normally runs a pack, is not available here, so a small harness calls each
 * policy's validators with the resources' inputs, as the CLI does in `pulumi preview
 * --policy-pack`. The pack passes on the example and the minimal settings, and each rule fails
 * on a change that would break it: a settings change where settings reach it, the
 * organisation's configuration for ingress, and, for what no setting reaches (bucket access,
 * keys, basic roles), the program's own resource changed by a transformation.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import * as gcp from '@pulumi/gcp';
import type { ResourceValidationArgs, ResourceValidationPolicy } from '@pulumi/policy';
import * as pulumi from '@pulumi/pulumi';
import { keptBilling, withBilling } from '../../core/deploy/billing-kept.ts';
import { plan } from '../../core/plan.ts';
import { checkSettings } from '../../core/settings.ts';
import { loadStackConfig, REPO_ROOT, type StackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import {
  type OrganisationConfig,
  organisationConfigFor,
  organisationPolicies,
  packConfig,
} from '../../infra/policy/rules.ts';
import type { Settings } from '../../schemas/settings.ts';
import { BUNDLES, declare, type Recorded, SETTINGS_FILES } from './support.ts';

/** `policy: type name: message` for every violation the pack reports over the resources. */
async function violations(recorded: Recorded, config: OrganisationConfig): Promise<string[]> {
  const found: string[] = [];
  const policies: ResourceValidationPolicy[] = organisationPolicies(config);
  for (const r of recorded.resources) {
    const args = {
      type: r.type,
      props: r.inputs,
      urn: `urn:pulumi:test::eventbus::${r.type}::${r.name}`,
      name: r.name,
      opts: {},
      stackTags: new Map(),
      isType: () => false,
      asType: () => undefined,
      getConfig: () => ({}),
      notApplicable: () => {
        throw new Error('not applicable');
      },
    } as unknown as ResourceValidationArgs;
    for (const p of policies) {
      const validators = Array.isArray(p.validateResource) ? p.validateResource : [p.validateResource];
      for (const v of validators)
        await v?.(args, (message) => found.push(`${p.name}: ${r.type} ${r.name}: ${message}`));
    }
  }
  return found;
}

const example = () => loadStackConfig(SETTINGS_FILES[0]);

/** The stack config with changed settings, as plan() sees them (the schema is not asked). */
function changed(config: StackConfig, change: Partial<Settings>): StackConfig {
  const settings = { ...config.settings, ...change } as Settings;
  return { ...config, settings, plan: plan(settings) };
}

/** Declares the environment, with `mutate` applied to each of the program's resources first. */
function declared(config: StackConfig, mutate?: (args: pulumi.ResourceTransformationArgs) => void) {
  return declare(() => {
    if (mutate)
      pulumi.runtime.registerStackTransformation((args) => {
        mutate(args);
        return { props: args.props, opts: args.opts };
      });
    declareEnvironment(config, BUNDLES);
  });
}

const policiesHit = (found: readonly string[]) => [...new Set(found.map((f) => f.split(':')[0]))];

describe('infra: the organisation policy pack over the declared environment', () => {
  for (const stack of SETTINGS_FILES) {
    it(`passes on ${stack.settingsFile}`, async () => {
      const config = loadStackConfig(stack);
      const found = await violations(await declared(config), organisationConfigFor(config.settings));
      assert.deepEqual(found, []);
    });
  }

  it('no-public-members: fails when a settings list names allUsers (which the schema refuses too)', async () => {
    const config = example();
    const change = { analysts: ['allUsers'] };
    assert.equal(checkSettings({ ...config.settings, ...change }).ok, false);
    const found = await violations(
      await declared(changed(config, change)),
      organisationConfigFor(config.settings),
    );
    assert.deepEqual(policiesHit(found), ['eventbus-no-public-members']);
  });

  it('locations: fails when the settings move the warehouse out of the allowed locations', async () => {
    const config = example();
    const found = await violations(
      await declared(changed(config, { location: 'US' })),
      organisationConfigFor(config.settings),
    );
    assert.deepEqual(policiesHit(found), ['eventbus-locations']);
    assert.ok(found.some((f) => f.includes('gcp:bigquery/dataset:Dataset') && f.includes('is in us')));
  });

  it('locations: fails on automatic secret replication where the organisation allows only its region', async () => {
    const config = example();
    const allowed = organisationConfigFor({ ...config.settings, data_residency: true });
    assert.deepEqual(
      await violations(await declared(changed(config, { data_residency: true })), allowed),
      [],
    );
    const found = await violations(await declared(config), allowed);
    assert.deepEqual(policiesHit(found), ['eventbus-locations']);
    assert.ok(
      found.every((f) => f.includes('gcp:secretmanager/secret:Secret') && f.includes('is in global')),
    );
  });

  it('ingress: fails when the organisation allows only internal ingress (cloudfunctions.allowedIngressSettings, run.allowedIngress)', async () => {
    const config = example();
    const internal = {
      ...organisationConfigFor(config.settings),
      functionIngress: ['ALLOW_INTERNAL_ONLY'],
      serviceIngress: ['INGRESS_TRAFFIC_INTERNAL_ONLY'],
    };
    const found = await violations(await declared(config), internal);
    assert.deepEqual(policiesHit(found), ['eventbus-ingress']);
    // Every function and both services.
    assert.equal(found.length, config.plan.functions.length + 2);
  });

  it('bucket-uniform-private: fails on a bucket without uniform access or public access prevention', async () => {
    const found = await violations(
      await declared(example(), (args) => {
        if (args.type === 'gcp:storage/bucket:Bucket') {
          args.props['uniformBucketLevelAccess'] = false;
          delete args.props['publicAccessPrevention'];
        }
      }),
      organisationConfigFor(example().settings),
    );
    assert.deepEqual(policiesHit(found), ['eventbus-bucket-uniform-private']);
  });

  it('no-basic-roles: fails on a grant of roles/editor', async () => {
    const found = await violations(
      await declared(example(), (args) => {
        if (args.type === 'gcp:projects/iAMMember:IAMMember') args.props['role'] = 'roles/editor';
      }),
      organisationConfigFor(example().settings),
    );
    assert.deepEqual(policiesHit(found), ['eventbus-no-basic-roles']);
  });

  it('no-service-account-keys: fails on a service-account key', async () => {
    const config = example();
    const recorded = await declare(() => {
      const env = declareEnvironment(config, BUNDLES);
      new gcp.serviceaccount.Key('a-key', { serviceAccountId: 'eventbus-store' });
      return env;
    });
    const found = await violations(recorded, organisationConfigFor(config.settings));
    assert.deepEqual(policiesHit(found), ['eventbus-no-service-account-keys']);
  });
});

describe('infra: the policy pack encodes the review’s findings (issue #100)', () => {
  const hits = async (config: StackConfig, mutate?: (args: pulumi.ResourceTransformationArgs) => void) =>
    policiesHit(await violations(await declared(config, mutate), organisationConfigFor(config.settings)));

  it('secret-writers: a secret grant beyond reading, or Version Manager to another workload, is reported', async () => {
    const secretGrant = 'gcp:secretmanager/secretIamMember:SecretIamMember';
    assert.deepEqual(
      await hits(example(), (args) => {
        if (args.type === secretGrant && args.props['role'] === 'roles/secretmanager.secretVersionManager')
          args.props['role'] = 'roles/secretmanager.admin';
      }),
      ['eventbus-secret-writers'],
    );
    assert.deepEqual(
      await hits(example(), (args) => {
        // forward's reading grant (named `<stack>-accessor-forward-<secret>`) made a writing one.
        if (args.type === secretGrant && args.name.includes('-accessor-forward-'))
          args.props['role'] = 'roles/secretmanager.secretVersionManager';
      }),
      ['eventbus-secret-writers'],
    );
  });

  it('site-map-additive: the site’s own map gets a path rule; the previous whole-map form is reported (advisory)', async () => {
    const gateway = {
      origin_path: '/_eb',
      site_url_map: 'shop-lb',
      site_hosts: ['shop.example'],
      site_backend: 'shop-web',
    };
    assert.deepEqual(await hits(changed(example(), { gateway })), []);
    assert.deepEqual(
      await hits(changed(example(), { gateway: { origin_path: '/_eb', site_backend: 'shop-web' } })),
      ['eventbus-site-map-additive'],
    );
    const rule = organisationPolicies().find((p) => p.name === 'eventbus-site-map-additive');
    assert.equal(rule?.enforcementLevel, 'advisory', 'a stack of the previous form still deploys');
  });
});

describe('infra: the policy pack guards an upgrade’s billing (issue #100)', () => {
  const hits = async (config: StackConfig, mutate?: (args: pulumi.ResourceTransformationArgs) => void) =>
    policiesHit(await violations(await declared(config, mutate), organisationConfigFor(config.settings)));
  /** A stack whose state shows both functions as Cloud Functions, as 56188c8 and v0.2.0 left them. */
  const requestState = (env: string) =>
    (['store', 'forward'] as const).map((f) => ({
      urn: `urn:pulumi:prod::eventbus::gcp:cloudfunctionsv2/function:Function::${env}-function-${f}`,
      type: 'gcp:cloudfunctionsv2/function:Function',
    }));

  it('billing-kept: a stack kept as its state shows passes; one switched with cost.billing unset is reported', async () => {
    const config = example();
    const kept = keptBilling(config.settings, requestState(config.plan.environment));
    const keeping = { ...config, billingKept: kept.stamps };
    assert.deepEqual(await hits(keeping), []);
    // The previous release's rule: no `billing` output read as "deployed instance-billed".
    const switched: StackConfig = {
      ...keeping,
      plan: plan(withBilling(config.settings, { store: 'instance', forward: 'instance' })),
      billingKept: {
        store: { billing: 'instance', deployed: 'request', by: 'output' },
        forward: { billing: 'instance', deployed: 'request', by: 'output' },
      },
    };
    const found = await violations(await declared(switched), organisationConfigFor(config.settings));
    assert.deepEqual(policiesHit(found), ['eventbus-billing-kept']);
    assert.equal(found.length, 2, found.join('\n'));
    assert.ok(found.every((f) => f.includes('runs request-billed in the stack') && f.includes('switched')));
    // The settings may switch it: stamped `settings`, the same deployables pass.
    const asked = {
      ...config.settings,
      cost: { ...config.settings.cost, billing: { store: 'instance' as const } },
    };
    const chosen = keptBilling(asked, requestState(config.plan.environment));
    assert.deepEqual(
      await hits({
        ...config,
        settings: asked,
        plan: plan(withBilling(asked, chosen.billing)),
        billingKept: chosen.stamps,
      }),
      [],
    );
  });

  it('billing-kept: a deployable whose kind is not the stamped billing, or with no stamp, is reported', async () => {
    const fn = 'gcp:cloudfunctionsv2/function:Function';
    assert.deepEqual(
      await hits(example(), (args) => {
        if (args.type === fn && args.name.endsWith('-function-store'))
          (args.props['labels'] as Record<string, string>)['eventbus-billing'] = 'instance';
      }),
      ['eventbus-billing-kept'],
    );
    assert.deepEqual(
      await hits(example(), (args) => {
        if (args.type === fn && args.name.endsWith('-function-forward'))
          args.props['labels'] = { environment: 'prod' };
      }),
      ['eventbus-billing-kept'],
    );
  });
});

describe('infra: the policy pack guards where traces leave (issue #100)', () => {
  const hits = async (config: StackConfig, mutate?: (args: pulumi.ResourceTransformationArgs) => void) =>
    policiesHit(await violations(await declared(config, mutate), organisationConfigFor(config.settings)));
  const FLUSH = 'EVENTBUS_TRACE_FLUSH';

  it('trace-flush: a request-billed function told to leave its spans to the timer is reported', async () => {
    assert.deepEqual(
      await hits(example(), (args) => {
        const env = (args.props['serviceConfig'] as { environmentVariables?: Record<string, string> })
          ?.environmentVariables;
        if (args.type === 'gcp:cloudfunctionsv2/function:Function' && env?.[FLUSH]) env[FLUSH] = 'timer';
      }),
      ['eventbus-trace-flush'],
    );
  });

  it('trace-flush: the gateway (request-billed Cloud Run) saying nothing of its flush is reported', async () => {
    const found = await violations(
      await declared(example(), (args) => {
        const containers = (args.props['template'] as { containers?: { envs?: { name: string }[] }[] })
          ?.containers;
        if (
          args.type === 'gcp:cloudrunv2/service:Service' &&
          args.name === `${example().plan.environment}-service`
        )
          for (const c of containers ?? []) c.envs = (c.envs ?? []).filter((e) => e.name !== FLUSH);
      }),
      organisationConfigFor(example().settings),
    );
    assert.deepEqual(policiesHit(found), ['eventbus-trace-flush']);
    assert.match(found.join('\n'), /EVENTBUS_TRACE_FLUSH is unset/);
  });

  it('trace-flush: instance-billed services leave spans to the timer, and pass', async () => {
    const config = example();
    const settings = {
      ...config.settings,
      cost: { ...config.settings.cost, billing: { gateway: 'instance', store: 'instance' } as const },
    };
    const recorded = await declared({ ...config, settings, plan: plan(settings) });
    assert.deepEqual(await violations(recorded, organisationConfigFor(settings)), []);
    const flushOf = (suffix: string) =>
      recorded.resources
        .filter((r) => r.type === 'gcp:cloudrunv2/service:Service' && r.name.endsWith(suffix))
        .flatMap((r) =>
          (
            (r.inputs['template'] as { containers: { envs: { name: string; value: string }[] }[] })
              .containers ?? []
          )
            .flatMap((c) => c.envs)
            .filter((e) => e.name === FLUSH)
            .map((e) => e.value),
        );
    assert.deepEqual(flushOf('-service-store'), ['timer']);
    assert.deepEqual(flushOf(`${config.plan.environment}-service`), ['timer']);
  });
});

describe('infra: the policy pack as the CLI starts it', () => {
  it('gets its configuration from `node infra/policy/config.ts <settings>` (the docs’ command)', () => {
    const out = execFileSync(
      process.execPath,
      [resolve(REPO_ROOT, 'infra/policy/config.ts'), 'environments/example.yaml'],
      {
        cwd: REPO_ROOT,
      },
    ).toString();
    assert.deepEqual(JSON.parse(out), packConfig(organisationConfigFor(example().settings)));
  });

  it('loads on Node 24 and serves the analyzer, printing its port as the CLI expects', async () => {
    const child = spawn(process.execPath, [resolve(REPO_ROOT, 'infra/policy/main.mjs')], { cwd: REPO_ROOT });
    const first = await new Promise<string>((done, fail) => {
      child.stdout.once('data', (d: Buffer) => done(d.toString()));
      child.once('exit', (code) => fail(new Error(`exited ${code}`)));
    });
    child.kill();
    assert.match(first.trim(), /^\d+$/);
  });
});
