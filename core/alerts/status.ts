/**
 * Where each alert stands, for the Alerts section of the studio's `/destinations` page
 * (docs/alerts.md#state-in-the-studio): firing, clear or never evaluated, and since when, read
 * from the ops table `alert_states` the scheduler writes one row per evaluation into.
 *
 * One aggregate per alert rather than its newest row: the incident state machine
 * (core/alerts/alerts.ts nextAlertState) moves from ok to firing only with a `fired` notice and back only
 * with a `resolved` one, so the later of the two says the state and when it began; before any
 * notice the alert has been clear since its first evaluation. Pure: SQL text and shaping.
 */

/** How far back the query reads (the table is partitioned on `recorded_at`): bounded bytes. */
export const ALERT_STATUS_DAYS = 35;

/** One row per alert: its first and last evaluation, its last fire and its last resolve. */
export function alertStatusSql(statesTable: string): string {
  return [
    'SELECT alert, MIN(evaluated_at) AS first_at, MAX(evaluated_at) AS last_at,',
    "  MAX(IF(notice = 'fired', evaluated_at, NULL)) AS fired_at,",
    "  MAX(IF(notice = 'resolved', evaluated_at, NULL)) AS resolved_at",
    `FROM ${statesTable}`,
    `WHERE recorded_at >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL ${ALERT_STATUS_DAYS} DAY)`,
    'GROUP BY alert',
  ].join('\n');
}

export interface AlertStatus {
  readonly alert: string;
  readonly state: 'firing' | 'clear' | 'never evaluated';
  /** When the state began (ISO), null when never evaluated. */
  readonly since: string | null;
  /** The newest evaluation (ISO), null when never evaluated. */
  readonly last_evaluated: string | null;
}

const iso = (v: unknown): string | null => {
  if (v === null || v === undefined || v === '') return null;
  const t = Date.parse(String(v));
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/** Each named alert's status from the query's rows (an alert without a row was never evaluated). */
export function shapeAlertStatus(
  names: readonly string[],
  rows: readonly Readonly<Record<string, unknown>>[],
): AlertStatus[] {
  const byName = new Map(rows.map((r) => [String(r['alert']), r]));
  return names.map((alert) => {
    const r = byName.get(alert);
    const last = iso(r?.['last_at']);
    if (!r || !last) return { alert, state: 'never evaluated', since: null, last_evaluated: null };
    const fired = iso(r['fired_at']);
    const resolved = iso(r['resolved_at']);
    if (fired && (!resolved || fired > resolved))
      return { alert, state: 'firing', since: fired, last_evaluated: last };
    return { alert, state: 'clear', since: resolved ?? iso(r['first_at']), last_evaluated: last };
  });
}
