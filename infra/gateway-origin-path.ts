/**
 * The gateway under a path of the site's own origin (`gateway.origin_path`, e.g. `/_eb`;
 * docs/browser.md#same-origin-path) through the site's global external Application Load Balancer:
 * a serverless network endpoint group for the gateway's Cloud Run service and a backend service
 * with Cloud CDN in front of it. The site's URL map stays the site's: the path rule that sends
 * `<path>` and `<path>/*` to that backend is added to it, never declared here in a map of ours
 * (issue #100); the exact command that adds it and the same rule as a Pulumi snippet are the stack
 * outputs `gatewayOriginUrlMap` and `gatewayOriginPulumi` (core/deploy/site-url-map.ts). A map in
 * another project gets its editor granted the use of the backend (`gateway.site_url_map_grant`).
 *
 * The paths go through unchanged: the gateway takes the prefix off itself (gateway/runtime.ts,
 * withoutOriginPath). The CDN follows the gateway's own `Cache-Control` (USE_ORIGIN_HEADERS): the
 * tag is cached (5 minutes, a pinned version a year), every event's answer says `no-store` and a
 * POST is never cached, so an answer that sets the ids is never shared.
 *
 * The previous release's settings (`site_backend`, no `site_url_map`) keep the whole URL map that
 * release declared, unchanged, so a proxy pointed at it keeps serving (settings check warns).
 *
 * Declared only for `gateway.origin_via: load_balancer` (the default); with `cloudflare` or
 * `akamai` the checked-in Worker or rule (examples/edge/) routes the path and nothing here is made.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import { backendServiceUrl, SERVICE_USER_ROLE, sitePathRule } from '../core/deploy/site-url-map.ts';
import {
  type ImportedMapInputs,
  importedMapInputs,
  withGatewayRule,
} from '../core/deploy/site-url-map-import.ts';
import type { Plan } from '../core/plan.ts';

export type OriginPathPlan = NonNullable<Plan['gateway']['originPath']>;

/** A Compute resource's full URL from its (partial) one, as URL maps write their references. */
const computeUrl = (ref: string) =>
  ref.startsWith('https://') ? ref : `https://www.googleapis.com/compute/v1/${ref}`;

export const URL_MAP_TYPE = 'gcp:compute/uRLMap:URLMap';
/** The imported site map's logical name: `<env>-site-imported-urlmap` (infra/program.ts finds it in the state). */
export const IMPORTED_MAP_SUFFIX = 'site-imported-urlmap';

/** Why the plan's origin path cannot be declared, or undefined when it can. */
export function originPathRefusal(plan: Pick<Plan, 'gateway'>): string | undefined {
  const o = plan.gateway.originPath;
  // A Worker or an Akamai rule routes the path: nothing of the site's is declared.
  if (o?.via !== 'load_balancer' || o.siteMap || o.siteBackend) return undefined;
  return (
    `gateway.origin_path ${o.path} needs gateway.site_url_map to deploy: your site's own load balancer ` +
    'URL map, which gets a path rule to the gateway added and keeps everything else ' +
    '(or, with a Cloudflare Worker or an Akamai rule in front instead, gateway.origin_via: cloudflare or akamai)'
  );
}

export interface GatewayOriginPathArgs {
  readonly plan: Plan;
  readonly originPath: OriginPathPlan;
  /** The gateway's Cloud Run service (its name is what the NEG points at). */
  readonly service: gcp.cloudrunv2.Service;
  /** The APIs enabled (Compute Engine's among them). */
  readonly apisReady: pulumi.Resource;
  /** With `gateway.site_url_map_import`: the map's snapshot, and whether the state holds it already. */
  readonly siteUrlMap?: { readonly snapshot: unknown; readonly imported: boolean } | undefined;
}

export class GatewayOriginPath extends pulumi.ComponentResource {
  /** What to run once: the path rule added to the site's map (or, the previous form, the proxy pointed at ours). */
  readonly instruction: pulumi.Output<string>;
  /** The same path rule for a site whose URL map is declared in a Pulumi program of its own. */
  readonly pulumiSnippet: pulumi.Output<string> | undefined;

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
    const siteMap = originPath.siteMap;
    if (siteMap) {
      if (siteMap.grant)
        new gcp.compute.BackendServiceIamMember(
          `${name}-site-gateway-backend-user`,
          { project, name: backend.name, role: SERVICE_USER_ROLE, member: siteMap.grant },
          { parent: this },
        );
      if (siteMap.importFile) {
        this.instruction = pulumi.output(this.importSiteMap(name, args, backend));
        this.pulumiSnippet = undefined;
        this.registerOutputs({ instruction: this.instruction });
        return;
      }
      const rule = backend.name.apply((b) =>
        sitePathRule(
          siteMap,
          originPath.path,
          computeUrl(backendServiceUrl(project, b)),
          originPath.siteBackend,
        ),
      );
      this.instruction = rule.gcloud;
      this.pulumiSnippet = rule.pulumi;
      this.registerOutputs({ instruction: this.instruction, pulumiSnippet: this.pulumiSnippet });
      return;
    }
    // The previous release's form: its whole map, as it declared it (settings check warns).
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
    this.pulumiSnippet = undefined;
    this.registerOutputs({ instruction: this.instruction });
  }

  /**
   * The site's own map imported into the stack (core/deploy/site-url-map-import.ts): as the
   * snapshot shows it while the state does not hold it yet, with the path rule once it does; kept
   * if the stack stops declaring it. What the next step is, in words.
   */
  private importSiteMap(
    name: string,
    args: GatewayOriginPathArgs,
    backend: gcp.compute.BackendService,
  ): string {
    const { plan, originPath } = args;
    const site = originPath.siteMap;
    const snapshot = args.siteUrlMap;
    if (!site?.importFile || !snapshot)
      throw new Error(
        "gateway.site_url_map_import: the snapshot of the site's URL map was not read (infra/config.ts)",
      );
    const read = importedMapInputs(snapshot.snapshot, site);
    if (!read.ok)
      throw new Error(`gateway.site_url_map_import ${site.importFile}: ${read.problems.join('; ')}`);
    // The backend's name is the program's own constant: the rule is known before it exists.
    const gatewayBackend = computeUrl(backendServiceUrl(plan.project, 'eventbus-site-gateway-backend'));
    const siteBackend = computeUrl(backendServiceUrl(site.project, originPath.siteBackend ?? ''));
    let inputs: ImportedMapInputs = read.inputs;
    if (snapshot.imported) {
      const ruled = withGatewayRule(read.inputs, site, originPath.path, gatewayBackend, siteBackend);
      if (!ruled.ok) throw new Error(`gateway.site_url_map ${site.name}: ${ruled.problems.join('; ')}`);
      inputs = ruled.inputs;
    }
    new gcp.compute.URLMap(
      `${name}-${IMPORTED_MAP_SUFFIX}`,
      {
        project: inputs.project,
        name: inputs.name,
        ...(inputs.description === undefined ? {} : { description: inputs.description }),
        ...(inputs.defaultService === undefined ? {} : { defaultService: inputs.defaultService }),
        hostRules: inputs.hostRules.map((h) => ({ ...h, hosts: [...h.hosts] })),
        pathMatchers: inputs.pathMatchers.map((m) => ({
          ...m,
          pathRules: m.pathRules.map((r) => ({ ...r, paths: [...r.paths] })),
        })),
      },
      {
        parent: this,
        dependsOn: [backend],
        // The site's map stays the site's: never deleted with the stack.
        retainOnDelete: true,
        ...(snapshot.imported ? {} : { import: `projects/${site.project}/global/urlMaps/${site.name}` }),
      },
    );
    return snapshot.imported
      ? `the site's URL map ${site.name} (imported into this stack, kept if the stack is destroyed) routes ${originPath.path} to the gateway`
      : `pulumi up imports the site's URL map ${site.name} unchanged; run pulumi up again to add the path rule for ${originPath.path}`;
  }
}
