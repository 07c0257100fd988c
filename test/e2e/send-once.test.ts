/**
 * One event, one delivery, whatever path the copy took (#73), through the running local
 * environment (`eventbus start`): a Stripe-signed webhook sent twice at once and once more after
 * the first was delivered (each copy signed afresh, as Stripe signs its retries), the same event
 * with its own `event_time` POSTed twice to `/v1/topics/events`, and twice as a Pub/Sub envelope
 * to `…:publish`. Each is one row in `events`, one `delivered` ledger row and one request
 * received per destination, and the later copies are `folded` rows. The copies come seconds
 * apart, not minutes: what folds them is the first-sighting claim in `store` and the send-once
 * claim in `forward`, never BigQuery's insertId window, so the wait changes nothing but the
 * test's length (test/unit/claims/send-once.test.ts runs the same rules at +2 min, +10 min and
 * 3 days).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import {
  addSdkAndStripeSources,
  eventbusIn,
  localBigQuery,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import { stripeHeader, TEST_SECRET } from '../support/source-cases.ts';
import { until } from '../support/until.ts';

interface Received {
  readonly destination: string;
  readonly eventId?: string;
  readonly status: number;
}

describe('end to end: one event, one delivery, whatever path the copy took', function () {
  this.timeout(300_000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  const ports: Record<string, number> = {};
  let bigquery: BigQuery;
  const run = Date.now().toString(36);
  const gateway = () => `http://127.0.0.1:${ports['gateway']}`;
  const token = () => readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  const query = async <T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> =>
    (await bigquery.query({ query: sql, params }))[0] as T[];

  const rows = async (id: string) =>
    Number(
      (await query<{ n: number }>('SELECT COUNT(*) AS n FROM events.events WHERE event_id = @id', { id }))[0]
        ?.n,
    );
  /** Ledger rows of one status per destination. */
  const ledger = async (id: string, status: string) =>
    Object.fromEntries(
      (
        await query<{ destination: string; n: number }>(
          `SELECT destination, COUNT(*) AS n FROM events.deliveries
           WHERE event_id = @id AND status = @status GROUP BY destination`,
          { id, status },
        )
      ).map((r) => [r.destination, Number(r.n)]),
    );
  /** Requests each stand-in took (2xx) for an event id. */
  const received = async (id: string) => {
    const r = (await (await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`)).json()) as {
      received: Received[];
    };
    const out: Record<string, number> = {};
    for (const x of r.received)
      if (x.eventId === id && x.status >= 200 && x.status < 300)
        out[x.destination] = (out[x.destination] ?? 0) + 1;
    return out;
  };

  /**
   * Waits until every destination that got the event has a folded row per later copy, then checks
   * the promise: one row, and per destination one delivered row and one request received.
   */
  const assertOnce = async (id: string, copies: number) => {
    await until(
      `${copies} copies of ${id} folded at the webhook`,
      async () => ((await ledger(id, 'folded'))['webhook'] === copies ? true : undefined),
      120_000,
    );
    // Let anything still in flight land before counting.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await rows(id), 1, 'one row in events');
    const delivered = await ledger(id, 'delivered');
    assert.equal(delivered['webhook'], 1, JSON.stringify(delivered));
    for (const [destination, n] of Object.entries(delivered))
      assert.equal(n, 1, `${destination}: ${n} delivered rows`);
    const folded = await ledger(id, 'folded');
    for (const destination of Object.keys(delivered))
      assert.equal(folded[destination], copies, `${destination}: ${JSON.stringify(folded)} folded rows`);
    const got = await received(id);
    assert.equal(got['webhook'], 1, JSON.stringify(got));
    for (const [destination, n] of Object.entries(got))
      assert.equal(n, 1, `${destination} received it ${n} times`);
  };

  before(async () => {
    const local = await startLocalCli({ prefix: 'eventbus-send-once-' });
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    bigquery = await localBigQuery(ports);
    await addSdkAndStripeSources(dataDir, TEST_SECRET);
  });

  after(async () => {
    await stopLocal(child, dataDir);
  });

  it('a Stripe-signed webhook sent twice at once and once more later: one row, one delivery, two folded copies', async () => {
    const id = `evt_sendonce_${run}`;
    const fixture = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '..', 'fixtures', 'sources', 'stripe', 'checkout-session-completed.json'),
        'utf8',
      ),
    ) as Record<string, unknown>;
    const body = JSON.stringify({ ...fixture, id, created: Math.floor(Date.now() / 1000) - 60 });
    const url = `${gateway()}/v1/translators/stripe`;
    // Byte-identical bodies; each copy signed when it is sent, as Stripe signs a retry.
    const post = async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...(await stripeHeader(body)) },
        body,
      });
      return { status: res.status, text: await res.text() };
    };
    const live = await until(
      'the stripe translator live',
      async () => {
        const r = await post();
        return r.status === 404 ? undefined : r;
      },
      60_000,
    );
    assert.equal(live.status, 200, live.text);
    const twin = await post();
    assert.equal(twin.status, 200, twin.text);
    await until(
      'the first delivery',
      async () => ((await ledger(id, 'delivered'))['webhook'] ? true : undefined),
      60_000,
    );
    const late = await post();
    assert.equal(late.status, 200, late.text);
    await assertOnce(id, 2);
  });

  it('an event with its own event_time POSTed twice to /v1/topics/events: one row, one delivery', async () => {
    const id = `topics-${run}`;
    const event = JSON.stringify({
      event_id: id,
      event_time: new Date(Date.now() - 5_000).toISOString(),
      content_name: 'Red Shoe',
      content_type: 'product',
      value: 49.9,
      currency: 'EUR',
      user: { email: `once-${run}@example.com` },
      consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
    });
    const post = () =>
      fetch(`${gateway()}/v1/topics/view_content`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
        body: event,
      });
    assert.equal((await post()).status, 200);
    await until(
      'the first delivery',
      async () => ((await ledger(id, 'delivered'))['webhook'] ? true : undefined),
      60_000,
    );
    assert.equal((await post()).status, 200);
    await assertOnce(id, 1);
  });

  it('the same envelope published twice on the :publish form: one row, one delivery', async () => {
    const id = `publish-${run}`;
    const data = Buffer.from(
      JSON.stringify({
        event_name: 'purchase',
        event_id: id,
        event_time: new Date(Date.now() - 5_000).toISOString(),
        transaction_id: `T-${run}`,
        value: 99.5,
        currency: 'EUR',
        user: { email: `pub-${run}@example.com` },
        consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
      }),
    ).toString('base64');
    const post = () =>
      fetch(`${gateway()}/v1/projects/local-project/topics/events:publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ data }] }),
      });
    const [a, b] = await Promise.all([post(), post()]);
    assert.deepEqual([a.status, b.status], [200, 200]);
    await assertOnce(id, 1);
  });

  it('a browser SDK’s call sent again with the same messageId (Segment’s /v1/t with a write key): one row, one delivery', async () => {
    const origin = 'https://shop.example';
    const created = await eventbusIn(dataDir)('key', 'create', '--origin', origin);
    const key = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0] ?? '';
    assert.ok(key, created);
    const messageId = `ajs-next-${run}`;
    // What @segment/analytics-next posts for analytics.track() (its retry resends the same body).
    const body = JSON.stringify({
      type: 'track',
      event: 'Product Viewed',
      messageId,
      anonymousId: `anon-${run}`,
      timestamp: new Date(Date.now() - 5_000).toISOString(),
      properties: { product_id: 'SKU-1', name: 'Red Shoe', price: 49.9, currency: 'EUR' },
      context: { page: { url: `${origin}/p/red-shoe` } },
    });
    const post = () =>
      fetch(`${gateway()}/v1/t`, {
        method: 'POST',
        headers: { 'x-write-key': key, origin, 'content-type': 'text/plain' },
        body,
      });
    const first = await until(
      'the segment translator and the key live',
      async () => {
        const r = await post();
        return r.status === 200 ? r : undefined;
      },
      60_000,
    );
    assert.equal(first.status, 200);
    await until(
      'the first delivery',
      async () => ((await ledger(messageId, 'delivered'))['webhook'] ? true : undefined),
      60_000,
    );
    assert.equal((await post()).status, 200);
    await assertOnce(messageId, 1);
  });
});
