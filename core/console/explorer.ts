/**
 * The console's events explorer (docs/console.md): find events by time, `user_id` or name, and
 * for one `event_id` everything the warehouse knows: its stored row(s) (a redelivered copy is a
 * second row), its invalid twin(s) in `invalid_events`, and each destination's ledger rows.
 * A list may also be narrowed by one property (`properties.value > 100`, `user.email = …`): the
 * path is checked against the events table's columns and becomes a column or a JSON path made of
 * checked names only; the value is always a query parameter (@property_value), never SQL text.
 * This module builds the SQL (BigQuery's dialect, parameters named) and checks the requests.
 * Pure.
 */
import { type ColumnPlan, eventColumns } from '../warehouse/warehouse.ts';

/** The most events a list shows (the newest first). */
export const EXPLORE_LIMIT = 50;
/** The longest time range a list covers. */
export const EXPLORE_MAX_DAYS = 92;

export interface ExploreList {
  readonly from: string;
  readonly to: string;
  readonly user_id?: string;
  readonly event_name?: string;
  readonly property?: PropertyFilter;
}

/** One property condition, parsed: a path, an operator, and the value to compare with. */
export interface PropertyFilter {
  readonly path: string;
  readonly op: PropertyOp;
  readonly value: string | number;
}

export const PROPERTY_OPS = ['=', '!=', '>=', '<=', '>', '<', 'contains'] as const;
export type PropertyOp = (typeof PROPERTY_OPS)[number];

/** The JSON columns a path may go into: `properties` is the event's own data (`event_data`). */
const JSON_ROOTS: Readonly<Record<string, string>> = {
  properties: 'event_data',
  event_data: 'event_data',
  attributes: 'attributes',
};
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The events table's leaf columns by path (`source`, `user.email`), records and JSON left out. */
function leafColumns(columns: readonly ColumnPlan[], prefix = ''): string[] {
  return columns.flatMap((c) =>
    c.type === 'RECORD' && c.mode !== 'REPEATED'
      ? leafColumns(c.fields ?? [], `${prefix}${c.name}.`)
      : c.type === 'JSON' || c.type === 'RECORD' || c.mode === 'REPEATED'
        ? []
        : [`${prefix}${c.name}`],
  );
}
const LEAVES: ReadonlySet<string> = new Set(leafColumns(eventColumns()));

const PATH_HELP =
  'use properties.<field> (the event’s data), a column such as source or user_id, a context field such as user.email, or attributes.<name>';

/**
 * `properties.value > 100` as a filter, or what is wrong with it. A value in quotes is text; a
 * number compared with <, >, <= or >= is a number.
 */
export function parsePropertyFilter(text: string): PropertyFilter | { problem: string } {
  const m = /^\s*([A-Za-z_][\w.]*)\s*(!=|>=|<=|=|>|<|\bcontains\b)\s*(.*?)\s*$/.exec(text);
  if (!m) return { problem: 'must be a path, an operator (=, !=, <, <=, >, >=, contains) and a value' };
  const [, path = '', op = '=', raw = ''] = m;
  if (propertyExpression(path) === undefined)
    return { problem: `has an unknown path "${path}": ${PATH_HELP}` };
  const quoted = /^(["'])(.*)\1$/.exec(raw);
  if (raw === '') return { problem: 'needs a value after the operator' };
  const value = quoted ? (quoted[2] ?? '') : raw;
  const numeric = ['>', '<', '>=', '<='].includes(op);
  if (numeric && (quoted || !Number.isFinite(Number(value))))
    return { problem: `compares with ${op} only to a number` };
  if (value.length > 1024) return { problem: 'has a value longer than 1024 characters' };
  return { path, op: op as PropertyOp, value: numeric ? Number(value) : value };
}

/** The SQL expression for a checked path (made only of checked names), or undefined. */
function propertyExpression(path: string): string | undefined {
  const [root = '', ...rest] = path.split('.');
  const json = JSON_ROOTS[root];
  if (json) {
    if (rest.length === 0 || !rest.every((n) => NAME.test(n))) return undefined;
    return `JSON_VALUE(${json}, '$.${rest.join('.')}')`;
  }
  if (!LEAVES.has(path)) return undefined;
  return path
    .split('.')
    .map((n) => `\`${n}\``)
    .join('.');
}

/** The WHERE condition for a filter; its value is the parameter @property_value. */
export function propertyCondition(f: PropertyFilter): string {
  const expr = `CAST(${propertyExpression(f.path)} AS STRING)`;
  switch (f.op) {
    case 'contains':
      return `STRPOS(${expr}, @property_value) > 0`;
    case '=':
    case '!=':
      return `${expr} ${f.op} @property_value`;
    default:
      return `SAFE_CAST(${expr} AS FLOAT64) ${f.op} @property_value`;
  }
}

/**
 * Events whose `event_time` is in the range (the partition column: a range reads only its days),
 * one row per event however often it was stored, the newest first.
 */
export function exploreListSql(table: (name: string) => string, q: ExploreList): string {
  const filters = [
    'event_time >= TIMESTAMP(@from)',
    'event_time < TIMESTAMP(@to)',
    ...(q.user_id !== undefined ? ['user_id = @user_id'] : []),
    ...(q.event_name !== undefined ? ['event_name = @event_name'] : []),
    ...(q.property ? [propertyCondition(q.property)] : []),
  ];
  return `SELECT event_id, event_name, event_time, MIN(received_at) AS received_at, ANY_VALUE(user_id) AS user_id,
  ANY_VALUE(source) AS source, ANY_VALUE(JSON_VALUE(attributes, '$.translator')) AS translator, COUNT(*) AS copies
FROM ${table('events')}
WHERE ${filters.join(' AND ')}
GROUP BY event_id, event_name, event_time
ORDER BY received_at DESC, event_id
LIMIT ${EXPLORE_LIMIT}`;
}

/** One event's rows: stored, invalid, and the ledger. Parameter: @event_id. */
export function exploreEventSql(table: (name: string) => string): {
  stored: string;
  invalid: string;
  ledger: string;
} {
  return {
    stored: `SELECT * FROM ${table('events')} WHERE event_id = @event_id ORDER BY received_at, message_id LIMIT 20`,
    invalid: `SELECT received_at, stored_at, reason, topic, message_id, event_name, payload, errors
FROM ${table('invalid_events')} WHERE event_id = @event_id ORDER BY received_at LIMIT 20`,
    ledger: `SELECT recorded_at, destination, status, reason, attempt, http_status, replay
FROM ${table('deliveries')} WHERE event_id = @event_id ORDER BY recorded_at, destination LIMIT 200`,
  };
}

const IDS = /^[\x21-\x7e]{1,128}$/;

/** What is wrong with a request, as a field and a description; undefined when it is fine. */
export function exploreProblem(
  body: Readonly<Record<string, unknown>>,
): { field: string; description: string } | undefined {
  const text = (field: string) => {
    const v = body[field];
    return v === undefined || (typeof v === 'string' && IDS.test(v))
      ? undefined
      : { field, description: 'must be 1 to 128 printable ASCII characters without spaces' };
  };
  if (body['event_id'] !== undefined) return text('event_id');
  for (const field of ['user_id', 'event_name']) {
    const p = text(field);
    if (p) return p;
  }
  const property = body['property'];
  if (property !== undefined) {
    if (typeof property !== 'string' || property.length > 2048)
      return { field: 'property', description: 'must be a condition such as properties.value > 100' };
    const parsed = parsePropertyFilter(property);
    if ('problem' in parsed) return { field: 'property', description: parsed.problem };
  }
  for (const field of ['from', 'to']) {
    const v = body[field];
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v)))
      return { field, description: 'must be an RFC 3339 timestamp (or give event_id)' };
  }
  const span = Date.parse(String(body['to'])) - Date.parse(String(body['from']));
  if (span <= 0) return { field: 'from', description: 'must be before to' };
  if (span > EXPLORE_MAX_DAYS * 86_400_000)
    return { field: 'from', description: `the range must be at most ${EXPLORE_MAX_DAYS} days` };
  return undefined;
}
