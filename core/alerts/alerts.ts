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
import { CLAIM_HOLD_PREFIX } from '../claims/send-once.ts';
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
export const DEFAULT_PERCENTILE = 95;
/** The reconciliation alerts' default share: counted (or sent) below 95 % of accepted (or permitted). */
export const DEFAULT_RECONCILED_SHARE = 0.95;

/** The ledger statuses a failure rate counts as failed (skipped rows are not attempts). */
export const FAILED_STATUSES = ['rejected', 'failed', 'dead_lettered'] as const;

/** The destination a condition is about, when it is about one. */
function destinationOf(c: AlertCondition): [kind: string, id: string] | undefined {
  if ('failure_rate' in c) return ['failure_rate', c.failure_rate.destination];
  if ('latency' in c) return ['latency', c.latency.destination];
  if ('success_drop' in c) return ['success_drop', c.success_drop.destination];
  if ('counted_below' in c) return ['counted_below', c.counted_below.destination];
  if ('sent_below' in c) return ['sent_below', c.sent_below.destination];
  if ('went_quiet' in c) return ['went_quiet', c.went_quiet.destination];
  return undefined;
}

/**
 * The violations of an Alert's spec (`prefix` names it), given the settings' connections and, when
 * the caller knows them, the ids of the settings' destinations: a condition about a destination
 * that does not exist would count no rows and never fire, so it is refused.
 */
export function alertViolations(
  spec: unknown,
  prefix: string,
  connections: readonly Connection[] | undefined,
  destinations?: readonly string[],
): FieldViolation[] {
  const out = specViolations(spec, prefix, connections);
  if (out.length > 0 || destinations === undefined) return out;
  const named = destinationOf((spec as AlertSpec).condition);
  if (named && !destinations.includes(named[1]))
    out.push({
      field: `${prefix}.condition.${named[0]}.destination`,
      description: `unknown destination "${named[1]}" (settings: ${destinations.join(', ') || 'none'})`,
    });
  return out;
}

/** The windows of a condition, each with its field (under `condition.`). */
function windowsOf(c: AlertCondition): [field: string, duration: string][] {
  if ('failure_rate' in c) return [['failure_rate.window', c.failure_rate.window]];
  if ('source_quiet' in c) return [['source_quiet.for', c.source_quiet.for]];
  if ('invalid_share' in c) return [['invalid_share.window', c.invalid_share.window]];
  if ('erasure_failures' in c) return [['erasure_failures.window', c.erasure_failures.window]];
  if ('latency' in c) return [['latency.window', c.latency.window]];
  if ('success_drop' in c)
    return [
      ['success_drop.window', c.success_drop.window],
      ['success_drop.baseline', c.success_drop.baseline],
    ];
  return [];
}

const specViolations = specChecker<AlertSpec>(AlertSpec, (s, prefix, connections, out) => {
  const why = scheduleProblem(s.schedule);
  if (why) out.push({ field: `${prefix}.schedule`, description: why });
  const bad = notifyProblem(connections, s.notify.connection);
  if (bad) out.push({ field: `${prefix}.notify.connection`, description: bad });
  const c = s.condition;
  for (const [field, text] of windowsOf(c)) {
    const ms = durationMs(text);
    if (ms === undefined || ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS)
      out.push({
        field: `${prefix}.condition.${field}`,
        description: 'must be a duration from 10s to 7d (`30s`, `15m`, `1h`)',
      });
  }
  if ('latency' in c && latencyMs(c.latency.above) === undefined)
    out.push({
      field: `${prefix}.condition.latency.above`,
      description: 'must be a duration from 1ms to 7d (`500ms`, `2s`, `1m`)',
    });
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

const LATENCY_UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * A latency threshold in milliseconds (`500ms`, `2s`, `1.5s`, `1m`, `1h`), from 1 ms to 7 days;
 * undefined when it is not one. Finer than a window's duration: deliveries take seconds.
 */
export function latencyMs(text: string): number | undefined {
  const m = /^(\d{1,6}(?:\.\d{1,3})?)(ms|s|m|h)$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * LATENCY_UNIT_MS[m[2] as keyof typeof LATENCY_UNIT_MS];
  return ms >= 1 && ms <= MAX_WINDOW_MS ? ms : undefined;
}

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
  /**
   * The `reconciliation` view's rows of a day range, as a FROM item: its range form
   * (core/warehouse/reconciliation.ts), which reads only the range's partitions, its first and last
   * day the named parameters given.
   */
  readonly reconciliation: (range: { readonly from: string; readonly to: string }) => string;
}

/** How long before a window an erasure it sees completing may have been requested (partition pruning). */
const ERASURE_SPAN_DAYS = 7;

/** One condition's query: a single SELECT answering one row, and its named parameters. */
export interface AlertQuery {
  readonly sql: string;
  readonly params: Readonly<Record<string, string>>;
}

const HOUR_MS = 3_600_000;
/**
 * went_quiet leaves out events received in the last two minutes: the store push that stored one
 * may still be writing its skipped rows (a push lasts at most store's timeout, 60 s by default),
 * and an event not yet known to be skipped would count as waiting for a destination with nothing to send.
 */
export const QUIET_SETTLE_MS = 2 * 60_000;
const WEEK_MS = 7 * 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The days (UTC, YYYY-MM-DD) from `back` days before `until`'s day to that day, as parameters. */
const dayRange = (until: number, back: number) => ({
  from_day: iso(until - back * 86_400_000).slice(0, 10),
  to_day: iso(until).slice(0, 10),
});

/** The percentile a latency condition judges (50, 95 or 99). */
const percentileOf = (l: { readonly percentile?: 50 | 95 | 99 }): number =>
  l.percentile ?? DEFAULT_PERCENTILE;

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
        // Attempts our send-once claim held are not the destination's answer (send-once.ts).
        `  AND NOT STARTS_WITH(IFNULL(reason, ''), '${CLAIM_HOLD_PREFIX}')`,
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
  if ('latency' in c) {
    const l = c.latency;
    // The percentile is one of 50, 95 and 99 (the schema's literals): an integer offset into the
    // 101 boundaries APPROX_QUANTILES answers, which BigQuery wants as a constant expression.
    const offset = percentileOf(l);
    return {
      sql: [
        `SELECT COUNT(*) AS delivered, APPROX_QUANTILES(latency_ms, 100)[OFFSET(${offset})] AS latency_ms`,
        'FROM (',
        '  SELECT TIMESTAMP_DIFF(d.recorded_at, e.received_at, MILLISECOND) AS latency_ms',
        `  FROM ${t.deliveries} AS d`,
        // The first receipt of each stored event (a redelivered copy may be stored twice).
        '  JOIN (SELECT event_id, payload_digest, MIN(received_at) AS received_at',
        `    FROM ${t.events} WHERE event_time >= TIMESTAMP_SUB(TIMESTAMP(@since), INTERVAL 1 DAY)`,
        '    GROUP BY event_id, payload_digest) AS e',
        '    ON e.event_id = d.event_id AND e.payload_digest = d.payload_digest',
        "  WHERE d.destination = @destination AND d.status = 'delivered' AND NOT d.replay",
        '    AND d.recorded_at >= TIMESTAMP(@since) AND d.recorded_at < TIMESTAMP(@until)',
        ') AS l',
      ].join('\n'),
      params: { destination: l.destination, since: windowOf(l.window), until: iso(until) },
    };
  }
  if ('success_drop' in c) {
    const d = c.success_drop;
    const since = until - (durationMs(d.window) ?? 0);
    return {
      sql: [
        "SELECT COUNTIF(recorded_at >= TIMESTAMP(@since) AND status = 'delivered') AS delivered,",
        '  COUNTIF(recorded_at >= TIMESTAMP(@since)) AS attempted,',
        "  COUNTIF(recorded_at < TIMESTAMP(@since) AND status = 'delivered') AS baseline_delivered,",
        '  COUNTIF(recorded_at < TIMESTAMP(@since)) AS baseline_attempted',
        `FROM ${t.deliveries}`,
        "WHERE destination = @destination AND status NOT IN ('skipped', 'folded')",
        '  AND recorded_at >= TIMESTAMP(@baseline_since) AND recorded_at < TIMESTAMP(@until)',
      ].join('\n'),
      params: {
        destination: d.destination,
        baseline_since: iso(since - (durationMs(d.baseline) ?? 0)),
        since: iso(since),
        until: iso(until),
      },
    };
  }
  if ('counted_below' in c)
    return {
      sql: [
        'SELECT CAST(day AS STRING) AS day, accepted, counted',
        `FROM ${t.reconciliation({ from: 'from_day', to: 'to_day' })}`,
        'WHERE destination = @destination AND counted IS NOT NULL',
        'ORDER BY day DESC LIMIT 1',
      ].join('\n'),
      params: { destination: c.counted_below.destination, ...dayRange(until, 2) },
    };
  if ('sent_below' in c)
    return {
      sql: [
        'SELECT IFNULL(SUM(permitted), 0) AS permitted, IFNULL(SUM(sent), 0) AS sent',
        `FROM ${t.reconciliation({ from: 'from_day', to: 'to_day' })}`,
        'WHERE destination = @destination',
      ].join('\n'),
      params: { destination: c.sent_below.destination, ...dayRange(until, 1) },
    };
  if ('went_quiet' in c) {
    const params = {
      destination: c.went_quiet.destination,
      since: iso(until - HOUR_MS),
      until: iso(until),
      settled: iso(until - QUIET_SETTLE_MS),
      before_since: iso(until - HOUR_MS - WEEK_MS),
      before_until: iso(until - WEEK_MS),
    };
    const within = (a: string, b: string) =>
      `recorded_at >= TIMESTAMP(@${a}) AND recorded_at < TIMESTAMP(@${b})`;
    return {
      sql: [
        'SELECT d.current, d.baseline, w.waiting FROM',
        '  (SELECT COUNTIF(recorded_at >= TIMESTAMP(@since)) AS current, COUNTIF(recorded_at < TIMESTAMP(@before_until)) AS baseline',
        `   FROM ${t.deliveries} WHERE destination = @destination AND status = 'delivered'`,
        `   AND ((${within('since', 'until')}) OR (${within('before_since', 'before_until')}))) AS d`,
        // Stored events (each once, however many copies) the decision layer did not skip for the
        // destination; those of the last minutes are left to the store push still writing its skips.
        "CROSS JOIN (SELECT COUNT(DISTINCT CONCAT(e.event_id, '/', e.payload_digest)) AS waiting",
        `   FROM ${t.events} AS e`,
        '   LEFT JOIN (SELECT DISTINCT event_id, payload_digest',
        `     FROM ${t.deliveries} WHERE destination = @destination AND status = 'skipped' AND ${within('since', 'until')}) AS k`,
        '   ON k.event_id = e.event_id AND k.payload_digest = e.payload_digest',
        `   WHERE ${receivedIn('since', 'settled').replaceAll('event_time', 'e.event_time').replaceAll('received_at', 'e.received_at')}`,
        '   AND k.event_id IS NULL) AS w',
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

const round1 = (x: number) => Math.round(x * 10) / 10;

/** A latency in words: milliseconds under a second, then seconds, then minutes. */
function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${round1(ms / 1000)} s`;
  return `${round1(ms / 60_000)} min`;
}

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
  if ('latency' in c) {
    const l = c.latency;
    const delivered = n(row, 'delivered');
    const min = l.min_deliveries ?? DEFAULT_MIN_ATTEMPTS;
    const raw = row['latency_ms'];
    const ms = raw === null || raw === undefined || raw === '' ? null : Number(raw);
    const which = `p${percentileOf(l)} delivery latency`;
    const count = `${delivered} ${delivered === 1 ? 'delivery' : 'deliveries'}`;
    if (delivered < min || ms === null || !Number.isFinite(ms))
      return {
        breached: false,
        value: null,
        summary: `${l.destination}: ${count} in the last ${l.window}, fewer than ${min}: ${which} not judged`,
      };
    const breached = ms > (latencyMs(l.above) ?? Number.POSITIVE_INFINITY);
    const side = breached ? 'above' : 'within';
    return {
      breached,
      value: ms,
      summary: `${l.destination}: ${which} ${seconds(ms)} over the last ${l.window}, ${side} ${l.above} (${count})`,
    };
  }
  if ('success_drop' in c) {
    const d = c.success_drop;
    const delivered = n(row, 'delivered');
    const attempted = n(row, 'attempted');
    const before = n(row, 'baseline_delivered');
    const beforeAttempted = n(row, 'baseline_attempted');
    const min = d.min_attempts ?? DEFAULT_MIN_ATTEMPTS;
    const rate = attempted > 0 ? delivered / attempted : 0;
    const baseline = beforeAttempted > 0 ? before / beforeAttempted : 0;
    const figure = `${d.destination} delivered ${delivered} of ${attempted} attempts (${pct(rate)}) in the last ${d.window} against ${before} of ${beforeAttempted} (${pct(baseline)}) in the ${d.baseline} before`;
    if (attempted < min || beforeAttempted < min)
      return {
        breached: false,
        value: null,
        summary: `${figure}: fewer than ${min} in one of them, not judged`,
      };
    const points = (baseline - rate) * 100;
    // Shares of small counts are not exact in binary: 90 of 100 after 100 of 100 is a 10-point drop.
    const breached = points >= d.drop - 1e-9;
    const moved = points > 0 ? `down ${round1(points)}` : `up ${round1(-points)}`;
    return {
      breached,
      value: points,
      summary: `${figure}: ${moved} points; the threshold is a drop of ${d.drop}`,
    };
  }
  if ('counted_below' in c) {
    const k = c.counted_below;
    const accepted = n(row, 'accepted');
    const counted = n(row, 'counted');
    const below = k.below ?? DEFAULT_RECONCILED_SHARE;
    const min = k.min_accepted ?? DEFAULT_MIN_EVENTS;
    if (row['day'] === undefined || row['day'] === null)
      return {
        breached: false,
        value: null,
        summary: `${k.destination}: no count from the platform in the last three days`,
      };
    const share = accepted > 0 ? counted / accepted : 1;
    const figure = `${k.destination}: the platform counted ${counted} of ${accepted} accepted events (${pct(share)}) on ${String(row['day'])}`;
    if (accepted < min)
      return { breached: false, value: null, summary: `${figure}: fewer than ${min}, not judged` };
    return { breached: share < below, value: share, summary: `${figure}; the threshold is ${pct(below)}` };
  }
  if ('sent_below' in c) {
    const k = c.sent_below;
    const permitted = n(row, 'permitted');
    const sent = n(row, 'sent');
    const below = k.below ?? DEFAULT_RECONCILED_SHARE;
    const min = k.min_permitted ?? DEFAULT_MIN_EVENTS;
    const share = permitted > 0 ? sent / permitted : 1;
    const figure = `${k.destination}: sent ${sent} of ${permitted} permitted events (${pct(share)}) yesterday and today`;
    // A destination with nothing to send has nothing missing.
    if (permitted < min)
      return { breached: false, value: null, summary: `${figure}: fewer than ${min}, not judged` };
    return { breached: share < below, value: share, summary: `${figure}; the threshold is ${pct(below)}` };
  }
  if ('went_quiet' in c) {
    const q = c.went_quiet;
    const current = n(row, 'current');
    const baseline = n(row, 'baseline');
    const waiting = n(row, 'waiting');
    const min = q.min_baseline ?? DEFAULT_MIN_EVENTS;
    const figure = `${q.destination} delivered ${current} events in the last hour against ${baseline} the same hour last week, with ${waiting} stored events for it`;
    if (baseline < min)
      return { breached: false, value: null, summary: `${figure}: fewer than ${min} a week ago, not judged` };
    // Quiet only counts when there was something to send: a destination with nothing to send is fine.
    return { breached: current === 0 && waiting > 0, value: current, summary: figure };
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
