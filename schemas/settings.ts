/**
 * The settings of one environment (`environments/<name>.yaml`): the single source for the
 * local environment and for `pulumi up`. Secret *names* only, never values.
 */
import Type, { type Static, type TLiteral } from 'typebox';
import { CONSENT_PURPOSES } from './consent-purposes.ts';
import { MappingsSetting } from './mapping.ts';
import { ClaimsSettings } from './settings-claims.ts';
import { CostSettings, FunctionsSettings } from './settings-cost.ts';
import { DOMAIN_PATTERN, GatewaySettings } from './settings-gateway.ts';
import { WarehouseSettings } from './settings-warehouse.ts';

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
    deliveries_topology: Type.Optional(
      Type.Union([Type.Literal('per_destination'), Type.Literal('shared')], {
        description:
          'How delivery messages reach the destinations (docs/delivery.md#one-topic-per-destination): per_destination, a `deliveries-<id>` topic per destination with one push subscription each, so Pub/Sub bills each message once; shared, the one `deliveries` topic with a filtered subscription per destination, billed on every subscription. Unset: per_destination for a new stack; a stack deployed with the shared topic keeps it (docs/deploy.md#deliveries-topology)',
      }),
    ),
    deliveries_drained: Type.Optional(
      Type.Boolean({
        description:
          "After a switch of deliveries_topology: the previous topology's subscriptions have delivered their backlog (their num_undelivered_messages is 0), so `pulumi up` deletes them and their topic; until then they are kept and keep delivering",
        default: false,
      }),
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
    gateway: Type.Optional(GatewaySettings),
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
    warehouse: Type.Optional(WarehouseSettings),
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
    claims: Type.Optional(ClaimsSettings),
    cost: Type.Optional(CostSettings),
    functions: Type.Optional(FunctionsSettings),
  },
  { additionalProperties: false },
);
export type Settings = Static<typeof Settings>;
