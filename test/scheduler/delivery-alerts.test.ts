/**
 * The `latency` and `success_drop` alerts over the BigQuery emulator (docs/alerts.md, #81): a
 * ledger and its events filled in 15-minute buckets before a base time, and each condition's
 * one-row query as the scheduler's alert job runs it, at the end of successive buckets, through
 * the incident state machine. Each fires on the bucket that went wrong, stays quiet with too few
 * rows, and resolves after `clear_after` clear evaluations.
 */
import assert from 'node:assert/strict';
import {
  ALERT_OK,
  type AlertReading,
  type AlertState,
  alertQuery,
  alertReading,
  nextAlertState,
} from '../../core/alerts/alerts.ts';
import { TABLES } from '../../core/warehouse/warehouse.ts';
import type { AlertCondition } from '../../schemas/alert.ts';
import { provisionedBigQuery } from '../storage/support.ts';
import { alertTablesOf } from '../support/alert-fixture.ts';

const MINUTE = 60_000;
const BUCKET = 15 * MINUTE;

describe('alerts: latency and success_drop over the ledger (BigQuery emulator)', function () {
  this.timeout(120_000);
  const fx = provisionedBigQuery('eventbus-delivery-alerts-');
  // Six 15-minute buckets, b0 to b5, the last ending at `base`.
  const base = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * 60 * MINUTE;
  const bucketStart = (b: number) => base - (6 - b) * BUCKET;
  const endOf = (b: number) => new Date(bucketStart(b) + BUCKET);
  const iso = (ms: number) => new Date(ms).toISOString();

  /** Latencies of meta's first-time deliveries in b1 (slow): 100 ms, 200 ms, … 10 s. */
  const SLOW = Array.from({ length: 100 }, (_, i) => (i + 1) * 100);

  before(async () => {
    const events: Record<string, unknown>[] = [];
    const deliveries: Record<string, unknown>[] = [];
    let next = 0;
    /** One event received at `received`, and its ledger row for `destination` at `recorded`. */
    const add = (
      destination: string,
      status: string,
      recorded: number,
      received: number,
      more: { replay?: boolean } = {},
    ) => {
      const id = `ev-${next++}`;
      events.push({
        event_id: id,
        event_name: 'purchase',
        event_time: iso(received - 5_000),
        received_at: iso(received),
        stored_at: iso(received + 50),
        topic: 'events',
        message_id: `m-${id}`,
        schema_version: 1,
        payload_digest: `d-${id}`,
      });
      deliveries.push({
        event_id: id,
        event_name: 'purchase',
        destination,
        status,
        replay: more.replay ?? false,
        recorded_at: iso(recorded),
        payload_digest: `d-${id}`,
        ...(status === 'skipped' || status === 'folded' ? {} : { attempt: 1 }),
      });
    };
    const at = (b: number, i: number) => bucketStart(b) + 60_000 + i * 1000;

    // meta: fast in b0, b2, b3 (200 ms); slow in b1, with ten replays of hour-old events that
    // would own the p95 if replays were counted, and failed rows that are not deliveries.
    for (const b of [0, 2, 3])
      for (let i = 0; i < 30; i++) add('meta', 'delivered', at(b, i), at(b, i) - 200);
    for (const [i, ms] of SLOW.entries()) add('meta', 'delivered', at(1, i), at(1, i) - ms);
    for (let i = 0; i < 10; i++) add('meta', 'delivered', at(1, i), at(1, i) - 60 * MINUTE, { replay: true });
    for (let i = 0; i < 10; i++) add('meta', 'failed', at(1, i), at(1, i) - 60 * MINUTE);
    // ga4: five deliveries of 30 s: too few to judge at the default minimum of 10.
    for (let i = 0; i < 5; i++) add('ga4', 'delivered', at(1, i), at(1, i) - 30_000);

    // tiktok: 20 attempts a bucket, all delivered but in b3 (12 of 20); b3 also has skipped and
    // folded rows, which are not attempts.
    for (let b = 0; b < 6; b++)
      for (let i = 0; i < 20; i++)
        add(
          'tiktok',
          b === 3 && i >= 12 ? (i % 2 ? 'rejected' : 'dead_lettered') : 'delivered',
          at(b, i),
          at(b, i) - 500,
        );
    for (let i = 0; i < 10; i++)
      add('tiktok', i % 2 ? 'skipped' : 'folded', at(3, 30 + i), at(3, 30 + i) - 100);
    // pinterest: 3 attempts in b3 all failed, after a clean baseline of 3: too few to judge.
    for (let b = 0; b < 4; b++)
      for (let i = 0; i < 3; i++)
        add('pinterest', b === 3 ? 'failed' : 'delivered', at(b, i), at(b, i) - 100);

    const dataset = fx.bigquery.dataset(fx.p.dataset);
    await dataset.table(TABLES.events).insert(events);
    await dataset.table(TABLES.deliveries).insert(deliveries);
  });

  const evaluate = async (c: AlertCondition, now: Date): Promise<AlertReading> => {
    const tables = alertTablesOf(fx.settings.project, fx.p, fx.settings);
    const q = alertQuery(c, now, tables);
    const [rows] = await fx.bigquery.query({ query: q.sql, params: { ...q.params } });
    return alertReading(c, (rows as Record<string, unknown>[])[0] ?? {});
  };

  /** The notices of evaluations at the ends of `buckets`, in order, and the readings. */
  const run = async (c: AlertCondition, buckets: readonly number[], clearAfter = 2) => {
    let state: AlertState = ALERT_OK;
    const notices: (string | null)[] = [];
    const readings: AlertReading[] = [];
    for (const b of buckets) {
      const reading = await evaluate(c, endOf(b));
      const next = nextAlertState(state, reading.breached, clearAfter, `a@${b}`);
      state = next.state;
      notices.push(next.notice);
      readings.push(reading);
    }
    return { notices, readings };
  };

  it('latency: fires on the slow window, replays and failed rows left out, and resolves after two fast ones', async () => {
    const c: AlertCondition = { latency: { destination: 'meta', above: '5s', window: '15m' } };
    const { notices, readings } = await run(c, [0, 1, 2, 3]);
    assert.deepEqual(notices, [null, 'fired', null, 'resolved']);
    assert.equal(readings[0]?.value, 200);
    // Nearest rank of 100 sorted latencies is the 95th; an approximate quantile may sit one off.
    const sorted = [...SLOW].sort((a, b) => a - b);
    const p95 = readings[1]?.value ?? 0;
    assert.ok(p95 >= (sorted[93] ?? 0) && p95 <= (sorted[95] ?? 0), `p95 ${p95}`);
    assert.match(
      readings[1]?.summary ?? '',
      /^meta: p95 delivery latency 9\.[4-6] s over the last 15m, above 5s \(100 deliveries\)$/,
    );
    assert.equal(readings[2]?.breached, false);
    const p99 = await evaluate(
      { latency: { destination: 'meta', percentile: 99, above: '9900ms', window: '15m' } },
      endOf(1),
    );
    assert.ok((p99.value ?? 0) >= (sorted[97] ?? 0), `p99 ${p99.value}`);
  });

  it('latency: a destination with fewer deliveries than the minimum stays quiet', async () => {
    const c: AlertCondition = { latency: { destination: 'ga4', above: '1s', window: '15m' } };
    const few = await evaluate(c, endOf(1));
    assert.deepEqual(few, {
      breached: false,
      value: null,
      summary: 'ga4: 5 deliveries in the last 15m, fewer than 10: p95 delivery latency not judged',
    });
    // No delivered row at all: the quantiles are NULL, and so is their 95th.
    const none = await evaluate({ latency: { destination: 'ga4', above: '1s', window: '15m' } }, endOf(4));
    assert.equal(none.value, null);
    assert.match(none.summary, /^ga4: 0 deliveries in the last 15m/);
    const judged = await evaluate({ latency: { ...c.latency, min_deliveries: 5 } }, endOf(1));
    assert.equal(judged.breached, true);
    assert.equal(judged.value, 30_000);
  });

  it('success_drop: fires on the bad window against the 45 minutes before, and resolves after two clean ones', async () => {
    const c: AlertCondition = {
      success_drop: { destination: 'tiktok', window: '15m', baseline: '45m', drop: 20 },
    };
    const { notices, readings } = await run(c, [2, 3, 4, 5]);
    assert.deepEqual(notices, [null, 'fired', null, 'resolved']);
    assert.equal(
      readings[1]?.summary,
      'tiktok delivered 12 of 20 attempts (60%) in the last 15m against 60 of 60 (100%) in the 45m before: down 40 points; the threshold is a drop of 20',
    );
    assert.match(
      readings[2]?.summary ?? '',
      /20 of 20 attempts \(100%\) .* against 52 of 60 \(86\.7%\) .*: up 13\.3 points/,
    );
    const under = await evaluate({ success_drop: { ...c.success_drop, drop: 41 } }, endOf(3));
    assert.equal(under.breached, false);
  });

  it('success_drop: too few attempts in the window or the baseline stay quiet', async () => {
    const pinterest = await evaluate(
      { success_drop: { destination: 'pinterest', window: '15m', baseline: '45m', drop: 10 } },
      endOf(3),
    );
    assert.equal(pinterest.breached, false);
    assert.equal(pinterest.value, null);
    assert.match(
      pinterest.summary,
      /0 of 3 attempts .* against 9 of 9 .*: fewer than 10 in one of them, not judged$/,
    );
    const strict = await evaluate(
      { success_drop: { destination: 'tiktok', window: '15m', baseline: '45m', drop: 20, min_attempts: 21 } },
      endOf(3),
    );
    assert.equal(strict.breached, false);
  });
});
