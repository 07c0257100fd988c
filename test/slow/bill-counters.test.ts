/**
 * The bill cannot drift from the code (#97): after events run through the local environment
 * (`eventbus start`), the twins' own records of what happened are set against the operations per
 * event the bill prices (core/deploy/bill.ts):
 *
 * - Firestore documents written, from the Firestore emulator's write log (each committed write is
 *   one record there, as each is one billed write on Firestore): `identities` and `sends` against
 *   `claimCounts` with no retry share (the run has no retry, copy or replay), and each claim
 *   document's stored size (Google's storage-size formula, the twin's `documentBytes`) against
 *   CLAIM_DOCUMENT_BYTES;
 * - Pub/Sub messages published on each destination's `deliveries-<id>` topic, counted on a
 *   subscription of our own on each made before the events, and the subscriptions that bill each
 *   of them (exactly one a topic), against the delivered rows and `pubsubBytesPerEvent` with the
 *   topology the bill reads off the plan (`pubsubTopologyOf`: a topic per destination);
 * - BigQuery queries run by `store` and `forward`: none, as the bill has none on the event path.
 *
 * With the claims in Bigtable (`claims.store: bigtable`, a second environment, the same events):
 * the data API calls the Bigtable twin answered on the claims table (its own count,
 * emulators/bigtable/calls.ts) against `claimCounts` as bigtableMonth prices them (a
 * CheckAndMutateRow a claim write, a ReadRows a read, their row operations), no Firestore claim
 * document written, and the stored size of a claim row against BIGTABLE_ROW_BYTES.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import {
  CLAIM_DOCUMENT_BYTES,
  CLAIM_RETRY_SHARE,
  claimCounts,
  pubsubBytesPerEvent,
  pubsubTopologyOf,
} from '../../core/deploy/bill.ts';
import { BIGTABLE_ROW_BYTES, bigtableRowOperations } from '../../core/deploy/claim-stores.ts';
import { PRICES } from '../../core/deploy/cost.ts';
import { plan } from '../../core/plan.ts';
import { readCallCounts } from '../../emulators/bigtable/calls.ts';
import { readLog } from '../../emulators/common/append-log.ts';
import { documentBytes } from '../../emulators/firestore/limits.ts';
import type { Fields } from '../../emulators/firestore/values.ts';
import type { Settings } from '../../schemas/settings.ts';
import { twinBigtable } from '../support/local-bigtable.ts';
import type { StartedLocal } from '../support/local-start.ts';
import {
  localBigQuery,
  localSettingsWith,
  postViewContent,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

const EVENTS = 5;

type Delivery = { event_id: string; destination: string; status: string };

type LoggedWrite = { name: string; fields?: Fields; deleted?: true };

/** The writes the Firestore emulator committed, in order, from its log. */
function firestoreLog(dataDir: string): LoggedWrite[] {
  const log = join(dataDir, 'firestore', 'firestore.log');
  if (!existsSync(log)) return [];
  const out: LoggedWrite[] = [];
  for (const record of readLog(log).records) {
    const r = JSON.parse(record.toString('utf8')) as { t: string; writes?: LoggedWrite[] };
    if (r.t === 'w') out.push(...(r.writes ?? []));
  }
  return out;
}

const groupOf = (name: string): string => {
  const segs = name.split('/');
  return segs[segs.length - 2] as string;
};

/** Writes the Firestore emulator committed, by collection group, from its log. */
function firestoreWrites(dataDir: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of firestoreLog(dataDir)) counts.set(groupOf(w.name), (counts.get(groupOf(w.name)) ?? 0) + 1);
  return counts;
}

/** How far the measured size of a claim document may be from CLAIM_DOCUMENT_BYTES (a share of it). */
const DOCUMENT_BYTES_MARGIN = 0.1;
/** The smallest and largest of some sizes, as `min–max`. */
const span = (xs: readonly number[]) => `${Math.min(...xs)}–${Math.max(...xs)}`;

/**
 * The run both environments make: EVENTS events posted to the gateway, then waited for until every
 * one is delivered and nothing more moves; asserts no retry, copy or replay happened (the counts
 * assume none). Resolves with the events' delivery rows.
 */
async function runEvents(local: StartedLocal, bigquery: BigQuery, prefix: string): Promise<Delivery[]> {
  const rows = async (ids: readonly string[]) =>
    (
      await bigquery.query({
        query: 'SELECT event_id, destination, status FROM events.deliveries WHERE event_id IN UNNEST(@ids)',
        params: { ids: [...ids] },
      })
    )[0] as Delivery[];
  const ids = Array.from({ length: EVENTS }, (_, i) => `${prefix}-${i}`);
  for (const id of ids) {
    const res = await postViewContent(`http://127.0.0.1:${local.ports['gateway']}`, local.dataDir, id);
    assert.equal(res.status, 200, await res.clone().text());
  }
  // Every event's deliveries settled, and the count steady across two looks a few seconds apart.
  let last = -1;
  const settled = await until(
    'every event delivered and nothing more moving',
    async () => {
      const r = await rows(ids);
      const delivered = r.filter((x) => x.status === 'delivered');
      const steady = delivered.length === last;
      last = delivered.length;
      return steady && ids.every((id) => delivered.some((x) => x.event_id === id)) ? r : undefined;
    },
    240_000,
    3000,
  );
  assert.deepEqual(
    settled.filter((r) => r.status !== 'delivered' && r.status !== 'skipped'),
    [],
    'no retry, copy or replay in this run: the counts below assume none',
  );
  return settled;
}

describe('end to end: the operations the bill prices are the ones the twins saw', function () {
  this.timeout(300_000);
  let local: StartedLocal | undefined;
  let bigquery: BigQuery;
  const url = (service: string) => `http://127.0.0.1:${local?.ports[service]}`;
  const pubsub = () => `${url('pubsub')}/v1/projects/local-project`;
  const run = Date.now().toString(36);

  before(async () => {
    local = await startLocalCli({ prefix: 'eventbus-bill-counters-' });
    bigquery = await localBigQuery(local.ports);
  });
  after(() => stopLocal(local?.child, local?.dataDir ?? ''));

  it('writes the claim documents and publishes the delivery messages the bill counts, and runs no query', async () => {
    // The local environment's plan, as `eventbus start` provisioned it.
    const settings = JSON.parse(
      readFileSync(join(local?.dataDir ?? '', 'settings.json'), 'utf8'),
    ) as Settings;
    const p = plan(settings);
    assert.equal(pubsubTopologyOf(p), 'topic-per-destination', 'the bill prices a topic per destination');
    const topics = [...new Set(p.destinations.map((d) => d.topic))];
    assert.equal(topics.length, p.destinations.length, 'a topic per destination');
    // A subscription of our own on each deliveries topic, made before any event: it sees every message.
    const counters = topics.map((topic) => ({ topic, counter: `bill-counter-${run}-${topic}` }));
    for (const { topic, counter } of counters) {
      const made = await fetch(`${pubsub()}/subscriptions/${counter}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ topic: `projects/local-project/topics/${topic}`, ackDeadlineSeconds: 60 }),
      });
      assert.equal(made.status, 200, await made.clone().text());
    }
    if (!local) throw new Error('no local environment');
    const before = firestoreWrites(local.dataDir);
    const logBefore = firestoreLog(local.dataDir).length;
    const settled = await runEvents(local, bigquery, `bill-${run}`);
    const deliveries = settled.filter((r) => r.status === 'delivered').length;
    const perEvent = deliveries / EVENTS;
    assert.ok(perEvent >= 1, `${deliveries} deliveries`);

    // Firestore: an identity claim an event, a settled record a delivery, one write each.
    const after = firestoreWrites(local.dataDir);
    const written = (group: string) => (after.get(group) ?? 0) - (before.get(group) ?? 0);
    const model = claimCounts(EVENTS, perEvent, 'per-delivery', 0);
    assert.equal(written('identities') + written('sends'), model.writes, JSON.stringify([...after]));
    assert.equal(written('identities'), EVENTS);
    assert.equal(written('sends'), deliveries);
    // Each claim document as it stands after the run (its last write), sized as Google's storage
    // page counts it (the twin's own measure of the 1 MiB limit): what CLAIM_DOCUMENT_BYTES prices.
    const last = new Map<string, LoggedWrite>();
    for (const w of firestoreLog(local.dataDir).slice(logBefore))
      if (['identities', 'sends'].includes(groupOf(w.name))) last.set(w.name, w);
    const byGroup = (g: string) =>
      [...last.values()]
        .filter((w) => groupOf(w.name) === g && w.fields)
        .map((w) => documentBytes(w.name, w.fields ?? {}));
    const stored = [...byGroup('identities'), ...byGroup('sends')];
    assert.equal(stored.length, model.documents, 'every claim document of the run, once');
    const meanDoc = stored.reduce((a, b) => a + b, 0) / stored.length;
    console.log(
      `      claim documents stored: identities ${span(byGroup('identities'))} bytes, sends ${span(byGroup('sends'))}, mean ${meanDoc.toFixed(1)} (CLAIM_DOCUMENT_BYTES ${CLAIM_DOCUMENT_BYTES})`,
    );
    assert.ok(
      Math.abs(meanDoc - CLAIM_DOCUMENT_BYTES) <= DOCUMENT_BYTES_MARGIN * CLAIM_DOCUMENT_BYTES,
      `a claim document stores ${meanDoc.toFixed(1)} bytes; the bill prices ${CLAIM_DOCUMENT_BYTES} (±${DOCUMENT_BYTES_MARGIN * 100} %)`,
    );

    // Pub/Sub: one message a delivery on its destination's topic, billed by that topic's one subscription.
    let published = 0;
    for (const { counter } of counters)
      for (;;) {
        const pulled = await fetch(`${pubsub()}/subscriptions/${counter}:pull`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ maxMessages: 1000, returnImmediately: true }),
        });
        assert.equal(pulled.status, 200, await pulled.clone().text());
        const got =
          ((await pulled.json()) as { receivedMessages?: { ackId: string }[] }).receivedMessages ?? [];
        if (got.length === 0) break;
        published += got.length;
        await fetch(`${pubsub()}/subscriptions/${counter}:acknowledge`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ackIds: got.map((m) => m.ackId) }),
        });
      }
    assert.equal(published, deliveries, 'one deliveries message per delivery');
    // Each destination's topic has one subscription besides ours: each message is billed once.
    let billing = 0;
    for (const { topic, counter } of counters) {
      const listed = await fetch(`${pubsub()}/topics/${topic}/subscriptions`);
      const names = ((await listed.json()) as { subscriptions?: string[] }).subscriptions ?? [];
      const others = names.filter((n) => !n.endsWith(`/${counter}`));
      assert.equal(others.length, 1, `${topic}: ${others.join(', ')}`);
      billing = Math.max(billing, others.length);
    }
    // No shared topic beside them, whose subscriptions would bill every message again.
    assert.equal((await fetch(`${pubsub()}/topics/deliveries`)).status, 404);
    // The bill's Pub/Sub bytes an event, at these counts and no retry share, are what the twin saw:
    // the event published and pushed, each delivery published and delivered to every subscription.
    const shape = {
      eventBytes: PRICES.pubsubMinimumBytes,
      eventsPerRequest: 1,
      destinationsPerEvent: perEvent,
    };
    const seen = (2 + perEvent * (1 + billing)) * PRICES.pubsubMinimumBytes;
    const retried = perEvent * CLAIM_RETRY_SHARE * PRICES.pubsubMinimumBytes;
    assert.ok(
      Math.abs(pubsubBytesPerEvent(pubsubTopologyOf(p), shape, p.destinations.length) - retried - seen) <
        1e-6,
      `${billing} subscription a deliveries topic`,
    );

    // BigQuery: no job run by store or forward (the bill prices no query on the event path).
    const res = await fetch(
      `${url('bigquery')}/bigquery/v2/projects/local-project/jobs?allUsers=true&maxResults=100000`,
    );
    const jobs = ((await res.json()) as { jobs?: { user_email?: string }[] }).jobs ?? [];
    const onPath = jobs.filter((j) =>
      /^eventbus-(store|forward|forward-catalog)@/.test(String(j.user_email)),
    );
    assert.deepEqual(onPath, [], 'queries on the event path');
  });
});

/**
 * A claim row's stored bytes as we read Bigtable's storage pricing (cloud.google.com/bigtable/
 * pricing, "Storage": the physical size of Bigtable's internal representation on disk, which it
 * compresses and compacts; no formula per cell is published): each cell is kept with its whole
 * coordinates, as in the sorted files of the Bigtable paper, so a cell is its row key, family,
 * qualifier, 8-byte timestamp and value. Compression would make it smaller, the files' own index
 * and block overhead larger; neither is counted.
 */
function storedRowBytes(key: string, data: Record<string, Record<string, { value: Buffer }[]>>): number {
  let bytes = 0;
  for (const [family, columns] of Object.entries(data))
    for (const [qualifier, cells] of Object.entries(columns))
      for (const cell of cells)
        bytes +=
          Buffer.byteLength(key) +
          Buffer.byteLength(family) +
          Buffer.byteLength(qualifier) +
          8 +
          cell.value.length;
  return bytes;
}

/** How far the measured bytes of a claim row may be from BIGTABLE_ROW_BYTES (a share of it). */
const ROW_BYTES_MARGIN = 0.1;

describe('end to end: the Bigtable claim calls the bill prices are the ones the twin answered', function () {
  this.timeout(300_000);
  let local: StartedLocal | undefined;
  let bigquery: BigQuery;
  const run = Date.now().toString(36);

  before(async () => {
    local = await startLocalCli({
      prefix: 'eventbus-bill-counters-bigtable-',
      settings: localSettingsWith('bigtable-claims.yaml', '\nclaims:\n  store: bigtable\n'),
    });
    bigquery = await localBigQuery(local.ports);
  });
  after(() => stopLocal(local?.child, local?.dataDir ?? ''));

  it('answers a CheckAndMutateRow a claim write and no read, writes no Firestore claim, and keeps rows of the size the bill stores', async () => {
    if (!local) throw new Error('no local environment');
    const dataDir = local.dataDir;
    const settings = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Settings;
    const bt = plan(settings).claims.bigtable;
    assert.ok(bt, 'the plan keeps the claims in Bigtable');
    /** The twin's counts on the claims table, by method. */
    const counted = () => {
      const all = readCallCounts(join(dataDir, 'bigtable'));
      const table = Object.keys(all).filter((name) =>
        name.endsWith(`/instances/${bt.instance}/tables/${bt.table}`),
      );
      assert.ok(table.length <= 1, table.join());
      return all[table[0] ?? ''] ?? {};
    };
    const firestoreBefore = firestoreWrites(dataDir);
    const before = counted();

    const settled = await runEvents(local, bigquery, `bill-bt-${run}`);
    const deliveries = settled.filter((r) => r.status === 'delivered').length;
    const perEvent = deliveries / EVENTS;
    assert.ok(perEvent >= 1, `${deliveries} deliveries`);

    // The twin's count is written at most 100 ms after a call; the settling took seconds more.
    const after = counted();
    const delta = (method: string, field: 'calls' | 'rowsRead' | 'rowsMutated') =>
      (after[method]?.[field] ?? 0) - (before[method]?.[field] ?? 0);
    const model = claimCounts(EVENTS, perEvent, 'per-delivery', 0);
    const seen = JSON.stringify({ before, after });
    // A claim write is one CheckAndMutateRow that writes its row; a claim read one ReadRows.
    assert.equal(delta('CheckAndMutateRow', 'calls'), model.writes, seen);
    assert.equal(delta('CheckAndMutateRow', 'rowsMutated'), model.writes, seen);
    assert.equal(delta('ReadRows', 'calls'), model.reads, seen);
    // Nothing else on the claims table.
    const others = Object.keys(after).filter(
      (m) => m !== 'CheckAndMutateRow' && m !== 'ReadRows' && delta(m, 'calls') !== 0,
    );
    assert.deepEqual(others, [], seen);
    // The row operations the nodes are sized for: each call's row read and row written.
    const rowOps = Object.keys(after).reduce((n, m) => n + delta(m, 'rowsRead') + delta(m, 'rowsMutated'), 0);
    assert.equal(rowOps, bigtableRowOperations(model.writes, model.reads), seen);

    // No claim document in Firestore this run.
    const firestoreAfter = firestoreWrites(dataDir);
    for (const group of ['identities', 'sends'])
      assert.equal(
        (firestoreAfter.get(group) ?? 0) - (firestoreBefore.get(group) ?? 0),
        0,
        `Firestore ${group} written`,
      );

    // The claim rows of this run's events, read from the twin, and their stored size.
    const { client } = await twinBigtable(dataDir);
    /** Stored bytes of each claim row, by its space (the key's prefix). */
    const bySpace = new Map<string, number[]>();
    try {
      const [rows] = await client.instance(bt.instance).table(bt.table).getRows({ decode: false });
      for (const r of rows) {
        const key = String(r.id);
        const space = key.split('#')[0] ?? '';
        const data = r.data as Record<string, Record<string, { value: Buffer }[]>>;
        bySpace.set(space, [...(bySpace.get(space) ?? []), storedRowBytes(key, data)]);
      }
    } finally {
      await client.close();
    }
    // Every claim of the run is a row: an identity an event, a settled record a delivery.
    assert.equal(bySpace.get('identities')?.length, EVENTS);
    assert.equal(bySpace.get('sends')?.length, deliveries);
    const sizes = [...bySpace.values()].flat();
    assert.equal(sizes.length, model.documents, [...bySpace.keys()].join());
    const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
    const range = (xs: readonly number[] = []) => `${Math.min(...xs)}–${Math.max(...xs)}`;
    console.log(
      `      claim rows stored: identities ${range(bySpace.get('identities'))} bytes, sends ${range(bySpace.get('sends'))}, mean ${mean.toFixed(1)} (BIGTABLE_ROW_BYTES ${BIGTABLE_ROW_BYTES})`,
    );
    assert.ok(
      Math.abs(mean - BIGTABLE_ROW_BYTES) <= ROW_BYTES_MARGIN * BIGTABLE_ROW_BYTES,
      `a claim row stores ${mean.toFixed(1)} bytes; the bill prices ${BIGTABLE_ROW_BYTES} (±${ROW_BYTES_MARGIN * 100} %)`,
    );
  });
});
