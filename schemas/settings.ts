/**
 * The settings of one environment (`environments/<name>.yaml`): the single source for the
 * local environment and for `pulumi up`. Secret *names* only, never values.
 */
import Type, { type Static, type TLiteral } from 'typebox';
import { CONSENT_PURPOSES } from './consent-purposes.ts';
import { MappingsSetting } from './mapping.ts';
import { SITE_BACKEND_PATTERN, SiteUrlMapKeys } from './site-url-map.ts';

const Id = (description: string) => Type.String({ pattern: '^[a-z][a-z0-9_-]{0,62}$', description });
/** A duration in seconds or minutes ("10s", "0.5s", "5m"); the plan hands Pub/Sub seconds. */
export const DURATION_PATTERN = '^[0-9]+(\\.[0-9]+)?[sm]$';
const Duration = (description: string) =>
  Type.String({ pattern: DURATION_PATTERN, description: `${description} (e.g. "10s" or "5m")` });

/** A literal schema for each value of a list, as a tuple (so the union's type is the list's). */
type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

export const ConsentPurpose = Type.Union(
  CONSENT_PURPOSES.map((p) => Type.Literal(p)) as unknown as Literals<typeof CONSENT_PURPOSES>,
  { description: 'A consent purpose carried in the event `consent` group' },
);
export type ConsentPurpose = Static<typeof ConsentPurpose>;

export const DestinationType = Type.Union([
  Type.Literal('meta_capi'),
  Type.Literal('ga4_mp'),
  Type.Literal('tiktok_events'),
  Type.Literal('google_ads'),
  Type.Literal('linkedin_capi'),
  Type.Literal('microsoft_uet'),
  Type.Literal('pinterest_capi'),
  Type.Literal('reddit_capi'),
  Type.Literal('snapchat_capi'),
  Type.Literal('x_conversions'),
  Type.Literal('webhook'),
  Type.Literal('segment_action'),
]);
export type DestinationType = Static<typeof DestinationType>;

export const RetrySettings = Type.Object(
  {
    max_attempts: Type.Optional(
      Type.Integer({
        minimum: 5,
        maximum: 100,
        description: 'Delivery attempts before dead-lettering (Pub/Sub allows 5–100)',
      }),
    ),
    minimum_backoff: Type.Optional(Duration('Smallest delay between attempts')),
    maximum_backoff: Type.Optional(Duration('Largest delay between attempts')),
  },
  { additionalProperties: false },
);
export type RetrySettings = Static<typeof RetrySettings>;

export const Condition = Type.Object(
  {
    field: Type.String({
      minLength: 1,
      description: 'Dotted path in the event, e.g. `user.country` or `value`',
    }),
    op: Type.Union([
      Type.Literal('eq'),
      Type.Literal('ne'),
      Type.Literal('in'),
      Type.Literal('not_in'),
      Type.Literal('exists'),
      Type.Literal('not_exists'),
      Type.Literal('gt'),
      Type.Literal('gte'),
      Type.Literal('lt'),
      Type.Literal('lte'),
      Type.Literal('matches'),
      Type.Literal('between'),
    ]),
    value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type Condition = Static<typeof Condition>;

/**
 * What the store function derives from each event before the PII policy applies
 * (docs/enrichment.md). Everything is on by default except geography, which is processing of
 * the full IP address that a privacy notice must cover.
 */
export const Enrichment = Type.Object(
  {
    attribution: Type.Optional(
      Type.Boolean({
        description:
          'UTM fields and click ids from page.url, referrer host and channel, Meta fbc from fbclid (default true)',
      }),
    ),
    device: Type.Optional(
      Type.Boolean({ description: 'Browser, OS and device type from the user agent (default true)' }),
    ),
    bots: Type.Optional(
      Type.Boolean({
        description: 'Flag known crawlers and bots (enriched.bot) from the user agent (default true)',
      }),
    ),
    geo: Type.Optional(
      Type.Union([Type.Literal('off'), Type.Literal('country')], {
        description:
          'Country from the full device.ip, looked up before the PII policy truncates or drops it (default off: see the privacy note)',
      }),
    ),
    internal_hosts: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        description: 'Hosts (and their subdomains) whose referrals are internal, besides the page’s own host',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Enrichment = Static<typeof Enrichment>;

/**
 * The incremental models the scheduler keeps in the events dataset (docs/sessions.md): sessions,
 * the identity map and the first/last-touch views over them.
 */
export const WarehouseModels = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({ description: 'Keep sessions and identity_map up to date (default true)' }),
    ),
    every: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,6}(m|h|d)$',
        description: 'How often the Model job runs (default 15m; at least 1m)',
      }),
    ),
    session_gap_minutes: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1440, description: 'Inactivity that ends a session (default 30)' }),
    ),
    lookback_hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 8784,
        description: 'How old an arriving event may be and still be modelled incrementally (default 72)',
      }),
    ),
    conversions: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        description:
          'Event names that are conversions (default purchase, generate_lead, lead, sign_up, subscribe, begin_checkout)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WarehouseModels = Static<typeof WarehouseModels>;

/**
 * One action a `segment_action` destination runs for each event it takes (docs/catalog-destinations.md):
 * the action's preset subscription and field defaults apply where `when` and `mapping` say nothing.
 */
export const SegmentActionSetting = Type.Object(
  {
    action: Type.String({
      pattern: '^[A-Za-z][A-Za-z0-9_]{0,127}$',
      description: 'The action’s key in its destination (`trackEvent`, `upsertProfile`)',
    }),
    when: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1 }),
          Type.String({ minLength: 1, maxLength: 4096 }),
        ],
        {
          description:
            'The events it takes: event names, ours or Segment’s (`purchase` is `Order Completed`; `page_view` or `page`, `identify` for those calls), or a subscription in Segment’s FQL (`type = "track" and event = "Signed Up"`); default the action’s presets (each with its own mapping), else its own default subscription',
        },
      ),
    ),
    mapping: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.Unknown(), {
        description:
          'Field → value or mapping-kit directive over the Segment event (`{"@path": "$.properties.total"}`); over the action’s defaults',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SegmentActionSetting = Static<typeof SegmentActionSetting>;

export const Destination = Type.Object(
  {
    id: Id('Destination id, used in subscription names and the `destination` attribute'),
    type: DestinationType,
    enabled: Type.Optional(Type.Boolean({ default: true })),
    base_url: Type.Optional(
      Type.String({ pattern: '^https?://', description: 'Override of the platform base URL' }),
    ),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description:
          'Non-secret platform settings: pixel_id, measurement_id, pixel_code, url, action_source…',
      }),
    ),
    secrets: Type.Optional(
      // A segment_action role is its destination's own settings key, camelCase included (`apiKey`).
      Type.Record(
        Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
        Type.String({ pattern: '^[A-Za-z0-9_-]{1,255}$' }),
        {
          description:
            'Role → secret name (Secret Manager, locally its emulator, or env); for segment_action the role is the settings key (`api_key`, `apiKey`)',
        },
      ),
    ),
    destination: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9][a-z0-9-]{0,127}$',
        description:
          'segment_action only: the Segment Action Destination, by its folder in @segment/action-destinations (`klaviyo`, `braze`; `eventbus destinations list --catalog`)',
      }),
    ),
    actions: Type.Optional(
      Type.Array(SegmentActionSetting, {
        minItems: 1,
        description:
          'segment_action only: the actions to run; absent, Segment’s presets of the destination run (docs/catalog-destinations.md)',
      }),
    ),
    connection: Type.Optional(
      Type.String({
        pattern: '^[a-z][a-z0-9_-]{0,62}$',
        description:
          'segment_action only: the `oauth2` connection (connections[].id) holding the OAuth client and refresh token of a destination that authenticates with OAuth (docs/catalog-destinations.md, “OAuth”)',
      }),
    ),
    allow_event_urls: Type.Optional(
      Type.Boolean({
        description:
          'segment_action only: the actions’ mapping may read a URL or a header from the event (`{"@path": "$.properties.callback"}`), which is refused without it; needs `allowed_hosts`, the only hosts every request and redirect may then go to (docs/security.md, "Egress")',
      }),
    ),
    allowed_hosts: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' }), {
        minItems: 1,
        description:
          'segment_action only: the hosts (`hooks.example.com`, `hooks.example.com:8443`) its actions may send to; any other is refused',
      }),
    ),
    consent: Type.Optional(
      Type.Array(ConsentPurpose, { description: 'Purposes that must be granted; defaults per type' }),
    ),
    events: Type.Optional(
      Type.Object(
        { allow: Type.Optional(Type.Array(Type.String())), deny: Type.Optional(Type.Array(Type.String())) },
        { additionalProperties: false },
      ),
    ),
    conditions: Type.Optional(Type.Array(Condition)),
    sampling: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'Share of events sent, by event_id hash' }),
    ),
    retry: Type.Optional(RetrySettings),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60000 })),
    redrive: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({
              description:
                'Re-drive dead letters automatically once the destination is healthy (default true)',
            }),
          ),
          per_minute: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 10000,
              description: 'Most dead letters re-driven per minute while healthy (default 600)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    test_mode: Type.Optional(Type.Boolean()),
    test_event_code: Type.Optional(Type.String()),
    mappings: Type.Optional(MappingsSetting),
    limited_data_use: Type.Optional(
      Type.Union([Type.Literal('when_denied'), Type.Literal('always'), Type.Literal('never')], {
        description:
          'Limited data use flag (Meta data_processing_options LDU, TikTok limited_data_use): ' +
          'when_denied (default) sets it for events whose consent.ad_personalization is denied; ' +
          'GA4 gets the event consent as its consent field (docs/linkage.md)',
      }),
    ),
    bots: Type.Optional(
      Type.Union([Type.Literal('skip'), Type.Literal('send')], {
        description:
          'Events flagged enriched.bot: skip (default for a platform sent a mapping) or send (default for one sent the stored event, such as webhook)',
      }),
    ),
    scrub_pii: Type.Optional(
      Type.Boolean({
        description:
          'Replace emails and phone numbers found in URLs and free text of the outgoing payload; ' +
          'default true for a platform sent a mapping, false for webhook (it receives the stored event)',
      }),
    ),
    user_deletion: Type.Optional(
      Type.Object(
        {
          property: Type.String({
            pattern: '^[0-9]{1,20}$',
            description: 'The GA4 property id (digits, from the property details), not the measurement id',
          }),
          url: Type.Optional(
            Type.String({
              pattern: '^https?://',
              description: 'Override of the Admin API origin (default https://analyticsadmin.googleapis.com)',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'ga4_mp only: an erasure asks GA4 to delete the person by user id and client id (the Admin API’s submitUserDeletion), as the schedule function’s own service account, which needs the Editor role on the property; without it the erasure records GA4 as not asked',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Destination = Static<typeof Destination>;

/**
 * A named endpoint that runtime resources (rules' actions, syncs) refer to by id, so a resource
 * never holds a URL with a credential in it or a secret: a signed webhook, or a chat incoming
 * webhook (Slack and Google Chat both accept `{"text": …}`), whose URL is itself a credential and
 * is therefore read from a secret.
 */
export const Connection = Type.Object(
  {
    id: Id('Connection id, named by rules and syncs'),
    type: Type.Union([
      Type.Literal('webhook'),
      Type.Literal('chat'),
      Type.Literal('storage'),
      Type.Literal('meta_audience'),
      Type.Literal('google_ads_audience'),
      Type.Literal('oauth2'),
    ]),
    url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description:
          'The endpoint (webhooks); meta_audience: the Graph API origin (default https://graph.facebook.com); google_ads_audience: the Data Manager API origin (default https://datamanager.googleapis.com)',
      }),
    ),
    bucket: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$',
        description: 'The Cloud Storage bucket files are written to (storage connections)',
      }),
    ),
    url_secret: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,255}$',
        description: 'Secret holding the URL, for URLs that are credentials (chat webhooks)',
      }),
    ),
    secrets: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z_]+$' }), Type.String({ pattern: '^[A-Za-z0-9_-]{1,255}$' }), {
        description:
          'Role → secret name: `signing_key` signs webhook bodies as delivery webhooks are signed; `access_token` is a meta_audience connection’s system-user token (an oauth2 connection’s first access token); `client_id`, `client_secret` and `refresh_token` an oauth2 connection’s OAuth client and refresh token, which a segment_action destination naming it refreshes its access token with (docs/catalog-destinations.md, “OAuth”); `credentials` a google_ads_audience connection’s OAuth credentials (a service account key or an authorized user file; without it the schedule function calls as its own service account, which needs access to the Google Ads account)',
      }),
    ),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60000 })),
    terms_of_service: Type.Optional(
      Type.Literal('accepted', {
        description:
          'google_ads_audience: the advertiser accepted Google’s Customer Match terms (support.google.com/adspolicy/answer/6299717), for every sync through this connection (a sync may say so itself instead); without either, `eventbus apply` refuses the sync and `settings check` warns',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Connection = Static<typeof Connection>;

export const FunctionSizing = Type.Object(
  {
    memory: Type.Optional(Type.String({ pattern: '^[0-9]+(Mi|Gi)$' })),
    cpu: Type.Optional(Type.Number({ minimum: 0.08, maximum: 8 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    min_instances: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    max_instances: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  },
  { additionalProperties: false },
);
export type FunctionSizing = Static<typeof FunctionSizing>;

/**
 * Cloud Run billing of a pushed function: `request` (a Cloud Function, billed per request while
 * it handles one) or `instance` (a Cloud Run service with CPU always allocated, billed for its
 * instances' lifetime, no request fee). docs/deploy.md says how each is deployed.
 */
export const Billing = Type.Union([Type.Literal('request'), Type.Literal('instance')]);

/**
 * A DNS name in lower case, e.g. `acme.com`: labels of letters, digits and inner hyphens, the
 * last one letters only.
 */
/** A path of the site's origin for the gateway (`gateway.origin_path`): one segment, e.g. `/_eb`. */
export const ORIGIN_PATH_PATTERN = '^/[a-z0-9_-]{1,32}$';
export const DOMAIN_PATTERN = '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$';

/** IAM members granted IAP access to the studio, each list a role inside it (studio/auth.ts). */
const StudioMembers = (description: string) =>
  Type.Array(Type.String({ pattern: '^(serviceAccount|user|group|domain):.+$' }), { description });

export const Settings = Type.Object(
  {
    name: Id('Environment name, used in resource names'),
    project: Type.String({ pattern: '^[a-z][a-z0-9-]{4,28}[a-z0-9]$', description: 'GCP project id' }),
    region: Type.String({ pattern: '^[a-z]+-[a-z]+[0-9]$', description: 'GCP region, e.g. europe-west1' }),
    dataset: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,1023}$', default: 'events' })),
    location: Type.Optional(Type.String({ description: 'BigQuery location, e.g. EU or US', default: 'US' })),
    production: Type.Optional(
      Type.Boolean({
        description:
          'A production environment: keeps the minimum instances settings ask for (the gateway one unless set); otherwise development defaults: every service scales to zero and keeps no CPU between requests (docs/scale.md)',
        default: false,
      }),
    ),
    data_residency: Type.Optional(
      Type.Boolean({
        description:
          'Keep stored data in `region`: Secret Manager secrets are replicated there only (user-managed)',
        default: false,
      }),
    ),
    topics: Type.Optional(
      Type.Array(Id('Extra event topic'), { description: 'Topics besides `events`, stored the same way' }),
    ),
    unknown_events: Type.Optional(
      Type.Union([Type.Literal('store'), Type.Literal('reject')], { default: 'store' }),
    ),
    producers: Type.Optional(
      Type.Object(
        {
          principals: Type.Optional(
            Type.Array(Type.String({ pattern: '^(serviceAccount|user|group|domain):.+$' }), {
              description: 'Google identities allowed to publish (gateway and native topics)',
            }),
          ),
          origins: Type.Optional(
            Type.Array(Type.String({ pattern: '^https?://[^/]+$' }), {
              description: 'Browser origins for CORS and write keys',
            }),
          ),
          collect_ip: Type.Optional(
            Type.Union([Type.Literal('full'), Type.Literal('truncated'), Type.Literal('none')], {
              default: 'full',
            }),
          ),
          collect_user_agent: Type.Optional(Type.Boolean({ default: true })),
          honor_gpc: Type.Optional(
            Type.Boolean({
              default: true,
              description:
                'Global Privacy Control (Sec-GPC: 1, consent.gpc) opts the event out of ad destinations; ' +
                'false where no law served makes it binding (docs/delivery.md, "Consent")',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    gateway: Type.Optional(
      Type.Object(
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
      ),
    ),
    tokens: Type.Optional(
      Type.Object(
        {
          secret: Type.Optional(
            Type.String({ pattern: '^[A-Za-z0-9_-]{1,255}$', default: 'eventbus-tokens' }),
          ),
          default_expiry_days: Type.Optional(Type.Integer({ minimum: 1 })),
          rate_limit_per_second: Type.Optional(Type.Number({ exclusiveMinimum: 0, default: 200 })),
          burst: Type.Optional(Type.Integer({ minimum: 1, default: 400 })),
        },
        { additionalProperties: false },
      ),
    ),
    limits: Type.Optional(
      Type.Object(
        {
          max_event_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1048576, default: 1048576 })),
          max_request_bytes: Type.Optional(
            Type.Integer({ minimum: 1024, maximum: 10000000, default: 10000000 }),
          ),
          max_events_per_request: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000 })),
          max_depth: Type.Optional(Type.Integer({ minimum: 2, maximum: 64, default: 32 })),
          max_attributes: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 100 })),
          event_time_past_days: Type.Optional(Type.Integer({ minimum: 1, default: 1826 })),
          event_time_future_hours: Type.Optional(Type.Integer({ minimum: 0, default: 24 })),
        },
        { additionalProperties: false },
      ),
    ),
    warehouse: Type.Optional(
      Type.Object(
        {
          partition_expiration_days: Type.Optional(Type.Integer({ minimum: 1 })),
          time_travel_hours: Type.Optional(
            Type.Integer({
              minimum: 48,
              maximum: 168,
              multipleOf: 24,
              description:
                'Hours BigQuery keeps changed and deleted rows for time travel in both datasets (48–168, whole days; BigQuery’s default 168); the 7-day fail-safe after it cannot be shortened (docs/privacy.md#time-travel-and-fail-safe)',
            }),
          ),
          retention: Type.Optional(
            Type.Object(
              {
                events: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description:
                      "Days `events` partitions are kept; default none (the business's own record)",
                  }),
                ),
                invalid_events: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days `invalid_events` partitions are kept; default 90',
                  }),
                ),
                deliveries: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days the delivery ledger (`deliveries`) keeps a partition; default 400',
                  }),
                ),
                hook_failures: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days `hook_failures` partitions are kept; default 90',
                  }),
                ),
                action_runs: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days `action_runs` (rules) partitions are kept; default 400',
                  }),
                ),
                gateway_refusals: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days `gateway_refusals` (ops dataset) partitions are kept; default 30',
                  }),
                ),
                sync_failed_rows: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days `sync_failed_rows` (ops dataset) partitions are kept; default 90',
                  }),
                ),
                sessions: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days `sessions` (the models) partitions are kept; default as `events`',
                  }),
                ),
                platform_diagnostics: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    description: 'Days `platform_diagnostics` (ops dataset) partitions are kept; default 400',
                  }),
                ),
              },
              {
                additionalProperties: false,
                description:
                  'Days each table keeps a partition (docs/privacy.md#retention); a table not named takes partition_expiration_days, else its default',
              },
            ),
          ),
          deletion_protection: Type.Optional(Type.Boolean({ default: true })),
          max_bytes_billed: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: 'Cap on the bytes one query people write (eventbus sql) may bill; default 10 GiB',
            }),
          ),
          models: Type.Optional(WarehouseModels),
        },
        { additionalProperties: false },
      ),
    ),
    enrichment: Type.Optional(Enrichment),
    pii: Type.Optional(
      Type.Object(
        {
          hash_in_warehouse: Type.Optional(
            Type.Array(Type.String(), { description: 'Context fields stored as SHA-256 (e.g. user.email)' }),
          ),
          drop: Type.Optional(Type.Array(Type.String(), { description: 'Context fields never stored' })),
          column_security: Type.Optional(
            Type.Boolean({
              description:
                'Production: tag the PII columns with a BigQuery policy tag; analysts read them as SHA-256, pii_readers raw',
              default: false,
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    privacy: Type.Optional(
      Type.Object(
        {
          erased_events: Type.Optional(
            Type.Union([Type.Literal('strip'), Type.Literal('drop')], {
              description:
                "An erased person's later events (docs/privacy.md): strip (default) stores and forwards them without the person's identifiers; drop neither stores nor forwards them",
              default: 'strip',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    analysts: Type.Optional(
      Type.Array(Type.String({ pattern: '^(serviceAccount|user|group|domain):.+$' }), {
        description: 'Granted bigquery.dataViewer and bigquery.jobUser',
      }),
    ),
    pii_readers: Type.Optional(
      Type.Array(Type.String({ pattern: '^(serviceAccount|user|group|domain):.+$' }), {
        description: 'With pii.column_security: who reads the PII columns raw (analysts see SHA-256)',
      }),
    ),
    studio: Type.Optional(
      Type.Object(
        {
          viewers: Type.Optional(StudioMembers('May read runtime resources through the studio')),
          editors: Type.Optional(StudioMembers('May also apply runtime resources')),
          admins: Type.Optional(StudioMembers('May also delete runtime resources')),
          organization: Type.Optional(
            Type.String({
              pattern: DOMAIN_PATTERN,
              description:
                "Google Workspace or Cloud Identity domain of the project's organisation, e.g. acme.com. The studio's IAP (Google's managed OAuth client) admits only that organisation's users: set, the lists above may name only members at this domain or a subdomain of it, and service accounts; unset, settings check warns (docs/studio.md#on-google-cloud)",
            }),
          ),
        },
        {
          additionalProperties: false,
          description: 'Who reaches the studio on Google Cloud (through IAP) and with which role',
        },
      ),
    ),
    retry: Type.Optional(RetrySettings),
    destinations: Type.Optional(Type.Array(Destination)),
    connections: Type.Optional(Type.Array(Connection)),
    tracing: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({
              default: true,
              description:
                'Make a trace per event (docs/observability.md); false: no spans, no trace context carried, trace_id left null',
            }),
          ),
          sample_ratio: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 1,
              default: 0.01,
              description:
                "Share of the traces starting at the gateway (or at store, for a native publish) that are exported; a producer's sampled traceparent is always followed, and a hop that errs or refuses is exported whatever the ratio",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    metrics: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({
              default: true,
              description:
                "Export forward's per-destination delivery metrics (latency, call duration, outcome counts) over OTLP to Cloud Monitoring (docs/observability.md#metrics); false: none are recorded",
            }),
          ),
          export_interval_seconds: Type.Optional(
            Type.Integer({
              minimum: 10,
              maximum: 3600,
              default: 60,
              description:
                'Seconds between two exports of each forward instance: each export writes one point per series, which Cloud Monitoring bills',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    experimental: Type.Optional(
      Type.Object(
        {
          rules: Type.Optional(
            Type.Boolean({
              description:
                'Automated actions (rules): evaluated after storage, acted on by the schedule function',
            }),
          ),
          rules_retry: Type.Optional(RetrySettings),
        },
        { additionalProperties: false },
      ),
    ),
    cost: Type.Optional(
      Type.Object(
        {
          exclude_success_logs: Type.Optional(
            Type.Boolean({
              description:
                'Exclude Cloud Run request logs of successful publishes and pushes (errors and refusals are kept)',
              default: true,
            }),
          ),
          peak_events_per_second: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000000,
              description:
                'Peak rate `forward` is sized for (concurrency, max_instances) unless functions.forward sets them; sizing only, never billing',
              default: 5000,
            }),
          ),
          sustained_events_per_second: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 1000000,
              description:
                'The steady rate you expect (events a second, around the clock): `settings check` and `pulumi up` recommend instance-based billing where it passes the break-even, with the monthly figures both ways; never switches by itself',
            }),
          ),
          billing: Type.Optional(
            Type.Object(
              {
                store: Type.Optional(Billing),
                forward: Type.Optional(Billing),
                gateway: Type.Optional(Billing),
              },
              {
                additionalProperties: false,
                description:
                  'Cloud Run billing of the pushed functions and the gateway; unset, `request` for a new stack: store and forward as Cloud Functions (gen2), the design, and the gateway without CPU between requests; an existing stack keeps the store and forward billing it runs (docs/deploy.md, Upgrading)',
              },
            ),
          ),
        },
        { additionalProperties: false, description: 'Production cost choices (docs/scale.md)' },
      ),
    ),
    functions: Type.Optional(
      Type.Object(
        {
          store: Type.Optional(FunctionSizing),
          forward: Type.Optional(FunctionSizing),
          gateway: Type.Optional(FunctionSizing),
          schedule: Type.Optional(FunctionSizing),
          studio: Type.Optional(FunctionSizing),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Settings = Static<typeof Settings>;
