/**
 * The program declared offline: `pulumi.runtime.setMocks` stands in for the engine, records every
 * declared resource and invoke, and answers with plausible outputs (service account emails,
 * function URIs, the project number), so the program runs with no CLI, no credentials and no
 * network. The tests read what it declares (test/infra/), and the local environment takes its
 * IAM bindings from it (local/access-file.ts): the grants the emulators enforce are the ones
 * `pulumi up` would create, from the same code.
 */
import * as pulumi from '@pulumi/pulumi';
import { PROJECT_NUMBER } from '../core/access/offline-project.ts';
import { catalogSlugs, type DestinationLike } from '../core/deploy/catalog-function.ts';
import type { BundleManifest } from './bundle-manifest.ts';

export { PROJECT_NUMBER };

const MOCK_TAXONOMY = '1111';
const MOCK_POLICY_TAG = '2222';
/** The `pii` policy tag's name under mocks (project, location `eu`, the mock ids). */
export const mockPolicyTag = (project: string, location: string) =>
  `projects/${project}/locations/${location}/taxonomies/${MOCK_TAXONOMY}/policyTags/${MOCK_POLICY_TAG}`;
/** A policy tag's name under mocks, from its taxonomy's id. */
export const mockPolicyTagOf = (taxonomy: string) => `${taxonomy}/policyTags/${MOCK_POLICY_TAG}`;

export interface Declared {
  readonly type: string;
  readonly name: string;
  // Resource inputs are whatever the provider schema allows: tests read them as plain JSON.
  // biome-ignore lint/suspicious/noExplicitAny: mocks hand back untyped provider inputs
  readonly inputs: Record<string, any>;
  /** The `import` resource option: the id of the live resource the engine would adopt. */
  readonly importId?: string;
}

export interface Recorded {
  readonly resources: Declared[];
  readonly calls: { token: string; inputs: Record<string, unknown> }[];
  /** Logical name → the logical names of its explicit `dependsOn` (as declared, not inherited). */
  readonly dependsOn: Map<string, string[]>;
  /**
   * What the engine would be told: URN → the resource's name, whether it is custom (not a
   * component), and the URNs it depends on (explicit `dependsOn` and every input's resources,
   * components expanded to their children), i.e. the real deploy order.
   */
  readonly graph: Map<string, { name: string; type: string; custom: boolean; dependencies: string[] }>;
}

/** The monitor's request, as much of it as the graph needs (the gRPC message's getters). */
interface RegisterRequest {
  getName(): string;
  getType(): string;
  getCustom(): boolean;
  getDependenciesList(): string[];
}
type RegisterCallback = (err: unknown, res: { getUrn(): string } | undefined) => void;

/** Every URN `urn` depends on, directly or through its dependencies. */
export function dependenciesOf(recorded: Recorded, urn: string): Set<string> {
  const seen = new Set<string>();
  const walk = (u: string) => {
    for (const d of recorded.graph.get(u)?.dependencies ?? []) {
      if (seen.has(d)) continue;
      seen.add(d);
      walk(d);
    }
  };
  walk(urn);
  return seen;
}

/** The inputs that name a resource (what a replacement would change); nothing else is kept. */
export const NAMING_KEYS = [
  'name',
  'location',
  'region',
  'project',
  'datasetId',
  'tableId',
  'topic',
  'bucket',
  'databaseId',
  'secretId',
  'accountId',
  'type',
] as const;

/** One resource of a stack's checkpoint as the engine lists it (test/fixtures/stack-states/). */
export interface StackResource {
  readonly urn: string;
  readonly type: string;
  readonly outputs?: Readonly<Record<string, unknown>>;
}

/**
 * Runs `build` against the mocks and resolves once every registration has drained.
 * `stackOutputs` are what a StackReference reads and `stackResources` what the engine's
 * `pulumi:pulumi:readStackResourceOutputs` lists (the program reads its own stack's last outputs
 * and state, infra/program.ts): none by default, a new stack.
 */
export async function declare(
  build: () => unknown,
  options: {
    readonly stackOutputs?: Readonly<Record<string, unknown>>;
    readonly stackResources?: readonly StackResource[];
  } = {},
): Promise<Recorded> {
  // Pulumi takes a stack trace for every promise and resource it makes (for its leak report and
  // the engine's source positions); under the mocks nothing reads them, and formatting them was
  // 60 % of a declaration's CPU (12 variants: 6.8 s, 2.5 s without). Errors the program throws
  // keep their messages; their stacks are empty until the declaration ends.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return await declareMocked(build, options.stackOutputs ?? {}, options.stackResources ?? []);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

async function declareMocked(
  build: () => unknown,
  stackOutputs: Readonly<Record<string, unknown>>,
  stackResources: readonly StackResource[],
): Promise<Recorded> {
  const recorded: Recorded = { resources: [], calls: [], dependsOn: new Map(), graph: new Map() };
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        recorded.resources.push({
          type: args.type,
          name: args.name,
          inputs: args.inputs,
          ...(args.id ? { importId: args.id } : {}),
        });
        const state =
          args.type === 'pulumi:pulumi:StackReference'
            ? { ...args.inputs, outputs: stackOutputs, secretOutputNames: [] }
            : mockState(args.type, args.inputs);
        // A resource's `id` output is the mock's id, not a state field: answer with the real shape.
        return { id: typeof state['id'] === 'string' ? state['id'] : `${args.name}-id`, state };
      },
      call(args) {
        recorded.calls.push({ token: args.token, inputs: args.inputs });
        if (args.token === 'pulumi:pulumi:readStackResourceOutputs') {
          const outputs = Object.fromEntries(
            stackResources.map((r) => [r.urn, { type: r.type, outputs: r.outputs ?? {} }]),
          );
          return { name: args.inputs['stackName'], outputs };
        }
        if (args.token === 'gcp:organizations/getProject:getProject') {
          return { number: PROJECT_NUMBER, projectId: args.inputs['projectId'], name: 'mocked' };
        }
        throw new Error(`unexpected invoke ${args.token}`);
      },
    },
    'eventbus',
    'test',
    false,
    // The DIY backend's organization name (a StackReference names organization/project/stack).
    'organization',
  );
  // The mock monitor sees each registration's dependency URNs; the mocks' hook does not.
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource(req: RegisterRequest, callback: RegisterCallback): unknown;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) =>
    register(req, (err, res) => {
      if (res) {
        recorded.graph.set(res.getUrn(), {
          name: req.getName(),
          type: req.getType(),
          custom: req.getCustom(),
          dependencies: req.getDependenciesList(),
        });
      }
      callback(err, res);
    });
  // Inside a stack, so a stack transformation sees every resource's options: the mocks are not
  // told what a resource depends on, and first-deploy ordering is part of what tests check.
  await pulumi.runtime.runInPulumiStack(async () => {
    pulumi.runtime.registerStackTransformation((args) => {
      const deps = args.opts.dependsOn;
      const list = Array.isArray(deps) ? deps : deps === undefined ? [] : [deps];
      // `__name` is the logical name Pulumi keeps on every resource object.
      recorded.dependsOn.set(
        args.name,
        list.map((d) => String((d as unknown as { __name?: string }).__name ?? '?')),
      );
      return undefined;
    });
    const result = build();
    if (result instanceof Promise) await result;
    return {};
  });
  // Waits for every outstanding registration (and the applies that create more resources).
  await pulumi.runtime.disconnect();
  return recorded;
}

// biome-ignore lint/suspicious/noExplicitAny: see Declared.inputs
function mockState(type: string, inputs: Record<string, any>): Record<string, unknown> {
  const project = inputs['project'] ?? 'mock-project';
  switch (type) {
    case 'gcp:pubsub/topic:Topic':
      return { ...inputs, id: `projects/${project}/topics/${inputs['name']}` };
    case 'gcp:pubsub/subscription:Subscription':
      return { ...inputs, id: `projects/${project}/subscriptions/${inputs['name']}` };
    case 'gcp:serviceaccount/account:Account': {
      const email = `${inputs['accountId']}@${project}.iam.gserviceaccount.com`;
      return {
        ...inputs,
        email,
        member: `serviceAccount:${email}`,
        name: `projects/${project}/serviceAccounts/${email}`,
      };
    }
    case 'gcp:cloudfunctionsv2/function:Function':
      return {
        ...inputs,
        url: `https://${inputs['location']}-${project}.cloudfunctions.net/${inputs['name']}`,
        serviceConfig: {
          ...inputs['serviceConfig'],
          uri: `https://${inputs['name']}-mock-ew.a.run.app`,
          service: `projects/${project}/locations/${inputs['location']}/services/${inputs['name']}`,
        },
      };
    case 'gcp:datacatalog/taxonomy:Taxonomy':
      return {
        ...inputs,
        id: `projects/${project}/locations/${inputs['region']}/taxonomies/${MOCK_TAXONOMY}`,
      };
    case 'gcp:datacatalog/policyTag:PolicyTag':
      return { ...inputs, name: mockPolicyTagOf(String(inputs['taxonomy'])) };
    case 'gcp:projects/serviceIdentity:ServiceIdentity': {
      // Google's agent naming: service-<project number>@gcp-sa-<service>.iam.gserviceaccount.com.
      const email = `service-${PROJECT_NUMBER}@gcp-sa-${String(inputs['service']).split('.')[0]}.iam.gserviceaccount.com`;
      return { ...inputs, email, member: `serviceAccount:${email}` };
    }
    case 'gcp:cloudrunv2/service:Service':
      return { ...inputs, uri: `https://${inputs['name']}-mock-ew.a.run.app` };
    case 'gcp:secretmanager/secretVersion:SecretVersion':
      return { ...inputs, version: '1', name: `${inputs['secret']}/versions/1` };
    case 'gcp:storage/bucketObject:BucketObject':
      return { ...inputs, generation: 1700000000000000 };
    // A reserved address (documentation range, RFC 5737): the gateway domain's A record.
    case 'gcp:compute/globalAddress:GlobalAddress':
      return { ...inputs, address: '203.0.113.10' };
    default:
      return { ...inputs };
  }
}

/**
 * BUNDLES and, for settings with catalogue destinations, a forward-catalog bundle carrying theirs
 * (as `npm run build:functions -- --settings <file>` writes it).
 */
export function bundlesFor(settings: {
  readonly destinations?: readonly DestinationLike[] | undefined;
}): BundleManifest {
  const slugs = catalogSlugs(settings);
  if (slugs.length === 0) return BUNDLES;
  return {
    ...BUNDLES,
    'forward-catalog': {
      name: 'forward-catalog',
      kind: 'function',
      dir: 'dist/functions/forward-catalog',
      main: 'index.js',
      archive: 'dist/archives/forward-catalog-0123456789abcdef.zip',
      object: 'forward-catalog-0123456789abcdef.zip',
      sha256: '0'.repeat(64),
      bytes: 1,
      segmentDestinations: slugs,
    },
  };
}

/** A manifest as `npm run build:functions` writes it; the archives are never read under mocks. */
export const BUNDLES: BundleManifest = Object.fromEntries(
  (['store', 'forward', 'schedule', 'gateway', 'studio', 'store-service', 'forward-service'] as const).map(
    (n) => {
      const service = n === 'gateway' || n === 'studio' || n.endsWith('-service');
      const ext = service ? 'tar.gz' : 'zip';
      return [
        n,
        {
          name: n,
          kind: service ? 'service' : 'function',
          dir: `dist/${n}`,
          main: service ? 'main.js' : 'index.js',
          archive: `dist/archives/${n}-0123456789abcdef.${ext}`,
          object: `${n}-0123456789abcdef.${ext}`,
          sha256: '0'.repeat(64),
          bytes: 1,
        },
      ];
    },
  ),
);
