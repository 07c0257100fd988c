/**
 * The gateway under a path of the site's own origin (`gateway.origin_path`, e.g. `/_eb`;
 * docs/browser.md#same-origin-path) through the site's global external Application Load Balancer:
 * a serverless network endpoint group for the gateway's Cloud Run service, a backend service with
 * Cloud CDN in front of it, and a URL map whose path matcher sends `<path>` and `<path>/*` there
 * and everything else to the site's own backend service (`gateway.site_backend`).
 *
 * The paths go through unchanged: the gateway takes the prefix off itself (gateway/runtime.ts,
 * withoutOriginPath). The CDN follows the gateway's own `Cache-Control` (USE_ORIGIN_HEADERS): the
 * tag is cached (5 minutes, a pinned version a year), every event's answer says `no-store` and a
 * POST is never cached, so an answer that sets the ids is never shared.
 *
 * The site's HTTPS proxy, certificate and address are the site's: pointing its proxy at this URL
 * map is one command, printed as the stack output `gatewayOriginUrlMap`.
 *
 * Declared only for `gateway.origin_via: load_balancer` (the default); with `cloudflare` or
 * `akamai` the checked-in Worker or rule (examples/edge/) routes the path and nothing here is made.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';

export type OriginPathPlan = NonNullable<Plan['gateway']['originPath']>;

/** Why the plan's origin path cannot be declared, or undefined when it can. */
export function originPathRefusal(plan: Pick<Plan, 'gateway'>): string | undefined {
  const o = plan.gateway.originPath;
  // A Worker or an Akamai rule routes the path: nothing of the site's is declared.
  if (o?.via !== 'load_balancer' || o.siteBackend) return undefined;
  return (
    `gateway.origin_path ${o.path} needs gateway.site_backend to deploy: the backend service your ` +
    "site's load balancer sends its pages to, which the declared URL map keeps for every other path " +
    '(or, with a Cloudflare Worker or an Akamai rule in front instead, gateway.origin_via: cloudflare or akamai)'
  );
}

/** A backend service's URL from its name or (partial) URL, in the project. */
export function backendServiceUrl(project: string, backend: string): string {
  if (backend.startsWith('https://')) return backend;
  return backend.startsWith('projects/') ? backend : `projects/${project}/global/backendServices/${backend}`;
}

export interface GatewayOriginPathArgs {
  readonly plan: Plan;
  readonly originPath: OriginPathPlan;
  /** The gateway's Cloud Run service (its name is what the NEG points at). */
  readonly service: gcp.cloudrunv2.Service;
  /** The APIs enabled (Compute Engine's among them). */
  readonly apisReady: pulumi.Resource;
}

export class GatewayOriginPath extends pulumi.ComponentResource {
  /** What to run once: the site's HTTPS proxy pointed at the declared URL map. */
  readonly instruction: pulumi.Output<string>;

  constructor(name: string, args: GatewayOriginPathArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:GatewayOriginPath', name, {}, opts);
    const { plan, originPath, service } = args;
    const refusal = originPathRefusal(plan);
    if (refusal) throw new Error(refusal);
    const project = plan.project;
    const child = { parent: this, dependsOn: [service, args.apisReady] };
    // One environment a project; named apart from gateway.domain's load balancer.
    const prefix = 'eventbus-site';
    const neg = new gcp.compute.RegionNetworkEndpointGroup(
      `${name}-site-gateway-neg`,
      {
        project,
        region: plan.region,
        name: `${prefix}-gateway-neg`,
        networkEndpointType: 'SERVERLESS',
        cloudRun: { service: service.name },
      },
      child,
    );
    const backend = new gcp.compute.BackendService(
      `${name}-site-gateway-backend`,
      {
        project,
        name: `${prefix}-gateway-backend`,
        loadBalancingScheme: 'EXTERNAL_MANAGED',
        protocol: 'HTTPS',
        backends: [{ group: neg.id }],
        enableCdn: true,
        cdnPolicy: { cacheMode: 'USE_ORIGIN_HEADERS', cacheKeyPolicy: { includeQueryString: true } },
      },
      child,
    );
    const site = backendServiceUrl(project, originPath.siteBackend as string);
    const urlMap = new gcp.compute.URLMap(
      `${name}-site-urlmap`,
      {
        project,
        name: `${prefix}-urlmap`,
        defaultService: site,
        hostRules: [{ hosts: ['*'], pathMatcher: 'eventbus' }],
        pathMatchers: [
          {
            name: 'eventbus',
            defaultService: site,
            pathRules: [{ paths: [originPath.path, `${originPath.path}/*`], service: backend.id }],
          },
        ],
      },
      child,
    );
    this.instruction = urlMap.name.apply(
      (map) =>
        `gcloud compute target-https-proxies update <your site's HTTPS proxy> --url-map=${map} --global`,
    );
    this.registerOutputs({ instruction: this.instruction });
  }
}
