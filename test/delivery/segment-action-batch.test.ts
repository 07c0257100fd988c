/**
 * Batches, as Segment sends them (docs/catalog-destinations.md, "Batches"): an action Segment
 * batches by default (Klaviyo's trackEvent: `enable_batching` defaults to true) gets the
 * deliveries in flight to its destination in one request by its `performBatch`, through the
 * forward core with the driver forward-catalog carries and the send-once claims in memory. Each
 * event keeps its own claim and its own ledger row, from its own entry of the multi-status
 * answer: one event the action refuses is rejected while the others go out; one the platform
 * refuses is rejected with its status while the others are retried. A batch holds at most the
 * action's `batch_size`; an action switched to `enable_batching: false` sends each event alone.
 */
import assert from 'node:assert/strict';
import { REDELIVERY_RECORD } from '../../core/claims/send-once.ts';
import { type ForwardDeps, type ForwardResult, forwardPush } from '../../core/delivery/forward.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { Destination } from '../../schemas/settings.ts';
import { type Captured, deps, klaviyoTrackEvent, push, standIn } from '../support/catalog-delivery.ts';
import { type MemoryClaims, memoryClaims } from '../support/memory-claims.ts';

const NOW = new Date('2026-11-27T07:00:00.000Z');

function event(id: string, email: string | undefined): StoredEvent {
  return {
    event_name: 'purchase',
    event_id: id,
    event_time: '2026-11-27T06:59:00.000Z',
    ...(email ? { user_id: `u-${id}`, user: { email } } : {}),
    consent: { analytics: 'granted' },
    event_data: { value: 10, currency: 'USD', transaction_id: `o-${id}` },
  };
}

/** The events one bulk request carried (Klaviyo's `events-bulk-create`). */
function carried(c: Captured | undefined): number {
  const body = c?.body as { data?: { attributes?: Record<string, { data?: unknown[] }> } } | undefined;
  return body?.data?.attributes?.['events-bulk-create']?.data?.length ?? 0;
}

describe('segment_action batches: performBatch from forward-catalog, one row and one claim per event', () => {
  let stand: Awaited<ReturnType<typeof standIn>>;
  let claims: MemoryClaims;
  let forward: ForwardDeps;
  before(async () => {
    stand = await standIn();
  });
  after(() => stand.server.close());

  const klaviyo = (mapping: Record<string, unknown> = {}): Destination =>
    klaviyoTrackEvent(stand.base, { profile: { email: { '@path': '$.context.traits.email' } }, ...mapping });
  const setUp = (destination: Destination): void => {
    stand.captured.length = 0;
    stand.answers.length = 0;
    claims = memoryClaims();
    // A driver per set-up (deps makes one): its open batches are its own.
    forward = { ...deps([destination], { KLAVIYO_KEY: 'fake-api-key' }, NOW), claims };
  };
  const deliver = (events: readonly StoredEvent[]): Promise<ForwardResult[]> =>
    Promise.all(events.map((e) => forwardPush(push(e, 'klaviyo'), forward)));
  const rowOf = (results: readonly ForwardResult[], id: string) =>
    results.flatMap((r) => r.entries.map((e) => e.row)).find((r) => r.event_id === id);

  it('the deliveries in flight go out in one request; each event is delivered on its own row and claim', async () => {
    setUp(klaviyo());
    const results = await deliver([
      event('b-1', 'a@example.com'),
      event('b-2', 'b@example.com'),
      event('b-3', 'c@example.com'),
    ]);
    assert.equal(stand.captured.length, 1);
    assert.equal(stand.captured[0]?.path, '/standin/a.klaviyo.com/api/event-bulk-create-jobs/');
    assert.equal(carried(stand.captured[0]), 3);
    for (const id of ['b-1', 'b-2', 'b-3']) {
      const row = rowOf(results, id);
      assert.equal(row?.status, 'delivered', id);
      assert.equal(row?.http_status, 200);
      assert.deepEqual(row?.identifiers, ['email']);
    }
    assert.ok(results.every((r) => r.ack));
    // Send-once stays per event: the same message again (its acknowledgement lost) records its
    // delivery again, another message's copy folds; neither is sent.
    const again = await forwardPush(push(event('b-2', 'b@example.com'), 'klaviyo', 2), forward);
    const copy = await forwardPush(
      { ...push(event('b-2', 'b@example.com'), 'klaviyo'), messageId: 'm-copy' },
      forward,
    );
    assert.equal(stand.captured.length, 1, 'the copies were not sent');
    assert.deepEqual([again.ack, copy.ack], [true, true]);
    assert.ok(
      rowOf([again], 'b-2')?.reason?.startsWith(REDELIVERY_RECORD),
      rowOf([again], 'b-2')?.reason ?? '',
    );
    assert.equal(rowOf([copy], 'b-2')?.status, 'folded');
  });

  it("events of two audiences' settings, or an audience's and an ordinary one, never share a request", async () => {
    setUp(klaviyo());
    // actions-core reads a batch's audience settings from its first event: mixed, the others would
    // go out under the first one's settings. Two audiences with the same settings may share one
    // (Segment's own batches do: its actions read each event's audience from the event).
    const member = (id: string, email: string, audience: string): StoredEvent => {
      const e = event(id, email);
      const personas = {
        computation_class: 'audience',
        computation_id: `aud_${audience}`,
        computation_key: audience,
        external_audience_id: `ext-${audience}`,
        audience_settings: { list: audience },
      };
      return { ...e, event_data: { ...e.event_data, personas } };
    };
    const results = await deliver([
      member('m-1', 'a@example.com', 'vip'),
      member('m-2', 'b@example.com', 'lapsed'),
      member('m-3', 'c@example.com', 'vip'),
      event('m-4', 'd@example.com'),
    ]);
    assert.equal(stand.captured.length, 3, "one request per audience's settings, one for the ordinary event");
    assert.deepEqual(stand.captured.map(carried).sort(), [1, 1, 2]);
    for (const id of ['m-1', 'm-2', 'm-3', 'm-4']) assert.equal(rowOf(results, id)?.status, 'delivered', id);
  });

  it('an event the action refuses is rejected on its own (nothing sent for it); the others go out', async () => {
    setUp(klaviyo());
    const results = await deliver([
      event('p-1', 'a@example.com'),
      event('p-2', undefined),
      event('p-3', 'c@example.com'),
    ]);
    assert.equal(stand.captured.length, 1);
    assert.equal(carried(stand.captured[0]), 2);
    assert.equal(rowOf(results, 'p-1')?.status, 'delivered');
    assert.equal(rowOf(results, 'p-3')?.status, 'delivered');
    const refused = rowOf(results, 'p-2');
    assert.equal(refused?.status, 'rejected');
    assert.equal(
      refused?.reason,
      'trackEvent: One of External ID, Anonymous ID, Phone Number or Email is required.',
    );
    assert.equal(refused?.http_status, null);
  });

  it('an event the platform refuses is rejected with its status; the rest of the batch is retried, not acknowledged', async () => {
    setUp(klaviyo());
    stand.answers.push({
      status: 400,
      body: {
        errors: [
          {
            status: 400,
            detail: 'the metric name is too long',
            source: { pointer: '/data/attributes/events-bulk-create/data/1/attributes' },
          },
        ],
      },
    });
    const results = await deliver([
      event('r-1', 'a@example.com'),
      event('r-2', 'b@example.com'),
      event('r-3', 'c@example.com'),
    ]);
    assert.equal(stand.captured.length, 1);
    const refused = rowOf(results, 'r-2');
    assert.equal(refused?.status, 'rejected');
    assert.equal(refused?.http_status, 400);
    assert.match(refused?.reason ?? '', /the metric name is too long/);
    for (const id of ['r-1', 'r-3']) {
      const row = rowOf(results, id);
      assert.equal(row?.status, 'failed', id);
      assert.match(row?.reason ?? '', /will be retried/);
    }
    assert.deepEqual(
      results.map((r) => r.ack),
      [false, true, false],
    );
  });

  it('a batch refused as a whole (429) is retried for each event, with the status on the wire', async () => {
    setUp(klaviyo());
    stand.answers.push({ status: 429, body: {} });
    const results = await deliver([event('t-1', 'a@example.com'), event('t-2', 'b@example.com')]);
    assert.equal(stand.captured.length, 1);
    for (const id of ['t-1', 't-2']) {
      assert.equal(rowOf(results, id)?.status, 'failed');
      assert.equal(rowOf(results, id)?.http_status, 429);
    }
    assert.ok(results.every((r) => !r.ack));
  });

  it("a batch holds at most the action's batch_size; enable_batching: false sends each event alone", async () => {
    setUp(klaviyo({ batch_size: 2 }));
    const five = ['s-1', 's-2', 's-3', 's-4', 's-5'].map((id) => event(id, `${id}@example.com`));
    await deliver(five);
    assert.deepEqual(stand.captured.map(carried).sort(), [1, 2, 2]);
    setUp(klaviyo({ enable_batching: false }));
    const results = await deliver(five.slice(0, 2));
    assert.deepEqual(
      stand.captured.map((c) => c.path),
      ['/standin/a.klaviyo.com/api/events/', '/standin/a.klaviyo.com/api/events/'],
    );
    assert.ok(results.every((r) => r.entries[0]?.row.status === 'delivered'));
  });
});
