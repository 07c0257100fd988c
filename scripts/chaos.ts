/**
 * `npm run chaos` (docs/delivery.md, "The chaos run"): what an operations team would do to the
 * local environment, bounded and on loopback only. It starts `eventbus start` as a user does,
 * sends events at a steady rate (a failed POST is retried with the same `event_id` and
 * `event_time`, as a careful producer does), `kill -9`s each process in turn — store, the BigQuery
 * emulator, the Pub/Sub emulator, the gateway, forward, the supervisor itself — each followed by
 * `eventbus start` on the same data dir, freezes the destinations for minutes (requests held
 * unanswered, as a stopped process would), waits until the pipeline is quiet, and prints per
 * destination: acknowledged, stored, delivered, dead-lettered in the ledger, dead letters without
 * a ledger row, deliveries without a ledger row, and duplicates received (extra copies, also as a
 * share of the events). It exits 1 when an acknowledged event is missing, a dead letter or
 * delivery has no ledger row, or a destination received more than MAX_DUPLICATE_SHARE of the
 * events twice.
 *
 * Producers copy events as real ones do (docs/delivery.md, "One event, one delivery"): a vendor's
 * signed webhook (Stripe's, re-signed as Stripe signs a retry) sent again after each of
 * `--copies` (1 s, 2 min, 10 min), a browser's blind retry of an acknowledged batch after the
 * same delays, and at the end a replay of the run's slice to every destination. Duplicates
 * received are reported per destination and per cause, and every copy must fold: one row in
 * `events` per event identity.
 *
 *   npm run chaos                                   # 3,000 events at ~150/s, a 3-minute freeze
 *   npm run chaos -- --events 500 --freeze 30       # smaller
 *   npm run chaos -- --copies 1,30                  # producers' copies after 1 s and 30 s
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BigQuery } from '@google-cloud/bigquery';
import Stripe from 'stripe';
import { createDeliveriesPublisher, settingsRoute } from '../adapters/deliveries-publisher.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../adapters/ledger-writer.ts';
import { replayDestinationSlice } from '../cli/commands/replay-destination.ts';
import { REDELIVERY_RECORD } from '../core/claims/send-once.ts';
import { backlogSubscriptionName, deadLetterTopicName, forwardSubscriptionName } from '../core/plan.ts';
import { deliveredWithoutStoredRowSql } from '../core/warehouse/warehouse.ts';
import { freePort } from '../local/ports.ts';
import { emulatorPubSub } from '../local/provision.ts';
import { DEFAULT_PORTS } from '../local/services.ts';
import type { Settings } from '../schemas/settings.ts';
import {
  type Arrival,
  DESTINATIONS,
  frozenArrivalSeconds,
  SEND_TIMES,
  type SendTime,
  sendTime,
  startCountingReceiver,
} from './chaos-receiver.ts';
import { startEnvironment } from './chaos-start.ts';
import { formatUndelivered, type Undelivered, undeliveredReport } from './chaos-undelivered.ts';

const REPO = resolve(import.meta.dirname, '..');
// Offline: Google's clients must not probe for a GCE metadata server.
process.env['METADATA_SERVER_DETECTION'] ??= 'none';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The signing secret of the run's Stripe source (a local test value). */
const STRIPE_SECRET = 'whsec_chaos_run_only';

/** An `eventbus` command on the run's data dir, as a user types it; throws with its output on failure. */
async function cli(argv: readonly string[], dataDir: string): Promise<string> {
  const { run } = await import('../cli/main.ts');
  let out = '';
  const code = await run([...argv, '--data-dir', dataDir], {
    out: (t) => (out += t),
    err: (t) => (out += t),
  });
  if (code !== 0) throw new Error(`eventbus ${argv.join(' ')} exited ${code}: ${out}`);
  return out;
}

/**
 * The producer's connections: a pool of 64 kept-alive sockets, as a client library keeps them
 * (a socket per request in flight, up to 512 at once, spent the run's CPU on connections and held
 * the rate near 180 events/s whatever the pipeline could take).
 */
const PRODUCER_AGENT = new Agent({ keepAlive: true, maxSockets: 64 });

/** One POST: its status, or 0 when it failed or took over 10 s. */
function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((done) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers, agent: PRODUCER_AGENT, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(0));
    req.end(body);
  });
}

export interface ChaosOptions {
  readonly events: number;
  readonly rate: number;
  /** Seconds the destinations hold every request unanswered. */
  readonly freezeSeconds: number;
  /** Which processes to kill -9, in order, each followed by a restart. */
  readonly kills: readonly string[];
  /** Seconds to wait for quiet at most. */
  readonly quietTimeoutSeconds: number;
  /** Seconds after the first send at which producers send their copies again (empty: none). */
  readonly copySeconds: readonly number[];
  /** Every how many events one is a vendor's webhook, and one a browser's batch, copied late. */
  readonly copyEvery: number;
  /** Whether a replay of the run's slice goes to every destination at the end. */
  readonly replay: boolean;
  /**
   * False: no destination at all, so the machine's whole capacity goes to the store path (the
   * Storage Write API crash test: `kill -9` of `store` at 1,000 events/s); the run then waits for
   * every acknowledged event to be in `events` instead of for the ledger. Default true.
   */
  readonly destinations?: boolean;
  /**
   * True: the destinations freeze only once every kill is done (and restarted), so no stop
   * lands while the destinations hold forward's calls. A stop then leaves those calls unconfirmed
   * and they are sent again: the at-least-once floor, which the full run measures as a share of
   * its 3,000 events; the small run in the test suite keeps the two apart so its bound on
   * duplicates measures folding. Default false.
   */
  readonly freezeAfterKills?: boolean;
  /** More variables for `eventbus start` (EVENTBUS_FIRST_WINDOW_MS: core/claims/send-once.ts). */
  readonly env?: Readonly<Record<string, string>>;
  readonly log?: (line: string) => void;
}

export const DEFAULT_CHAOS: ChaosOptions = {
  events: 3000,
  rate: 150,
  freezeSeconds: 180,
  kills: ['store', 'bigquery', 'pubsub', 'gateway', 'forward', 'supervisor'],
  quietTimeoutSeconds: 900,
  copySeconds: [1, 120, 600],
  copyEvery: 25,
  replay: true,
};

/**
 * Why a destination received an event more than once. A copy that reached the destination again
 * *and was recorded as delivered again* (two `delivered` ledger rows for one identity) is a claim
 * that let a path through: named by the path (a vendor's or browser's copy, the replay, a Pub/Sub
 * redelivery). An extra copy with no second `delivered` row is an `unconfirmed send`: a call
 * whose sender never learned or never recorded the answer (it timed out, or its process was
 * stopped between the platform's answer and the ledger row), sent again because nothing said it
 * had gone. No claim can close that edge (the platform may have acted on a call it never
 * answered); platforms that fold by event_id (Meta, TikTok) fold it.
 */
export type DuplicateCause = 'vendor retry' | 'browser retry' | 'replay' | 'redelivery' | 'unconfirmed send';

export interface DestinationReport {
  readonly destination: string;
  readonly acknowledged: number;
  readonly stored: number;
  readonly delivered: number;
  readonly deadLettered: number;
  readonly backlogWithoutLedgerRow: number;
  readonly deliveredWithoutLedgerRow: number;
  /** `delivered` ledger rows with no events row of the same identity: the storage-first invariant. */
  readonly deliveredWithoutStoredRow: number;
  readonly duplicatesReceived: number;
  /** The duplicates by cause: a copy that was not folded says which path let it through. */
  readonly duplicatesByCause: Readonly<Record<DuplicateCause, number>>;
  /** The unconfirmed sends by when their first copy went out (scripts/chaos-receiver.ts). */
  readonly unconfirmedBySendTime: Readonly<Record<SendTime, number>>;
  /** The event copies the frozen destination held, each as seconds since the freeze began. */
  readonly frozenCalls: readonly number[];
  /** Of those, the ones whose sender had hung up (timed out) by the time they were answered. */
  readonly frozenCallsAbandoned: number;
  readonly received: number;
}

export interface ChaosReport {
  readonly acknowledged: number;
  readonly missing: number;
  /** Rows in `events` beyond one per event identity (event_id, payload digest). */
  readonly extraRows: number;
  /** Producers' copies sent (vendor webhooks and browser batches, each late send counted). */
  readonly copiesSent: number;
  readonly destinations: readonly DestinationReport[];
  readonly restarts: number;
  readonly seconds: number;
  /** Where each event a destination never got stopped (scripts/chaos-undelivered.ts). */
  readonly undelivered: readonly Undelivered[];
  /** With an event undelivered: how the services stopped (drains, SIGKILLs, failed ledger writes). */
  readonly stops: readonly string[];
}

/** The most extra copies a destination may receive, as a share of the events acknowledged (issue 73). */
export const MAX_DUPLICATE_SHARE = 0.001;

/** A destination's extra copies received, as a share of the events acknowledged. */
export function duplicateShare(d: DestinationReport): number {
  return d.duplicatesReceived / Math.max(1, d.acknowledged);
}

/**
 * What makes a run fail, one line each: an acknowledged event missing from the warehouse, a dead
 * letter or a delivery without its ledger row, a delivered row without its events row, or more
 * duplicates received than `maxDuplicateShare` of the events (default MAX_DUPLICATE_SHARE).
 */
export function chaosProblems(r: ChaosReport, maxDuplicateShare = MAX_DUPLICATE_SHARE): string[] {
  const problems: string[] = [];
  if (r.missing > 0) problems.push(`${r.missing} acknowledged events missing from events_dedup`);
  if (r.extraRows > 0) problems.push(`${r.extraRows} extra rows in events (copies written twice)`);
  for (const d of r.destinations) {
    if (d.backlogWithoutLedgerRow > 0)
      problems.push(`${d.destination}: ${d.backlogWithoutLedgerRow} dead letters without a ledger row`);
    if (d.deliveredWithoutLedgerRow > 0)
      problems.push(`${d.destination}: ${d.deliveredWithoutLedgerRow} deliveries without a ledger row`);
    if (d.deliveredWithoutStoredRow > 0)
      problems.push(
        `${d.destination}: ${d.deliveredWithoutStoredRow} delivered rows without their events row`,
      );
    if (duplicateShare(d) > maxDuplicateShare)
      problems.push(
        `${d.destination}: ${d.duplicatesReceived} duplicates received, ${percent(duplicateShare(d))} of ${d.acknowledged} events (at most ${percent(maxDuplicateShare)})`,
      );
  }
  return problems;
}

const percent = (share: number) => `${(share * 100).toFixed(2)} %`;
const perSecond = (seconds: readonly number[]) =>
  [...Map.groupBy(seconds, (s) => s)].map(([s, list]) => `${s}: ${list.length}`).join(', ');

export async function runChaos(options: ChaosOptions = DEFAULT_CHAOS): Promise<ChaosReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'eventbus-chaos-'));
  const receiver = await startCountingReceiver();
  const ports: Record<string, number> = {};
  // Every service on a port of its own: a default one may be another environment's.
  for (const name of Object.keys(DEFAULT_PORTS)) ports[name] = await freePort();
  const settingsFile = join(dataDir, 'chaos.yaml');
  const retry = '{ minimum_backoff: 1s, maximum_backoff: 60s, max_attempts: 16 }';
  writeFileSync(
    settingsFile,
    `name: chaos
project: local-project
region: europe-west1
dataset: events
location: EU
unknown_events: store
# The producer's token may send at the run's rate (the default quota is 200 requests/s a token).
tokens: { rate_limit_per_second: ${Math.max(200, 2 * options.rate)}, burst: ${Math.max(400, 2 * options.rate)} }
retry: ${retry}
${
  options.destinations === false
    ? 'destinations: []\n'
    : `destinations:
  - { id: hook, type: webhook, base_url: "${receiver.url}/hook", secrets: { signing_key: WEBHOOK_SIGNING_KEY }, retry: ${retry}, timeout_ms: 5000 }
  - { id: meta, type: meta_capi, base_url: "${receiver.url}/meta", config: { pixel_id: "123456789012345", action_source: website }, secrets: { access_token: META_ACCESS_TOKEN }, retry: ${retry}, timeout_ms: 5000 }
  - { id: tiktok, type: tiktok_events, base_url: "${receiver.url}/tiktok", config: { pixel_code: CLOCAL0123456789AB }, secrets: { access_token: TIKTOK_ACCESS_TOKEN }, retry: ${retry}, timeout_ms: 5000 }
`
}`,
  );
  // The chaos receiver runs here, not as the environment's: the egress gate is told of it.
  const startEnv = { EVENTBUS_TICK_SECONDS: '10', EVENTBUS_EGRESS_ALLOW: receiver.url, ...options.env };
  let env = await startEnvironment(settingsFile, dataDir, ports, startEnv);
  let restarts = 0;
  const token = () => readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  const gateway = `http://127.0.0.1:${ports['gateway']}`;
  // A vendor that signs its webhooks (Stripe), through its ready-made translator.
  await cli(
    ['source', 'add', 'stripe', '--secret', STRIPE_SECRET, '--consent', 'ads,ad_user_data,analytics'],
    dataDir,
  );

  // The producer: a steady rate, each event retried with the same body until acknowledged.
  const acknowledged = new Set<string>();
  const reusedIds = new Set<string>();
  const vendorIds = new Set<string>();
  const browserIds = new Set<string>();
  const copies: Promise<void>[] = [];
  let copiesSent = 0;
  const t0 = Date.now();
  const base = new Date(t0 - 60_000).toISOString();
  /** POSTs until the gateway acknowledges (200), as a careful producer does; false when it gave up. */
  const deliver = async (
    url: string,
    headers: () => Record<string, string>,
    body: string,
  ): Promise<boolean> => {
    for (let attempt = 0; attempt < 600; attempt++) {
      if ((await post(url, headers(), body)) === 200) return true;
      await sleep(500);
    }
    return false;
  };
  /** The same request again after each of the copy delays, counted when acknowledged. */
  const later = (send: () => Promise<boolean>) => {
    for (const s of options.copySeconds)
      copies.push(
        sleep(s * 1000)
          .then(send)
          .then((ok) => {
            if (ok) copiesSent++;
          }),
      );
  };
  const stripe = new Stripe('sk_test_chaos_only');
  const checkout = readFileSync(
    join(REPO, 'test', 'fixtures', 'sources', 'stripe', 'checkout-session-completed.json'),
    'utf8',
  );
  /** A Stripe-signed checkout.session.completed, signed afresh for every copy as Stripe signs a retry. */
  const vendor = async (i: number) => {
    const id = `chaos-${t0.toString(36)}-stripe-${i}`;
    const body = JSON.stringify({
      ...(JSON.parse(checkout) as object),
      id,
      created: Math.floor(t0 / 1000) - 60,
    });
    const headers = () => ({
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET }),
    });
    const send = () => deliver(`${gateway}/v1/translators/stripe`, headers, body);
    if (!(await send())) return log(`gave up on ${id}`);
    acknowledged.add(id);
    vendorIds.add(id);
    later(send);
  };
  // Every 20th event is sent twice under one event_id with different content (as Segment's spec
  // examples and Stripe's fixtures reuse ids): two events, each stored and delivered on its own.
  const send = async (i: number, reused = false) => {
    const id = `chaos-${t0.toString(36)}-${i}`;
    const body = JSON.stringify({
      event_name: 'view_content',
      event_id: id,
      event_time: base,
      content_name: reused ? 'Shoe (another event, same event_id)' : 'Shoe',
      content_type: 'product',
      content_id: `SKU${i % 97}`,
      user_id: `u${i % 300}`,
      user: { email: `buyer${i % 300}@example.com` },
      page: { url: `https://shop.example/p/${i % 97}` },
      // A real browser's user agent: an odd one is flagged as a bot and kept from the platforms.
      device: {
        user_agent:
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      },
      consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
    });
    const headers = () => ({ authorization: `Bearer ${token()}`, 'content-type': 'application/json' });
    const post = () => deliver(`${gateway}/v1/topics/view_content`, headers, body);
    if (!(await post())) return log(`gave up on ${id}`);
    acknowledged.add(id);
    if (reused) reusedIds.add(id);
    // A browser that did not see the answer sends the batch again, later.
    else if (i % options.copyEvery === Math.floor(options.copyEvery / 2) && options.copySeconds.length > 0) {
      browserIds.add(id);
      later(post);
    }
  };
  // At most this many events unacknowledged at once, as a producer's client library caps its
  // requests: past it the producer waits for an answer and the rate falls behind. An open loop
  // with no cap opened a socket per event while the gateway was slow, and at 1,000 events/s ran
  // the run's own process out of file descriptors.
  const MAX_IN_FLIGHT = 512;
  let active = 0;
  const slots: (() => void)[] = [];
  const capped = async (task: () => Promise<void>): Promise<void> => {
    active++;
    try {
      await task();
    } finally {
      active--;
      slots.shift()?.();
    }
  };
  const load = (async () => {
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < options.events; i++) {
      while (active >= MAX_IN_FLIGHT) await new Promise<void>((r) => slots.push(r));
      inflight.push(capped(() => send(i)));
      if (i % 20 === 19) inflight.push(capped(() => send(i, true)));
      if (i % options.copyEvery === 0 && options.copySeconds.length > 0)
        inflight.push(capped(() => vendor(i)));
      const due = t0 + ((i + 1) * 1000) / options.rate;
      if (due > Date.now()) await sleep(due - Date.now());
    }
    await Promise.all(inflight);
  })();

  // The destinations freeze a third of the way into the load: every request held unanswered
  // (forward's calls time out and are retried), then answered late when they run again.
  const loadSeconds = options.events / options.rate;
  let killsDone = () => {};
  const afterKills = new Promise<void>((r) => {
    killsDone = r;
  });
  const freezer = (async () => {
    if (options.freezeSeconds <= 0) return;
    await sleep((loadSeconds * 1000) / 3);
    if (options.freezeAfterKills) await afterKills;
    log(`destinations frozen for ${options.freezeSeconds} s`);
    receiver.freeze();
    await sleep(options.freezeSeconds * 1000);
    receiver.thaw();
    log('destinations answer again');
  })();

  // The operator: one kill -9 at a time, spread over the load, each followed by a restart.
  for (const name of options.kills) {
    await sleep((loadSeconds * 1000) / (options.kills.length + 1));
    const pid = env.pids.get(name);
    if (!pid) {
      log(`no pid for ${name}; skipped`);
      continue;
    }
    const seen = env.output().length;
    log(`kill -9 ${name} (pid ${pid})`);
    receiver.mark(`kill ${name}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
    // A function or the gateway is replaced by the supervisor, as in the cloud (a new instance,
    // the rest running on); for anything else it stops the environment, and a killed
    // supervisor's guardian does: then the operator starts it again.
    const replaced = new RegExp(`^${name} ready on \\S+ \\(pid (?!${pid}\\))(\\d+)\\)`, 'm');
    const exited = new Promise<'exited'>((r) =>
      env.child.exitCode !== null ? r('exited') : env.child.once('exit', () => r('exited')),
    );
    let outcome: 'exited' | number | undefined;
    while (outcome === undefined) {
      const m = replaced.exec(env.output().slice(seen));
      if (m) outcome = Number(m[1]);
      else if ((await Promise.race([exited, sleep(100)])) === 'exited') outcome = 'exited';
    }
    if (outcome === 'exited') {
      await sleep(1000);
      env = await startEnvironment(settingsFile, dataDir, ports, startEnv);
      log(`restarted (${restarts + 1})`);
    } else {
      env.pids.set(name, outcome);
      log(`${name} replaced by a new instance (pid ${outcome}), the rest running on`);
    }
    restarts++;
  }
  killsDone();
  await load;
  const loadDone = (Date.now() - t0) / 1000;
  log(
    `load done: ${acknowledged.size} of ${options.events} acknowledged in ${loadDone.toFixed(1)} s (${Math.round(acknowledged.size / loadDone)} events/s)`,
  );
  await freezer;
  await Promise.all(copies);
  log(`producers' copies sent: ${copiesSent}`);

  const bigquery = new BigQuery({
    projectId: 'local-project',
    apiEndpoint: `http://127.0.0.1:${ports['bigquery']}`,
  });
  const q = async <T>(sql: string, params: Record<string, unknown> = {}) =>
    (await bigquery.query({ query: sql, params }))[0] as T[];
  const prefix = `chaos-${t0.toString(36)}-`;
  // Quiet: every acknowledged event has a final ledger row (delivered, dead-lettered, rejected
  // or skipped) for every destination, or nothing has moved for longer than the largest retry
  // backoff (60 s) and a first fan-out's horizon (about 4 minutes) could explain. Without
  // destinations: every acknowledged event is in `events`, or the count stopped moving.
  const targets = options.destinations === false ? [] : DESTINATIONS;
  let last = '';
  let stableSince = Date.now();
  const deadline = Date.now() + options.quietTimeoutSeconds * 1000;
  while (Date.now() < deadline) {
    const settled =
      targets.length === 0
        ? await q<{ destination: string; n: number }>(
            `SELECT 'events' AS destination, COUNT(DISTINCT event_id) AS n FROM events.events
             WHERE STARTS_WITH(event_id, @p)`,
            { p: prefix },
          ).catch(() => [])
        : await q<{ destination: string; n: number }>(
            `SELECT destination, COUNT(DISTINCT event_id) AS n FROM events.deliveries
             WHERE STARTS_WITH(event_id, @p) AND status IN ('delivered', 'dead_lettered', 'rejected', 'skipped')
             GROUP BY destination`,
            { p: prefix },
          ).catch(() => []);
    const goal = (d: string) => Number(settled.find((s) => s.destination === d)?.n ?? 0) >= acknowledged.size;
    if (targets.length === 0 ? goal('events') : targets.every(goal)) {
      log(`quiet: every event settled, ${Math.round((Date.now() - t0) / 1000)} s after the first send`);
      break;
    }
    const now = JSON.stringify(settled);
    if (now !== last) {
      last = now;
      stableSince = Date.now();
      // Nothing moved for longer than a retry backoff and a first fan-out's horizon could explain.
    } else if (Date.now() - stableSince > 300_000) {
      log(
        `quiet: nothing moved for 300 s (${now}), ${Math.round((Date.now() - t0) / 1000)} s after the first send`,
      );
      break;
    }
    await sleep(2000);
  }

  // Every destination's requests so far; a replay of the run's slice then sends nothing new.
  const beforeReplay = new Map([...receiver.received].map(([d, m]) => [d, new Map(m)]));
  if (options.replay) {
    const from = new Date(t0 - 120_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    // As `eventbus replay --destination <d> --from … --to …` runs it, on the run's emulators.
    const settings = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Settings;
    const pubsub = emulatorPubSub('local-project', `127.0.0.1:${ports['pubsub']}`);
    const publisher = createDeliveriesPublisher(pubsub, settingsRoute(settings));
    const ledger = createLedgerWriter(createLedgerBigQueryWriter(bigquery, 'events'));
    try {
      for (const d of targets)
        await replayDestinationSlice({
          settings,
          project: 'local-project',
          dataset: 'events',
          destination: d,
          from: new Date(from),
          to: new Date(to),
          where: `STARTS_WITH(event_id, '${prefix}')`,
          query: async (sql, params) => (await bigquery.query({ query: sql, params }))[0],
          publish: (m) => publisher.publish(m),
          writeLedger: (e) => ledger.write(e),
        });
    } finally {
      await publisher.close();
    }
    // The replay's messages settle as folded (or skipped) rows: until their count stops moving.
    let seen = -1;
    for (let waited = 0; waited < 180_000; waited += 5_000) {
      const [r] = await q<{ n: number }>(
        'SELECT COUNT(*) AS n FROM events.deliveries WHERE replay AND STARTS_WITH(event_id, @p)',
        { p: prefix },
      ).catch(() => [{ n: -2 }]);
      if (Number(r?.n) === seen && seen > 0) break;
      seen = Number(r?.n);
      await sleep(5_000);
    }
    log(`replayed the run to every destination (${seen} ledger rows)`);
  }

  const [extra] = await q<{ n: number }>(
    `SELECT COUNT(*) - COUNT(DISTINCT CONCAT(event_id, '/', IFNULL(payload_digest, ''))) AS n
     FROM events.events WHERE STARTS_WITH(event_id, @p)`,
    { p: prefix },
  );
  const [storedRow] = await q<{ n: number }>(
    'SELECT COUNT(DISTINCT event_id) AS n FROM events.events_dedup WHERE event_id IN UNNEST(@ids)',
    { ids: [...acknowledged] },
  );
  const stored = Number(storedRow?.n ?? 0);
  const pubsub = emulatorPubSub('local-project', `127.0.0.1:${ports['pubsub']}`);
  const destinations: DestinationReport[] = [];
  for (const d of targets) {
    const ledger = await q<{ event_id: string; status: string }>(
      `SELECT DISTINCT event_id, status FROM events.deliveries WHERE destination = @d AND STARTS_WITH(event_id, @p)`,
      { d, p: prefix },
    );
    const delivered = new Set(ledger.filter((r) => r.status === 'delivered').map((r) => r.event_id));
    const deadLettered = new Set(ledger.filter((r) => r.status === 'dead_lettered').map((r) => r.event_id));
    const recorded = new Set(ledger.filter((r) => r.status !== 'skipped').map((r) => r.event_id));
    // Dead letters waiting in the backlog: peeked (pulled and handed straight back).
    const backlog = backlogSubscriptionName(deadLetterTopicName(forwardSubscriptionName(d)));
    let orphans = 0;
    const sub = pubsub.subscription(backlog);
    const seen = await new Promise<string[]>((resolvePeek) => {
      const ids: string[] = [];
      const onMessage = (m: { attributes: Record<string, string>; data: Buffer; nack(): void }) => {
        const id =
          m.attributes['event_id'] ?? (JSON.parse(m.data.toString()) as { event_id?: string }).event_id;
        if (id?.startsWith(prefix)) ids.push(id);
        m.nack();
      };
      sub.on('message', onMessage);
      setTimeout(() => {
        sub.removeListener('message', onMessage);
        void sub.close().then(() => resolvePeek(ids));
      }, 3000);
    });
    for (const id of new Set(seen)) if (!deadLettered.has(id)) orphans++;
    const [unstored] = await q<{ n: number }>(
      `SELECT SUM(n) AS n FROM (${deliveredWithoutStoredRowSql('events', 'STARTS_WITH(d.event_id, @p) AND d.destination = @d')})`,
      { p: prefix, d },
    );
    const counts = receiver.received.get(d) as Map<string, number>;
    const before = beforeReplay.get(d) as Map<string, number>;
    const deliveredRows = new Map(
      (
        await q<{ event_id: string; n: number }>(
          `SELECT event_id, COUNT(*) AS n FROM events.deliveries
           WHERE destination = @d AND status = 'delivered' AND STARTS_WITH(event_id, @p)
             AND (reason IS NULL OR NOT STARTS_WITH(reason, @r)) GROUP BY event_id`,
          // A message recording its own earlier delivery again sent nothing: not a second send.
          { d, p: prefix, r: REDELIVERY_RECORD },
        )
      ).map((r) => [r.event_id, Number(r.n)]),
    );
    const arrived = receiver.arrivals.get(d) as Map<string, readonly Arrival[]>;
    const bySendTime = Object.fromEntries(SEND_TIMES.map((t) => [t, 0])) as Record<SendTime, number>;
    let withoutRow = 0;
    let duplicates = 0;
    const byCause: Record<DuplicateCause, number> = {
      'vendor retry': 0,
      'browser retry': 0,
      replay: 0,
      redelivery: 0,
      'unconfirmed send': 0,
    };
    for (const [id, n] of counts) {
      if (!id.startsWith(prefix)) continue;
      if (!recorded.has(id)) withoutRow++;
      // An id two events share is received twice by design.
      const expected = reusedIds.has(id) ? 2 : 1;
      if (n <= expected) continue;
      duplicates += n - expected;
      const replayed = Math.min(n - expected, n - (before.get(id) ?? 0));
      byCause.replay += replayed;
      // Of the rest, as many as the ledger recorded twice are a path's; the others unconfirmed.
      const rest = n - expected - replayed;
      const recordedAgain = Math.min(rest, Math.max(0, (deliveredRows.get(id) ?? 0) - expected));
      const cause: DuplicateCause = vendorIds.has(id)
        ? 'vendor retry'
        : browserIds.has(id)
          ? 'browser retry'
          : 'redelivery';
      byCause[cause] += recordedAgain;
      byCause['unconfirmed send'] += rest - recordedAgain;
      const first = arrived.get(id)?.[0];
      if (rest > recordedAgain && first)
        bySendTime[sendTime(first, receiver.marks, ['forward', 'supervisor'])] += rest - recordedAgain;
    }
    destinations.push({
      destination: d,
      acknowledged: acknowledged.size,
      stored,
      delivered: delivered.size,
      deadLettered: deadLettered.size,
      backlogWithoutLedgerRow: orphans,
      deliveredWithoutLedgerRow: withoutRow,
      deliveredWithoutStoredRow: Number(unstored?.n ?? 0),
      duplicatesReceived: duplicates,
      duplicatesByCause: byCause,
      unconfirmedBySendTime: bySendTime,
      frozenCalls: frozenArrivalSeconds(arrived.values(), receiver.marks),
      frozenCallsAbandoned: [...arrived.values()].flat().filter((a) => a.held && a.abandoned).length,
      received: [...counts.keys()].filter((id) => id.startsWith(prefix)).length,
    });
  }
  const trail = await undeliveredReport({
    q,
    destinations: targets,
    acknowledged,
    received: receiver.received,
    supervisorOutput: env.output(),
    logDir: join(dataDir, 'logs'),
  });
  await pubsub.close();
  env.child.kill('SIGINT');
  await new Promise((r) => (env.child.exitCode !== null ? r(null) : env.child.once('exit', r)));
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
  return {
    acknowledged: acknowledged.size,
    missing: acknowledged.size - stored,
    extraRows: Number(extra?.n ?? 0),
    copiesSent,
    destinations,
    restarts,
    seconds: Math.round((Date.now() - started) / 1000),
    ...trail,
  };
}

/** The report as a table, one row per destination. */
export function formatChaos(r: ChaosReport): string {
  const head = [
    'destination',
    'acknowledged',
    'stored',
    'delivered',
    'dead_lettered',
    'backlog w/o ledger row',
    'delivered w/o ledger row',
    'delivered w/o stored row',
    'duplicates received',
  ];
  const rows = r.destinations.map((d) => [
    d.destination,
    d.acknowledged,
    d.stored,
    d.delivered,
    d.deadLettered,
    d.backlogWithoutLedgerRow,
    d.deliveredWithoutLedgerRow,
    d.deliveredWithoutStoredRow,
    `${d.duplicatesReceived} (${percent(duplicateShare(d))})`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells: readonly unknown[]) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [
    `${r.acknowledged} acknowledged, ${r.missing} missing from events_dedup, ${r.extraRows} extra rows in events, ${r.copiesSent} producers' copies sent, ${r.restarts} kill -9 and restarts, ${r.seconds} s`,
    line(head),
    ...rows.map(line),
    '',
    'duplicates received (extra copies of an event a destination had already received; an id two events share counts from its third copy):',
    ...r.destinations.map(
      (d) =>
        `  ${d.destination}: ${d.duplicatesReceived} of ${d.acknowledged} events, ${percent(duplicateShare(d))} (at most ${percent(MAX_DUPLICATE_SHARE)}); by cause: ${Object.entries(
          d.duplicatesByCause,
        )
          .map(([cause, n]) => `${cause} ${n}`)
          .join(', ')}; unconfirmed by when the first copy went out: ${Object.entries(d.unconfirmedBySendTime)
          .map(([when, n]) => `${when} ${n}`)
          .join(', ')}`,
    ),
    'event copies the frozen destinations held, by seconds after the freeze began (second: copies):',
    ...r.destinations.map(
      (d) =>
        `  ${d.destination}: ${d.frozenCalls.length}, ${d.frozenCallsAbandoned} timed out before their answer (${perSecond(d.frozenCalls)})`,
    ),
    ...formatUndelivered(r.undelivered, r.stops),
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      events: { type: 'string' },
      rate: { type: 'string' },
      freeze: { type: 'string' },
      kills: { type: 'string' },
      copies: { type: 'string' },
      destinations: { type: 'string' },
    },
  });
  if (values.destinations !== undefined && values.destinations !== 'none')
    throw new Error(
      `--destinations: only "none" is known (the run's three stand-ins otherwise), not "${values.destinations}"`,
    );
  const report = await runChaos({
    ...DEFAULT_CHAOS,
    ...(values.events ? { events: Number(values.events) } : {}),
    ...(values.rate ? { rate: Number(values.rate) } : {}),
    ...(values.freeze ? { freezeSeconds: Number(values.freeze) } : {}),
    ...(values.kills ? { kills: values.kills.split(',') } : {}),
    ...(values.copies !== undefined
      ? { copySeconds: values.copies === '' ? [] : values.copies.split(',').map(Number) }
      : {}),
    ...(values.destinations === 'none' ? { destinations: false, replay: false } : {}),
  });
  console.log(formatChaos(report));
  const problems = chaosProblems(report);
  for (const p of problems) console.log(`FAIL ${p}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
