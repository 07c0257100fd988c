/**
 * The site's own load balancer URL map that `gateway.origin_path` adds its path rule to
 * (infra/gateway-origin-path.ts, core/deploy/site-url-map.ts): the gateway keys that name it, its
 * hosts or its path matcher, its load balancing scheme and who may point it at another project's
 * backend. Spread into the `gateway` object of schemas/settings.ts.
 */
import Type from 'typebox';

/** A global URL map: its name in the project, or its (partial) URL. */
export const SITE_URL_MAP_PATTERN =
  '^((https://www\\.googleapis\\.com/compute/v1/)?projects/[a-z][a-z0-9-]{4,28}[a-z0-9]/global/urlMaps/)?[a-z]([-a-z0-9]{0,61}[a-z0-9])?$';
/** A Compute Engine resource name (a path matcher's). */
export const SITE_PATH_MATCHER_PATTERN = '^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$';
/** A host a URL map's host rule matches: a DNS name, or one with a leading `*.`. */
export const SITE_HOST_PATTERN = '^(\\*\\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$';

/** The load balancing scheme of the site's load balancer, as Google names it. */
export const SiteScheme = Type.Union([Type.Literal('EXTERNAL_MANAGED'), Type.Literal('EXTERNAL')], {
  default: 'EXTERNAL_MANAGED',
  description:
    "With `site_url_map`: the site's load balancer's `loadBalancingScheme` (`gcloud compute backend-services describe <site_backend> --global --format='value(loadBalancingScheme)'`): `EXTERNAL_MANAGED`, the global external Application Load Balancer (the default); `EXTERNAL`, the classic one, is refused by settings check: its URL map cannot send to the gateway's backend (docs/browser.md#same-origin-path)",
});

export const SiteUrlMapKeys = {
  site_url_map: Type.Optional(
    Type.String({
      pattern: SITE_URL_MAP_PATTERN,
      maxLength: 1024,
      description:
        "With `origin_path` through the site's load balancer: the site's own URL map (a name in the project, or projects/<p>/global/urlMaps/<name> when it lives in another project). Nothing in it is replaced: `pulumi up` prints the command (and a Pulumi snippet) that adds the path rule to it (docs/browser.md#same-origin-path)",
    }),
  ),
  site_hosts: Type.Optional(
    Type.Array(Type.String({ pattern: SITE_HOST_PATTERN, maxLength: 253 }), {
      minItems: 1,
      maxItems: 50,
      description:
        "With `site_url_map` and no `site_path_matcher`: the hosts the site's pages are served on (e.g. shop.example, www.shop.example), none of them in a host rule of the map yet; the added path matcher takes them, sends the path to the gateway and everything else to `site_backend`",
    }),
  ),
  site_path_matcher: Type.Optional(
    Type.String({
      pattern: SITE_PATH_MATCHER_PATTERN,
      description:
        "With `site_url_map`: the path matcher of the map that already serves the site's hosts; the path rule is added to it, its other rules kept (then `site_hosts` and `site_backend` are not needed)",
    }),
  ),
  site_scheme: Type.Optional(SiteScheme),
  site_url_map_import: Type.Optional(
    Type.String({
      pattern: '^[^\\0]+\\.json$',
      maxLength: 1024,
      description:
        "With `site_url_map` in the environment's project: a JSON file, relative to the settings file, holding the map as `gcloud compute url-maps describe <map> --global --format=json` prints it. `pulumi up` then imports the site's map into the stack with exactly those inputs (kept if the stack is destroyed), and the next `pulumi up` adds the path rule to it, instead of printing the command (docs/browser.md#same-origin-path)",
    }),
  ),
  site_url_map_grant: Type.Optional(
    Type.String({
      pattern: '^(serviceAccount|user|group|domain):.+$',
      description:
        "With a `site_url_map` in another project: who edits that map (e.g. group:web-admins@shop.example); `pulumi up` grants them roles/compute.loadBalancerServiceUser on the gateway's backend, which cross-project service referencing needs",
    }),
  ),
} as const;
