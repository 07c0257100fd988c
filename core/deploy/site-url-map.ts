/**
 * `gateway.origin_path` through the site's own load balancer adds one path rule to the site's own
 * URL map and replaces nothing in it (issue #100). The program declares only the gateway's side
 * (a serverless network endpoint group and a Cloud CDN backend service,
 * infra/gateway-origin-path.ts); the rule itself goes into a map the site owns, so this module
 * writes the exact command that adds it (and the same rule as a Pulumi snippet, for a site whose
 * map is in a Pulumi program of its own), and says in settings check what cannot work:
 *
 * - a classic Application Load Balancer (`EXTERNAL`): its URL map may only send to backend
 *   services of its own scheme, and the gateway's CDN backend is `EXTERNAL_MANAGED`;
 * - a map in another project with nobody granted the use of the gateway's backend: Google's
 *   cross-project service referencing needs `roles/compute.loadBalancerServiceUser` on it for
 *   whoever edits the map.
 *
 * Settings with `site_backend` and no `site_url_map` are the previous release's form: that release
 * declared a whole URL map the site's proxy may point at now, so the program keeps it (deleting a
 * map a proxy uses fails, and would take the site down if it did not) and settings check warns
 * with the way out.
 */
import type { Settings } from '../../schemas/settings.ts';
import type { FieldViolation } from '../validation.ts';

/** Where the path rule goes: the site's map, and either a new path matcher or an existing one. */
export interface SiteMapPlan {
  /** The project the site's URL map lives in (the environment's, unless its URL names another). */
  readonly project: string;
  readonly name: string;
  /** A new path matcher for these hosts (default service `site_backend`)… */
  readonly hosts?: readonly string[];
  /** …or the rule added to this path matcher of the map. */
  readonly pathMatcher?: string;
  /** Who edits a map of another project: granted the use of the gateway's backend. */
  readonly grant?: string;
  /** The snapshot of the map to import into the stack (site-url-map-import.ts), relative to the settings file. */
  readonly importFile?: string;
}

/** The path matcher the command adds, when the site's hosts have none yet. */
export const ADDED_PATH_MATCHER = 'eventbus';
/** The role cross-project service referencing needs on the referenced backend service. */
export const SERVICE_USER_ROLE = 'roles/compute.loadBalancerServiceUser';

type Gateway = NonNullable<Settings['gateway']>;

const MAP_URL =
  /^(?:https:\/\/www\.googleapis\.com\/compute\/v1\/)?projects\/([^/]+)\/global\/urlMaps\/(.+)$/;

/** The site's map as the plan carries it, or undefined without `site_url_map`. */
export function siteMapPlan(project: string, gateway: Gateway & { site_url_map: string }): SiteMapPlan {
  const map = gateway.site_url_map;
  const m = MAP_URL.exec(map);
  return {
    project: m?.[1] ?? project,
    name: m?.[2] ?? map,
    ...(gateway.site_path_matcher
      ? { pathMatcher: gateway.site_path_matcher }
      : gateway.site_hosts
        ? { hosts: gateway.site_hosts }
        : {}),
    ...(gateway.site_url_map_grant ? { grant: gateway.site_url_map_grant } : {}),
    ...(gateway.site_url_map_import ? { importFile: gateway.site_url_map_import } : {}),
  };
}

const SITE_KEYS = [
  'site_url_map',
  'site_hosts',
  'site_path_matcher',
  'site_scheme',
  'site_url_map_grant',
  'site_url_map_import',
] as const;

/** What settings check refuses about the site's map, each with its reason. */
export function siteUrlMapRefusals(project: string, g: Gateway | undefined): FieldViolation[] {
  const errors: FieldViolation[] = [];
  const viaBalancer = (g?.origin_via ?? 'load_balancer') === 'load_balancer';
  for (const key of SITE_KEYS)
    if (g?.[key] !== undefined && key !== 'site_url_map' && !g.site_url_map)
      errors.push({ field: `gateway.${key}`, description: 'only means something with gateway.site_url_map' });
  if (!g?.site_url_map) return errors;
  if (!g.origin_path || !viaBalancer) {
    errors.push({
      field: 'gateway.site_url_map',
      description: g.origin_path
        ? `only means something with origin_via: load_balancer: with ${g.origin_via} the Worker or rule in front of the site routes the path`
        : 'only means something with gateway.origin_path',
    });
    return errors;
  }
  if (g.site_scheme === 'EXTERNAL')
    errors.push({
      field: 'gateway.site_scheme',
      description:
        'the site is behind a classic Application Load Balancer (EXTERNAL), whose URL map can only send to ' +
        "backend services of its own scheme, and the gateway's Cloud CDN backend is EXTERNAL_MANAGED (the " +
        "global external Application Load Balancer): migrate the site's load balancer to EXTERNAL_MANAGED " +
        '(Google\'s "migrate from classic" steps) or put a Worker or rule in front (origin_via: cloudflare or akamai)',
    });
  const site = siteMapPlan(project, { ...g, site_url_map: g.site_url_map });
  if (site.project !== project && !g.site_url_map_grant)
    errors.push({
      field: 'gateway.site_url_map',
      description:
        `is in project ${site.project}, not ${project}: its path rule may only name the gateway's backend in ` +
        `${project} through cross-project service referencing, which needs ${SERVICE_USER_ROLE} on that backend ` +
        'for whoever edits the map; name them in gateway.site_url_map_grant (e.g. group:web-admins@shop.example)',
    });
  if (g.site_url_map_import && site.project !== project)
    errors.push({
      field: 'gateway.site_url_map_import',
      description:
        `the map is in project ${site.project}: importing it would make this environment's stack (project ${project}) ` +
        "own another project's map; run the printed command there instead (remove site_url_map_import)",
    });
  if (g.site_path_matcher && g.site_hosts)
    errors.push({
      field: 'gateway.site_hosts',
      description:
        'names the hosts of a new path matcher; with site_path_matcher the rule goes into that matcher, whose hosts stay as they are',
    });
  if (!g.site_path_matcher && (!g.site_hosts || !g.site_backend))
    errors.push({
      field: 'gateway.site_url_map',
      description:
        'needs either site_path_matcher (the path matcher of the map serving the site’s hosts, the rule is added ' +
        'to it) or site_hosts and site_backend (a new path matcher for those hosts: the path to the gateway, ' +
        'everything else to site_backend)',
    });
  return errors;
}

/** The previous release's form (a whole URL map of ours), kept but warned about. */
export function siteUrlMapWarnings(settings: Readonly<Settings>): string[] {
  const g = settings.gateway;
  if (!g?.origin_path || (g.origin_via ?? 'load_balancer') !== 'load_balancer') return [];
  if (!g.site_backend || g.site_url_map) return [];
  return [
    `gateway.origin_path ${g.origin_path} with site_backend and no site_url_map is the previous release's ` +
      'form: its whole URL map (eventbus-site-urlmap, with one rule to the gateway and everything else to ' +
      `${g.site_backend}) is kept so a proxy pointed at it keeps working, but it drops every other rule, host ` +
      "and redirect of the site's own map. Name the site's map in gateway.site_url_map (with site_hosts, or " +
      'site_path_matcher), run pulumi up, run the command it prints, point the proxy back at the site’s map, ' +
      'then run pulumi up again to delete ours (docs/browser.md#same-origin-path).',
  ];
}

/** A backend service's URL from its name or (partial) URL, in the project. */
export function backendServiceUrl(project: string, backend: string): string {
  if (backend.startsWith('https://')) return backend;
  return backend.startsWith('projects/') ? backend : `projects/${project}/global/backendServices/${backend}`;
}

/** What adds the path rule to the site's map: a gcloud command and the same as a Pulumi snippet. */
export interface SitePathRule {
  readonly gcloud: string;
  readonly pulumi: string;
}

/**
 * The path rule for `path` to the gateway's backend (`gatewayBackend`, its full URL, so a map of
 * another project names it unambiguously), in the site's map as `site` says.
 */
export function sitePathRule(
  site: SiteMapPlan,
  path: string,
  gatewayBackend: string,
  siteBackend: string | undefined,
): SitePathRule {
  const paths = [path, `${path}/*`];
  const where = `${site.name} --global --project=${site.project}`;
  const rule = `{ paths: ${JSON.stringify(paths)}, service: ${JSON.stringify(gatewayBackend)} }`;
  if (site.pathMatcher) {
    // gcloud has no command that adds one rule to an existing matcher: the map is exported, the
    // rule added, and imported back. The export carries the map's fingerprint, so the import
    // fails rather than overwrite a change made in between.
    const file = `${site.name}.yaml`;
    return {
      gcloud: [
        `gcloud compute url-maps export ${where} --destination=${file}`,
        `# in ${file}, under the path matcher "${site.pathMatcher}", add to pathRules:`,
        `#   - paths: ['${paths[0]}', '${paths[1]}']`,
        `#     service: ${gatewayBackend}`,
        `gcloud compute url-maps import ${where} --source=${file}`,
      ].join('\n'),
      pulumi: `// in the site's gcp.compute.URLMap, the path matcher named ${JSON.stringify(site.pathMatcher)}:\npathRules: [/* its rules, */ ${rule}],`,
    };
  }
  const hosts = site.hosts ?? [];
  const fallback = backendServiceUrl(site.project, siteBackend ?? '<site_backend>');
  return {
    gcloud:
      `gcloud compute url-maps add-path-matcher ${where} --path-matcher-name=${ADDED_PATH_MATCHER} ` +
      `--new-hosts=${hosts.join(',')} --default-service=${fallback} ` +
      `--backend-service-path-rules=${paths.map((p) => `${p}=${gatewayBackend}`).join(',')}`,
    pulumi: [
      "// in the site's gcp.compute.URLMap:",
      `hostRules: [/* its host rules, */ { hosts: ${JSON.stringify(hosts)}, pathMatcher: "${ADDED_PATH_MATCHER}" }],`,
      `pathMatchers: [/* its path matchers, */ { name: "${ADDED_PATH_MATCHER}", defaultService: ${JSON.stringify(fallback)}, pathRules: [${rule}] }],`,
    ].join('\n'),
  };
}
