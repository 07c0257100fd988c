/**
 * An access request (issue #61, docs/privacy.md "Access requests"): the read-only queries that find
 * every stored row about one person, one query per table, and the audit row that records who asked
 * (the ops table `exports`). Pure: the SQL and its parameters; the CLI (`eventbus export-person`)
 * and the studio (studio/privacy-api.ts) run them and write the rows as JSON Lines.
 *
 * The person is named by identifiers in the identity graph's form (`kind:value`, e-mails and phones
 * as their SHA-256 hex: `erasureIdentifier`); with the models on, the identity graph adds the
 * person's other identifiers. Every value reaches the SQL as a query parameter.
 */
import { randomUUID } from 'node:crypto';
import { IDENTIFIER_KINDS } from '../models/identity-graph.ts';
import { SESSION_TABLES } from '../models/sessions.ts';
import { sha256 } from '../pii.ts';
import { OPS_TABLES, TABLES, tableRef } from '../warehouse/warehouse.ts';
import { EVENT_IDENTIFIER, matchesJson, needlePatterns, personIdsSql } from './person.ts';

/** What the queries read: the events dataset, and whether its identity graph exists (the models). */
export interface ExportOptions {
  readonly project: string;
  readonly dataset: string;
  readonly identityGraph: boolean;
  /** The ops dataset: its refusals and failed sync rows are searched too (their JSON, as erasure does). */
  readonly ops?: string;
  /** `action_runs` exists (rules on). */
  readonly actionRuns?: boolean;
}

/** One table's query: `table` is how the export names it (`<dataset>.<table>`). */
export interface ExportQuery {
  readonly table: string;
  readonly sql: string;
  readonly params: Record<string, string[]>;
  /** The parameters' types, in the client's form (an empty array has none of its own). */
  readonly types: Record<string, string[]>;
  /**
   * A search for "possible" rows (the person's e-mail or phone found only in a custom field): the
   * raw texts searched for, so each line can name the fields that hold them (`exportLine`).
   */
  readonly possible?: readonly string[];
}

/** How far back the "possible" search reads events (their `event_time` partitions). */
export const POSSIBLE_DAYS = 90;
/** At most this many "possible" rows are exported: a pointer to look further, not a report. */
export const POSSIBLE_ROWS = 1000;

/**
 * The events that are not the person's by any identifier column but hold their e-mail or phone
 * (as given: `raw`) as a whole value somewhere in `event_data`, a custom field (#75). One bounded
 * scan: the last POSSIBLE_DAYS days of `event_time` partitions, two columns' worth of JSON, at most
 * POSSIBLE_ROWS rows; every value a parameter (`@patterns`, `needlePatterns` of the raw texts only).
 * Undefined when the person was named by no e-mail or phone.
 */
function possibleQuery(
  options: ExportOptions,
  identifiers: readonly string[],
  raw: readonly string[],
  withIds: string,
  eventsMatch: string,
): ExportQuery | undefined {
  if (raw.length === 0) return undefined;
  const events = tableRef(options.project, options.dataset, TABLES.events);
  return {
    table: `${options.dataset}.${TABLES.events} (possible)`,
    sql: [
      withIds,
      `SELECT * FROM ${events}`,
      `WHERE event_time >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL ${POSSIBLE_DAYS} DAY)`,
      `  AND NOT IFNULL(${eventsMatch}, FALSE)`,
      `  AND event_data IS NOT NULL AND ${matchesJson('TO_JSON_STRING(event_data)')}`,
      `ORDER BY event_time DESC LIMIT ${POSSIBLE_ROWS}`,
    ].join('\n'),
    params: { identifiers: [...identifiers], patterns: needlePatterns([], raw) },
    types: { identifiers: ['STRING'], patterns: ['STRING'] },
    possible: [...raw],
  };
}

/**
 * The paths (`$.event_data.form.contact`, `$.event_data.items[0].note`) of the fields of
 * `eventData` whose value is one of the raw texts as a whole (an e-mail in any case, a phone as
 * written, as digits or +digits), as `needlePatterns` finds them in SQL.
 */
export function possibleFields(eventData: unknown, raw: readonly string[]): string[] {
  const patterns = needlePatterns([], raw).map((p) =>
    p.startsWith('(?i)') ? new RegExp(p.slice(4), 'i') : new RegExp(p),
  );
  let data = eventData;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data) as unknown;
    } catch {
      return [];
    }
  }
  const out: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v))
        walk(x, /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
    else if ((typeof v === 'string' || typeof v === 'number') && patterns.some((p) => p.test(String(v))))
      out.push(path);
  };
  walk(data, '$.event_data');
  return out;
}

/**
 * The queries of an access request. `identifiers` are the person's, in the identity graph's form;
 * `raw` the texts `rawNeedles` gives. Each query is one SELECT of the table's own rows: `events`
 * whose identifiers are the person's, `deliveries` and `hook_failures` of those events,
 * `invalid_events` whose payload holds one of the person's values (quoted, as a JSON string),
 * and with the identity graph the person's `sessions`, `identity_map` and `identity_merges` rows.
 */
export function exportPersonQueries(
  options: ExportOptions,
  identifiers: readonly string[],
  raw: readonly string[],
): ExportQuery[] {
  const ref = (t: string) => tableRef(options.project, options.dataset, t);
  const params = { identifiers: [...identifiers], raw: [...raw] };
  const types = { identifiers: ['STRING'], raw: ['STRING'] };
  const map = ref(SESSION_TABLES.identityMap);
  const merges = ref(SESSION_TABLES.identityMerges);
  const withIds = personIdsSql(options.project, options.dataset, options.identityGraph);
  const eventsMatch = IDENTIFIER_KINDS.map(
    (k) => `${EVENT_IDENTIFIER[k]} IN (SELECT identifier FROM ids)`,
  ).join('\n   OR ');
  const personEvents = [
    `${withIds},`,
    `person_events AS (SELECT event_id, payload_digest FROM ${ref(TABLES.events)} WHERE ${eventsMatch})`,
  ].join('\n');
  const ofPersonEvents = (table: string) =>
    [
      personEvents,
      `SELECT * FROM ${ref(table)} AS t`,
      'WHERE EXISTS (SELECT 1 FROM person_events AS p WHERE p.event_id = t.event_id',
      '  AND (t.payload_digest IS NULL OR t.payload_digest = p.payload_digest))',
    ].join('\n');
  const named = (table: string) => `${options.dataset}.${table}`;
  const queries: ExportQuery[] = [
    {
      table: named(TABLES.events),
      sql: `${withIds}\nSELECT * FROM ${ref(TABLES.events)}\nWHERE ${eventsMatch}`,
      params,
      types,
    },
    {
      table: named(TABLES.invalidEvents),
      sql: [
        `${withIds},`,
        'needles AS (',
        "  SELECT LOWER(SUBSTR(identifier, STRPOS(identifier, ':') + 1)) AS needle FROM ids",
        '  UNION DISTINCT',
        '  SELECT LOWER(r) FROM UNNEST(@raw) AS r',
        ')',
        `SELECT * FROM ${ref(TABLES.invalidEvents)} AS t`,
        "WHERE EXISTS (SELECT 1 FROM needles AS n WHERE STRPOS(LOWER(t.payload), CONCAT('\"', n.needle, '\"')) > 0)",
      ].join('\n'),
      params,
      types,
    },
    { table: named(TABLES.deliveries), sql: ofPersonEvents(TABLES.deliveries), params, types },
    { table: named(TABLES.hookFailures), sql: ofPersonEvents(TABLES.hookFailures), params, types },
  ];
  const possible = possibleQuery(options, identifiers, raw, withIds, eventsMatch);
  if (possible) queries.splice(1, 0, possible);
  const patterns = { patterns: needlePatterns(identifiers, raw) };
  const holding = (dataset: string, table: string): ExportQuery => ({
    table: `${dataset}.${table}`,
    sql: `SELECT * FROM ${tableRef(options.project, dataset, table)} AS t WHERE ${matchesJson('TO_JSON_STRING(t)')}`,
    params: patterns,
    types: { patterns: ['STRING'] },
  });
  if (options.actionRuns) queries.push(holding(options.dataset, TABLES.actionRuns));
  if (options.ops)
    queries.push(
      holding(options.ops, OPS_TABLES.gatewayRefusals),
      holding(options.ops, OPS_TABLES.syncFailedRows),
    );
  if (!options.identityGraph) return queries;
  const visitors = [
    "SELECT SUBSTR(identifier, STRPOS(identifier, ':') + 1) FROM ids",
    "WHERE STARTS_WITH(identifier, 'anonymous_id:') OR STARTS_WITH(identifier, 'user_id:')",
  ].join(' ');
  return [
    ...queries,
    {
      table: named(SESSION_TABLES.sessions),
      sql: `${withIds}\nSELECT * FROM ${ref(SESSION_TABLES.sessions)}\nWHERE visitor_id IN (${visitors}) OR user_id IN (${visitors})`,
      params,
      types,
    },
    {
      table: named(SESSION_TABLES.identityMap),
      sql: `${withIds}\nSELECT * FROM ${map}\nWHERE person_id IN (SELECT person_id FROM person) OR identifier IN (SELECT identifier FROM ids)`,
      params,
      types,
    },
    {
      table: named(SESSION_TABLES.identityMerges),
      sql: `${withIds}\nSELECT * FROM ${merges}\nWHERE current_person_id IN (SELECT person_id FROM person) OR old_person_id IN (SELECT person_id FROM person)`,
      params,
      types,
    },
  ];
}

/**
 * One line of the export: the table and one of its rows, as JSON. A "possible" row (a custom
 * field holds the person's e-mail or phone) says so, with the fields' paths.
 */
export function exportLine(q: Pick<ExportQuery, 'table' | 'possible'>, row: unknown): string {
  if (!q.possible) return JSON.stringify({ table: q.table, row });
  const data =
    row !== null && typeof row === 'object' ? (row as Record<string, unknown>)['event_data'] : undefined;
  return JSON.stringify({
    table: q.table.replace(/ \(possible\)$/, ''),
    match: 'possible',
    fields: possibleFields(data, q.possible),
    row,
  });
}

/** An access request's audit row (the ops table `exports`, core/warehouse/privacy-audit.ts). */
export interface ExportRecord {
  readonly export_id: string;
  readonly requested_at: string;
  readonly requested_by: string;
  /** The person's identifiers as given, in the identity graph's form (kept only as hashes). */
  readonly identifiers: readonly string[];
  /** Rows exported, by table (`<dataset>.<table>`). */
  readonly rows: Readonly<Record<string, number>>;
}

/** A new access request's id, shaped like an erasure's: `ex-<yyyymmdd>-<8 hex>`. */
export const newExportId = (now: Date): string =>
  `ex-${now.toISOString().slice(0, 10).replaceAll('-', '')}-${randomUUID().slice(0, 8)}`;

/**
 * The audit row's INSERT (a DML query job) into `table`, the quoted `exports` table. The hashes
 * are `erasureHash`'s (SHA-256 of each `kind:value`; person ids are not kept), computed here with
 * the same function because core/privacy/erasure.ts imports this file. They travel as one
 * comma-separated STRING: no parameter is an array, so a client that passes no parameter types
 * (the studio's) sends the statement as is, even for a person named by person ids alone.
 */
export function exportAuditSql(
  table: string,
  record: ExportRecord,
): { readonly sql: string; readonly params: Record<string, string> } {
  const hashes = [...new Set(record.identifiers.filter((i) => i.includes(':')).map(sha256))].sort();
  return {
    sql: [
      `INSERT INTO ${table} (export_id, requested_at, requested_by, identifier_hashes, \`rows\`)`,
      'SELECT @export_id, TIMESTAMP(@requested_at), @requested_by,',
      "  ARRAY(SELECT h FROM UNNEST(SPLIT(@hashes, ',')) AS h WHERE h != ''), @rows",
    ].join('\n'),
    params: {
      export_id: record.export_id,
      requested_at: record.requested_at,
      requested_by: record.requested_by,
      hashes: hashes.join(','),
      rows: JSON.stringify(record.rows),
    },
  };
}
