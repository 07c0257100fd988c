/**
 * Syncs (reverse ETL; docs/syncs.md), the pure part: checking a Sync's spec, the SQL that diffs a
 * model against the sync's last-sent state inside BigQuery, what a page of changes becomes for
 * each destination, and the names of the tables and files a run writes.
 *
 * A run: (1) snapshot the model into `eventbus_ops.sync_snap__<name>` with each row's key and a
 * hash of the row; (2) compute `sync_changes__<name>`: new and changed rows (and, in mirror mode,
 * deleted keys), numbered; (3) page the changes out with tabledata.list (no query cost per
 * page), sending each page and then MERGE-ing exactly those keys into `sync_state__<name>`. A run
 * with nothing changed sends nothing; a failed page is retried from the committed cursor and the
 * state never gets ahead of what was sent.
 */
import { createHash } from 'node:crypto';
import { eventNameProblem } from '../../schemas/catalogue.ts';
import type { Connection } from '../../schemas/settings.ts';
import { SyncSpec } from '../../schemas/sync.ts';
import type { StoredEvent } from '../event.ts';
import { applyMapping } from '../linkage/engine.ts';
import type { CustomerMatchTarget } from '../platforms/google-ads/audience.ts';
import { connectionProblem, specChecker } from '../references/connections.ts';
import { publishTopicProblem } from '../references/reserved-names.ts';
import { scheduleProblem } from '../scheduler/cadence.ts';

export interface SyncVersion {
  readonly name: string;
  readonly version: string;
  readonly spec: SyncSpec;
}

/** The violations of a Sync's spec (`prefix` names it), given the settings' connections. */
export const syncViolations = specChecker<SyncSpec>(SyncSpec, (s, prefix, connections, out) => {
  const why = scheduleProblem(s.schedule);
  if (why) out.push({ field: `${prefix}.schedule`, description: why });
  const d = s.destination;
  const named = connectionOf(d);
  const bad = named ? connectionProblem(connections, named.id, named.type) : undefined;
  if (bad && named) out.push({ field: `${prefix}.destination.${named.key}.connection`, description: bad });
  if (s.cursor !== undefined && s.mode === 'mirror')
    out.push({
      field: `${prefix}.cursor`,
      description:
        'mirror finds deletions by reading the whole model, which a cursor skips: drop one of them',
    });
  if ('topic' in d) {
    const bad = eventNameProblem(d.topic.event_name);
    if (bad) out.push({ field: `${prefix}.destination.topic.event_name`, description: bad });
    const internal = d.topic.topic === undefined ? undefined : publishTopicProblem(d.topic.topic);
    if (internal) out.push({ field: `${prefix}.destination.topic.topic`, description: internal });
  }
  if (s.mode === 'mirror' && 'topic' in d)
    out.push({
      field: `${prefix}.mode`,
      description: 'mirror sends deletions, which a topic destination cannot carry',
    });
});

/** The settings connection a destination names: its key in the spec, its id and the type it must be. */
function connectionOf(
  d: SyncSpec['destination'],
):
  | { key: string; id: string; type: 'webhook' | 'storage' | 'meta_audience' | 'google_ads_audience' }
  | undefined {
  if ('webhook' in d) return { key: 'webhook', id: d.webhook.connection, type: 'webhook' };
  if ('files' in d) return { key: 'files', id: d.files.connection, type: 'storage' };
  if ('meta_audience' in d)
    return { key: 'meta_audience', id: d.meta_audience.connection, type: 'meta_audience' };
  if ('google_ads_audience' in d)
    return { key: 'google_ads_audience', id: d.google_ads_audience.connection, type: 'google_ads_audience' };
  return undefined;
}

/** BigQuery table names of a sync (names are [a-z][a-z0-9_-]: `-` becomes `_`). */
export function syncTables(ops: string, name: string) {
  const n = name.replaceAll('-', '_');
  return {
    snapshot: `${ops}.sync_snap__${n}`,
    changes: `${ops}.sync_changes__${n}`,
    state: `${ops}.sync_state__${n}`,
    cursor: `${ops}.sync_cursor__${n}`,
    changesId: `sync_changes__${n}`,
  };
}

/** The model as a FROM item: a query in parentheses, or a table/view reference. */
export function modelSource(model: string): string {
  const m = model.trim().replace(/;\s*$/, '');
  return /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*){1,2}$/.test(m) ? `\`${m}\`` : `(${m})`;
}

/** The model as a plain SELECT (what the dry run checks). */
export const modelSelect = (model: string): string => `SELECT * FROM ${modelSource(model)}`;

/**
 * The statements of a run's planning chunk, in order; the last one counts the changes (and, with
 * a cursor, says from where to where the run reads). With a `cursor` column the snapshot holds only
 * the model's rows past the high-water mark of the last clean run (`sync_cursor__<name>`, one row,
 * NULL before the first), so an incremental model is read cheaply; the diff against the state still
 * decides what is sent.
 */
export function planStatements(spec: SyncSpec, ops: string, name: string): string[] {
  const t = syncTables(ops, name);
  const c = spec.cursor;
  const window = c
    ? `, (SELECT CAST(value AS STRING) FROM ${t.cursor}) AS cursor_from, (SELECT CAST(MAX(__cursor) AS STRING) FROM ${t.snapshot}) AS cursor_to`
    : '';
  return [
    `CREATE TABLE IF NOT EXISTS ${t.state} (__key STRING, __hash STRING, __row STRING, synced_at TIMESTAMP)`,
    // A typed NULL the first time (the cursor column's own type, read from the model).
    ...(c
      ? [
          `CREATE TABLE IF NOT EXISTS ${t.cursor} AS SELECT MAX(m.${c}) AS value FROM ${modelSource(spec.model)} m WHERE FALSE`,
        ]
      : []),
    `CREATE OR REPLACE TABLE ${t.snapshot} AS ${snapshotSelect(spec, t.cursor)}`,
    `CREATE OR REPLACE TABLE ${t.changes} AS ${changesSelect(spec, t.snapshot, t.state)}`,
    `SELECT COUNT(*) AS planned, COUNTIF(__op = 'delete') AS removals${window} FROM ${t.changes}`,
  ];
}

/** The model with each row's key, JSON and hash (and cursor value), past the cursor's mark. */
function snapshotSelect(spec: SyncSpec, cursorTable: string): string {
  const key = `TO_JSON_STRING(STRUCT(${spec.primary_key.map((k) => `m.${k}`).join(', ')}))`;
  const c = spec.cursor;
  const columns = `${key} AS __key, TO_JSON_STRING(m) AS __row, TO_HEX(SHA256(TO_JSON_STRING(m))) AS __hash`;
  const source = modelSource(spec.model);
  return c
    ? `SELECT ${columns}, m.${c} AS __cursor FROM ${source} m CROSS JOIN ${cursorTable} cur WHERE cur.value IS NULL OR m.${c} > cur.value`
    : `SELECT ${columns} FROM ${source} m`;
}

/** The rows to send for the mode, numbered: new or changed upserts, and mirror's deletions. */
function changesSelect(spec: SyncSpec, snapshot: string, state: string): string {
  const changed =
    spec.mode === 'insert'
      ? 'st.__key IS NULL'
      : spec.mode === 'full'
        ? 'TRUE'
        : 'st.__key IS NULL OR st.__hash != s.__hash';
  const deletes =
    spec.mode === 'mirror'
      ? ` UNION ALL SELECT st.__key, st.__row, 'delete' AS __op FROM ${state} st LEFT JOIN ${snapshot} s ON s.__key = st.__key WHERE s.__key IS NULL`
      : '';
  return `SELECT ROW_NUMBER() OVER (ORDER BY __op, __key) AS __n, __key, __row, __op FROM (SELECT s.__key, s.__row, 'upsert' AS __op FROM ${snapshot} s LEFT JOIN ${state} st ON st.__key = s.__key WHERE ${changed}${deletes})`;
}

/**
 * A dry run's two queries (`eventbus sync run --dry-run`): the counts a run would plan, and its
 * first `limit` changes, computed as a run computes them but in one read-only query each (no
 * table written); a state or cursor table that does not exist yet counts as empty.
 */
export function dryRunQueries(
  spec: SyncSpec,
  ops: string,
  name: string,
  exists: { readonly state: boolean; readonly cursor: boolean },
  limit: number,
): { readonly counts: string; readonly first: string } {
  const t = syncTables(ops, name);
  const state = exists.state
    ? t.state
    : '(SELECT CAST(NULL AS STRING) AS __key, CAST(NULL AS STRING) AS __hash, CAST(NULL AS STRING) AS __row LIMIT 0)';
  const cursor = exists.cursor ? t.cursor : '(SELECT NULL AS value)';
  const snapshot = snapshotSelect(spec, cursor);
  const changes = changesSelect(spec, '__snap', '__state');
  const withs = `WITH __snap AS (${snapshot}), __state AS (SELECT * FROM ${state}), __changes AS (${changes})`;
  const window = spec.cursor
    ? `, (SELECT CAST(value AS STRING) FROM ${cursor}) AS cursor_from, (SELECT CAST(MAX(__cursor) AS STRING) FROM __snap) AS cursor_to`
    : '';
  return {
    counts: `${withs} SELECT COUNT(*) AS planned, COUNTIF(__op = 'delete') AS removals${window} FROM __changes`,
    first: `${withs} SELECT __n, __key, __row, __op FROM __changes ORDER BY __n LIMIT ${Math.max(1, Math.floor(limit))}`,
  };
}

/**
 * Moves the cursor's high-water mark to the snapshot's highest value: only after a run that sent
 * every row it planned (a row that failed must be read again by the next run).
 */
export function cursorAdvanceStatement(ops: string, name: string): string {
  const t = syncTables(ops, name);
  return `UPDATE ${t.cursor} SET value = (SELECT MAX(__cursor) FROM ${t.snapshot}) WHERE EXISTS (SELECT 1 FROM ${t.snapshot})`;
}

/**
 * The state commit of one sent page: the changes numbered `ns` take their snapshot hash (or
 * leave the state when deleted). Numbers are integers the run read back: no user text in it.
 */
export function commitStatement(ops: string, name: string, ns: readonly number[]): string {
  const list = ns.filter((n) => Number.isSafeInteger(n)).join(', ') || 'NULL';
  const t = syncTables(ops, name);
  return `MERGE ${t.state} t USING (SELECT c.__key, s.__hash, c.__row, c.__op FROM ${t.changes} c LEFT JOIN ${t.snapshot} s ON s.__key = c.__key WHERE c.__n IN (${list})) u ON t.__key = u.__key WHEN MATCHED AND u.__op = 'delete' THEN DELETE WHEN MATCHED THEN UPDATE SET __hash = u.__hash, __row = u.__row, synced_at = CURRENT_TIMESTAMP() WHEN NOT MATCHED AND u.__op = 'upsert' THEN INSERT (__key, __hash, __row, synced_at) VALUES (u.__key, u.__hash, u.__row, CURRENT_TIMESTAMP())`;
}

/** One change as a destination receives it. */
export interface Change {
  readonly n: number;
  readonly op: 'upsert' | 'delete';
  readonly key: Readonly<Record<string, unknown>>;
  /** The row after `fields` (the mapping language), or the row as the model gave it. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** A page of the changes table (`__n`, `__key`, `__row`, `__op`) as changes, mapped. */
export function changesOf(spec: SyncSpec, rows: readonly Readonly<Record<string, unknown>>[]): Change[] {
  return rows
    .map((r) => {
      const row = JSON.parse(String(r['__row'])) as Record<string, unknown>;
      const data = spec.fields
        ? applyMapping({ event: '', fields: spec.fields }, rowEvent(row, '')).payload
        : row;
      return {
        n: Number(r['__n']),
        op: r['__op'] === 'delete' ? ('delete' as const) : ('upsert' as const),
        key: JSON.parse(String(r['__key'])) as Record<string, unknown>,
        data,
      };
    })
    .sort((a, b) => a.n - b.n);
}

/** A row seen through the mapping language: columns are event data, `user_id` a context field. */
function rowEvent(row: Record<string, unknown>, time: string): StoredEvent {
  const user = row['user_id'];
  return {
    event_name: 'sync_row',
    event_id: '',
    event_time: time,
    ...(typeof user === 'string' ? { user_id: user } : {}),
    event_data: row,
  };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Where a files destination writes part `n` (1-based) of a run, and its manifest. */
export function filePaths(name: string, slot: string, runKey: string, format: 'jsonl' | 'csv') {
  const dir = `syncs/${name}/dt=${slot.slice(0, 10)}/run-${digest(runKey).slice(0, 16)}`;
  return {
    part: (n: number) => `${dir}/part-${String(n).padStart(5, '0')}.${format}`,
    success: `${dir}/_SUCCESS`,
  };
}

/** A part file's body: JSON lines, or CSV with a header from the union of the columns. */
export function fileBody(changes: readonly Change[], format: 'jsonl' | 'csv'): string {
  const rows: Record<string, unknown>[] = changes.map((c) =>
    c.op === 'delete' ? { _op: 'delete', ...c.key } : { _op: 'upsert', ...c.data },
  );
  if (format === 'jsonl') return rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown): string => {
    if (v === undefined || v === null) return '';
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    // Quoted when it holds a separator, a quote or a line break. A cell a spreadsheet would read
    // as a formula (OWASP's list: = + - @, TAB and CR first) starts with ' instead.
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[",\r\n]/.test(safe) || safe !== s ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  return `${[columns.map(cell).join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\r\n')}\r\n`;
}

/** The events a topic destination publishes: deterministic ids (sync, key, slot), the slot as time. */
export function syncEvents(
  sync: SyncVersion,
  changes: readonly Change[],
  slot: string,
): { readonly body: Record<string, unknown>; readonly attributes: Record<string, string> }[] {
  const d = sync.spec.destination;
  if (!('topic' in d)) return [];
  return changes
    .filter((c) => c.op === 'upsert')
    .map((c) => {
      const user = c.data['user_id'];
      const { user_id: _, ...data } = c.data;
      return {
        body: {
          event_name: d.topic.event_name,
          event_id: digest(`Sync/${sync.name}\n${JSON.stringify(c.key)}\n${slot}`),
          event_time: slot,
          ...(typeof user === 'string' ? { user_id: user } : {}),
          ...data,
        },
        attributes: { origin: `Sync/${sync.name}`, hops: '1' },
      };
    });
}

/** What a webhook destination receives for one page. */
export function webhookBody(
  sync: SyncVersion,
  runKey: string,
  page: number,
  changes: readonly Change[],
): string {
  return JSON.stringify({
    sync: sync.name,
    version: sync.version,
    run_id: runKey,
    page,
    rows: changes.map((c) => ({ op: c.op, key: c.key, ...(c.op === 'upsert' ? { data: c.data } : {}) })),
  });
}

/** Where a google_ads_audience destination's list is, for the Customer Match requests. */
export function customerMatchTarget(
  d: Extract<SyncSpec['destination'], { google_ads_audience: unknown }>['google_ads_audience'],
  c: Readonly<Connection>,
): CustomerMatchTarget {
  return {
    ...(c.url ? { origin: c.url } : {}),
    operatingAccountId: d.operating_account_id,
    ...(d.login_account_id ? { loginAccountId: d.login_account_id } : {}),
    userListId: d.user_list_id,
    ...(d.terms_of_service === 'accepted' ? { termsAccepted: true } : {}),
  };
}

/** How a destination is named in `sync_runs`. */
export function destinationLabel(spec: SyncSpec): string {
  const d = spec.destination;
  if ('webhook' in d) return `webhook:${d.webhook.connection}`;
  if ('files' in d) return `files:${d.files.connection}`;
  if ('meta_audience' in d) return `meta_audience:${d.meta_audience.audience_id}`;
  if ('google_ads_audience' in d) return `google_ads_audience:${d.google_ads_audience.user_list_id}`;
  return `topic:${d.topic.topic ?? 'events'}`;
}

/**
 * What a webhook destination refused row by row: a 2xx answer may list rows it did not take,
 * `{"rejected": [{"key": {...}, "reason": "..."}]}` (by the key it was sent); those rows are not
 * committed and are retried by the next run. Anything else in the answer is ignored.
 */
export function webhookRejections(
  body: string,
  changes: readonly Change[],
): { readonly change: Change; readonly reason: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const list = (parsed as { rejected?: unknown } | null)?.rejected;
  if (!Array.isArray(list)) return [];
  // Keys compare whatever order the receiver wrote their columns in.
  const canon = (k: unknown) =>
    typeof k === 'object' && k !== null
      ? JSON.stringify(Object.entries(k).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : JSON.stringify(k);
  const byKey = new Map(changes.map((c) => [canon(c.key), c]));
  const out: { change: Change; reason: string }[] = [];
  for (const r of list) {
    const key = (r as { key?: unknown })?.key;
    const change = key === undefined ? undefined : byKey.get(canon(key));
    if (!change) continue;
    const reason = (r as { reason?: unknown }).reason;
    out.push({
      change,
      reason: typeof reason === 'string' ? reason.slice(0, 500) : 'rejected by the webhook',
    });
    byKey.delete(canon(key));
  }
  return out;
}
