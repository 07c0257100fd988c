/**
 * Alerts (docs/alerts.md), the pure part: checking an Alert's spec, the SQL each kind of
 * condition runs over the warehouse (one row, named parameters), what that row means, the
 * incident state machine that fires once per incident and resolves once, and the messages sent.
 *
 * An incident opens at the first evaluation whose condition holds and resolves only after
 * `clear_after` clear evaluations in a row (default 2), so a value hovering at the threshold
 * does not fire and resolve at every evaluation.
 */

import { type AlertCondition, AlertSpec } from '../../schemas/alert.ts';
import type { Connection } from '../../schemas/settings.ts';
import { connectionProblem, specChecker } from '../references/connections.ts';
import { chatLiteral } from '../rules/rules.ts';
import { durationMs, scheduleProblem } from '../scheduler/cadence.ts';
import type { FieldViolation } from '../validation.ts';

export const ALERT_KIND = 'Alert';

export interface AlertVersion {
  readonly name: string;
  readonly version: string;
  readonly spec: AlertSpec;
}

/** A window shorter than this says little; longer than a week, the volume comparison is the tool. */
export const MIN_WINDOW_MS = 10_000;
export const MAX_WINDOW_MS = 7 * 86_400_000;
export const DEFAULT_CLEAR_AFTER = 2;
export const DEFAULT_MIN_ATTEMPTS = 10;
export const DEFAULT_MIN_EVENTS = 20;

/** The ledger statuses a failure rate counts as failed (skipped rows are not attempts). */
export const FAILED_STATUSES = ['rejected', 'failed', 'dead_lettered'] as const;

/**
 * The violations of an Alert's spec (`prefix` names it), given the settings' connections and, when
 * the caller knows them, the ids of the settings' destinations: a failure rate of a destination
 * that does not exist would count no attempts and never fire, so it is refused.
 */
export function alertViolations(
  spec: unknown,
  prefix: string,
  connections: readonly Connection[] | undefined,
  destinations?: readonly string[],
): FieldViolation[] {
  const out = specViolations(spec, prefix, connections);
  const c = (spec as AlertSpec).condition;
  if (out.length > 0 || destinations === undefined || !('failure_rate' in c)) return out;
  const id = c.failure_rate.destination;
  if (!destinations.includes(id))
    out.push({
      field: `${prefix}.condition.failure_rate.destination`,
      description: `unknown destination "${id}" (settings: ${destinations.join(', ') || 'none'})`,
    });
  return out;
}

const specViolations = specChecker<AlertSpec>(AlertSpec, (s, prefix, connections, out) => {
  const why = scheduleProblem(s.schedule);
  if (why) out.push({ field: `${prefix}.schedule`, description: why });
  const bad = notifyProblem(connections, s.notify.connection);
  if (bad) out.push({ field: `${prefix}.notify.connection`, description: bad });
  const c = s.condition;
  const windowed: [string, string] | undefined =
    'failure_rate' in c
      ? ['failure_rate.window', c.failure_rate.window]
      : 'source_quiet' in c
        ? ['source_quiet.for', c.source_quiet.for]
        : 'invalid_share' in c
          ? ['invalid_share.window', c.invalid_share.window]
          : 'erasure_failures' in c
            ? ['erasure_failures.window', c.erasure_failures.window]
            : undefined;
  if (windowed) {
    const ms = durationMs(windowed[1]);
    if (ms === undefined || ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS)
      out.push({
        field: `${prefix}.condition.${windowed[0]}`,
        description: 'must be a duration from 10s to 7d (`30s`, `15m`, `1h`)',
      });
  }
  if (
    'volume_change' in c &&
    c.volume_change.drop_above === undefined &&
    c.volume_change.rise_above === undefined
  )
    out.push({
      field: `${prefix}.condition.volume_change`,
      description: 'needs drop_above, rise_above or both',
    });
});

/** Alerts notify a chat or a webhook connection. */
function notifyProblem(connections: readonly Connection[] | undefined, id: string): string | undefined {
  const c = (connections ?? []).find((x) => x.id === id);
  if (c?.type === 'chat') return undefined;
  const bad = connectionProblem(connections, id, 'webhook');
  return bad && c ? `"${id}" is a ${c.type} connection, not chat or webhook` : bad;
}

/** The quoted tables a condition reads. */
export interface AlertTables {
  readonly events: string;
  readonly invalidEvents: string;
  readonly deliveries: string;
  /** The ops dataset's erasure audit (core/warehouse/privacy-audit.ts). */
  readonly erasures: string;
}

/** How long before a window an erasure it sees completing may have been requested (partition pruning). */
const ERASURE_SPAN_DAYS = 7;

/** One condition's query: a single SELECT answering one row, and its named parameters. */
export interface AlertQuery {
  readonly sql: string;
  readonly params: Readonly<Record<string, string>>;
}

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Stored events received in [@since, @until), pruned on event_time a day further back. */
const receivedIn = (since: string, until: string) =>
  `event_time >= TIMESTAMP_SUB(TIMESTAMP(@${since}), INTERVAL 1 DAY) AND received_at >= TIMESTAMP(@${since}) AND received_at < TIMESTAMP(@${until})`;

/**
 * The SQL of a condition evaluated at `now` (the run's slot: a re-run of the slot reads the same
 * window). Values are parameters, never spliced into the text.
 */
export function alertQuery(c: AlertCondition, now: Date, t: AlertTables): AlertQuery {
  const until = now.getTime();
  const windowOf = (d: string) => iso(until - (durationMs(d) ?? 0));
  if ('failure_rate' in c) {
    const f = c.failure_rate;
    return {
      sql: [
        `SELECT COUNTIF(status IN (${FAILED_STATUSES.map((s) => `'${s}'`).join(', ')})) AS failed, COUNT(*) AS attempted`,
        `FROM ${t.deliveries}`,
        "WHERE destination = @destination AND status NOT IN ('skipped', 'folded')",
        '  AND recorded_at >= TIMESTAMP(@since) AND recorded_at < TIMESTAMP(@until)',
      ].join('\n'),
      params: { destination: f.destination, since: windowOf(f.window), until: iso(until) },
    };
  }
  if ('source_quiet' in c) {
    const q = c.source_quiet;
    const params: Record<string, string> = { since: windowOf(q.for), until: iso(until) };
    const where = [receivedIn('since', 'until')];
    if (q.source !== undefined) {
      where.push('source = @source');
      params['source'] = q.source;
    }
    if (q.event_name !== undefined) {
      where.push('event_name = @event_name');
      params['event_name'] = q.event_name;
    }
    return {
      sql: ['SELECT COUNT(*) AS received', `FROM ${t.events}`, `WHERE ${where.join('\n  AND ')}`].join('\n'),
      params,
    };
  }
  if ('volume_change' in c) {
    const v = c.volume_change;
    const params: Record<string, string> = {
      since: iso(until - HOUR_MS),
      until: iso(until),
      before_since: iso(until - HOUR_MS - WEEK_MS),
      before_until: iso(until - WEEK_MS),
    };
    const named = v.event_name === undefined ? '' : '\n  AND event_name = @event_name';
    if (v.event_name !== undefined) params['event_name'] = v.event_name;
    return {
      sql: [
        'SELECT COUNTIF(received_at >= TIMESTAMP(@since)) AS current, COUNTIF(received_at < TIMESTAMP(@before_until)) AS baseline',
        `FROM ${t.events}`,
        `WHERE ((${receivedIn('since', 'until')})\n  OR (${receivedIn('before_since', 'before_until')}))${named}`,
      ].join('\n'),
      params,
    };
  }
  if ('erasure_failures' in c) {
    // An erasure ends complete_with_failures after its platform retries (about 45 minutes) and
    // any streaming-buffer wait: days at most, so its request's partition is within a week.
    return {
      sql: [
        'SELECT COUNT(DISTINCT erasure_id) AS failed',
        `FROM ${t.erasures}`,
        `WHERE requested_at >= TIMESTAMP_SUB(TIMESTAMP(@since), INTERVAL ${ERASURE_SPAN_DAYS} DAY)`,
        "  AND status = 'complete_with_failures'",
        '  AND completed_at >= TIMESTAMP(@since) AND completed_at < TIMESTAMP(@until)',
      ].join('\n'),
      params: { since: windowOf(c.erasure_failures.window), until: iso(until) },
    };
  }
  const s = c.invalid_share;
  return {
    sql: [
      'SELECT i.invalid, s.stored FROM',
      `  (SELECT COUNT(*) AS invalid FROM ${t.invalidEvents} WHERE received_at >= TIMESTAMP(@since) AND received_at < TIMESTAMP(@until)) AS i`,
      `CROSS JOIN (SELECT COUNT(*) AS stored FROM ${t.events} WHERE ${receivedIn('since', 'until')}) AS s`,
    ].join('\n'),
    params: { since: windowOf(s.window), until: iso(until) },
  };
}

/** What one evaluation found: whether the condition holds, its figure, and a sentence saying so. */
export interface AlertReading {
  readonly breached: boolean;
  /** The share or count compared, null when too few rows to say. */
  readonly value: number | null;
  readonly summary: string;
}

const n = (row: Readonly<Record<string, unknown>>, k: string): number => Number(row[k] ?? 0) || 0;
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** Reads the row `alertQuery` answered. */
export function alertReading(c: AlertCondition, row: Readonly<Record<string, unknown>>): AlertReading {
  if ('failure_rate' in c) {
    const f = c.failure_rate;
    const failed = n(row, 'failed');
    const attempted = n(row, 'attempted');
    const min = f.min_attempts ?? DEFAULT_MIN_ATTEMPTS;
    const rate = attempted > 0 ? failed / attempted : 0;
    const figure = `${f.destination} failed ${failed} of ${attempted} attempts (${pct(rate)}) in the last ${f.window}`;
    if (attempted < min)
      return { breached: false, value: null, summary: `${figure}: fewer than ${min}, not judged` };
    return { breached: rate > f.above, value: rate, summary: `${figure}; the threshold is ${pct(f.above)}` };
  }
  if ('source_quiet' in c) {
    const q = c.source_quiet;
    const received = n(row, 'received');
    const what = [q.event_name ?? 'events', q.source ? `from ${q.source}` : ''].filter(Boolean).join(' ');
    return {
      breached: received === 0,
      value: received,
      summary: `${received} ${what} received in the last ${q.for}`,
    };
  }
  if ('volume_change' in c) {
    const v = c.volume_change;
    const current = n(row, 'current');
    const baseline = n(row, 'baseline');
    const min = v.min_baseline ?? DEFAULT_MIN_EVENTS;
    const what = v.event_name ?? 'events';
    const figure = `${current} ${what} in the last hour against ${baseline} the same hour last week`;
    if (baseline < min)
      return { breached: false, value: null, summary: `${figure}: fewer than ${min}, not judged` };
    const change = (current - baseline) / baseline;
    const breached =
      (v.drop_above !== undefined && -change > v.drop_above) ||
      (v.rise_above !== undefined && change > v.rise_above);
    return { breached, value: change, summary: `${figure} (${change >= 0 ? '+' : ''}${pct(change)})` };
  }
  if ('erasure_failures' in c) {
    const failed = n(row, 'failed');
    return {
      breached: failed > 0,
      value: failed,
      summary: `${failed} erasure request(s) completed with a platform still holding the person in the last ${c.erasure_failures.window}: see erasure-status`,
    };
  }
  const s = c.invalid_share;
  const invalid = n(row, 'invalid');
  const total = invalid + n(row, 'stored');
  const min = s.min_events ?? DEFAULT_MIN_EVENTS;
  const share = total > 0 ? invalid / total : 0;
  const figure = `${invalid} of ${total} events invalid (${pct(share)}) in the last ${s.window}`;
  if (total < min)
    return { breached: false, value: null, summary: `${figure}: fewer than ${min}, not judged` };
  return { breached: share > s.above, value: share, summary: `${figure}; the threshold is ${pct(s.above)}` };
}

/** Where an alert stands between evaluations (the newest row of `alert_states`). */
export interface AlertState {
  readonly status: 'ok' | 'firing';
  /** The open incident (`<alert>@<slot it opened>`), or the last one once resolved. */
  readonly incident: string | null;
  /** Clear evaluations in a row while firing. */
  readonly clear_streak: number;
}

export const ALERT_OK: AlertState = Object.freeze({ status: 'ok', incident: null, clear_streak: 0 });

/** What to tell the alert's connection after an evaluation. */
export type AlertNotice = 'fired' | 'resolved' | null;

/**
 * The incident state machine: an ok alert whose condition holds fires (a new incident); a firing
 * one stays firing, without notifying again, until `clearAfter` evaluations in a row are clear,
 * then resolves once. A breach while clearing starts the count again.
 */
export function nextAlertState(
  prev: AlertState,
  breached: boolean,
  clearAfter: number,
  incidentId: string,
): { readonly state: AlertState; readonly notice: AlertNotice } {
  if (prev.status === 'ok')
    return breached
      ? { state: { status: 'firing', incident: incidentId, clear_streak: 0 }, notice: 'fired' }
      : { state: prev, notice: null };
  if (breached) return { state: { ...prev, clear_streak: 0 }, notice: null };
  const streak = prev.clear_streak + 1;
  if (streak < clearAfter) return { state: { ...prev, clear_streak: streak }, notice: null };
  return { state: { status: 'ok', incident: prev.incident, clear_streak: 0 }, notice: 'resolved' };
}

/** What an alert sends: `fired`, `resolved`, or `test` (the test-fire button and `alert test`). */
export type AlertMessageKind = Exclude<AlertNotice, null> | 'test';

export interface AlertMessage {
  readonly alert: string;
  readonly version: string;
  readonly status: AlertMessageKind;
  readonly incident: string | null;
  readonly value: number | null;
  readonly summary: string;
  readonly at: string;
}

const HEADLINE: Record<AlertMessageKind, string> = {
  fired: 'FIRING',
  resolved: 'RESOLVED',
  test: 'TEST (nothing is wrong: a test of this alert’s connection)',
};

/** The body sent: a chat connection gets `{text}`, a webhook the message as JSON. */
export function alertBody(type: 'chat' | 'webhook', m: AlertMessage): string {
  if (type === 'webhook') return JSON.stringify(m);
  // The summary holds names people chose (a source, an event name): escaped for chat markup.
  return JSON.stringify({
    text: `[eventbus alert] ${HEADLINE[m.status]} ${m.alert}: ${chatLiteral(m.summary)}`,
  });
}
