/**
 * The reconciliation alerts over the BigQuery emulator (docs/alerts.md): counted below a share of
 * accepted, sent below a share of permitted, and went quiet (delivered in the same hour a week
 * earlier, nothing now, while events for it were stored). Each runs the SQL alertQuery gives
 * against provisioned tables and views, and a destination with nothing to send does not fire, nor
 * for a copy of a skipped event or an event whose store push is still writing its skips.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { plainValue } from '../../adapters/user-sql.ts';
import { type AlertReading, alertQuery, alertReading } from '../../core/alerts/alerts.ts';
import { plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import type { AlertCondition } from '../../schemas/alert.ts';
import type { Destination } from '../../schemas/settings.ts';
import { testSettings } from '../storage/support.ts';
import { alertTablesOf } from '../support/alert-fixture.ts';

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;

describe('alerts: counted below, sent below, went quiet', function () {
  this.timeout(60_000);
  const hook = (id: string): Destination => ({
    id,
    type: 'webhook',
    config: { url: 'https://hooks.example/x' },
  });
  const settings = testSettings({ destinations: ['meta', 'slow', 'idle'].map(hook) });
  const p = plan(settings);
  const now = new Date();
  // Twenty events are stored ten minutes before now; the platform counts them on their own day,
  // which just after midnight UTC is yesterday.
  const t = now.getTime() - 10 * 60_000;
  const day = new Date(t).toISOString().slice(0, 10);
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;

  const evaluate = async (c: AlertCondition): Promise<AlertReading> => {
    const q = alertQuery(c, now, alertTablesOf(settings.project, p, settings));
    const [rows] = await bigquery.query({ query: q.sql, params: q.params });
    return alertReading(c, (plainValue(rows[0] ?? {}) as Record<string, unknown>) ?? {});
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-reconcile-alerts-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    const ds = bigquery.dataset(p.dataset);
    const at = (ms: number) => new Date(ms).toISOString();
    // Twenty events stored ten minutes ago.
    await ds.table('events').insert(
      Array.from({ length: 20 }, (_, i) => ({
        event_id: `e${i}`,
        event_name: 'purchase',
        event_time: at(t),
        received_at: at(t),
        stored_at: at(t),
        topic: 'events',
        message_id: `m${i}`,
        schema_version: 1,
        payload_digest: `d${i}`,
      })),
    );
    const row = (i: number, destination: string, status: string, ms: number) => ({
      event_id: `e${i}`,
      event_name: 'purchase',
      destination,
      status,
      replay: false,
      recorded_at: at(ms),
      payload_digest: `d${i}`,
      ...(status === 'skipped' ? { reason: 'events.deny' } : { attempt: 1, http_status: 200 }),
    });
    const ids = Array.from({ length: 20 }, (_, i) => i);
    await ds.table('deliveries').insert([
      // A week ago, in the same hour, each destination delivered 25 events.
      ...Array.from({ length: 25 }, (_, i) =>
        ['meta', 'slow', 'idle'].map((d) => ({ ...row(i, d, 'delivered', t - WEEK), event_id: `old${i}` })),
      ).flat(),
      // meta: every event delivered, and 18 counted by the platform.
      ...ids.map((i) => row(i, 'meta', 'delivered', t)),
      // slow: only ten were sent.
      ...ids.slice(0, 10).map((i) => row(i, 'slow', 'delivered', t)),
      // idle: every event skipped; nothing to send.
      ...ids.map((i) => row(i, 'idle', 'skipped', t)),
    ]);
    await ds.table('platform_counts').insert([
      {
        day,
        reported_at: at(now.getTime()),
        destination: 'meta',
        platform: 'webhook',
        event_name: 'purchase',
        counted: 18,
        source: 'test',
      },
    ]);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counted below 95 % of accepted fires on a 10 % shortfall; a lower threshold does not', async () => {
    const fired = await evaluate({ counted_below: { destination: 'meta' } });
    assert.equal(fired.breached, true, fired.summary);
    assert.equal(fired.value, 0.9);
    assert.match(fired.summary, /counted 18 of 20 accepted events \(90%\)/);
    assert.equal((await evaluate({ counted_below: { destination: 'meta', below: 0.85 } })).breached, false);
    const none = await evaluate({ counted_below: { destination: 'slow' } });
    assert.equal(none.breached, false);
    assert.match(none.summary, /no count/);
  });

  it('sent below 95 % of permitted fires for a destination that sent half; not for one with nothing to send', async () => {
    const slow = await evaluate({ sent_below: { destination: 'slow' } });
    assert.equal(slow.breached, true, slow.summary);
    assert.equal(slow.value, 0.5);
    assert.equal((await evaluate({ sent_below: { destination: 'meta' } })).breached, false);
    const idle = await evaluate({ sent_below: { destination: 'idle' } });
    assert.equal(idle.breached, false);
    assert.match(idle.summary, /not judged/);
  });

  it('went quiet fires for a destination with events waiting and no delivery this hour, not for one with nothing to send', async () => {
    // meta and slow delivered in the last hour: not quiet.
    assert.equal((await evaluate({ went_quiet: { destination: 'meta' } })).breached, false);
    // A copy of e0 (a redelivery stored twice) is one event, and an event received half a minute
    // ago whose store push has not written its skipped rows yet is left to settle: neither waits.
    const stamp = (ms: number) => new Date(ms).toISOString();
    const fresh = now.getTime() - 30_000;
    await bigquery
      .dataset(p.dataset)
      .table('events')
      .insert([
        {
          event_id: 'e0',
          event_name: 'purchase',
          event_time: stamp(now.getTime() - 10 * 60_000),
          received_at: stamp(now.getTime() - 9 * 60_000),
          stored_at: stamp(now.getTime() - 9 * 60_000),
          topic: 'events',
          message_id: 'm0-copy',
          schema_version: 1,
          payload_digest: 'd0',
        },
        {
          event_id: 'settling',
          event_name: 'purchase',
          event_time: stamp(fresh),
          received_at: stamp(fresh),
          stored_at: stamp(fresh),
          topic: 'events',
          message_id: 'm-settling',
          schema_version: 1,
          payload_digest: 'd-settling',
        },
      ]);
    // idle delivered 25 a week ago and nothing now, but every event was skipped for it.
    const idle = await evaluate({ went_quiet: { destination: 'idle' } });
    assert.equal(idle.breached, false, idle.summary);
    assert.match(idle.summary, /with 0 stored events for it/);
    // A destination whose deliveries stopped: the same week-old hour, events stored, none delivered.
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert(
        Array.from({ length: 25 }, (_, i) => ({
          event_id: `q${i}`,
          event_name: 'purchase',
          destination: 'quiet',
          status: 'delivered',
          replay: false,
          recorded_at: new Date(now.getTime() - WEEK - 10 * 60_000).toISOString(),
          attempt: 1,
        })),
      );
    const quiet = await evaluate({ went_quiet: { destination: 'quiet' } });
    assert.equal(quiet.breached, true, quiet.summary);
    assert.match(
      quiet.summary,
      /delivered 0 events in the last hour against 25 the same hour last week, with 20 stored/,
    );
  });
});
