/**
 * Backfilling a destination added after a day of traffic (issue #102, docs/delivery.md#backfill),
 * through the running local environment (`eventbus start`): a day of events is stored (one
 * collected without analytics consent, one four days old), the environment is started again with
 * a second GA4 destination, and `eventbus replay --destination ga4-late --from … --to …` sends it
 * the stored events through the ordinary path. Each consented event of the day reaches its
 * stand-in once, with `delivered` ledger rows marked backfill; the one without consent is a
 * `skipped` row; the four-day-old one is skipped naming GA4's 72-hour limit, in the ledger and in
 * the command's summary. A second backfill of the same window folds: nothing reaches the stand-in
 * twice.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import {
  eventbusIn,
  localBigQuery,
  localSettingsWith,
  publishEvent,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

const LATE = `
  - id: ga4-late
    type: ga4_mp
    base_url: http://127.0.0.1:8099/ga4
    config: { measurement_id: G-LATE12345 }
    secrets: { api_secret: GA4_API_SECRET }
    retry: { minimum_backoff: 1s, maximum_backoff: 10s, max_attempts: 100 }
`;

interface LedgerRow {
  event_id: string;
  status: string;
  reason: string | null;
  replay: boolean;
  backfill: boolean | null;
}

/**
 * The first fan-out's window (EVENTBUS_FIRST_WINDOW_MS), set instead of waited out: the backfill is
 * held until each event's first fan-out has surely ended (a store push, this window and a lease
 * after it was stored), about 2 minutes sooner than with the production window of 2 minutes.
 */
const WINDOW = { EVENTBUS_FIRST_WINDOW_MS: '10000' };

describe('end to end: backfill a destination added after a day of traffic', function () {
  this.timeout(600_000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  let ports: Readonly<Record<string, number>> = {};
  let bigquery: BigQuery;
  const run = Date.now().toString(36);
  const id = (name: string) => `bf-${name}-${run}`;
  const HOUR = 3_600_000;
  const day = [2, 8, 14, 20].map((h) => ({ name: `day${h}`, at: new Date(Date.now() - h * HOUR) }));

  const ledger = async (): Promise<LedgerRow[]> =>
    (
      await bigquery.query({
        query: `SELECT event_id, status, reason, replay, backfill FROM events.deliveries
                WHERE destination = 'ga4-late' AND STARTS_WITH(event_id, 'bf-') AND ENDS_WITH(event_id, @run)
                ORDER BY event_id, recorded_at`,
        params: { run: `-${run}` },
      })
    )[0] as LedgerRow[];
  /**
   * Requests the GA4 stand-in took for the late destination (its measurement id), per event: GA4
   * is sent the event's anonymous id as its client id.
   */
  const receivedLate = async (): Promise<Record<string, number>> => {
    const r = (await (await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`)).json()) as {
      received: { path: string; status: number; body: unknown }[];
    };
    const out: Record<string, number> = {};
    for (const x of r.received) {
      if (!x.path.includes('G-LATE12345') || x.status < 200 || x.status >= 300) continue;
      const text = JSON.stringify(x.body);
      for (const e of [...day.map((d) => d.name), 'nocon', 'old', 'after'])
        if (text.includes(`"anon-${e}-${run}"`)) out[e] = (out[e] ?? 0) + 1;
    }
    return out;
  };
  const post = (name: string, at: Date, consent: Record<string, string>) =>
    publishEvent({ dataDir, ports }, 'view_content', {
      event_id: id(name),
      event_time: at.toISOString(),
      anonymous_id: `anon-${name}-${run}`,
      content_name: 'Red Shoe',
      content_type: 'product',
      page: { url: 'https://shop.example/shoe' },
      consent,
    });
  const GRANTED = { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' };

  before(async () => {
    const first = await startLocalCli({ prefix: 'eventbus-backfill-', env: WINDOW });
    child = first.child;
    dataDir = first.dataDir;
    ports = first.ports;
    bigquery = await localBigQuery(ports);
    // A day of traffic before the destination exists, one without consent, one four days old.
    for (const d of day) await post(d.name, d.at, GRANTED);
    await post('nocon', new Date(Date.now() - 5 * HOUR), { analytics: 'denied', ads: 'denied' });
    await post('old', new Date(Date.now() - 96 * HOUR), GRANTED);
    await until(
      'the day stored',
      async () => {
        const [rows] = await bigquery.query({
          query: 'SELECT COUNT(*) AS n FROM events.events_dedup WHERE ENDS_WITH(event_id, @run)',
          params: { run: `-${run}` },
        });
        return Number((rows as { n: number }[])[0]?.n) === day.length + 2 ? true : undefined;
      },
      120_000,
    );
    // The destination is added: the environment starts again with it, as a user would.
    child.kill('SIGINT');
    await new Promise((r) => child?.once('exit', r));
    const again = await startLocalCli({
      prefix: 'eventbus-backfill-',
      settings: localSettingsWith('late.yaml', LATE),
      again: { dataDir, ports },
      env: WINDOW,
    });
    child = again.child;
  });
  after(async () => {
    await stopLocal(child, dataDir);
  });

  it('backfills the day once per event, as consent was collected, naming what the age limit refused; again, it folds', async () => {
    // Live now: an event after the change goes to it on the ordinary path.
    await post('after', new Date(), GRANTED);
    await until('the live delivery', async () =>
      (await ledger()).some((r) => r.event_id === id('after') && r.status === 'delivered') ? true : undefined,
    );
    const eventbus = eventbusIn(dataDir, ['--env', join(dataDir, 'late.yaml')]);
    const window = [
      '--from',
      new Date(Date.now() - 5 * 24 * HOUR).toISOString(),
      '--to',
      new Date(Date.now() + 60_000).toISOString(),
    ];
    const replay = async () =>
      JSON.parse(
        await eventbus(
          'replay',
          '--destination',
          'ga4-late',
          ...window,
          '--where',
          `ENDS_WITH(event_id, '-${run}')`,
          '--format',
          'json',
        ),
      )[0] as {
        read: number;
        republished: number;
        skipped: number;
        backfilled: number;
        reasons: Record<string, number>;
      };

    const first = await replay();
    assert.deepEqual([first.read, first.backfilled, first.skipped], [day.length + 3, day.length, 2]);
    const [ageReason] = Object.keys(first.reasons).filter((r) => r.startsWith('age limit:'));
    assert.match(ageReason ?? '', /GA4's 72-hour limit/);
    // Stored minutes ago, each event's own first fan-out (to the other destinations) may still be
    // sending until its horizon: forward holds the backfill until then (docs/delivery.md, "One
    // event, one delivery"); a backfill of an older day goes at once.
    await until(
      'the backfill delivered',
      async () => {
        const rows = await ledger();
        return day.every((d) => rows.some((r) => r.event_id === id(d.name) && r.status === 'delivered'))
          ? rows
          : undefined;
      },
      360_000,
      2000,
    );
    const rows = await ledger();
    const of = (name: string) => rows.filter((r) => r.event_id === id(name));
    for (const d of day) {
      // One delivery; before it, only the holds of the first fan-out's window, marked too.
      const [held, sent] = [
        of(d.name).filter((r) => r.status === 'failed'),
        of(d.name).filter((r) => r.status !== 'failed'),
      ];
      assert.deepEqual(
        sent.map((r) => [r.status, r.replay, r.backfill]),
        [['delivered', true, true]],
        d.name,
      );
      assert.ok(
        held.every((r) => /^held: /.test(r.reason ?? '') && r.backfill),
        JSON.stringify(held),
      );
    }
    // Collected without consent: not sent, and the row says why.
    assert.deepEqual(
      of('nocon').map((r) => [r.status, r.backfill]),
      [['skipped', true]],
    );
    assert.match(of('nocon')[0]?.reason ?? '', /consent/);
    // Four days old: GA4 takes 72 hours back.
    assert.match(of('old')[0]?.reason ?? '', /^age limit: .*GA4's 72-hour limit/);
    // Stored after it went live: a replay of what it already has, folded, not a backfill.
    assert.ok(of('after').some((r) => r.status === 'folded' && r.backfill === null));

    // Again: every sent event folds, nothing reaches the stand-in twice.
    await replay();
    await until('the second backfill folded', async () => {
      const again = await ledger();
      return day.every((d) => again.some((r) => r.event_id === id(d.name) && r.status === 'folded'))
        ? true
        : undefined;
    });
    const got = await receivedLate();
    assert.deepEqual(
      Object.fromEntries(day.map((d) => [d.name, got[d.name]])),
      Object.fromEntries(day.map((d) => [d.name, 1])),
    );
    assert.equal(got['nocon'], undefined);
    assert.equal(got['old'], undefined);
    assert.equal(got['after'], 1);
  });
});
