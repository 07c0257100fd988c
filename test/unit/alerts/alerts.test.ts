/**
 * Alerts' pure part (core/alerts/alerts.ts): the spec checks, the SQL and parameters of each kind of
 * condition, what a result row means, and the incident state machine (fire once, resolve once,
 * no flapping).
 */
import assert from 'node:assert/strict';
import {
  ALERT_OK,
  type AlertState,
  alertBody,
  alertQuery,
  alertReading,
  alertViolations,
  nextAlertState,
} from '../../../core/alerts/alerts.ts';
import { resourceViolations } from '../../../core/registry/resources.ts';
import type { AlertCondition } from '../../../schemas/alert.ts';
import type { Connection } from '../../../schemas/settings.ts';

const CONNECTIONS = [
  { id: 'ops-chat', type: 'chat', url: 'https://chat.example/hook' },
  { id: 'ops-hook', type: 'webhook', url: 'https://hooks.example/alerts' },
  { id: 'files', type: 'storage', bucket: 'b' },
] as unknown as Connection[];

const TABLES = {
  events: '`p.events.events`',
  invalidEvents: '`p.events.invalid_events`',
  deliveries: '`p.events.deliveries`',
  erasures: '`p.eventbus_ops.erasures`',
  reconciliation: (r: { from: string; to: string }) => `RANGE(@${r.from}, @${r.to})`,
};
const NOW = new Date('2026-11-23T12:00:00.000Z');

const spec = (condition: unknown, extra: Record<string, unknown> = {}) => ({
  condition,
  schedule: { every: '5m' },
  notify: { connection: 'ops-chat' },
  ...extra,
});

describe('alerts: checking an Alert', () => {
  it('accepts each kind of condition with a chat or webhook connection', () => {
    for (const condition of [
      { failure_rate: { destination: 'meta', above: 0.2, window: '15m' } },
      { source_quiet: { source: 'web', event_name: 'purchase', for: '30m' } },
      { volume_change: { drop_above: 0.5 } },
      { invalid_share: { above: 0.05, window: '1h' } },
      { erasure_failures: { window: '1h' } },
      { latency: { destination: 'meta', above: '2s', window: '15m' } },
      { latency: { destination: 'meta', percentile: 99, above: '500ms', window: '1h', min_deliveries: 50 } },
      { success_drop: { destination: 'meta', window: '15m', baseline: '1d', drop: 10 } },
    ])
      assert.deepEqual(alertViolations(spec(condition), 'spec', CONNECTIONS), [], JSON.stringify(condition));
    assert.deepEqual(
      alertViolations(
        spec({ volume_change: { rise_above: 2 } }, { notify: { connection: 'ops-hook' } }),
        'spec',
        CONNECTIONS,
      ),
      [],
    );
  });

  it('refuses an unknown or a storage connection, a bad window, a schedule under a minute, a volume change with no bound', () => {
    const fields = (s: unknown) =>
      alertViolations(s, 'spec', CONNECTIONS).map((v) => `${v.field}: ${v.description}`);
    assert.match(
      fields(spec({ source_quiet: { for: '30m' } }, { notify: { connection: 'nope' } }))[0] ?? '',
      /spec.notify.connection: unknown connection "nope"/,
    );
    assert.match(
      fields(spec({ source_quiet: { for: '30m' } }, { notify: { connection: 'files' } }))[0] ?? '',
      /storage connection, not chat or webhook/,
    );
    assert.match(
      fields(spec({ failure_rate: { destination: 'm', above: 0.1, window: '2s' } }))[0] ?? '',
      /condition.failure_rate.window: must be a duration from 10s/,
    );
    assert.match(
      fields(spec({ source_quiet: { for: '30m' } }, { schedule: { every: '10s' } }))[0] ?? '',
      /spec.schedule: every must be at least 1m/,
    );
    assert.match(
      fields(spec({ volume_change: {} }))[0] ?? '',
      /volume_change: needs drop_above, rise_above or both/,
    );
    assert.ok(
      fields(spec({ failure_rate: { destination: 'm', above: 2, window: '1m' } })).length > 0,
      'a share above 1',
    );
  });

  it('is a registry kind: resourceViolations checks its spec and name', () => {
    const doc = { kind: 'Alert', name: 'meta-failing', spec: spec({ source_quiet: { for: '30m' } }) };
    assert.deepEqual(resourceViolations(doc, 'documents[0]', { connections: CONNECTIONS }), []);
    const bad = resourceViolations({ ...doc, name: 'Meta Failing' }, 'documents[0]', {
      connections: CONNECTIONS,
    });
    assert.equal(bad[0]?.field, 'documents[0].name');
    const noConn = resourceViolations(doc, 'documents[0]', { connections: [] });
    assert.equal(noConn[0]?.field, 'documents[0].spec.notify.connection');
  });
});

describe('alerts: the SQL of each condition', () => {
  it('failure rate: the ledger of one destination over the window, skipped, folded and claim-held rows left out, values as parameters', () => {
    const q = alertQuery({ failure_rate: { destination: "me'ta", above: 0.2, window: '15m' } }, NOW, TABLES);
    assert.equal(
      q.sql,
      [
        "SELECT COUNTIF(status IN ('rejected', 'failed', 'dead_lettered')) AS failed, COUNT(*) AS attempted",
        'FROM `p.events.deliveries`',
        "WHERE destination = @destination AND status NOT IN ('skipped', 'folded')",
        "  AND NOT STARTS_WITH(IFNULL(reason, ''), 'held: ')",
        '  AND recorded_at >= TIMESTAMP(@since) AND recorded_at < TIMESTAMP(@until)',
      ].join('\n'),
    );
    assert.deepEqual(q.params, {
      destination: "me'ta",
      since: '2026-11-23T11:45:00.000Z',
      until: '2026-11-23T12:00:00.000Z',
    });
  });

  it('source quiet: events received in the window, filtered by source and event name only when given', () => {
    const both = alertQuery(
      { source_quiet: { source: 'web', event_name: 'purchase', for: '30m' } },
      NOW,
      TABLES,
    );
    assert.match(
      both.sql,
      /^SELECT COUNT\(\*\) AS received\nFROM `p.events.events`\nWHERE event_time >= TIMESTAMP_SUB\(TIMESTAMP\(@since\), INTERVAL 1 DAY\)/,
    );
    assert.match(both.sql, /AND source = @source\n {2}AND event_name = @event_name$/);
    assert.deepEqual(both.params, {
      since: '2026-11-23T11:30:00.000Z',
      until: '2026-11-23T12:00:00.000Z',
      source: 'web',
      event_name: 'purchase',
    });
    const any = alertQuery({ source_quiet: { for: '30m' } }, NOW, TABLES);
    assert.doesNotMatch(any.sql, /@source|@event_name/);
    assert.deepEqual(Object.keys(any.params), ['since', 'until']);
  });

  it('volume change: the last hour against the same hour a week earlier', () => {
    const q = alertQuery({ volume_change: { event_name: 'purchase', drop_above: 0.5 } }, NOW, TABLES);
    assert.deepEqual(q.params, {
      since: '2026-11-23T11:00:00.000Z',
      until: '2026-11-23T12:00:00.000Z',
      before_since: '2026-11-16T11:00:00.000Z',
      before_until: '2026-11-16T12:00:00.000Z',
      event_name: 'purchase',
    });
    assert.match(
      q.sql,
      /COUNTIF\(received_at >= TIMESTAMP\(@since\)\) AS current, COUNTIF\(received_at < TIMESTAMP\(@before_until\)\) AS baseline/,
    );
    assert.match(
      q.sql,
      /received_at >= TIMESTAMP\(@before_since\) AND received_at < TIMESTAMP\(@before_until\)\)\)\n {2}AND event_name = @event_name$/,
    );
  });

  it('invalid share: invalid_events against stored events over the same window', () => {
    const q = alertQuery({ invalid_share: { above: 0.05, window: '1h' } }, NOW, TABLES);
    assert.match(
      q.sql,
      /SELECT COUNT\(\*\) AS invalid FROM `p.events.invalid_events` WHERE received_at >= TIMESTAMP\(@since\)/,
    );
    assert.match(q.sql, /CROSS JOIN \(SELECT COUNT\(\*\) AS stored FROM `p.events.events` WHERE event_time/);
    assert.deepEqual(q.params, { since: '2026-11-23T11:00:00.000Z', until: '2026-11-23T12:00:00.000Z' });
  });
});

describe('alerts: the reconciliation conditions read their days’ partitions only', () => {
  it('counted below reads the range form over the last three days, sent below over two', () => {
    const counted = alertQuery({ counted_below: { destination: 'meta' } }, NOW, TABLES);
    assert.match(counted.sql, /FROM RANGE\(@from_day, @to_day\)/);
    assert.doesNotMatch(counted.sql, /events\.reconciliation/);
    assert.deepEqual(counted.params, { destination: 'meta', from_day: '2026-11-21', to_day: '2026-11-23' });
    const sent = alertQuery({ sent_below: { destination: 'meta' } }, NOW, TABLES);
    assert.match(sent.sql, /FROM RANGE\(@from_day, @to_day\)/);
    assert.deepEqual(sent.params, { destination: 'meta', from_day: '2026-11-22', to_day: '2026-11-23' });
  });

  it('went quiet counts waiting events once each, those of the last two minutes left to settle', () => {
    const q = alertQuery({ went_quiet: { destination: 'meta' } }, NOW, TABLES);
    assert.match(q.sql, /COUNT\(DISTINCT CONCAT\(e\.event_id, '\/', e\.payload_digest\)\) AS waiting/);
    assert.match(q.sql, /e\.received_at < TIMESTAMP\(@settled\)/);
    assert.equal(q.params['settled'], '2026-11-23T11:58:00.000Z');
    assert.equal(q.params['before_until'], '2026-11-16T12:00:00.000Z');
  });
});

describe('alerts: an erasure a platform still holds the person after (#75)', () => {
  it('counts the requests that completed with failures in the window, pruned on requested_at', () => {
    const q = alertQuery({ erasure_failures: { window: '1h' } }, NOW, TABLES);
    assert.equal(
      q.sql,
      [
        'SELECT COUNT(DISTINCT erasure_id) AS failed',
        'FROM `p.eventbus_ops.erasures`',
        'WHERE requested_at >= TIMESTAMP_SUB(TIMESTAMP(@since), INTERVAL 7 DAY)',
        "  AND status = 'complete_with_failures'",
        '  AND completed_at >= TIMESTAMP(@since) AND completed_at < TIMESTAMP(@until)',
      ].join('\n'),
    );
    assert.deepEqual(q.params, { since: '2026-11-23T11:00:00.000Z', until: '2026-11-23T12:00:00.000Z' });
  });
  it('fires on one, with a summary pointing at erasure-status; a bad window is refused', () => {
    const c: AlertCondition = { erasure_failures: { window: '1h' } };
    assert.deepEqual(alertReading(c, { failed: 1 }), {
      breached: true,
      value: 1,
      summary:
        '1 erasure request(s) completed with a platform still holding the person in the last 1h: see erasure-status',
    });
    assert.equal(alertReading(c, { failed: 0 }).breached, false);
    assert.match(
      alertViolations(spec({ erasure_failures: { window: '1s' } }), 'spec', CONNECTIONS)[0]?.field ?? '',
      /condition\.erasure_failures\.window/,
    );
  });
});

describe('alerts: reading a result row', () => {
  const rate: AlertCondition = {
    failure_rate: { destination: 'meta', above: 0.2, window: '15m', min_attempts: 5 },
  };
  it('failure rate: above the share fires, at it does not, too few attempts are not judged', () => {
    assert.deepEqual(alertReading(rate, { failed: 3, attempted: 10 }), {
      breached: true,
      value: 0.3,
      summary: 'meta failed 3 of 10 attempts (30%) in the last 15m; the threshold is 20%',
    });
    assert.equal(alertReading(rate, { failed: 2, attempted: 10 }).breached, false);
    const few = alertReading(rate, { failed: 4, attempted: 4 });
    assert.equal(few.breached, false);
    assert.equal(few.value, null);
  });
  it('source quiet: none received fires', () => {
    const c: AlertCondition = { source_quiet: { source: 'web', for: '30m' } };
    assert.equal(alertReading(c, { received: 0 }).breached, true);
    assert.equal(alertReading(c, { received: '3' }).breached, false);
  });
  it('volume change: a drop or rise beyond its share fires; a small baseline is not judged', () => {
    const c: AlertCondition = { volume_change: { drop_above: 0.5, rise_above: 1 } };
    assert.equal(alertReading(c, { current: 40, baseline: 100 }).breached, true);
    assert.equal(alertReading(c, { current: 60, baseline: 100 }).breached, false);
    assert.equal(alertReading(c, { current: 201, baseline: 100 }).breached, true);
    assert.equal(alertReading(c, { current: 0, baseline: 10 }).breached, false);
  });
  it('invalid share: invalid over stored plus invalid', () => {
    const c: AlertCondition = { invalid_share: { above: 0.1, window: '1h' } };
    assert.equal(alertReading(c, { invalid: 3, stored: 17 }).value, 0.15);
    assert.equal(alertReading(c, { invalid: 3, stored: 17 }).breached, true);
    assert.equal(alertReading(c, { invalid: 1, stored: 19 }).breached, false);
  });
});

describe('alerts: the incident state machine', () => {
  /** Runs a series of evaluations; returns the notices in order (null when silent). */
  const run = (breaches: readonly boolean[], clearAfter = 2) => {
    let state: AlertState = ALERT_OK;
    return breaches.map((b, i) => {
      const next = nextAlertState(state, b, clearAfter, `a@${i}`);
      state = next.state;
      return next.notice;
    });
  };

  it('fires once per incident however long it lasts', () => {
    assert.deepEqual(run([false, true, true, true, true]), [null, 'fired', null, null, null]);
  });

  it('resolves once, after clear_after clear evaluations in a row', () => {
    assert.deepEqual(run([true, false, false, false, false]), ['fired', null, 'resolved', null, null]);
    assert.deepEqual(run([true, false, false, false], 3), ['fired', null, null, 'resolved']);
  });

  it('does not flap: a value alternating across the threshold keeps one incident open', () => {
    assert.deepEqual(run([true, false, true, false, true, false, false]), [
      'fired',
      null,
      null,
      null,
      null,
      null,
      'resolved',
    ]);
  });

  it('a new breach after resolving is a new incident with its own id', () => {
    let s = nextAlertState(ALERT_OK, true, 1, 'a@1').state;
    s = nextAlertState(s, false, 1, 'a@2').state;
    assert.equal(s.status, 'ok');
    assert.equal(s.incident, 'a@1');
    const again = nextAlertState(s, true, 1, 'a@3');
    assert.equal(again.notice, 'fired');
    assert.equal(again.state.incident, 'a@3');
  });
});

describe('alerts: the message sent', () => {
  const m = {
    alert: 'meta-failing',
    version: '1.0',
    status: 'fired' as const,
    incident: 'meta-failing@2026-11-23T12:00:00.000Z',
    value: 0.3,
    summary: 'meta failed 3 of 10 <attempts>',
    at: NOW.toISOString(),
  };
  it('a chat connection gets one line of text, names escaped', () => {
    assert.deepEqual(JSON.parse(alertBody('chat', m)), {
      text: '[eventbus alert] FIRING meta-failing: meta failed 3 of 10 &lt;attempts&gt;',
    });
    assert.match(JSON.parse(alertBody('chat', { ...m, status: 'test' })).text, /TEST \(nothing is wrong/);
  });
  it('a webhook gets the message as JSON', () => {
    assert.deepEqual(JSON.parse(alertBody('webhook', m)), m);
  });
});

describe('alerts: p95 delivery latency and a drop in success rate (#81)', () => {
  const fields = (condition: unknown) =>
    alertViolations(spec(condition), 'spec', CONNECTIONS, ['meta', 'ga4']).map(
      (v) => `${v.field}: ${v.description}`,
    );

  it('refuses a bad threshold, percentile, window, baseline or drop, field by field', () => {
    const latency = (l: Record<string, unknown>) => ({
      latency: { destination: 'meta', above: '2s', window: '15m', ...l },
    });
    assert.deepEqual(fields(latency({ above: '2 seconds' })), [
      'spec.condition.latency.above: must be a duration from 1ms to 7d (`500ms`, `2s`, `1m`)',
    ]);
    assert.deepEqual(fields(latency({ above: '0ms' })), [
      'spec.condition.latency.above: must be a duration from 1ms to 7d (`500ms`, `2s`, `1m`)',
    ]);
    assert.deepEqual(fields(latency({ window: '8d' })), [
      'spec.condition.latency.window: must be a duration from 10s to 7d (`30s`, `15m`, `1h`)',
    ]);
    assert.match(fields(latency({ percentile: 90 }))[0] ?? '', /^spec\.condition/);
    assert.ok(fields(latency({ min_deliveries: 0 })).length > 0, 'min_deliveries under 1');
    const drop = (d: Record<string, unknown>) => ({
      success_drop: { destination: 'meta', window: '15m', baseline: '1d', drop: 10, ...d },
    });
    assert.deepEqual(fields(drop({ window: '5s', baseline: '30d' })), [
      'spec.condition.success_drop.window: must be a duration from 10s to 7d (`30s`, `15m`, `1h`)',
      'spec.condition.success_drop.baseline: must be a duration from 10s to 7d (`30s`, `15m`, `1h`)',
    ]);
    assert.ok(fields(drop({ drop: 0 })).length > 0, 'a drop of 0 points');
    assert.ok(fields(drop({ drop: 101 })).length > 0, 'a drop of more than 100 points');
  });

  it('refuses a destination the settings do not have, as failure_rate does', () => {
    assert.deepEqual(fields({ latency: { destination: 'metaa', above: '2s', window: '15m' } }), [
      'spec.condition.latency.destination: unknown destination "metaa" (settings: meta, ga4)',
    ]);
    assert.deepEqual(fields({ success_drop: { destination: 'x', window: '15m', baseline: '1h', drop: 5 } }), [
      'spec.condition.success_drop.destination: unknown destination "x" (settings: meta, ga4)',
    ]);
  });

  it("latency: the window's delivered, non-replayed rows of one destination joined to their first receipt", () => {
    const q = alertQuery({ latency: { destination: 'meta', above: '2s', window: '15m' } }, NOW, TABLES);
    assert.match(
      q.sql,
      /^SELECT COUNT\(\*\) AS delivered, APPROX_QUANTILES\(latency_ms, 100\)\[OFFSET\(95\)\] AS latency_ms/,
    );
    assert.match(q.sql, /TIMESTAMP_DIFF\(d\.recorded_at, e\.received_at, MILLISECOND\)/);
    assert.match(
      q.sql,
      /MIN\(received_at\) AS received_at\n {4}FROM `p\.events\.events` WHERE event_time >= TIMESTAMP_SUB\(TIMESTAMP\(@since\), INTERVAL 1 DAY\)/,
    );
    assert.match(q.sql, /WHERE d\.destination = @destination AND d\.status = 'delivered' AND NOT d\.replay/);
    assert.deepEqual(q.params, {
      destination: 'meta',
      since: '2026-11-23T11:45:00.000Z',
      until: '2026-11-23T12:00:00.000Z',
    });
    const p99 = alertQuery(
      { latency: { destination: 'meta', percentile: 99, above: '2s', window: '1h' } },
      NOW,
      TABLES,
    );
    assert.match(p99.sql, /\[OFFSET\(99\)\]/);
  });

  it('success drop: one scan of the window and the baseline just before it, counted like failure_rate', () => {
    const q = alertQuery(
      { success_drop: { destination: 'meta', window: '15m', baseline: '1h', drop: 10 } },
      NOW,
      TABLES,
    );
    assert.match(q.sql, /WHERE destination = @destination AND status NOT IN \('skipped', 'folded'\)/);
    assert.match(
      q.sql,
      /COUNTIF\(recorded_at < TIMESTAMP\(@since\) AND status = 'delivered'\) AS baseline_delivered/,
    );
    assert.deepEqual(q.params, {
      destination: 'meta',
      baseline_since: '2026-11-23T10:45:00.000Z',
      since: '2026-11-23T11:45:00.000Z',
      until: '2026-11-23T12:00:00.000Z',
    });
  });

  it('latency: above the threshold fires with a sentence; at it, or with too few deliveries, it does not', () => {
    const c: AlertCondition = { latency: { destination: 'meta', above: '2s', window: '15m' } };
    assert.deepEqual(alertReading(c, { delivered: 312, latency_ms: 4210 }), {
      breached: true,
      value: 4210,
      summary: 'meta: p95 delivery latency 4.2 s over the last 15m, above 2s (312 deliveries)',
    });
    assert.equal(alertReading(c, { delivered: 312, latency_ms: 2000 }).breached, false);
    assert.equal(
      alertReading(c, { delivered: 40, latency_ms: '850' }).summary,
      'meta: p95 delivery latency 850 ms over the last 15m, within 2s (40 deliveries)',
    );
    const few = alertReading(c, { delivered: 9, latency_ms: 60_000 });
    assert.deepEqual(few, {
      breached: false,
      value: null,
      summary: 'meta: 9 deliveries in the last 15m, fewer than 10: p95 delivery latency not judged',
    });
    assert.equal(alertReading(c, { delivered: 0, latency_ms: null }).value, null);
    const p50 = alertReading(
      { latency: { destination: 'ga4', percentile: 50, above: '500ms', window: '1h', min_deliveries: 1 } },
      { delivered: 1, latency_ms: 90_000 },
    );
    assert.equal(p50.summary, 'ga4: p50 delivery latency 1.5 min over the last 1h, above 500ms (1 delivery)');
  });

  it('success drop: fires at the drop in points, not under it, not with too few attempts in either window', () => {
    const c: AlertCondition = {
      success_drop: { destination: 'meta', window: '15m', baseline: '1h', drop: 10 },
    };
    const row = (delivered: number, attempted: number, before: number, beforeAttempted: number) => ({
      delivered,
      attempted,
      baseline_delivered: before,
      baseline_attempted: beforeAttempted,
    });
    assert.deepEqual(alertReading(c, row(80, 100, 198, 200)), {
      breached: true,
      value: (0.99 - 0.8) * 100,
      summary:
        'meta delivered 80 of 100 attempts (80%) in the last 15m against 198 of 200 (99%) in the 1h before: down 19 points; the threshold is a drop of 10',
    });
    assert.equal(alertReading(c, row(90, 100, 100, 100)).breached, true, 'exactly 10 points');
    assert.equal(alertReading(c, row(91, 100, 100, 100)).breached, false);
    assert.match(alertReading(c, row(100, 100, 90, 100)).summary, /: up 10 points;/);
    const few = alertReading(c, row(0, 9, 100, 100));
    assert.equal(few.breached, false);
    assert.equal(few.value, null);
    assert.equal(alertReading(c, row(0, 100, 9, 9)).breached, false, 'a baseline under min_attempts');
  });

  it('the state machine over latency readings: fires once, resolves after clear_after clear ones', () => {
    const c: AlertCondition = { latency: { destination: 'meta', above: '2s', window: '15m' } };
    const series = [500, 4000, 5000, 1000, 3000, 900, 800, 700];
    let state: AlertState = ALERT_OK;
    const notices = series.map((ms, i) => {
      const next = nextAlertState(
        state,
        alertReading(c, { delivered: 100, latency_ms: ms }).breached,
        2,
        `a@${i}`,
      );
      state = next.state;
      return next.notice;
    });
    assert.deepEqual(notices, [null, 'fired', null, null, null, null, 'resolved', null]);
  });
});
