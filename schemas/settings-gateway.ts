/**
 * The gateway's public address (`gateway` in the settings): the site's subdomain it is served on,
 * or a path of the site's own origin, and the patterns of the names they take.
 */
import Type, { type Static } from 'typebox';
import { SiteUrlMapKeys } from './site-url-map.ts';

/** A path of the site's origin for the gateway (`gateway.origin_path`): one segment, e.g. `/_eb`. */
export const ORIGIN_PATH_PATTERN = '^/[a-z0-9_-]{1,32}$';
/** A global backend service: its name in the project, or its (partial) URL. */
export const SITE_BACKEND_PATTERN =
  '^((https://www\\.googleapis\\.com/compute/v1/)?projects/[a-z][a-z0-9-]{4,28}[a-z0-9]/global/backendServices/)?[a-z]([-a-z0-9]{0,61}[a-z0-9])?$';
/**
 * A DNS name in lower case, e.g. `acme.com`: labels of letters, digits and inner hyphens, the
 * last one letters only.
 */
export const DOMAIN_PATTERN = '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$';

/** The gateway's address and the site's domains (docs/deploy.md, docs/browser.md). */
export const GatewaySettings = Type.Object(
  {
    domain: Type.Optional(
      Type.String({
        // A subdomain: at least three labels (the site's own name stays the site's).
        pattern: '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.){2,}[a-z]{2,63}$',
        maxLength: 64,
        description:
          "The site's own subdomain the gateway is served on, e.g. events.shop.example: `pulumi up` declares it and exports the DNS record to create (docs/browser.md#first-party-domains)",
      }),
    ),
    domain_via: Type.Optional(
      Type.Union([Type.Literal('load_balancer'), Type.Literal('mapping')], {
        default: 'load_balancer',
        description:
          'How the domain reaches the gateway: `load_balancer`, a global external Application Load Balancer with a Google-managed certificate (every region, a fixed monthly cost); `mapping`, a Cloud Run domain mapping (no cost; Preview, some regions only, the domain verified by whoever runs `pulumi up`)',
      }),
    ),
    cookie_domain: Type.Optional(
      Type.String({
        pattern: DOMAIN_PATTERN,
        maxLength: 253,
        description:
          "The site's registrable domain the ids the gateway sets in its answers live on (e.g. shop.example, so www. and shop. share them); default: `domain` less its first label; unset with no `domain`: host-only cookies (docs/browser.md#ids-the-server-sets)",
      }),
    ),
    origin_path: Type.Optional(
      Type.String({
        pattern: ORIGIN_PATH_PATTERN,
        description:
          "A path of the site's own origin the tag, its batches and the SDK paths are served under (e.g. /_eb): the gateway takes requests under it as its own, and `pulumi up` declares the gateway's Cloud CDN backend and prints the path rule to add to the site's own URL map, `site_url_map` (docs/browser.md#same-origin-path)",
      }),
    ),
    site_backend: Type.Optional(
      Type.String({
        pattern: SITE_BACKEND_PATTERN,
        maxLength: 1024,
        description:
          "With `origin_path`: the backend service the site's own external Application Load Balancer sends its pages to (a name in the project, or its URL, projects/<p>/global/backendServices/<name>); with `site_url_map`, the added path matcher's default. Alone (the previous release's form, warned by settings check) the whole URL map the previous release declared is kept",
      }),
    ),
    origin_via: Type.Optional(
      Type.Union([Type.Literal('load_balancer'), Type.Literal('cloudflare'), Type.Literal('akamai')], {
        default: 'load_balancer',
        description:
          "With `origin_path`: what in front of the site sends the path to the gateway. `load_balancer` (default), the site's Google external Application Load Balancer: `pulumi up` declares the gateway's Cloud CDN backend and prints its path rule for the site's map (needs `site_url_map`), and the gateway knows it by the site's host; `cloudflare` or `akamai`: the checked-in Worker or rule (examples/edge/) does it, no load balancer is declared, and `pulumi up` declares the edge secret the Worker or rule proves itself with (docs/browser.md#same-origin-path)",
      }),
    ),
    ...SiteUrlMapKeys,
  },
  { additionalProperties: false, description: "The gateway's public address (docs/deploy.md)" },
);
export type GatewaySettings = Static<typeof GatewaySettings>;
