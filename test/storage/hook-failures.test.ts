/**
 * The store handler under the real functions framework, writing to the BigQuery emulator, with
 * after-store hooks that fail (functions/store/handler.ts, guardHooks): a failure no redelivery
 * can fix (the `Invalid time value` a `0m` once-per period threw) is recorded in `hook_failures`
 * and acknowledged — one row, one fan-out, no month of redeliveries — while a transient one
 * answers 503 and its redelivery writes no second row. Pushes are sent as Pub/Sub sends them.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { createWriteApiWriter } from '../../adapters/bigquery-write-api.ts';
import { createIdentityClaims } from '../../adapters/identity-claims.ts';
import { createStoredCheck, eventsStoredQuery } from '../../adapters/stored-check.ts';
import type { StoredEvent } from '../../core/event.ts';
import { identityKey } from '../../core/identity.ts';
import { plan } from '../../core/plan.ts';
import { storeConfig } from '../../core/store/store.ts';
import { type Harness, startHarness } from '../../emulators/bigquery/test/support/helpers.ts';
import { createStoreHandler, guardHooks } from '../../functions/store/handler.ts';
import { provision } from '../../local/provision.ts';
import { memoryClaims } from '../support/memory-claims.ts';
import { testSettings } from './support.ts';

const settings = testSettings();
const p = plan(settings);

/** What the rules hook does on the next push. */
let rules: 'ok' | 'bug' | 'outage' = 'ok';
const fannedOut: StoredEvent[] = [];

describe('storage: a failure after the write never multiplies rows or deliveries', function () {
  this.timeout(60_000);
  let h: Harness;
  let server: Server;
  let url = '';

  before(async () => {
    h = await startHarness(p.project);
    await provision(p, { project: p.project, bigquery: h.emulator.url, functionUrl: () => '' });
    const writer = createWriteApiWriter(h.bq, p.dataset);
    const afterStored = guardHooks(
      [
        {
          name: 'fan_out',
          run: async (events) => {
            fannedOut.push(...events);
          },
        },
        {
          name: 'rules',
          run: async () => {
            // What `once_per.period: 0m` did: new Date(NaN).toISOString().
            if (rules === 'bug') new Date(Number.NaN).toISOString();
            if (rules === 'outage')
              throw Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });
          },
        },
      ],
      { writer, log: () => undefined },
    );
    http(
      'storeHookFailuresTest',
      createStoreHandler({
        config: storeConfig(settings, p),
        writer,
        ...(afterStored ? { afterStored } : {}),
        alreadyStored: createStoredCheck(eventsStoredQuery(h.bq, p.dataset)),
        // As store runs: the first sighting of each identity is claimed, so the redelivery of a
        // message whose hooks failed finds its own claim and asks `events` before writing again.
        claim: createIdentityClaims(memoryClaims()),
        log: () => undefined,
      }),
    );
    server = getTestServer('storeHookFailuresTest');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await h?.stop();
  });

  const push = (event: Record<string, unknown>, messageId: string, deliveryAttempt: number) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message: {
          data: Buffer.from(JSON.stringify(event)).toString('base64'),
          attributes: {},
          messageId,
          publishTime: new Date().toISOString(),
        },
        subscription: `projects/${p.project}/subscriptions/events-store`,
        deliveryAttempt,
      }),
    });
  const rows = async (sql: string) => {
    const [r] = await h.bq.query({
      query: sql,
      defaultDataset: { projectId: p.project, datasetId: p.dataset },
    });
    return r as Record<string, unknown>[];
  };
  const purchase = (id: string) => ({
    event_name: 'purchase',
    event_id: id,
    event_time: new Date(Date.now() - 60_000).toISOString(),
    transaction_id: `T-${id}`,
    value: 10,
    currency: 'EUR',
  });

  it('records a deterministic hook failure in hook_failures and acknowledges: one row, one fan-out', async () => {
    rules = 'bug';
    fannedOut.length = 0;
    const res = await push(purchase('bug-1'), 'm-bug-1', 1);
    assert.equal(res.status, 204);
    assert.deepEqual(await rows(`SELECT COUNT(*) AS n FROM events WHERE event_id = 'bug-1'`), [{ n: 1 }]);
    assert.equal(fannedOut.filter((e) => e.event_id === 'bug-1').length, 1);
    const failures = await rows(
      `SELECT hook, event_name, error, attempt, message_id, payload_digest FROM hook_failures WHERE event_id = 'bug-1'`,
    );
    assert.equal(failures.length, 1);
    assert.equal(failures[0]?.['hook'], 'rules');
    assert.equal(failures[0]?.['event_name'], 'purchase');
    assert.equal(failures[0]?.['error'], 'RangeError: Invalid time value');
    assert.equal(failures[0]?.['attempt'], 1);
    assert.equal(failures[0]?.['message_id'], 'm-bug-1');
    assert.match(String(failures[0]?.['payload_digest']), /^[0-9a-f]{64}$/);
  });

  it('answers 503 on a transient hook failure; the redelivery stores no second row', async () => {
    rules = 'outage';
    const event = purchase('flaky-1');
    const first = await push(event, 'm-flaky-1', 1);
    assert.equal(first.status, 503);
    rules = 'ok';
    // The redelivery is the same message: same data.
    const second = await push(event, 'm-flaky-1', 2);
    assert.equal(second.status, 204);
    assert.deepEqual(await rows(`SELECT COUNT(*) AS n FROM events WHERE event_id = 'flaky-1'`), [{ n: 1 }]);
    assert.deepEqual(await rows(`SELECT COUNT(*) AS n FROM hook_failures WHERE event_id = 'flaky-1'`), [
      { n: 0 },
    ]);
  });

  it('finds a stored row by its identity in the warehouse, the check late redeliveries make', async () => {
    const [stored] = await rows(
      `SELECT event_id, event_time, payload_digest FROM events WHERE event_id = 'bug-1'`,
    );
    assert.ok(stored);
    const digest = String(stored['payload_digest']);
    const time = (stored['event_time'] as { value: string }).value;
    const found = await eventsStoredQuery(h.bq, p.dataset)(
      [
        { event_id: 'bug-1', event_time: time, payload_digest: digest },
        { event_id: 'bug-1', event_time: time, payload_digest: 'another-content' },
      ],
      new AbortController().signal,
    );
    assert.deepEqual([...found], [identityKey('bug-1', digest)]);
  });
});
