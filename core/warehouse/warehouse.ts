/**
 * The warehouse: tables and views of the environment's dataset, generated from `schemas/`.
 * Shared by plan(), the local provisioning and the Pulumi program, so what is queried
 * locally is what exists in BigQuery. Column types come from the typebox schemas; view SQL
 * is written in the subset of GoogleSQL the local emulator runs unchanged.
 */
import type { TSchema } from 'typebox';
import { CATALOGUE } from '../../schemas/catalogue.ts';
import { CONTEXT_FIELDS, CONTEXT_GROUPS, Context, Enriched } from '../../schemas/context.ts';
import type { EventType } from '../../schemas/events/common.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { FieldSpec } from '../definitions/definitions.ts';
import { partitionExpiration, type RetentionTable } from './retention.ts';
import { type ColumnPlan, column as col, type TablePlan, tableRef, type ViewPlan } from './table-plan.ts';

export type { ColumnPlan, TablePlan, ViewPlan };

/** Table names, one name for one thing across code, SQL and docs. */
export const TABLES = Object.freeze({
  events: 'events',
  invalidEvents: 'invalid_events',
  deliveries: 'deliveries',
  actionRuns: 'action_runs',
  hookFailures: 'hook_failures',
} as const);

/** View names besides the one per catalogue event type (which is named after the event). */
export const VIEWS = Object.freeze({
  eventsDedup: 'events_dedup',
  identities: 'identities',
  eventIdConflicts: 'event_id_conflicts',
} as const);

type Mode = NonNullable<ColumnPlan['mode']>;

interface JsonSchemaLike {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchemaLike>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: unknown;
  readonly items?: JsonSchemaLike;
  readonly anyOf?: readonly JsonSchemaLike[];
  readonly const?: unknown;
}

/** The BigQuery type of a scalar JSON schema, or undefined when it is not one scalar type. */
function scalarType(s: JsonSchemaLike): ColumnPlan['type'] | undefined {
  if (s.anyOf) {
    // A union of constants (consent states, enums) stores as their common type.
    const types = new Set(s.anyOf.map((b) => scalarType(b)));
    return types.size === 1 ? [...types][0] : undefined;
  }
  switch (s.type) {
    case 'string':
      if (s.format === 'date-time') return 'TIMESTAMP';
      if (s.format === 'date') return 'DATE';
      return 'STRING';
    case 'integer':
      return 'INT64';
    case 'number':
      return 'FLOAT64';
    case 'boolean':
      return 'BOOL';
    default:
      return undefined;
  }
}

/**
 * The column a typebox schema stores as: scalars by type, closed objects as RECORD,
 * arrays as REPEATED, and anything open-ended (extra fields allowed, mixed unions) as JSON.
 */
export function columnFromSchema(name: string, schema: TSchema, required = false): ColumnPlan {
  const s = schema as JsonSchemaLike;
  const mode: Mode = required ? 'REQUIRED' : 'NULLABLE';
  const described = (c: Omit<ColumnPlan, 'description'>): ColumnPlan =>
    s.description ? { ...c, description: s.description } : c;
  const scalar = scalarType(s);
  if (scalar) return described({ name, type: scalar, mode });
  if (s.type === 'object' && s.properties && s.additionalProperties === false) {
    return described({ name, type: 'RECORD', mode, fields: columnsFromObject(schema) });
  }
  if (s.type === 'array' && s.items) {
    const item = columnFromSchema(name, s.items as TSchema);
    // BigQuery has no arrays of arrays; those stay JSON.
    if (item.mode !== 'REPEATED' && item.type !== 'JSON') return described({ ...item, mode: 'REPEATED' });
  }
  return described({ name, type: 'JSON', mode });
}

/** The columns of a closed object schema, in declaration order. */
export function columnsFromObject(schema: TSchema): ColumnPlan[] {
  const s = schema as JsonSchemaLike;
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([name, p]) =>
    columnFromSchema(name, p as TSchema, required.has(name)),
  );
}

const contextProperty = (name: string): TSchema => {
  const p = (Context.properties as Record<string, TSchema>)[name];
  if (!p) throw new Error(`schemas/context.ts has no context field ${name}`);
  return p;
};

/** The context columns that are plain strings (ids and the producer name). */
const CONTEXT_IDS = Object.freeze(['user_id', 'anonymous_id', 'session_id', 'source'] as const);

/** Columns of `events`, in order: identity and time first, then context, then data. */
export function eventColumns(): ColumnPlan[] {
  return [
    col(
      'event_id',
      'STRING',
      'The producer’s event id (with payload_digest, the event’s identity); the messageId when a native publish had none',
      'REQUIRED',
    ),
    col('event_name', 'STRING', 'snake_case event name (catalogue or custom)', 'REQUIRED'),
    col('event_time', 'TIMESTAMP', 'When it happened (partition column)', 'REQUIRED'),
    col('received_at', 'TIMESTAMP', 'When Pub/Sub accepted the event (its publishTime)', 'REQUIRED'),
    col('stored_at', 'TIMESTAMP', 'When the store function wrote this row', 'REQUIRED'),
    col('topic', 'STRING', 'Pub/Sub topic the event was published to', 'REQUIRED'),
    col('message_id', 'STRING', 'Pub/Sub messageId', 'REQUIRED'),
    col('schema_version', 'INT64', 'Catalogue schema version of event_name; 0 for custom events', 'REQUIRED'),
    ...CONTEXT_IDS.map((name) => columnFromSchema(name, contextProperty(name))),
    ...CONTEXT_GROUPS.map((name) => columnFromSchema(name, contextProperty(name))),
    col('event_data', 'JSON', 'Every field that is not context (the event type view types them)'),
    col('attributes', 'JSON', 'Pub/Sub message attributes'),
    // Last: BigQuery adds columns to an existing table only at the end.
    col(
      'definition_version',
      'STRING',
      'For a defined event: the definition version it was validated against (`name@major.minor`)',
    ),
    col(
      'payload_digest',
      'STRING',
      'SHA-256 of the canonical event as sent (the insertId): the same event_id with another digest is another event',
    ),
    // What the store function derived (docs/enrichment.md); not part of the identity above.
    columnFromSchema('enriched', Enriched),
    // Added later: NULLABLE, so an existing table takes it in place (docs/observability.md).
    col('trace_id', 'STRING', 'The trace (W3C, 32 hex digits) the event travelled under, from its message'),
  ];
}

/** Columns of `invalid_events`: what arrived, where from, and every reason it was refused. */
export function invalidEventColumns(): ColumnPlan[] {
  return [
    col(
      'received_at',
      'TIMESTAMP',
      'When Pub/Sub accepted the message, or when a stray push arrived (partition column)',
      'REQUIRED',
    ),
    col('stored_at', 'TIMESTAMP', 'When the store function wrote this row', 'REQUIRED'),
    col(
      'reason',
      'STRING',
      'invalid_event | not_json | malformed_push | rejected_by_warehouse | poison',
      'REQUIRED',
    ),
    col('topic', 'STRING', 'Pub/Sub topic, when known'),
    col('subscription', 'STRING', 'Push subscription, when known'),
    col('message_id', 'STRING', 'Pub/Sub messageId, when known'),
    col('event_id', 'STRING', 'event_id, when one could be read'),
    col('event_name', 'STRING', 'event_name, when one could be read'),
    col('payload', 'STRING', 'The message data (or the whole push body) as received; base64 when not UTF-8'),
    col('attributes', 'JSON', 'Pub/Sub message attributes'),
    {
      name: 'errors',
      type: 'RECORD',
      mode: 'REPEATED',
      description: 'Each problem: the field path (`[0].content_name`) and what is wrong',
      fields: [col('path', 'STRING', 'Field path, or (root)'), col('message', 'STRING', 'What is wrong')],
    },
  ];
}

/** Columns of `deliveries` (the ledger written by `store`'s decision layer and `forward`). */
export function deliveryColumns(): ColumnPlan[] {
  return [
    col('event_id', 'STRING', 'The event delivered or skipped', 'REQUIRED'),
    col('event_name', 'STRING', 'Its event name', 'REQUIRED'),
    col('destination', 'STRING', 'Destination id from the settings', 'REQUIRED'),
    col('status', 'STRING', 'skipped | delivered | folded | rejected | failed | dead_lettered', 'REQUIRED'),
    col('reason', 'STRING', 'Why it was skipped, rejected or failed'),
    col('attempt', 'INT64', 'Pub/Sub delivery attempt (1-based); null for skipped'),
    col('http_status', 'INT64', "The platform's HTTP status, when one answered"),
    col('replay', 'BOOL', 'Whether this row comes from a replay', 'REQUIRED'),
    col('recorded_at', 'TIMESTAMP', 'When the row was written (partition column)', 'REQUIRED'),
    col('payload_digest', 'STRING', 'The payload_digest of the event row this decision or attempt is about'),
    // Added later: REPEATED, so an existing table takes it in place (docs/console.md#match-quality).
    col(
      'identifiers',
      'STRING',
      'The identifier kinds the attempt’s request carried (email, phone, fbc, ip, …): names, never values',
      'REPEATED',
    ),
    // Added later: NULLABLE, so an existing table takes them in place (docs/delivery.md).
    col('platform_ref', 'STRING', "The platform's id for the request (fbtrace_id, requestId, request_id)"),
    col('platform_events_received', 'INT64', 'How many events the platform says it received'),
    col('platform_response', 'STRING', "The platform's answer: codes, messages, counts (JSON, ≤ 1 KB)"),
    // Added later: NULLABLE, so an existing table takes it in place (docs/observability.md).
    col('trace_id', 'STRING', 'The trace (W3C, 32 hex digits) the decision or attempt was made under'),
    // Added later: NULLABLE, so an existing table takes it in place (docs/delivery.md#backfill).
    col('backfill', 'BOOL', 'True when the row comes from a backfill of a destination added later'),
  ];
}

/**
 * Columns of `hook_failures`: an event stored, whose after-store step (fan-out, rules) failed in a
 * way no redelivery can fix. The push is acknowledged, so one bad event or rule never multiplies
 * rows or deliveries; the row says what to fix and which event to replay.
 */
export function hookFailureColumns(): ColumnPlan[] {
  return [
    col('recorded_at', 'TIMESTAMP', 'When the failure was recorded (partition column)', 'REQUIRED'),
    col('hook', 'STRING', 'fan_out | rules', 'REQUIRED'),
    col('event_id', 'STRING', 'The stored event', 'REQUIRED'),
    col('event_name', 'STRING', 'Its event name', 'REQUIRED'),
    col('payload_digest', 'STRING', 'Its payload digest (with event_id, the row in events)'),
    col('topic', 'STRING', 'Its events topic'),
    col('message_id', 'STRING', 'Pub/Sub messageId of the push'),
    col('attempt', 'INT64', 'Pub/Sub delivery attempt of the push'),
    col('error', 'STRING', 'What failed', 'REQUIRED'),
  ];
}

/** Columns of `action_runs` (rules' firings and their outcomes, written by the schedule function). */
export function actionRunColumns(): ColumnPlan[] {
  return [
    col('rule', 'STRING', 'Rule name', 'REQUIRED'),
    col('version', 'STRING', 'The rule version that fired', 'REQUIRED'),
    col('firing_id', 'STRING', 'sha256 of the rule and the triggering event id', 'REQUIRED'),
    col('event_id', 'STRING', 'The triggering event', 'REQUIRED'),
    col('once_key', 'STRING', "The once-per key's value"),
    col('once_slot', 'STRING', 'The once-per period slot (start, or forever)'),
    col(
      'action',
      'STRING',
      'webhook:<connection> | chat:<connection> | publish:<event> | once_per',
      'REQUIRED',
    ),
    col('status', 'STRING', 'sent | failed | skipped_once | dry_run | dead_lettered', 'REQUIRED'),
    col('reason', 'STRING', 'Why it failed or was skipped'),
    col('attempt', 'INT64', 'Pub/Sub delivery attempt of the firing (1-based)'),
    col('http_status', 'INT64', 'The endpoint’s HTTP status, when one answered'),
    col('recorded_at', 'TIMESTAMP', 'When the row was written (partition column)', 'REQUIRED'),
  ];
}

/** The ops dataset's tables: what syncs did (per-sync state tables are created by the runs). */
export const OPS_TABLES = Object.freeze({
  syncRuns: 'sync_runs',
  syncFailedRows: 'sync_failed_rows',
  gatewayRefusals: 'gateway_refusals',
  alertStates: 'alert_states',
} as const);

/** Columns of `sync_runs`: one row per finished sync run. */
export function syncRunColumns(): ColumnPlan[] {
  return [
    col('sync', 'STRING', 'Sync name', 'REQUIRED'),
    col('version', 'STRING', 'The sync version that ran', 'REQUIRED'),
    col('run_id', 'STRING', '<kind>/<name>@<slot>', 'REQUIRED'),
    col('trigger', 'STRING', 'schedule | manual', 'REQUIRED'),
    col('mode', 'STRING', 'insert | upsert | mirror | full', 'REQUIRED'),
    col('destination', 'STRING', 'webhook:<connection> | files:<connection> | topic:<topic>', 'REQUIRED'),
    col(
      'status',
      'STRING',
      'succeeded | partial (some rows failed: sync_failed_rows) | nothing_to_send | failed (given up)',
      'REQUIRED',
    ),
    col('rows_planned', 'INT64', 'Changed, new and deleted rows the diff found', 'REQUIRED'),
    col('rows_sent', 'INT64', 'Rows sent (upserts)', 'REQUIRED'),
    col('rows_removed', 'INT64', 'Deletions sent (mirror mode)', 'REQUIRED'),
    col('chunks', 'INT64', 'Chunks the run took', 'REQUIRED'),
    col('started_at', 'TIMESTAMP', 'When the run planned its diff', 'REQUIRED'),
    col('finished_at', 'TIMESTAMP', 'When its last page was committed (partition column)', 'REQUIRED'),
    // Added later: NULLABLE, so an existing table takes them in place.
    col('rows_failed', 'INT64', 'Rows a destination refused or that could not be sent (retried next run)'),
    col('cursor_from', 'STRING', 'The cursor column’s high-water mark the run read from (cursor syncs)'),
    col('cursor_to', 'STRING', 'The highest cursor value the run read'),
    col('error', 'STRING', 'Why the run was given up (status failed)'),
    col(
      'request_ids',
      'STRING',
      'google_ads_audience: the Data Manager requestIds of the run’s requests, space-separated (its last 50), for requestStatus:retrieve',
    ),
  ];
}

/** Columns of `sync_failed_rows`: a row a run could not send, and why (it is retried next run). */
export function syncFailedRowColumns(): ColumnPlan[] {
  return [
    col('sync', 'STRING', 'Sync name', 'REQUIRED'),
    col('run_id', 'STRING', 'The run that failed to send it', 'REQUIRED'),
    col('key', 'STRING', 'Its primary key, as JSON', 'REQUIRED'),
    col('op', 'STRING', 'upsert | delete', 'REQUIRED'),
    col('reason', 'STRING', 'Why: the destination’s words, or what was missing', 'REQUIRED'),
    col('failed_at', 'TIMESTAMP', 'When (partition column)', 'REQUIRED'),
  ];
}

/**
 * Columns of `gateway_refusals` (docs/console.md#live-events): requests the gateway answered with
 * an error, sampled per instance (core/console/live-events.ts). What was refused and who asked, never
 * the body or a secret: a credential is named by its public id or a hash prefix.
 */
export function gatewayRefusalColumns(): ColumnPlan[] {
  return [
    col('refused_at', 'TIMESTAMP', 'When the gateway answered (partition column)', 'REQUIRED'),
    col('status', 'INT64', 'The HTTP status it answered', 'REQUIRED'),
    col('code', 'STRING', 'The error code (core/errors.ts, the README’s table)', 'REQUIRED'),
    col(
      'reason',
      'STRING',
      'Why: the error code, or the finer reason (expired, bad_signature, …)',
      'REQUIRED',
    ),
    col('source', 'STRING', 'translator:<name>, else the credential, else (anonymous)', 'REQUIRED'),
    col(
      'credential',
      'STRING',
      'token:<id> | key:<id> | google:<email> | signature:<scheme> | a hash prefix',
    ),
    col('translator', 'STRING', 'The translator addressed, when one was'),
    col('path', 'STRING', 'The path, a credential in it redacted'),
    col('size', 'INT64', 'The body’s declared size (Content-Length); the body is never read for this'),
    col(
      'represents',
      'INT64',
      'Refusals this row stands for: itself and those of its kind left out by sampling since the last row',
      'REQUIRED',
    ),
    col('instance', 'STRING', 'The gateway instance that wrote it (sampling is per instance)'),
    // Added after the first release: NULLABLE, so an existing table takes them in place.
    col('message', 'STRING', 'The answer’s message, as the sender read it (at most 300 characters)'),
    col(
      'fields',
      'STRING',
      'The answer’s field violations, `field: description` one a line (at most 10); never the body',
    ),
  ];
}

/** Fully qualified, quoted table reference (core/table-ref.ts), for the code that reads tables. */
export { tableRef };

/** The columns of an event type's view: its declared fields, typed, read from event_data. */
export function eventTypeColumns(type: EventType): ColumnPlan[] {
  return columnsFromObject(type.schema).map((c) => {
    if (CONTEXT_FIELDS.has(c.name) || c.name === 'event_data') {
      throw new Error(`event type ${type.name}: field ${c.name} collides with a context column`);
    }
    // REPEATED and RECORD fields are kept as JSON in the view: the typed scalars are what
    // dashboards group by, and JSON keeps the producer's extra item fields.
    if (c.type === 'RECORD' || c.mode === 'REPEATED')
      return { ...omitFields(c), type: 'JSON', mode: 'NULLABLE' };
    return { ...c, mode: 'NULLABLE' };
  });
}

function omitFields(c: ColumnPlan): ColumnPlan {
  const { fields: _fields, ...rest } = c;
  return rest;
}

/** SQL expression reading one event_data field as its column type. */
function dataExpression(c: ColumnPlan): string {
  const path = `'$.${c.name}'`;
  switch (c.type) {
    case 'JSON':
      return `JSON_QUERY(event_data, ${path})`;
    case 'STRING':
      return `JSON_VALUE(event_data, ${path})`;
    default:
      // SAFE_CAST: a producer's extra-typed value must not make the whole view fail.
      return `SAFE_CAST(JSON_VALUE(event_data, ${path}) AS ${c.type})`;
  }
}

/** Columns every event-type view starts with (the context of the event). */
const VIEW_CONTEXT = [
  'event_id',
  'event_name',
  'event_time',
  'received_at',
  'topic',
  'schema_version',
  ...CONTEXT_IDS,
  ...CONTEXT_GROUPS,
  // What store derived (docs/enrichment.md): dashboards on a typed view group by it too.
  'enriched',
] as const;

const DEFINITION_COLUMN_TYPES: Readonly<Record<FieldSpec['type'], ColumnPlan['type']>> = {
  string: 'STRING',
  integer: 'INT64',
  number: 'FLOAT64',
  boolean: 'BOOL',
  timestamp: 'TIMESTAMP',
  date: 'DATE',
  json: 'JSON',
  array: 'JSON',
  object: 'JSON',
};

/** A defined event's view name: `<name>` for the current major, `<name>_v<N>` for an older one. */
export const definitionViewName = (name: string, major: number, latest: boolean): string =>
  latest ? name : `${name}_v${major}`;

/**
 * The typed view of one major version of a defined event (docs/definitions.md): the context,
 * the definition's top-level fields as typed columns read from event_data (arrays and objects
 * stay JSON), then event_data and definition_version. The current major's view shows every
 * event of that name (older ones' values cast where they still fit); an older major's view only
 * the events validated against that major.
 */
export function definitionView(
  ref: string,
  def: { name: string; version: string; fields: readonly FieldSpec[]; description?: string },
  latest: boolean,
): ViewPlan {
  const major = Number(def.version.split('.')[0]);
  const byName = new Map(eventColumns().map((c) => [c.name, c]));
  const data = def.fields.map((f) =>
    col(f.name, DEFINITION_COLUMN_TYPES[f.type], (f.description ?? '').slice(0, 1024)),
  );
  const where = latest
    ? `event_name = '${def.name}'`
    : `event_name = '${def.name}' AND STARTS_WITH(definition_version, '${def.name}@${major}.')`;
  return {
    name: definitionViewName(def.name, major, latest),
    description: `${def.description ?? def.name} (${def.name}@${def.version}): events_dedup with its fields as typed columns`,
    query: [
      `SELECT ${[...VIEW_CONTEXT, ...data.map((c) => `${dataExpression(c)} AS ${c.name}`), 'event_data', 'definition_version'].join(',\n  ')}`,
      `FROM ${ref}`,
      `WHERE ${where}`,
    ].join('\n'),
    columns: [
      ...VIEW_CONTEXT.map((n) => byName.get(n) as ColumnPlan),
      ...data,
      byName.get('event_data') as ColumnPlan,
      byName.get('definition_version') as ColumnPlan,
    ],
  };
}

/**
 * The warehouse's own tables and views of an environment's dataset: the events, the ledger and
 * their views. plan()'s `warehousePlan` (core/plan.ts) adds the console's destination-health
 * views and the incremental models, which are built on these and so are not imported here.
 */
export function baseWarehousePlan(settings: Readonly<Settings>): { tables: TablePlan[]; views: ViewPlan[] } {
  const dataset = settings.dataset ?? 'events';
  const ref = (name: string) => tableRef(settings.project, dataset, name);
  const partition = (field: string, table: RetentionTable): NonNullable<TablePlan['timePartitioning']> => ({
    type: 'DAY',
    field,
    ...partitionExpiration(settings, table),
  });

  const tables: TablePlan[] = [
    {
      name: TABLES.events,
      description:
        'Every valid event, as stored by the store function (at-least-once: query events_dedup for one row per event_id)',
      columns: eventColumns(),
      timePartitioning: partition('event_time', TABLES.events),
      clustering: ['event_name', 'user_id'],
    },
    {
      name: TABLES.invalidEvents,
      description: 'Messages that could not be stored as events, with every error (nothing is dropped)',
      columns: invalidEventColumns(),
      timePartitioning: partition('received_at', TABLES.invalidEvents),
      clustering: ['reason'],
    },
    {
      name: TABLES.deliveries,
      description: 'The delivery ledger: one row per decision, attempt and outcome per destination',
      columns: deliveryColumns(),
      timePartitioning: partition('recorded_at', TABLES.deliveries),
      clustering: ['destination', 'status'],
    },
    {
      name: TABLES.hookFailures,
      description:
        'Stored events whose fan-out or rules failed for good (acknowledged, never retried): fix the cause, then replay',
      columns: hookFailureColumns(),
      timePartitioning: partition('recorded_at', TABLES.hookFailures),
      clustering: ['hook'],
    },
    ...(settings.experimental?.rules
      ? [
          {
            name: TABLES.actionRuns,
            description: 'Rules (experimental): one row per firing outcome and action',
            columns: actionRunColumns(),
            timePartitioning: partition('recorded_at', TABLES.actionRuns),
            clustering: ['rule', 'status'],
          },
        ]
      : []),
  ];

  const eventsColumns = eventColumns();
  const views: ViewPlan[] = [
    {
      name: VIEWS.eventsDedup,
      description:
        'One row per event (event_id, event_time and payload_digest: the first stored copy). event_time is part of the window partition so filters on it still prune partitions; a resend must carry the same content to be folded, and the same event_id with other content is another event (see event_id_conflicts)',
      // ORDER BY message_id too, so the choice between two copies is stable across queries.
      query: [
        'SELECT * EXCEPT (dedup_rank) FROM (',
        '  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_time, event_id, payload_digest ORDER BY received_at, message_id) AS dedup_rank',
        `  FROM ${ref(TABLES.events)}`,
        ') WHERE dedup_rank = 1',
      ].join('\n'),
      columns: eventsColumns,
    },
    {
      name: VIEWS.identities,
      description: 'Which anonymous_id belonged to which user_id, with first and last seen',
      query: [
        'SELECT user_id, anonymous_id, MIN(event_time) AS first_seen, MAX(event_time) AS last_seen, COUNT(*) AS events',
        `FROM ${ref(VIEWS.eventsDedup)}`,
        'WHERE user_id IS NOT NULL AND anonymous_id IS NOT NULL',
        'GROUP BY user_id, anonymous_id',
      ].join('\n'),
      columns: [
        col('user_id', 'STRING', 'Signed-in user id'),
        col('anonymous_id', 'STRING', 'Anonymous id seen with it'),
        col('first_seen', 'TIMESTAMP', 'event_time of the first event carrying both'),
        col('last_seen', 'TIMESTAMP', 'event_time of the last event carrying both'),
        col('events', 'INT64', 'How many events carried both'),
      ],
    },
    {
      name: VIEWS.eventIdConflicts,
      description:
        'event_ids stored with more than one content (payload_digest): each version is its own event, stored and delivered; filter on first_time/last_time to prune',
      query: [
        'SELECT event_id, COUNT(DISTINCT payload_digest) AS versions, COUNT(*) AS copies,',
        '  STRING_AGG(DISTINCT event_name) AS event_names, MIN(event_time) AS first_time, MAX(event_time) AS last_time',
        `FROM ${ref(TABLES.events)}`,
        'WHERE payload_digest IS NOT NULL',
        'GROUP BY event_id',
        'HAVING COUNT(DISTINCT payload_digest) > 1',
      ].join('\n'),
      columns: [
        col('event_id', 'STRING', 'The reused event_id'),
        col('versions', 'INT64', 'How many different contents carried it'),
        col('copies', 'INT64', 'How many rows carry it (copies of one content included)'),
        col('event_names', 'STRING', 'The event names it was used with, comma-separated'),
        col('first_time', 'TIMESTAMP', 'Earliest event_time among them'),
        col('last_time', 'TIMESTAMP', 'Latest event_time among them'),
      ],
    },
  ];

  const byName = new Map(eventsColumns.map((c) => [c.name, c]));
  for (const type of CATALOGUE) {
    const data = eventTypeColumns(type);
    views.push({
      name: type.name,
      description: `${type.description} (${type.name} v${type.version}): events_dedup with its fields as typed columns`,
      query: [
        // event_data last: the producer's extra fields stay one query away.
        `SELECT ${[...VIEW_CONTEXT, ...data.map((c) => `${dataExpression(c)} AS ${c.name}`), 'event_data'].join(',\n  ')}`,
        `FROM ${ref(VIEWS.eventsDedup)}`,
        `WHERE event_name = '${type.name}'`,
      ].join('\n'),
      columns: [
        ...VIEW_CONTEXT.map((n) => byName.get(n) as ColumnPlan),
        ...data,
        byName.get('event_data') as ColumnPlan,
      ],
    });
  }
  return { tables, views };
}

/**
 * The storage-first invariant as SQL (docs/architecture.md §1): `delivered` ledger rows with no
 * `events` row of the same identity (event_id and payload_digest). Always 0; the chaos run and the
 * integrity tests check it. `dataset` is a dataset reference as the query's FROM takes it.
 */
export function deliveredWithoutStoredRowSql(dataset: string, where = 'TRUE'): string {
  return [
    'SELECT d.destination, COUNT(*) AS n',
    `FROM ${dataset}.${TABLES.deliveries} AS d`,
    `LEFT JOIN ${dataset}.${TABLES.events} AS e`,
    '  ON e.event_id = d.event_id AND e.payload_digest = d.payload_digest',
    `WHERE d.status = 'delivered' AND e.event_id IS NULL AND (${where})`,
    'GROUP BY d.destination',
  ].join('\n');
}

/**
 * Columns of `alert_states`: one row per evaluation of an alert (docs/alerts.md); the newest row
 * of an alert is where its incident stands.
 */
export function alertStateColumns(): ColumnPlan[] {
  return [
    col('alert', 'STRING', 'Alert name', 'REQUIRED'),
    col('version', 'STRING', 'The alert version evaluated', 'REQUIRED'),
    col('evaluated_at', 'TIMESTAMP', 'The slot evaluated (the end of its window)', 'REQUIRED'),
    col('status', 'STRING', 'ok | firing, after this evaluation', 'REQUIRED'),
    col('incident', 'STRING', 'The open (or last) incident: <alert>@<slot it opened>'),
    col('clear_streak', 'INT64', 'Clear evaluations in a row while firing', 'REQUIRED'),
    col('breached', 'BOOL', 'Whether the condition held at this evaluation', 'REQUIRED'),
    col('value', 'FLOAT64', 'The share or count compared (null: too few rows to judge)'),
    col('summary', 'STRING', 'What the evaluation found, as sent', 'REQUIRED'),
    col('notice', 'STRING', 'fired | resolved, when this evaluation notified'),
    col('recorded_at', 'TIMESTAMP', 'When the row was written (partition column)', 'REQUIRED'),
  ];
}
