/**
 * Defaults and descriptions of settings keys whose typebox schema (schemas/settings.ts) does not
 * carry them yet: docs-settings.ts uses a note only where the schema is silent, and the docs test
 * refuses a note for a key the schema does not have. Moving a note into the schema (a `default`
 * or a `description`) makes it unused here; delete it then.
 */

const FUNCTION = 'functions.{store,forward,gateway,schedule,studio}';
const EVENTS_RETRY = 'the events → `store` subscriptions';

/** Keyed as the reference names keys: dotted, `[]` for a list's items. */
export const SETTINGS_NOTES: Readonly<
  Record<string, { readonly default?: string; readonly description?: string }>
> = {
  dataset: { description: 'BigQuery dataset of the warehouse, the same locally and in production' },
  unknown_events: { description: '`store` or `reject` events outside the catalogue and the registry' },
  'producers.collect_ip': { description: '`full`, `truncated` (IPv4 /24, IPv6 /48) or `none`' },
  'producers.collect_user_agent': { description: 'Fill `device.user_agent` from the request' },
  'tokens.secret': { description: 'Secret Manager secret holding the token store' },
  'tokens.default_expiry_days': { default: 'none', description: 'Expiry of new project tokens' },
  'tokens.rate_limit_per_second': {
    description: 'Per-credential rate limit (429 with `Retry-After` past it)',
  },
  'tokens.burst': {
    description:
      'Requests a credential without its own --rate may send at once above its rate (a key or token with --rate N bursts at most N)',
  },
  'limits.max_event_bytes': { description: 'One event, normalised' },
  'limits.max_request_bytes': { description: 'One request, after gzip inflation' },
  'limits.max_events_per_request': { description: 'Events (or envelope messages) per request' },
  'limits.max_depth': { description: 'JSON nesting depth, checked on the raw bytes before parsing' },
  'limits.max_attributes': { description: 'Attributes per envelope message' },
  'limits.event_time_past_days': { description: 'How far back an `event_time` is accepted' },
  'limits.event_time_future_hours': { description: 'How far ahead an `event_time` is accepted' },
  'warehouse.partition_expiration_days': {
    default: 'none',
    description:
      'Drop partitions older than this (the fallback for tables without their own warehouse.retention)',
  },
  'warehouse.deletion_protection': {
    description: 'BigQuery tables refuse deletion (set `false` before `pulumi destroy`)',
  },
  'warehouse.max_bytes_billed': { default: '10 GiB' },
  'warehouse.models.enabled': { default: '`true`' },
  'warehouse.models.every': { default: '`15m`' },
  'warehouse.models.session_gap_minutes': { default: '`30`' },
  'warehouse.models.lookback_hours': { default: '`72`' },
  'warehouse.models.conversions': { default: 'purchase, lead, …' },
  'enrichment.attribution': { default: '`true`' },
  'enrichment.device': { default: '`true`' },
  'enrichment.bots': { default: '`true`' },
  'enrichment.geo': { default: '`off`' },
  'enrichment.internal_hosts': { default: '`[]`' },
  'retry.max_attempts': { default: `\`50\` (${EVENTS_RETRY})` },
  'retry.minimum_backoff': { default: `\`10s\` (${EVENTS_RETRY})` },
  'retry.maximum_backoff': { default: `\`600s\` (${EVENTS_RETRY})` },
  'destinations[].type': { description: 'The platform: the table in docs/platforms.md lists each type' },
  'destinations[].enabled': { description: '`false`: every event is skipped for it, with a ledger row' },
  'destinations[].base_url': { default: "the platform's" },
  'destinations[].consent': { default: 'per type (docs/platforms.md)' },
  'destinations[].events.allow': { description: 'Only these event names are sent' },
  'destinations[].events.deny': { description: 'These event names are never sent' },
  'destinations[].conditions[].op': {
    description: '`matches` takes RE2 syntax, as BigQuery’s `REGEXP_CONTAINS`; `between` two values',
  },
  'destinations[].conditions[].value': { description: 'What the field is compared with (a list for `in`)' },
  'destinations[].sampling': { default: '`1`' },
  'destinations[].retry.max_attempts': { default: '`10`' },
  'destinations[].retry.minimum_backoff': { default: '`10s`' },
  'destinations[].retry.maximum_backoff': { default: '`600s`' },
  'destinations[].timeout_ms': { default: '`10000`', description: 'Send timeout' },
  'destinations[].test_mode': {
    default: '`false`',
    description:
      'Send to the platform’s test mode rather than live; where the platform table says “test code”, `test_event_code` is required, or events would go out live',
  },
  'destinations[].test_event_code': { description: 'The platform’s test event code, for `test_mode`' },
  'destinations[].bots': { default: '`skip` (`send` for webhooks)' },
  'destinations[].scrub_pii': { default: '`true` (`false` for webhooks)' },
  'destinations[].mappings': { default: 'built-in (docs/linkage.md)' },
  'destinations[].limited_data_use': { default: '`when_denied`' },
  'connections[].type': {
    description:
      'A signed webhook, a chat incoming webhook, a Cloud Storage bucket, a Meta custom audience, a Google Ads Customer Match list, or an OAuth 2 client and refresh token (`oauth2`, for segment_action destinations that authenticate with OAuth)',
  },
  'connections[].timeout_ms': { description: 'Call timeout' },
  'experimental.rules': { default: '`false`' },
  'experimental.rules_retry.max_attempts': { default: '`10`' },
  'experimental.rules_retry.minimum_backoff': { default: '`10s`' },
  'experimental.rules_retry.maximum_backoff': { default: '`600s`' },
  'cost.billing.store': {
    default: '`request`',
    description:
      '`request`: a Cloud Function (gen2), the design; `instance`: a Cloud Run service with CPU always allocated, no request fee (docs/deploy.md)',
  },
  'cost.billing.forward': { default: '`request`', description: 'As `cost.billing.store`' },
  'cost.billing.gateway': {
    default: '`request`',
    description: '`request`: no CPU between requests; `instance`: CPU always allocated, no request fee',
  },
  [`${FUNCTION}.memory`]: { default: '`512Mi`', description: 'Memory per instance' },
  [`${FUNCTION}.cpu`]: { default: '`1`', description: 'CPUs per instance' },
  [`${FUNCTION}.concurrency`]: {
    default: '`80` (`schedule`: `10`)',
    description:
      'Requests one instance handles at once; unset, `forward`’s comes from the cost model (docs/scale.md)',
  },
  [`${FUNCTION}.min_instances`]: {
    default: '`0` (`gateway`: `1` with `production: true`)',
    description:
      'Instances kept warm, with `production: true` only (development scales every service to zero; settings check warns)',
  },
  [`${FUNCTION}.max_instances`]: {
    default: '`100`',
    description: 'Most instances; unset, `forward`’s comes from the cost model (docs/scale.md)',
  },
  [`${FUNCTION}.timeout_seconds`]: { default: '`60` (`schedule`: `300`)', description: 'Request timeout' },
};
