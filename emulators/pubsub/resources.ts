/**
 * Topic and subscription resources in their canonical (REST JSON) shape, with the validation and
 * defaults Google applies (docs/google-wire.md §1). gRPC objects are converted to this shape first.
 */
import { ApiError, invalid, tooLarge, tooSmall } from './errors.ts';
import { compileFilter, MAX_FILTER_BYTES } from './filter.ts';
import type { SchemaSettings } from './schemas.ts';

export interface TopicResource {
  name: string;
  labels?: Record<string, string>;
  messageRetentionDuration?: string;
  kmsKeyName?: string;
  /** Stored and returned, never acted on: nothing is ingested (docs/pubsub-emulator.md). */
  ingestionDataSourceSettings?: Record<string, unknown>;
  /** Checked against the stored schemas by the engine. */
  schemaSettings?: SchemaSettings;
}

export interface OidcToken {
  serviceAccountEmail: string;
  audience: string;
}

export interface PushConfig {
  pushEndpoint?: string;
  attributes?: Record<string, string>;
  oidcToken?: OidcToken;
  /** Payload unwrapping: the message data is the body; with writeMetadata, metadata in headers. */
  noWrapper?: { writeMetadata: boolean };
}

export interface SubscriptionResource {
  name: string;
  topic: string;
  pushConfig: PushConfig;
  ackDeadlineSeconds: number;
  retainAckedMessages: boolean;
  messageRetentionDuration: string;
  labels?: Record<string, string>;
  enableMessageOrdering: boolean;
  expirationPolicy?: { ttl?: string };
  filter: string;
  deadLetterPolicy?: { deadLetterTopic: string; maxDeliveryAttempts: number };
  retryPolicy?: { minimumBackoff: string; maximumBackoff: string };
  detached: boolean;
  enableExactlyOnceDelivery: boolean;
  /** Export subscriptions: messages are written into BigQuery or Cloud Storage (exports.ts). */
  bigqueryConfig?: BigQueryConfig;
  cloudStorageConfig?: CloudStorageConfig;
  /** RESOURCE_ERROR while an export subscription cannot write (not logged: ACTIVE after a restart). */
  state: 'ACTIVE' | 'RESOURCE_ERROR';
}

/** Why an export subscription cannot write, as its config's `state` says (ACTIVE when it can). */
export type ExportState = 'ACTIVE' | 'PERMISSION_DENIED' | 'NOT_FOUND' | 'SCHEMA_MISMATCH';

export interface BigQueryConfig {
  /** `{project}.{dataset}.{table}` (or `{project}:{dataset}.{table}`). */
  table: string;
  useTopicSchema?: boolean;
  useTableSchema?: boolean;
  writeMetadata?: boolean;
  dropUnknownFields?: boolean;
  serviceAccountEmail?: string;
  state?: ExportState;
}

export interface CloudStorageConfig {
  bucket: string;
  filenamePrefix?: string;
  filenameSuffix?: string;
  filenameDatetimeFormat?: string;
  /** A protobuf JSON duration ("300s"). */
  maxDuration?: string;
  /** int64 as protobuf JSON writes it (a string). */
  maxBytes?: string;
  maxMessages?: string;
  textConfig?: Record<string, never>;
  serviceAccountEmail?: string;
  state?: ExportState;
}

/** What a caller may send for a subscription (after REST or gRPC decoding). */
export interface SubscriptionInput {
  name?: string | undefined;
  topic?: string | undefined;
  pushConfig?: PushConfig | undefined;
  ackDeadlineSeconds?: number | undefined;
  retainAckedMessages?: boolean | undefined;
  messageRetentionDuration?: string | undefined;
  labels?: Record<string, string> | undefined;
  enableMessageOrdering?: boolean | undefined;
  expirationPolicy?: { ttl?: string | undefined } | undefined;
  filter?: string | undefined;
  deadLetterPolicy?:
    | { deadLetterTopic?: string | undefined; maxDeliveryAttempts?: number | undefined }
    | undefined;
  retryPolicy?: { minimumBackoff?: string | undefined; maximumBackoff?: string | undefined } | undefined;
  detached?: boolean | undefined;
  enableExactlyOnceDelivery?: boolean | undefined;
  /** As sent (REST JSON or the gRPC loader's object): normalizeSubscription checks it. */
  bigqueryConfig?: object | undefined;
  cloudStorageConfig?: object | undefined;
}

export interface TopicInput {
  name?: string | undefined;
  labels?: Record<string, string> | undefined;
  messageRetentionDuration?: string | undefined;
  kmsKeyName?: string | undefined;
  ingestionDataSourceSettings?: Record<string, unknown> | undefined;
  schemaSettings?: SchemaSettings | undefined;
}

export const DELETED_TOPIC = '_deleted-topic_';
// Google requires 3–255 characters; shorter ids are accepted here because docs and tests use "t", "s".
const RESOURCE_ID = /^[A-Za-z][A-Za-z0-9\-_.~+%]{0,254}$/;
const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9\-_.:]{0,62}$/;

/** Checks `projects/{p}/{kind}/{id}` and returns its parts. */
export function parseName(
  name: string,
  kind: 'topics' | 'subscriptions' | 'snapshots',
): { project: string; id: string } {
  const parts = name.split('/');
  const project = parts[1] ?? '';
  const id = parts[3] ?? '';
  if (
    parts.length !== 4 ||
    parts[0] !== 'projects' ||
    parts[2] !== kind ||
    !PROJECT_ID.test(project) ||
    !RESOURCE_ID.test(id) ||
    id.toLowerCase().startsWith('goog')
  ) {
    throw invalid(`Invalid [${kind}] name: (name=${name})`);
  }
  return { project, id };
}

/** Last path segment, as Google prints it in NOT_FOUND / ALREADY_EXISTS messages. */
export const shortName = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/** Orders resources by name, as Google's list methods answer them. */
export const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

const DURATION = /^(\d+)(?:\.(\d{1,9}))?s$/;

/** Parses a protobuf JSON duration ("10s", "0.1s") to milliseconds; undefined when malformed. */
export function durationMs(value: string): number | undefined {
  const m = DURATION.exec(value);
  if (!m) return undefined;
  const frac = m[2] ?? '';
  return Number(m[1]) * 1000 + (frac ? Number(`0.${frac}`) * 1000 : 0);
}

/** Formats seconds + nanos the way protobuf JSON does ("10s", "0.100s"). */
export function formatDuration(seconds: number, nanos: number): string {
  if (nanos === 0) return `${seconds}s`;
  const frac = String(nanos).padStart(9, '0').replace(/0+$/, '');
  return `${seconds}.${frac}s`;
}

function checkDuration(
  value: string,
  field: string,
  minMs: number,
  maxMs: number,
  what: string,
): { ms: number; text: string } {
  const ms = durationMs(value);
  if (ms === undefined)
    throw invalid(
      `Invalid value at '${field}' (type.googleapis.com/google.protobuf.Duration), Field '${field}', Illegal duration format; duration must end with 's'`,
      field,
    );
  const seconds = ms / 1000;
  if (ms < minMs) throw tooSmall(what, seconds, minMs / 1000, field);
  if (ms > maxMs) throw tooLarge(what, seconds, maxMs / 1000, field);
  return { ms, text: value };
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export function normalizeTopic(input: TopicInput, name: string): TopicResource {
  parseName(name, 'topics');
  const topic: TopicResource = { name };
  if (input.labels && Object.keys(input.labels).length > 0) topic.labels = { ...input.labels };
  if (input.messageRetentionDuration) {
    checkDuration(
      input.messageRetentionDuration,
      'message_retention_duration',
      10 * MINUTE,
      31 * DAY,
      'message_retention_duration',
    );
    topic.messageRetentionDuration = input.messageRetentionDuration;
  }
  if (input.kmsKeyName) topic.kmsKeyName = input.kmsKeyName;
  const ingestion = ingestionSettings(input.ingestionDataSourceSettings);
  if (ingestion) topic.ingestionDataSourceSettings = ingestion;
  if (input.schemaSettings?.schema) {
    const { schema, encoding, firstRevisionId, lastRevisionId } = input.schemaSettings;
    topic.schemaSettings = {
      schema,
      // Unspecified is JSON, as Pub/Sub takes it.
      encoding: encoding === 'BINARY' ? 'BINARY' : 'JSON',
      ...(firstRevisionId ? { firstRevisionId } : {}),
      ...(lastRevisionId ? { lastRevisionId } : {}),
    };
  }
  return topic;
}

/** Output-only fields and the gRPC loader's oneof names, never stored. */
const INGESTION_DROPPED = new Set(['state', 'source', 'inputFormat']);

/**
 * A topic's ingestion settings in their canonical (REST JSON) shape, or undefined when none is
 * set: unset fields and defaults dropped (the gRPC loader fills them in), the output-only states
 * and the loader's oneof names left out, a timestamp as RFC 3339 text. An empty message stays:
 * `avroFormat: {}` is how a format is chosen.
 */
export function ingestionSettings(raw: unknown): Record<string, unknown> | undefined {
  const clean = (v: unknown, key: string): unknown => {
    if (v === null || v === undefined || v === '' || v === 0 || v === '0' || v === false) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    if (key === 'minimumObjectCreateTime' && 'seconds' in o)
      return new Date(Number(o['seconds']) * 1000 + Math.floor(Number(o['nanos'] ?? 0) / 1e6)).toISOString();
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      if (INGESTION_DROPPED.has(k)) continue;
      const c = clean(x, k);
      if (c !== undefined) out[k] = c;
    }
    return out;
  };
  const settings = clean(raw, '');
  return settings && typeof settings === 'object' && Object.keys(settings).length > 0
    ? (settings as Record<string, unknown>)
    : undefined;
}

/**
 * An export config (`bigqueryConfig`, `cloudStorageConfig`) as REST or gRPC sent it, in the REST
 * JSON shape: unset and default fields dropped, the output-only `state` and the gRPC loader's
 * oneof name left out, a duration as "60s", an int64 as a string. Undefined when nothing is set
 * (the gRPC loader sends an empty config for an unset one). `textConfig: {}` stays: it is how the
 * text format is chosen.
 */
export function exportConfigIn(raw: unknown): Record<string, unknown> | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (k === 'state' || k === 'outputFormat' || v === null || v === undefined) continue;
    if (v === '' || v === false || v === 0 || v === '0') continue;
    if (k === 'maxDuration' && typeof v === 'object') {
      const d = v as { seconds?: unknown; nanos?: unknown };
      out[k] = formatDuration(Number(d.seconds ?? 0), Number(d.nanos ?? 0));
    } else if (k === 'maxBytes' || k === 'maxMessages') out[k] = String(v);
    else if (typeof v === 'object') out[k] = exportConfigIn(v) ?? {};
    else out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `project.dataset.table` or `project:dataset.table`, as a BigQuery subscription names its table. */
const BIGQUERY_TABLE =
  /^([A-Za-z0-9][A-Za-z0-9\-_.:]*)[.:]([A-Za-z0-9_]{1,1024})\.([\p{L}\p{M}\p{N}\p{Pc}\p{Pd} ]{1,1024})$/u;

/** The parts of a BigQuery subscription's table name; undefined when it is not one. */
export function bigqueryTable(
  table: string,
): { project: string; dataset: string; table: string } | undefined {
  const m = BIGQUERY_TABLE.exec(table);
  return m ? { project: m[1] as string, dataset: m[2] as string, table: m[3] as string } : undefined;
}

function checkBigQueryConfig(raw: object | undefined): BigQueryConfig | undefined {
  const c = exportConfigIn(raw);
  if (!c) return undefined;
  const table = typeof c['table'] === 'string' ? c['table'] : '';
  if (!bigqueryTable(table))
    throw invalid(
      `Invalid BigQuery table name: (table=${table}); expected {projectId}.{datasetId}.{tableId}.`,
      'bigquery_config.table',
    );
  if (c['useTopicSchema'] && c['useTableSchema'])
    throw invalid(
      'At most one of use_topic_schema and use_table_schema may be set.',
      'bigquery_config.use_table_schema',
    );
  const out: BigQueryConfig = { table };
  for (const f of ['useTopicSchema', 'useTableSchema', 'writeMetadata', 'dropUnknownFields'] as const)
    if (c[f] === true) out[f] = true;
  if (typeof c['serviceAccountEmail'] === 'string') out.serviceAccountEmail = c['serviceAccountEmail'];
  return out;
}

const GIB = 1024 ** 3;

function checkCloudStorageConfig(raw: object | undefined): CloudStorageConfig | undefined {
  const c = exportConfigIn(raw);
  if (!c) return undefined;
  const bucket = typeof c['bucket'] === 'string' ? c['bucket'] : '';
  if (!/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(bucket))
    throw invalid(`Invalid Cloud Storage bucket name: (bucket=${bucket}).`, 'cloud_storage_config.bucket');
  if (c['avroConfig'])
    throw invalid(
      'cloud_storage_config.avro_config is not supported by this emulator (text only).',
      'cloud_storage_config.avro_config',
    );
  const out: CloudStorageConfig = { bucket };
  for (const f of [
    'filenamePrefix',
    'filenameSuffix',
    'filenameDatetimeFormat',
    'serviceAccountEmail',
  ] as const)
    if (typeof c[f] === 'string') out[f] = c[f];
  if (out.filenameSuffix?.endsWith('/'))
    throw invalid('The filename suffix must not end in "/".', 'cloud_storage_config.filename_suffix');
  if (typeof c['maxDuration'] === 'string')
    // Google's bounds are 1–10 minutes; 1 s is allowed on purpose so integration tests roll fast.
    out.maxDuration = checkDuration(
      c['maxDuration'],
      'cloud_storage_config.max_duration',
      1000,
      10 * MINUTE,
      'max_duration',
    ).text;
  if (c['maxBytes'] !== undefined) {
    const n = Number(c['maxBytes']);
    if (!Number.isInteger(n)) throw invalid('Invalid max_bytes.', 'cloud_storage_config.max_bytes');
    if (n < 1000) throw tooSmall('max_bytes', n, 1000, 'cloud_storage_config.max_bytes');
    if (n > 10 * GIB) throw tooLarge('max_bytes', n, 10 * GIB, 'cloud_storage_config.max_bytes');
    out.maxBytes = String(n);
  }
  if (c['maxMessages'] !== undefined) {
    const n = Number(c['maxMessages']);
    if (!Number.isInteger(n) || n < 1)
      throw invalid('Invalid max_messages.', 'cloud_storage_config.max_messages');
    out.maxMessages = String(n);
  }
  out.textConfig = {};
  return out;
}

function checkPushConfig(pc: PushConfig | undefined): PushConfig {
  const out: PushConfig = {};
  if (!pc) return out;
  if (pc.pushEndpoint) {
    let ok = false;
    try {
      const url = new URL(pc.pushEndpoint);
      ok = url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      ok = false;
    }
    if (!ok) {
      throw invalid(
        `Invalid push endpoint given (endpoint=${pc.pushEndpoint}). Refer to https://cloud.google.com/pubsub/docs/push for more information.`,
        'push_config.push_endpoint',
      );
    }
    out.pushEndpoint = pc.pushEndpoint;
  }
  if (pc.attributes && Object.keys(pc.attributes).length > 0) out.attributes = { ...pc.attributes };
  if (pc.noWrapper) {
    if (!out.pushEndpoint) throw invalid('No wrapper requires a push endpoint.', 'push_config.no_wrapper');
    out.noWrapper = { writeMetadata: pc.noWrapper.writeMetadata === true };
  }
  if (pc.oidcToken && (pc.oidcToken.serviceAccountEmail || pc.oidcToken.audience)) {
    if (!out.pushEndpoint) throw invalid('An OIDC token requires a push endpoint.', 'push_config.oidc_token');
    out.oidcToken = {
      serviceAccountEmail: pc.oidcToken.serviceAccountEmail ?? '',
      audience: pc.oidcToken.audience ?? '',
    };
  }
  return out;
}

export function checkAckDeadline(value: number, field = 'ack_deadline_seconds'): number {
  if (value < 10) throw tooSmall('ack_deadline_seconds', value, 10, field);
  if (value > 600) throw tooLarge('ack_deadline_seconds', value, 600, field);
  return value;
}

/**
 * Applies Google's defaults and bounds to a subscription. `topicExists` answers for the
 * dead-letter topic, which must exist.
 */
export function normalizeSubscription(
  input: SubscriptionInput,
  name: string,
  topicExists: (topic: string) => boolean,
): SubscriptionResource {
  parseName(name, 'subscriptions');
  const topicName = input.topic ?? '';
  if (!topicName) throw invalid('The topic field is required.', 'topic');
  if (topicName !== DELETED_TOPIC) parseName(topicName, 'topics');
  const filter = input.filter ?? '';
  if (Buffer.byteLength(filter) > MAX_FILTER_BYTES) {
    throw invalid(
      `Invalid filter: the filter is ${Buffer.byteLength(filter)} bytes, but the maximum length is ${MAX_FILTER_BYTES} bytes.`,
      'filter',
    );
  }
  const compiled = compileFilter(filter);
  if (!compiled.ok) throw invalid(`Invalid filter expression: ${compiled.error}.`, 'filter');

  const sub: SubscriptionResource = {
    name,
    topic: topicName,
    pushConfig: checkPushConfig(input.pushConfig),
    ackDeadlineSeconds: input.ackDeadlineSeconds ? checkAckDeadline(input.ackDeadlineSeconds) : 10,
    retainAckedMessages: input.retainAckedMessages ?? false,
    messageRetentionDuration: input.messageRetentionDuration
      ? checkDuration(
          input.messageRetentionDuration,
          'message_retention_duration',
          10 * MINUTE,
          31 * DAY,
          'message_retention_duration',
        ).text
      : '604800s',
    enableMessageOrdering: input.enableMessageOrdering ?? false,
    filter,
    detached: input.detached ?? false,
    enableExactlyOnceDelivery: input.enableExactlyOnceDelivery ?? false,
    state: 'ACTIVE',
  };
  if (input.labels && Object.keys(input.labels).length > 0) sub.labels = { ...input.labels };
  const bigquery = checkBigQueryConfig(input.bigqueryConfig);
  const storage = checkCloudStorageConfig(input.cloudStorageConfig);
  if ([sub.pushConfig.pushEndpoint, bigquery, storage].filter(Boolean).length > 1)
    throw invalid(
      'A subscription may have at most one of push_config.push_endpoint, bigquery_config and cloud_storage_config.',
      bigquery ? 'bigquery_config' : 'cloud_storage_config',
    );
  if (bigquery) sub.bigqueryConfig = bigquery;
  if (storage) sub.cloudStorageConfig = storage;
  if (input.expirationPolicy) {
    sub.expirationPolicy = input.expirationPolicy.ttl ? { ttl: input.expirationPolicy.ttl } : {};
  }
  const dlp = input.deadLetterPolicy;
  if (dlp && (dlp.deadLetterTopic || dlp.maxDeliveryAttempts)) {
    const dlt = dlp.deadLetterTopic ?? '';
    if (!dlt) throw invalid('The dead letter topic must be set.', 'dead_letter_policy.dead_letter_topic');
    parseName(dlt, 'topics');
    if (!topicExists(dlt)) {
      throw new ApiError('NOT_FOUND', `Dead letter topic not found (resource=${shortName(dlt)}).`);
    }
    const attempts = dlp.maxDeliveryAttempts || 5;
    if (attempts < 5)
      throw tooSmall('max_delivery_attempts', attempts, 5, 'dead_letter_policy.max_delivery_attempts');
    if (attempts > 100)
      throw tooLarge('max_delivery_attempts', attempts, 100, 'dead_letter_policy.max_delivery_attempts');
    sub.deadLetterPolicy = { deadLetterTopic: dlt, maxDeliveryAttempts: attempts };
  }
  const rp = input.retryPolicy;
  if (rp) {
    // Google's bounds are 0–600 s; 0.1 s is allowed on purpose so integration tests retry fast.
    const min = checkDuration(
      rp.minimumBackoff || '10s',
      'retry_policy.minimum_backoff',
      0,
      600_000,
      'minimum_backoff',
    );
    const max = checkDuration(
      rp.maximumBackoff || '600s',
      'retry_policy.maximum_backoff',
      0,
      600_000,
      'maximum_backoff',
    );
    if (max.ms < min.ms) {
      throw invalid(
        'The maximum backoff must be greater than or equal to the minimum backoff.',
        'retry_policy.maximum_backoff',
      );
    }
    sub.retryPolicy = { minimumBackoff: min.text, maximumBackoff: max.text };
  }
  return sub;
}

export const SUBSCRIPTION_MUTABLE = new Set([
  'ackDeadlineSeconds',
  'pushConfig',
  'retainAckedMessages',
  'messageRetentionDuration',
  'labels',
  'expirationPolicy',
  'deadLetterPolicy',
  'retryPolicy',
  'enableExactlyOnceDelivery',
  'detached',
  'bigqueryConfig',
  'cloudStorageConfig',
]);

/** snake_case or camelCase mask path → camelCase top-level field. */
export function maskField(path: string): string {
  const top = path.split('.')[0] ?? '';
  return top.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Merges an update into an existing subscription. Filters and ordering are immutable: changing
 * them is refused (docs/google-wire.md §7), because it would silently drop or reorder a backlog.
 */
export function updateSubscription(
  current: SubscriptionResource,
  patch: SubscriptionInput,
  paths: readonly string[],
  topicExists: (topic: string) => boolean,
): SubscriptionResource {
  if (paths.length === 0) {
    throw invalid(
      'The update_mask in the UpdateSubscriptionRequest must be set, and must be non-empty.',
      'update_mask',
    );
  }
  const merged: SubscriptionInput = { ...current };
  for (const path of paths) {
    const field = maskField(path);
    if (field === 'filter') {
      if ((patch.filter ?? '') !== current.filter) {
        throw invalid(
          'Invalid update_mask provided in the UpdateSubscriptionRequest: the filter of a subscription cannot be changed. Create a new subscription instead.',
          'update_mask',
        );
      }
      continue;
    }
    if (field === 'enableMessageOrdering') {
      if ((patch.enableMessageOrdering ?? false) !== current.enableMessageOrdering) {
        throw invalid(
          'Invalid update_mask provided in the UpdateSubscriptionRequest: enable_message_ordering cannot be changed.',
          'update_mask',
        );
      }
      continue;
    }
    if (!SUBSCRIPTION_MUTABLE.has(field)) {
      throw invalid(
        `Invalid update_mask provided in the UpdateSubscriptionRequest: the field ${path} cannot be updated.`,
        'update_mask',
      );
    }
    (merged as Record<string, unknown>)[field] = (patch as Record<string, unknown>)[field];
  }
  return normalizeSubscription(merged, current.name, topicExists);
}

/** The topic fields an update mask may name. */
const TOPIC_UPDATABLE = [
  'labels',
  'messageRetentionDuration',
  'kmsKeyName',
  'ingestionDataSourceSettings',
] as const;
const isTopicField = (field: string): field is (typeof TOPIC_UPDATABLE)[number] =>
  (TOPIC_UPDATABLE as readonly string[]).includes(field);

export function updateTopic(
  current: TopicResource,
  patch: TopicInput,
  paths: readonly string[],
): TopicResource {
  if (paths.length === 0) {
    throw invalid(
      'The update_mask in the UpdateTopicRequest must be set, and must be non-empty.',
      'update_mask',
    );
  }
  const merged: TopicInput = { ...current };
  for (const path of paths) {
    const field = maskField(path);
    if (!isTopicField(field)) {
      throw invalid(
        `Invalid update_mask provided in the UpdateTopicRequest: the field ${path} cannot be updated.`,
        'update_mask',
      );
    }
    (merged as Record<string, unknown>)[field] = patch[field];
  }
  return normalizeTopic(merged, current.name);
}
