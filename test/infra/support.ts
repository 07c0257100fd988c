/**
 * Pulumi offline: `pulumi.runtime.setMocks` stands in for the engine, records every declared
 * resource and invoke, and answers with plausible outputs (service account emails, function
 * URIs, the project number), so the program runs with no CLI, no credentials and no network.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as pulumi from '@pulumi/pulumi';
import { REPO_ROOT } from '../../infra/config.ts';
import type { Declared, Recorded } from '../../infra/offline.ts';
import { dependenciesOf as dependsOn } from '../../infra/offline.ts';
import { type DeclaredVariant, declareVariants } from '../../infra/variants.ts';

export {
  BUNDLES,
  type Declared,
  declare,
  dependenciesOf,
  mockPolicyTag,
  PROJECT_NUMBER,
  type Recorded,
} from '../../infra/offline.ts';

/** Reads a settings file of the repository (the environments/ examples serve as fixtures). */
export function settingsText(relative: string): string {
  return readFileSync(resolve(REPO_ROOT, relative), 'utf8');
}

/** The value an output settles on (under mocks every output settles). */
export const resolveOutput = <V>(o: pulumi.Output<V>) => new Promise<V>((r) => o.apply((v) => r(v)));

/** Every declared resource of one type. */
/** The Pulumi types of the load balancer's resources and the enabled APIs (gateway.domain, gateway.origin_path). */
export const LB_TYPES = {
  address: 'gcp:compute/globalAddress:GlobalAddress',
  neg: 'gcp:compute/regionNetworkEndpointGroup:RegionNetworkEndpointGroup',
  backend: 'gcp:compute/backendService:BackendService',
  urlMap: 'gcp:compute/uRLMap:URLMap',
  certificate: 'gcp:compute/managedSslCertificate:ManagedSslCertificate',
  proxy: 'gcp:compute/targetHttpsProxy:TargetHttpsProxy',
  rule: 'gcp:compute/globalForwardingRule:GlobalForwardingRule',
  mapping: 'gcp:cloudrun/domainMapping:DomainMapping',
  api: 'gcp:projects/service:Service',
} as const;

/** The Pulumi types of Secret Manager's resources and of a Cloud Run service. */
export const SECRET_TYPES = {
  secret: 'gcp:secretmanager/secret:Secret',
  version: 'gcp:secretmanager/secretVersion:SecretVersion',
  binding: 'gcp:secretmanager/secretIamMember:SecretIamMember',
  service: 'gcp:cloudrunv2/service:Service',
} as const;

export function ofType(recorded: Recorded, type: string): Declared[] {
  return recorded.resources.filter((r) => r.type === type);
}

/** The urn a declared resource got in the recorded graph. */
export function urnOf(recorded: Recorded, d: Declared): string {
  const found = [...recorded.graph.entries()].find(([, r]) => r.name === d.name && r.type === d.type);
  if (!found) throw new Error(`${d.name} is not in the graph`);
  return found[0];
}

/** Whether `forward` (its function or service) is declared to depend on `grant`: code that claims runs after it. */
export function forwardAfter(recorded: Recorded, grant: Declared): boolean {
  const fn = [...recorded.graph.entries()].find(
    ([, r]) =>
      r.custom &&
      r.name.endsWith('-forward') &&
      /Function|Service/.test(r.type) &&
      r.type.startsWith('gcp:c'),
  );
  if (!fn) throw new Error('forward is not declared');
  return dependsOn(recorded, fn[0]).has(urnOf(recorded, grant));
}

/** The example (column security, rules, studio lists) and the least settings there are. */
export const SETTINGS_FILES = [
  { settingsFile: 'environments/example.yaml', project: 'acme-outdoor-prod', region: 'europe-west1' },
  {
    settingsFile: 'test/fixtures/settings/valid/minimal.yaml',
    project: 'minimal-project',
    region: 'us-central1',
  },
] as const;

/**
 * Every settings variant declared once before the suite's tests (infra/variants.ts); the getter
 * gives them to the tests.
 */
export function withVariants(): () => DeclaredVariant[] {
  let variants: DeclaredVariant[] = [];
  before(async function () {
    this.timeout(120_000);
    variants = await declareVariants();
  });
  return () => variants;
}
