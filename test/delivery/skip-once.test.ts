/**
 * One `skipped` row per event and destination whatever the copies (#96): a store push that wrote
 * its row and its skip rows, then stopped before its acknowledgement, comes back as the same
 * message; its fan-out asks the ledger (adapters/skip-check.ts's question, here over the rows
 * written) and writes no second skip row. A push that stopped before its ledger write still gets
 * its rows on the redelivery, and a failed check writes them (fail-open). Through storeMessages,
 * the identity claims (in memory) and the fan-out store runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { createIdentityClaims } from '../../adapters/identity-claims.ts';
import { createSkipCheck, skipKey, skippedRowsQuery } from '../../adapters/skip-check.ts';
import { createStoreFanOut } from '../../adapters/store-fan-out.ts';
import { skippedEntry } from '../../core/delivery/ledger.ts';
import { plan } from '../../core/plan.ts';
import type { PubSubMessage } from '../../core/store/message.ts';
import { storeConfig, storeMessages } from '../../core/store/store.ts';
import type { RowWriter } from '../../core/warehouse/rows.ts';
import { deliveryColumns } from '../../core/warehouse/warehouse.ts';
import { startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import type { Settings } from '../../schemas/settings.ts';
import { memoryClaims } from '../support/memory-claims.ts';

const SETTINGS: Settings = {
  name: 'test',
  project: 'test-project',
  region: 'europe-west1',
  // Meta needs ads and ad_user_data, which the event refuses: one skip row per event.
  destinations: [{ id: 'meta', type: 'meta_capi', config: { pixel_id: '1' } }],
};
const T0 = Date.parse('2026-11-27T10:00:00.000Z');

function harness(opts: { failLedgerOnce?: boolean; failCheck?: boolean } = {}) {
  const rows: { table: string; json: Record<string, unknown> }[] = [];
  let failLedger = opts.failLedgerOnce === true;
  const writer: RowWriter = {
    async write(table, batch) {
      if (table === 'deliveries' && failLedger) {
        failLedger = false;
        throw new Error('the process stopped before the ledger write');
      }
      for (const r of batch) rows.push({ table, json: r.json });
      return [];
    },
  };
  const skips = () => rows.filter((r) => r.table === 'deliveries' && r.json['status'] === 'skipped');
  let now = T0;
  const asked: number[] = [];
  const fanOut = createStoreFanOut({
    settings: SETTINGS,
    rows: writer,
    publish: async () => {},
    now: () => new Date(now),
    // The skip check, its query answered from the rows written as skippedRowsQuery's SQL reads
    // the ledger: the skip rows of the questions' events since the earliest `since`.
    skipRecorded: createSkipCheck(
      async (questions) => {
        const since = Math.min(...questions.map((q) => q.since));
        asked.push(since);
        if (opts.failCheck) throw new Error('the warehouse did not answer');
        const ids = new Set(questions.map((q) => q.entry.row.event_id));
        return new Set(
          skips()
            .filter(
              (r) =>
                Date.parse(String(r.json['recorded_at'])) >= since && ids.has(String(r.json['event_id'])),
            )
            .map((r) =>
              skipKey(
                String(r.json['event_id']),
                r.json['payload_digest'] as string,
                String(r.json['destination']),
              ),
            ),
        );
      },
      { log: () => {} },
    ),
  });
  assert.ok(fanOut);
  const claim = createIdentityClaims(memoryClaims(), { now: () => now });
  const config = storeConfig(SETTINGS, plan(SETTINGS));
  const data = Buffer.from(
    JSON.stringify({
      event_name: 'page_view',
      event_id: 'pv-1',
      anonymous_id: 'a-1',
      consent: { analytics: 'granted', ads: 'denied' },
    }),
  );
  const message = (attempt: number): PubSubMessage => ({
    messageId: 'm-1',
    publishTime: new Date(T0).toISOString(),
    attributes: { event_name: 'page_view', event_id: 'pv-1' },
    data,
    subscription: 'projects/test-project/subscriptions/events-store',
    deliveryAttempt: attempt,
  });
  /** One store push of the message and its fan-out, as the handler runs them. */
  const push = async (attempt: number, at: number) => {
    now = at;
    const stored = (r: { event_id: string; payload_digest: string }) =>
      rows.some(
        (x) =>
          x.table === 'events' &&
          x.json['event_id'] === r.event_id &&
          x.json['payload_digest'] === r.payload_digest,
      );
    const outcome = await storeMessages([message(attempt)], {
      writer,
      config,
      now: () => now,
      claim,
      alreadyStored: async (q) => stored(q),
    });
    await fanOut(outcome.stored, outcome.storedMessages);
    return outcome;
  };
  return { rows, skips, push, asked };
}

describe('fan-out: one skipped row per event and destination across redeliveries (#96)', () => {
  it('a push stopped after its skip row, before its ack: the redelivery writes no second one', async () => {
    const h = harness();
    await h.push(1, T0 + 100);
    assert.equal(h.skips().length, 1);
    assert.deepEqual(h.asked, [], 'the first fan-out asks nothing');
    // Pub/Sub brings the same message back after the acknowledgement deadline.
    await h.push(2, T0 + 10 * 60_000);
    assert.equal(h.rows.filter((r) => r.table === 'events').length, 1, 'one row');
    assert.equal(h.skips().length, 1, 'one skip row');
    assert.equal(h.asked.length, 1, 'the redelivery asked the ledger');
    assert.ok((h.asked[0] ?? Number.POSITIVE_INFINITY) <= T0 + 100, 'from when the identity was claimed');
  });

  it('a push stopped before its ledger write: the redelivery writes the row once', async () => {
    const h = harness({ failLedgerOnce: true });
    await assert.rejects(h.push(1, T0 + 100), /stopped before the ledger write/);
    assert.equal(h.skips().length, 0);
    await h.push(2, T0 + 10 * 60_000);
    assert.equal(h.skips().length, 1);
    await h.push(3, T0 + 20 * 60_000);
    assert.equal(h.skips().length, 1, 'and a third delivery adds none');
  });

  it('a check that cannot answer writes the row (a second one rather than none)', async () => {
    const h = harness({ failCheck: true });
    await h.push(1, T0 + 100);
    await h.push(2, T0 + 10 * 60_000);
    assert.equal(h.asked.length, 1);
    assert.equal(h.skips().length, 2, 'fail-open: never a skip row lost over the ledger');
  });

  it('the ledger query finds a skip row by its identity and destination, not a replay’s or another’s (BigQuery emulator)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'skip-check-'));
    const emulator = await startBigQueryEmulator({ port: 0, dataDir });
    try {
      const bq = new BigQuery({ projectId: 'skip-project', apiEndpoint: emulator.url });
      await bq.createDataset('events');
      await bq.dataset('events').createTable('deliveries', { schema: deliveryColumns() as never });
      const event = { event_id: 'pv-1', event_name: 'page_view', payload_digest: 'd1' };
      const at = new Date(T0);
      await bq
        .dataset('events')
        .table('deliveries')
        .insert([
          skippedEntry(event, 'meta', 'consent ads denied', at).row,
          skippedEntry({ ...event, event_id: 'pv-2' }, 'meta', 'consent ads denied', at, true).row,
          { ...skippedEntry({ ...event, event_id: 'pv-3' }, 'meta', 'x', at).row, status: 'delivered' },
        ]);
      const check = createSkipCheck(skippedRowsQuery(bq, 'events'));
      const ask = (eventId: string, destination: string, since = T0 - 1000) =>
        check(skippedEntry({ ...event, event_id: eventId }, destination, 'r', at), since);
      assert.equal(await ask('pv-1', 'meta'), true);
      assert.equal(await ask('pv-1', 'ga4'), false, 'another destination');
      assert.equal(await ask('pv-2', 'meta'), false, 'a replay’s skip row is its run’s');
      assert.equal(await ask('pv-3', 'meta'), false, 'not a skip');
      assert.equal(await ask('pv-1', 'meta', T0 + 1000), false, 'written before the time asked from');
    } finally {
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
