/**
 * The SQL of a sync run (docs/syncs.md, "How a run works" and "What a sync keeps"), pure: the
 * per-sync tables of the ops dataset, the plan that diffs the model against the sync's state
 * inside BigQuery, the dry run's read-only form of it, the commit of a sent page and the end of
 * a run.
 *
 * The state and the snapshot never hold a row's values: a row is named by the SHA-256 of its key's
 * JSON (`__key`) and its content by the SHA-256 of the row's JSON (`__hash`). Beside them the
 * state keeps, per row, only what the row's deletion will need (`keptForm`): nothing outside
 * mirror mode; in mirror mode the key itself for a webhook or files (what their deletions carry),
 * or the identifiers an audience was sent, hashed as it was sent (core/syncs/audience-members.ts),
 * or an audience member's key and consent, which its exit event carries (audience-events.ts).
 * The model's rows are in the changes table only while a run sends them: a finished run empties
 * it, and the table expires a week after its plan if a run is never finished.
 *
 * State tables an earlier version wrote (the key and the whole row, as JSON) are converted by the
 * next plan, in place and without sending anything (`upgradeStatement`, the `restate` changes).
 */
import type { SyncSpec } from '../../schemas/sync.ts';
import { modelSource } from './syncs.ts';

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

/**
 * What the state keeps of a sent row besides its key's and its content's digests (its `__row`):
 * `nothing` unless deletions are sent (mirror); the key's JSON for a webhook or files, whose
 * deletions name the key; an audience member's identifiers as they were sent (hashed).
 */
export type KeptForm = 'nothing' | 'key' | 'identifiers';

export function keptForm(spec: SyncSpec): KeptForm {
  if (spec.mode !== 'mirror') return 'nothing';
  const d = spec.destination;
  return 'meta_audience' in d || 'google_ads_audience' in d || 'audience' in d ? 'identifiers' : 'key';
}

const digest = (sql: string) => `TO_HEX(SHA256(${sql}))`;
const NULL_TEXT = 'CAST(NULL AS STRING)';
/** A key written by an earlier version is the key's JSON (an object); a digest is 64 hex digits. */
const LEGACY_KEY = "STARTS_WITH(__key, '{')";
/** In an audience's state, a kept member is a JSON list; an earlier version kept the row (an object). */
const LEGACY_ROW = "STARTS_WITH(st.__row, '{')";

/**
 * Converts state rows an earlier version wrote (key and row as JSON) to what this one keeps: the
 * key's digest, and the key itself only where deletions need it. An audience's rows keep their
 * old row until a run restates them (their identifiers must be hashed by the platform's code, in
 * the function); a sync no longer in mirror mode drops what it kept. Idempotent: a no-op once done.
 */
export function upgradeStatement(spec: SyncSpec, state: string): string {
  const key = `__key = IF(${LEGACY_KEY}, ${digest('__key')}, __key)`;
  const form = keptForm(spec);
  if (form === 'nothing')
    return `UPDATE ${state} SET ${key}, __row = NULL WHERE ${LEGACY_KEY} OR __row IS NOT NULL`;
  if (form === 'key') return `UPDATE ${state} SET ${key}, __row = __key WHERE ${LEGACY_KEY}`;
  return `UPDATE ${state} SET ${key} WHERE ${LEGACY_KEY}`;
}

/** The state as this version reads it, whether or not `upgradeStatement` ran (the dry run writes nothing). */
function stateSelect(spec: SyncSpec, state: string): string {
  const form = keptForm(spec);
  const row = form === 'nothing' ? NULL_TEXT : form === 'key' ? `IF(${LEGACY_KEY}, __key, __row)` : '__row';
  return `SELECT IF(${LEGACY_KEY}, ${digest('__key')}, __key) AS __key, __hash, ${row} AS __row FROM ${state}`;
}

/**
 * The model's rows with their key's JSON (`__pk`) and digest (`__key`), their JSON and its digest
 * (and cursor value), past the cursor's mark. Only ever a temporary table or a subquery.
 */
function modelRows(spec: SyncSpec, cursorTable: string): string {
  const pk = `TO_JSON_STRING(STRUCT(${spec.primary_key.map((k) => `m.${k}`).join(', ')}))`;
  const columns = `${pk} AS __pk, ${digest(pk)} AS __key, TO_JSON_STRING(m) AS __row, ${digest('TO_JSON_STRING(m)')} AS __hash`;
  const source = modelSource(spec.model);
  const c = spec.cursor;
  return c
    ? `SELECT ${columns}, m.${c} AS __cursor FROM ${source} m CROSS JOIN ${cursorTable} cur WHERE cur.value IS NULL OR m.${c} > cur.value`
    : `SELECT ${columns} FROM ${source} m`;
}

/**
 * The rows to send for the mode, numbered (`__n, __key, __pk, __hash, __row, __kept, __op`):
 * new or changed upserts with the model's row; in mirror mode the deletions, each with what the
 * state kept (a webhook's or files' key as `__pk`, an audience member's identifiers as `__kept`,
 * or an earlier version's whole row as `__row`); and for an audience the `restate`s: unchanged
 * rows an earlier version kept whole, whose identifiers the run computes and keeps, sending nothing.
 */
function changesSelect(spec: SyncSpec, model: string, state: string): string {
  const changed =
    spec.mode === 'insert'
      ? 'st.__key IS NULL'
      : spec.mode === 'full'
        ? 'TRUE'
        : 'st.__key IS NULL OR st.__hash != m.__hash';
  const form = keptForm(spec);
  // An audience member that changed brings what the state kept of it (its key and the consent it
  // entered with): a withdrawn purpose makes it an exit where that consent had let it in.
  const keptBefore =
    form === 'identifiers' && 'audience' in spec.destination
      ? `IF(st.__key IS NULL OR ${LEGACY_ROW}, ${NULL_TEXT}, st.__row)`
      : NULL_TEXT;
  const parts = [
    `SELECT m.__key, m.__pk, m.__hash, m.__row, ${keptBefore} AS __kept, 'upsert' AS __op FROM ${model} m LEFT JOIN ${state} st ON st.__key = m.__key WHERE ${changed}`,
  ];
  if (spec.mode === 'mirror') {
    const [pk, row, kept] =
      form === 'key'
        ? ['st.__row', NULL_TEXT, NULL_TEXT]
        : [NULL_TEXT, `IF(${LEGACY_ROW}, st.__row, NULL)`, `IF(${LEGACY_ROW}, NULL, st.__row)`];
    parts.push(
      `SELECT st.__key, ${pk}, ${NULL_TEXT}, ${row}, ${kept}, 'delete' FROM ${state} st LEFT JOIN ${model} m ON m.__key = st.__key WHERE m.__key IS NULL`,
    );
  }
  if (form === 'identifiers')
    parts.push(
      `SELECT m.__key, m.__pk, m.__hash, m.__row, ${NULL_TEXT}, 'restate' FROM ${model} m JOIN ${state} st ON st.__key = m.__key WHERE st.__hash = m.__hash AND ${LEGACY_ROW}`,
    );
  return `SELECT ROW_NUMBER() OVER (ORDER BY __op, __key) AS __n, __key, __pk, __hash, __row, __kept, __op FROM (${parts.join(' UNION ALL ')})`;
}

/** How long a changes table outlives its plan when no run finishes it. */
const CHANGES_EXPIRE = 'TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 7 DAY)';

/**
 * The statements of a run's planning chunk, in order; the last one counts the changes (and, with
 * a cursor, says from where to where the run reads). With a `cursor` column the snapshot holds only
 * the model's rows past the high-water mark of the last clean run (`sync_cursor__<name>`, one row,
 * NULL before the first), so an incremental model is read cheaply; the diff against the state still
 * decides what is sent. The model is read once, into a temporary table of the script (gone when it
 * ends), from which the snapshot (digests) and the changes are made.
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
    [
      upgradeStatement(spec, t.state),
      `CREATE TEMP TABLE sync_model AS ${modelRows(spec, t.cursor)}`,
      `CREATE OR REPLACE TABLE ${t.snapshot} AS SELECT __key, __hash${c ? ', __cursor' : ''} FROM sync_model`,
      `CREATE OR REPLACE TABLE ${t.changes} OPTIONS (expiration_timestamp = ${CHANGES_EXPIRE}) AS ${changesSelect(spec, 'sync_model', `(${stateSelect(spec, t.state)})`)}`,
    ].join(';\n'),
    `SELECT COUNT(*) AS planned, COUNTIF(__op = 'delete') AS removals${window} FROM ${t.changes}`,
  ];
}

/**
 * A dry run's two queries (`eventbus sync run --dry-run`): the counts a run would plan, and its
 * first `limit` changes, computed as a run computes them but in one read-only query each (no
 * table written); a state or cursor table that does not exist yet counts as empty, and a state an
 * earlier version wrote is read as the run would convert it. Restates are not counted: nothing is
 * sent for them.
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
    ? `(${stateSelect(spec, t.state)})`
    : `(SELECT ${NULL_TEXT} AS __key, ${NULL_TEXT} AS __hash, ${NULL_TEXT} AS __row LIMIT 0)`;
  const cursor = exists.cursor ? t.cursor : '(SELECT NULL AS value)';
  const withs = `WITH __model AS (${modelRows(spec, cursor)}), __changes AS (${changesSelect(spec, '__model', state)})`;
  const window = spec.cursor
    ? `, (SELECT CAST(value AS STRING) FROM ${cursor}) AS cursor_from, (SELECT CAST(MAX(__cursor) AS STRING) FROM __model) AS cursor_to`
    : '';
  return {
    counts: `${withs} SELECT COUNTIF(__op != 'restate') AS planned, COUNTIF(__op = 'delete') AS removals${window} FROM __changes`,
    first: `${withs} SELECT __n, __key, __pk, __hash, __row, __kept, __op FROM __changes WHERE __op != 'restate' ORDER BY __n LIMIT ${Math.max(1, Math.floor(limit))}`,
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

/** Characters of kept identifiers one commit statement carries (BigQuery takes 1,024K of query text). */
export const COMMIT_TEXT_BUDGET = 400_000;

/**
 * The state commit of one sent page: the changes numbered `ns` take their hash and what the state
 * keeps of them (`keptForm`), or leave the state when deleted. Numbers are integers the run read
 * back; an audience's kept identifiers (`kept`, by number: what the function computed with the
 * platform's code) are string literals of printable ASCII, split over as many statements as their
 * size needs.
 */
export function commitStatements(
  spec: SyncSpec,
  ops: string,
  name: string,
  ns: readonly number[],
  kept: ReadonlyMap<number, string> = new Map(),
): string[] {
  const list = ns.filter((n) => Number.isSafeInteger(n));
  const form = keptForm(spec);
  const groups: number[][] = [[]];
  let size = 0;
  for (const n of list) {
    const text = form === 'identifiers' ? (kept.get(n)?.length ?? 0) : 0;
    const group = groups.at(-1) as number[];
    if (group.length > 0 && size + text > COMMIT_TEXT_BUDGET) {
      groups.push([n]);
      size = text;
    } else {
      group.push(n);
      size += text;
    }
  }
  const t = syncTables(ops, name);
  return groups.map((g) => {
    const literals =
      form === 'identifiers'
        ? g.flatMap((n) => {
            const k = kept.get(n);
            return k === undefined ? [] : [`STRUCT(${n} AS n, ${jsonLiteral(k)} AS kept)`];
          })
        : [];
    const value = form === 'key' ? 'c.__pk' : literals.length > 0 ? 'k.kept' : NULL_TEXT;
    const join = literals.length > 0 ? ` LEFT JOIN UNNEST([${literals.join(', ')}]) k ON k.n = c.__n` : '';
    return `MERGE ${t.state} t USING (SELECT c.__key, c.__hash, c.__op, ${value} AS __kept FROM ${t.changes} c${join} WHERE c.__n IN (${g.join(', ') || 'NULL'})) u ON t.__key = u.__key WHEN MATCHED AND u.__op = 'delete' THEN DELETE WHEN MATCHED THEN UPDATE SET __hash = u.__hash, __row = u.__kept, synced_at = CURRENT_TIMESTAMP() WHEN NOT MATCHED AND u.__op != 'delete' THEN INSERT (__key, __hash, __row, synced_at) VALUES (u.__key, u.__hash, u.__kept, CURRENT_TIMESTAMP())`;
  });
}

/**
 * The commit of a page an earlier version planned (its changes name the key and carry the row, a
 * run under way when the function was upgraded), as that version committed it; the next plan
 * converts the state rows it writes (`upgradeStatement`).
 */
export function legacyCommitStatement(ops: string, name: string, ns: readonly number[]): string {
  const list = ns.filter((n) => Number.isSafeInteger(n)).join(', ') || 'NULL';
  const t = syncTables(ops, name);
  return `MERGE ${t.state} t USING (SELECT c.__key, s.__hash, c.__row, c.__op FROM ${t.changes} c LEFT JOIN ${t.snapshot} s ON s.__key = c.__key WHERE c.__n IN (${list})) u ON t.__key = u.__key WHEN MATCHED AND u.__op = 'delete' THEN DELETE WHEN MATCHED THEN UPDATE SET __hash = u.__hash, __row = u.__row, synced_at = CURRENT_TIMESTAMP() WHEN NOT MATCHED AND u.__op = 'upsert' THEN INSERT (__key, __hash, __row, synced_at) VALUES (u.__key, u.__hash, u.__row, CURRENT_TIMESTAMP())`;
}

/** The end of a run: the changes table (the only one that held the model's rows) is emptied. */
export function clearChangesStatement(ops: string, name: string): string {
  return `TRUNCATE TABLE ${syncTables(ops, name).changes}`;
}

/**
 * A JSON text as a BigQuery string literal of printable ASCII: other characters become JSON's own
 * `\uXXXX` escapes (they only occur inside JSON strings), then backslashes and quotes are escaped
 * for SQL. Reading the literal gives back JSON that parses to the same value.
 */
export function jsonLiteral(json: string): string {
  const ascii = json.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `'${ascii.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
