/**
 * The organisation rules this deployment must satisfy, as Pulumi CrossGuard policies: the
 * policies of a typical company organisation (docs/deploy.md, "Organisation policies") checked
 * before anything reaches Google, instead of failing halfway through `pulumi up`.
 *
 * Pure validators over a resource's type and inputs: the pack (index.ts) hands them to the
 * Pulumi CLI, and test/infra/policy.test.ts calls them over what the program registers under
 * mocks, since the CLI is not available to tests.
 */
import type { ReportViolation, ResourceValidationArgs, ResourceValidationPolicy } from '@pulumi/policy';
import { billingStampProblems } from '../../core/deploy/billing-kept.ts';
import { ENV } from '../../core/runtime-config.ts';
import type { Settings } from '../../schemas/settings.ts';

/** The pack's configuration (`pulumi preview --policy-pack-config <file>`). */
export interface OrganisationConfig {
  /** Where resources may live (the organisation's `gcp.resourceLocations`), lower case. */
  readonly locations: readonly string[];
  /** Allowed `ingressSettings` of Cloud Functions (`cloudfunctions.allowedIngressSettings`). */
  readonly functionIngress: readonly string[];
  /** Allowed `ingress` of Cloud Run services (`run.allowedIngress`). */
  readonly serviceIngress: readonly string[];
}

/** What this deployment needs: pushes from Pub/Sub and a public gateway reach them from outside. */
export const DEFAULT_INGRESS = Object.freeze({
  functionIngress: ['ALLOW_ALL'],
  serviceIngress: ['INGRESS_TRAFFIC_ALL'],
});

/**
 * The configuration an environment's settings imply: the region, the BigQuery location and,
 * when secrets are replicated automatically (no `data_residency`), `global`. Compare it with
 * the organisation's own lists before a first deploy (docs/deploy.md).
 */
export function organisationConfigFor(settings: Readonly<Settings>): OrganisationConfig {
  const locations = [
    settings.region,
    settings.location ?? 'US',
    ...(settings.data_residency ? [] : ['global']),
  ];
  return { locations: [...new Set(locations.map((l) => l.toLowerCase()))], ...DEFAULT_INGRESS };
}

const PUBLIC_MEMBERS = ['allUsers', 'allAuthenticatedUsers'];
const SECRET_READER = 'roles/secretmanager.secretAccessor';
const SECRET_WRITER = 'roles/secretmanager.secretVersionManager';
/** The workloads that add secret versions: the studio's token store, forward-catalog's refresh tokens. */
const SECRET_WRITERS = /^serviceAccount:eventbus-(studio|forward-catalog)@/;
/** A backend service the program did not declare (its own are named eventbus-…, or ids under mocks). */
const SITE_BACKEND = /\/backendServices\/(?!eventbus-)[^/]+$/;
const BASIC_ROLES = ['roles/owner', 'roles/editor', 'roles/viewer'];

/** Every IAM member a resource grants (`member` of the *IamMember resources, `members` of bindings). */
function membersOf(props: Readonly<Record<string, unknown>>): string[] {
  const one = typeof props['member'] === 'string' ? [props['member']] : [];
  const many = Array.isArray(props['members']) ? props['members'].filter((m) => typeof m === 'string') : [];
  return [...one, ...many];
}

/** The locations a resource is placed in, lower case (`global` for automatic replication). */
function locationsOf(type: string, props: Readonly<Record<string, unknown>>): string[] {
  if (type === 'gcp:secretmanager/secret:Secret') {
    const replication = props['replication'] as
      | { auto?: unknown; userManaged?: { replicas?: { location?: string }[] } }
      | undefined;
    if (replication?.userManaged)
      return (replication.userManaged.replicas ?? []).map((r) => String(r.location).toLowerCase());
    return ['global'];
  }
  return (['location', 'region'] as const)
    .map((key) => props[key])
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.toLowerCase());
}

/**
 * A Cloud Function's or Cloud Run service's environment variables (plain values only) and
 * whether its CPU is throttled once it has answered (request-billed: a Cloud Function always, a
 * service unless `cpuIdle: false`); undefined for any other resource.
 */
function deployableOf(
  type: string,
  props: Readonly<Record<string, unknown>>,
): { env: Readonly<Record<string, unknown>>; requestBilled: boolean } | undefined {
  if (type === 'gcp:cloudfunctionsv2/function:Function') {
    const config = props['serviceConfig'] as { environmentVariables?: Record<string, unknown> } | undefined;
    return { env: config?.environmentVariables ?? {}, requestBilled: true };
  }
  if (type === 'gcp:cloudrunv2/service:Service') {
    type Container = { envs?: { name?: string; value?: unknown }[]; resources?: { cpuIdle?: unknown } };
    const containers = (props['template'] as { containers?: Container[] } | undefined)?.containers ?? [];
    const env = Object.fromEntries(
      containers.flatMap((c) => (c.envs ?? []).flatMap((e) => (e.name ? [[e.name, e.value]] : []))),
    );
    return { env, requestBilled: containers.some((c) => c.resources?.cpuIdle !== false) };
  }
  return undefined;
}

type Validate = (args: ResourceValidationArgs, report: ReportViolation) => void;
const policy = (
  name: string,
  description: string,
  validateResource: Validate,
  configSchema?: ResourceValidationPolicy['configSchema'],
  enforcementLevel: 'mandatory' | 'advisory' = 'mandatory',
): ResourceValidationPolicy => ({
  name,
  description,
  enforcementLevel,
  validateResource,
  ...(configSchema ? { configSchema } : {}),
});

const strings = (defaults?: readonly string[]) => ({
  type: 'array' as const,
  items: { type: 'string' as const },
  ...(defaults ? { default: [...defaults] } : {}),
});

/** The policies that take configuration, by name. */
export const CONFIGURED = Object.freeze({ locations: 'eventbus-locations', ingress: 'eventbus-ingress' });

/** The pack config file (`--policy-pack-config`) for a configuration: one entry per policy. */
export function packConfig(config: OrganisationConfig): Record<string, Record<string, unknown>> {
  return {
    [CONFIGURED.locations]: { locations: config.locations },
    [CONFIGURED.ingress]: { functionIngress: config.functionIngress, serviceIngress: config.serviceIngress },
  };
}

/** The organisation's rules, configured by `config` (the CLI passes the pack config instead). */
export function organisationPolicies(config?: OrganisationConfig): ResourceValidationPolicy[] {
  const settingsOf = (args: ResourceValidationArgs): OrganisationConfig =>
    config ?? { ...DEFAULT_INGRESS, locations: [], ...args.getConfig<Partial<OrganisationConfig>>() };
  return [
    policy(
      'eventbus-no-public-members',
      'No IAM grant to allUsers or allAuthenticatedUsers (Domain Restricted Sharing refuses them)',
      ({ props }, report) => {
        for (const m of membersOf(props))
          if (PUBLIC_MEMBERS.includes(m))
            report(`grants to ${m}: nothing of this deployment is public by IAM`);
      },
    ),
    policy(
      'eventbus-no-basic-roles',
      'No basic role (owner, editor, viewer) granted to anything',
      ({ props }, report) => {
        const role = props['role'];
        if (typeof role === 'string' && BASIC_ROLES.includes(role))
          report(`grants the basic role ${role}: grant a predefined role on the resource instead`);
      },
    ),
    policy(
      'eventbus-bucket-uniform-private',
      'Buckets use uniform bucket-level access and enforce public access prevention',
      ({ type, props }, report) => {
        if (type !== 'gcp:storage/bucket:Bucket') return;
        if (props['uniformBucketLevelAccess'] !== true) report('uniformBucketLevelAccess must be true');
        if (props['publicAccessPrevention'] !== 'enforced')
          report('publicAccessPrevention must be "enforced"');
      },
    ),
    policy(
      'eventbus-no-service-account-keys',
      'No service-account key (iam.disableServiceAccountKeyCreation): workloads use their attached accounts',
      ({ type }, report) => {
        if (type === 'gcp:serviceaccount/key:Key') report('declares a service-account key');
      },
    ),
    policy(
      'eventbus-secret-writers',
      'Only the studio (token store) and forward-catalog (rotated OAuth refresh tokens) may write secret versions, with Secret Version Manager; every other secret grant reads',
      ({ type, props }, report) => {
        if (type !== 'gcp:secretmanager/secretIamMember:SecretIamMember') return;
        const role = String(props['role']);
        if (role === SECRET_READER) return;
        const writer = membersOf(props).every((m) => SECRET_WRITERS.test(m));
        if (role !== SECRET_WRITER || !writer)
          report(
            `grants ${role} to ${membersOf(props).join(', ')}: a workload reads secrets (${SECRET_READER}); ` +
              `only the studio and forward-catalog add versions, with ${SECRET_WRITER}`,
          );
      },
    ),
    policy(
      'eventbus-site-map-additive',
      "gateway.origin_path adds a path rule to the site's own URL map: no URL map of ours sends the site's own backends its traffic",
      ({ type, props }, report) => {
        // Ours only: the site's own map imported into the stack (site_url_map_import) keeps its defaults.
        if (type !== 'gcp:compute/uRLMap:URLMap' || !String(props['name']).startsWith('eventbus-')) return;
        const defaults = [
          props['defaultService'],
          ...((props['pathMatchers'] as { defaultService?: unknown }[] | undefined) ?? []).map(
            (m) => m.defaultService,
          ),
        ];
        const site = defaults.filter((d): d is string => typeof d === 'string' && SITE_BACKEND.test(d));
        if (site.length > 0)
          report(
            `sends everything but the gateway's path to ${site[0]}: a whole URL map replacing the site's (the ` +
              "previous release's origin_path form); name the site's map in gateway.site_url_map instead",
          );
      },
      undefined,
      'advisory',
    ),
    policy(
      'eventbus-billing-kept',
      "store and forward are declared as the billing the program decided and stamped on them (labels eventbus-billing*): a Cloud Function request-billed, a Cloud Run service instance-billed, and never switched from what the stack's state showed deployed unless cost.billing says so",
      ({ type, name, props }, report) => {
        for (const problem of billingStampProblems(
          type,
          name,
          props['labels'] as Readonly<Record<string, unknown>> | undefined,
        ))
          report(problem);
      },
    ),
    policy(
      'eventbus-trace-flush',
      `A request-billed function or service that exports traces (${ENV.traceEndpoint}) says its spans leave with each answer (${ENV.traceFlush}=answer), not on a timer its throttled CPU may never run`,
      ({ type, props }, report) => {
        const d = deployableOf(type, props);
        if (!d?.requestBilled || d.env[ENV.traceEndpoint] === undefined) return;
        const flush = d.env[ENV.traceFlush];
        if (flush !== 'answer')
          report(
            `exports traces with its CPU throttled once it has answered, and ${ENV.traceFlush} is ${flush === undefined ? 'unset' : JSON.stringify(flush)}: ` +
              'set it to "answer", or its sampled and failed hops may leave only at its next request or its end',
          );
      },
    ),
    policy(
      CONFIGURED.ingress,
      'Functions and Cloud Run services declare an ingress the organisation allows',
      (args, report) => {
        const { type, props } = args;
        const allowed = settingsOf(args);
        if (type === 'gcp:cloudfunctionsv2/function:Function') {
          const ingress = (props['serviceConfig'] as { ingressSettings?: string } | undefined)
            ?.ingressSettings;
          if (!ingress || !allowed.functionIngress.includes(ingress))
            report(
              `ingressSettings ${ingress ?? '(unset)'} is not one of ${allowed.functionIngress.join(', ')}`,
            );
        }
        if (type === 'gcp:cloudrunv2/service:Service') {
          const ingress = props['ingress'];
          if (typeof ingress !== 'string' || !allowed.serviceIngress.includes(ingress))
            report(
              `ingress ${String(ingress ?? '(unset)')} is not one of ${allowed.serviceIngress.join(', ')}`,
            );
        }
      },
      {
        properties: {
          functionIngress: strings(DEFAULT_INGRESS.functionIngress),
          serviceIngress: strings(DEFAULT_INGRESS.serviceIngress),
        },
      },
    ),
    policy(
      CONFIGURED.locations,
      'Every located resource is in a location the organisation allows (gcp.resourceLocations)',
      (args, report) => {
        const allowed = settingsOf(args).locations.map((l) => l.toLowerCase());
        for (const where of locationsOf(args.type, args.props))
          if (!allowed.includes(where)) report(`is in ${where}, not one of ${allowed.join(', ')}`);
      },
      { properties: { locations: strings() }, required: ['locations'] },
    ),
  ];
}
