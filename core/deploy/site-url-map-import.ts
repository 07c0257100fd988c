/**
 * The site's URL map imported into the stack, when the settings say so
 * (`gateway.site_url_map_import`; docs/browser.md#same-origin-path). Pulumi imports a resource
 * only when the inputs declared match the live one, so the flow has two steps, each a `pulumi up`:
 *
 * 1. The map as it is: the snapshot `gcloud compute url-maps describe <map> --global --format=json`
 *    wrote (Compute's own REST form of it) turned into the URL map's inputs, unchanged, declared
 *    with the `import` option. Nothing of the site's routing changes.
 * 2. Once the stack's state holds it: the same inputs plus the path rule to the gateway (in the
 *    named path matcher, or a new one for the site's hosts), an update in place.
 *
 * The map is kept when the stack is destroyed or stops declaring it (`retainOnDelete`): it stays
 * the site's. The snapshot is read strictly: a field the import would not reproduce exactly
 * (route rules, redirects, header actions, tests…) refuses it with the reason, rather than
 * declaring a map that differs from the live one. Pure: the snapshot comes in as a value.
 */
import { ADDED_PATH_MATCHER, type SiteMapPlan } from './site-url-map.ts';

/** The URL map's inputs the import declares (gcp.compute.URLMap's, a subset). */
export interface ImportedMapInputs {
  readonly project: string;
  readonly name: string;
  readonly description?: string;
  readonly defaultService?: string;
  readonly hostRules: readonly { hosts: string[]; pathMatcher: string; description?: string }[];
  readonly pathMatchers: readonly {
    name: string;
    defaultService: string;
    description?: string;
    pathRules: { paths: string[]; service: string }[];
  }[];
}

/** Fields Compute answers that say nothing of the routing (output-only). */
const OUTPUT_ONLY = ['kind', 'id', 'creationTimestamp', 'selfLink', 'fingerprint'];

type Problems = string[];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Fields of `o` other than `known`: the ones the import would not carry. */
function unknownFields(o: Record<string, unknown>, known: readonly string[], where: string): Problems {
  return Object.keys(o)
    .filter((k) => !known.includes(k) && !OUTPUT_ONLY.includes(k))
    .map(
      (k) =>
        `${where} has ${k}, which the import does not reproduce: add the path rule with the printed command instead of importing`,
    );
}

/**
 * The snapshot's map as the import declares it (step 1), or what refuses the snapshot. `site`
 * names the map the settings expect: the snapshot must be that map.
 */
export function importedMapInputs(
  snapshot: unknown,
  site: SiteMapPlan,
): { ok: true; inputs: ImportedMapInputs } | { ok: false; problems: Problems } {
  if (!isObject(snapshot))
    return { ok: false, problems: ['the snapshot is not a URL map (a JSON object) as gcloud describes it'] };
  const problems: Problems = unknownFields(
    snapshot,
    ['name', 'description', 'defaultService', 'hostRules', 'pathMatchers'],
    'the map',
  );
  if (snapshot['name'] !== site.name)
    problems.push(
      `the snapshot is of the map ${String(snapshot['name'])}, not ${site.name} (gateway.site_url_map)`,
    );
  if (typeof snapshot['defaultService'] !== 'string')
    problems.push('the map has no defaultService (a default redirect or route action is not imported)');
  const hostRules = (Array.isArray(snapshot['hostRules']) ? snapshot['hostRules'] : []).flatMap((h, i) => {
    const where = `hostRules[${i}]`;
    if (!isObject(h) || !strings(h['hosts']) || typeof h['pathMatcher'] !== 'string') {
      problems.push(`${where} is not {hosts, pathMatcher}`);
      return [];
    }
    problems.push(...unknownFields(h, ['hosts', 'pathMatcher', 'description'], where));
    return [
      {
        hosts: h['hosts'],
        pathMatcher: h['pathMatcher'],
        ...(typeof h['description'] === 'string' ? { description: h['description'] } : {}),
      },
    ];
  });
  const pathMatchers = (Array.isArray(snapshot['pathMatchers']) ? snapshot['pathMatchers'] : []).flatMap(
    (m, i) => {
      const where = `pathMatchers[${i}]`;
      if (!isObject(m) || typeof m['name'] !== 'string' || typeof m['defaultService'] !== 'string') {
        problems.push(`${where} is not {name, defaultService, pathRules}`);
        return [];
      }
      problems.push(...unknownFields(m, ['name', 'defaultService', 'description', 'pathRules'], where));
      const rules = Array.isArray(m['pathRules']) ? m['pathRules'] : [];
      const pathRules = rules.flatMap((r, j) => {
        if (!isObject(r) || !strings(r['paths']) || typeof r['service'] !== 'string') {
          problems.push(`${where}.pathRules[${j}] is not {paths, service} (a route action or redirect)`);
          return [];
        }
        problems.push(...unknownFields(r, ['paths', 'service'], `${where}.pathRules[${j}]`));
        return [{ paths: r['paths'], service: r['service'] }];
      });
      return [
        {
          name: m['name'],
          defaultService: m['defaultService'],
          ...(typeof m['description'] === 'string' ? { description: m['description'] } : {}),
          pathRules,
        },
      ];
    },
  );
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    inputs: {
      project: site.project,
      name: site.name,
      ...(typeof snapshot['description'] === 'string' ? { description: snapshot['description'] } : {}),
      defaultService: snapshot['defaultService'] as string,
      hostRules,
      pathMatchers,
    },
  };
}

/**
 * The imported map with the path rule to the gateway (step 2): `<path>` and `<path>/*` to
 * `gatewayBackend` in `site.pathMatcher`, or in a new path matcher for `site.hosts` whose default
 * is `siteBackend`; every other rule, host and matcher as imported. Both backends are full URLs,
 * as the map's own references are written. What stops it, otherwise.
 */
export function withGatewayRule(
  map: ImportedMapInputs,
  site: SiteMapPlan,
  path: string,
  gatewayBackend: string,
  siteBackend: string,
): { ok: true; inputs: ImportedMapInputs } | { ok: false; problems: Problems } {
  const rule = { paths: [path, `${path}/*`], service: gatewayBackend };
  const taken = (m: ImportedMapInputs['pathMatchers'][number]) =>
    m.pathRules.some((r) => r.paths.some((p) => rule.paths.includes(p)));
  if (site.pathMatcher) {
    const matcher = map.pathMatchers.find((m) => m.name === site.pathMatcher);
    if (!matcher)
      return {
        ok: false,
        problems: [`the map has no path matcher ${site.pathMatcher} (gateway.site_path_matcher)`],
      };
    if (taken(matcher))
      return { ok: false, problems: [`the path matcher ${matcher.name} already routes ${path}`] };
    return {
      ok: true,
      inputs: {
        ...map,
        pathMatchers: map.pathMatchers.map((m) =>
          m === matcher ? { ...m, pathRules: [...m.pathRules, rule] } : m,
        ),
      },
    };
  }
  const hosts = site.hosts ?? [];
  const served = hosts.filter((h) => map.hostRules.some((r) => r.hosts.includes(h)));
  if (served.length > 0)
    return {
      ok: false,
      problems: [
        `${served.join(', ')} already in a host rule of the map: name its path matcher in gateway.site_path_matcher`,
      ],
    };
  if (map.pathMatchers.some((m) => m.name === ADDED_PATH_MATCHER))
    return { ok: false, problems: [`the map already has a path matcher named ${ADDED_PATH_MATCHER}`] };
  return {
    ok: true,
    inputs: {
      ...map,
      hostRules: [...map.hostRules, { hosts: [...hosts], pathMatcher: ADDED_PATH_MATCHER }],
      pathMatchers: [
        ...map.pathMatchers,
        {
          name: ADDED_PATH_MATCHER,
          defaultService: siteBackend,
          pathRules: [rule],
        },
      ],
    },
  };
}
