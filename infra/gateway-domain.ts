/**
 * The gateway on the site's own subdomain (`gateway.domain`, docs/browser.md#first-party-domains),
 * declared one of two ways (`gateway.domain_via`):
 *
 * - `load_balancer` (the default): a global external Application Load Balancer (EXTERNAL_MANAGED)
 *   in front of the gateway through a serverless network endpoint group, with a Google-managed
 *   certificate and a reserved global IPv4 address. Generally available, offered whatever the
 *   service's region, and the domain needs no ownership verification; it costs a forwarding rule
 *   around the clock plus its data processing (core/deploy/bill.ts).
 * - `mapping`: a Cloud Run domain mapping (`gcp.cloudrun.DomainMapping`, the v1 API, which maps
 *   v2 services too: `routeName` is the service's name). No cost, but Google calls it Preview with
 *   higher latency, offers it in a few regions only (MAPPING_REGIONS), and refuses it unless the
 *   identity running `pulumi up` is a verified owner of the domain.
 *
 * Either way the `run.app` URL keeps working (servers, ID tokens' audience, the studio), and the
 * DNS record to create is a stack output.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';

/** How the domain reaches the gateway (plan().gateway.domain). */
export type GatewayDomainPlan = NonNullable<Plan['gateway']['domain']>;

/**
 * Regions where Cloud Run offers domain mappings (cloud.google.com/run/docs/mapping-custom-domains,
 * "Limitations", as last known; unverified offline): elsewhere only the load balancer serves.
 */
export const MAPPING_REGIONS: readonly string[] = [
  'asia-east1',
  'asia-northeast1',
  'asia-southeast1',
  'europe-north1',
  'europe-west1',
  'europe-west4',
  'us-central1',
  'us-east1',
  'us-east4',
  'us-west1',
];

/** The target Google gives a mapped subdomain's CNAME (the same for every mapping). */
export const MAPPING_CNAME_TARGET = 'ghs.googlehosted.com.';

/** The APIs the load balancer's resources need beyond the required ones (infra/apis.ts). */
export const LOAD_BALANCER_APIS: readonly string[] = ['compute.googleapis.com'];

/** Why the plan's domain cannot be declared in its region, or undefined when it can. */
export function domainRefusal(plan: Pick<Plan, 'region' | 'gateway'>): string | undefined {
  const d = plan.gateway.domain;
  if (d?.via !== 'mapping' || MAPPING_REGIONS.includes(plan.region)) return undefined;
  return (
    `gateway.domain_via: mapping is not offered in ${plan.region} (Cloud Run domain mappings exist in ` +
    `${MAPPING_REGIONS.join(', ')}); use gateway.domain_via: load_balancer`
  );
}

export interface GatewayDomainArgs {
  readonly plan: Plan;
  readonly domain: GatewayDomainPlan;
  /** The gateway's Cloud Run service (its name is what the mapping and the NEG point at). */
  readonly service: gcp.cloudrunv2.Service;
  /** The APIs enabled (infra/apis.ts; the load balancer's include Compute Engine's). */
  readonly apisReady: pulumi.Resource;
}

export class GatewayDomain extends pulumi.ComponentResource {
  /** `https://<domain>`: where pages load the tag and send events. */
  readonly url: string;
  /** The DNS record to create at the domain's DNS host, `<name> <type> <value>`. */
  readonly dnsRecord: pulumi.Output<string>;

  constructor(name: string, args: GatewayDomainArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:GatewayDomain', name, {}, opts);
    const { plan, domain, service } = args;
    const refusal = domainRefusal(plan);
    if (refusal) throw new Error(refusal);
    this.url = `https://${domain.name}`;
    // After the service it fronts and the APIs it needs (a component's dependsOn is not its children's).
    const child = { parent: this, dependsOn: [service, args.apisReady] };
    this.dnsRecord =
      domain.via === 'mapping'
        ? mapping(name, plan, domain.name, service, child)
        : loadBalancer(name, plan, domain.name, service, child);
    this.registerOutputs({ url: this.url, dnsRecord: this.dnsRecord });
  }
}

/** A domain mapping; a subdomain is answered by a CNAME to Google's hosts. */
function mapping(
  name: string,
  plan: Plan,
  domain: string,
  service: gcp.cloudrunv2.Service,
  opts: pulumi.CustomResourceOptions,
): pulumi.Output<string> {
  new gcp.cloudrun.DomainMapping(
    `${name}-gateway-domain`,
    {
      project: plan.project,
      location: plan.region,
      name: domain,
      metadata: { namespace: plan.project, labels: { environment: plan.environment } },
      spec: { routeName: service.name },
    },
    opts,
  );
  return pulumi.output(`${domain} CNAME ${MAPPING_CNAME_TARGET}`);
}

/**
 * The load balancer: address → forwarding rule (443) → HTTPS proxy (managed certificate) → URL
 * map → backend service → serverless NEG → the gateway. Google provisions the certificate once
 * the A record answers with the address.
 */
function loadBalancer(
  name: string,
  plan: Plan,
  domain: string,
  service: gcp.cloudrunv2.Service,
  opts: pulumi.CustomResourceOptions,
): pulumi.Output<string> {
  const project = plan.project;
  // One environment a project, like the service's own fixed name (`gateway`).
  const prefix = 'eventbus-gateway';
  const address = new gcp.compute.GlobalAddress(
    `${name}-gateway-address`,
    { project, name: `${prefix}-ip`, ipVersion: 'IPV4', addressType: 'EXTERNAL' },
    opts,
  );
  const neg = new gcp.compute.RegionNetworkEndpointGroup(
    `${name}-gateway-neg`,
    {
      project,
      region: plan.region,
      name: `${prefix}-neg`,
      networkEndpointType: 'SERVERLESS',
      cloudRun: { service: service.name },
    },
    opts,
  );
  const backend = new gcp.compute.BackendService(
    `${name}-gateway-backend`,
    {
      project,
      name: `${prefix}-backend`,
      loadBalancingScheme: 'EXTERNAL_MANAGED',
      protocol: 'HTTPS',
      backends: [{ group: neg.id }],
    },
    opts,
  );
  const urlMap = new gcp.compute.URLMap(
    `${name}-gateway-urlmap`,
    { project, name: `${prefix}-urlmap`, defaultService: backend.id },
    opts,
  );
  const certificate = new gcp.compute.ManagedSslCertificate(
    `${name}-gateway-certificate`,
    { project, name: `${prefix}-cert`, managed: { domains: [domain] } },
    opts,
  );
  const proxy = new gcp.compute.TargetHttpsProxy(
    `${name}-gateway-https-proxy`,
    { project, name: `${prefix}-https-proxy`, urlMap: urlMap.id, sslCertificates: [certificate.id] },
    opts,
  );
  new gcp.compute.GlobalForwardingRule(
    `${name}-gateway-forwarding-rule`,
    {
      project,
      name: `${prefix}-https`,
      loadBalancingScheme: 'EXTERNAL_MANAGED',
      ipProtocol: 'TCP',
      ipAddress: address.id,
      portRange: '443',
      target: proxy.id,
    },
    opts,
  );
  return address.address.apply((ip) => `${domain} A ${ip}`);
}
