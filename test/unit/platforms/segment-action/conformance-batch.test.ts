/**
 * A batch test case of Segment's through our runtime (scripts/conformance-segment/batch.ts): the
 * events go through forward-catalog's batch path to the action's `performBatch` in one batch, in
 * the test's order, whatever the mapping's batch size; each event's entry of the multi-status
 * answer is kept; what testBatchAction would throw is told apart from a failed entry.
 */
import assert from 'node:assert/strict';
import { runSegmentEvent } from '../../../../adapters/segment-actions/run.ts';
import type { Destination } from '../../../../schemas/settings.ts';
import { batchFailure, runBatch } from '../../../../scripts/conformance-segment/batch.ts';

const NOW = new Date('2026-11-27T08:00:00.000Z');

const webhook = (mapping: Record<string, unknown> = {}): Destination =>
  ({
    id: 'conformance',
    type: 'segment_action',
    destination: 'webhook',
    config: {},
    actions: [
      {
        action: 'send',
        when: 'type = "track" or type = "identify"',
        mapping: {
          url: 'https://hooks.example/in',
          method: 'POST',
          data: { name: { '@path': '$.event' } },
          enable_batching: true,
          batch_size: 1,
          ...mapping,
        },
      },
    ],
  }) as unknown as Destination;

const events = [
  { type: 'track', event: 'First', messageId: 'm1' },
  { type: 'identify', userId: 'u2', messageId: 'm2' },
  { type: 'track', event: 'Third', messageId: 'm3' },
];

/** A fetch that keeps each request's method, URL and body and answers `status`. */
function capture(status = 200) {
  const sent: { method: string; url: string; body: string }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({ method: String(init?.method), url: String(input), body: String(init?.body ?? '') });
    return new Response('{}', { status, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { sent, fetch };
}

describe('segment_action: a batch case of Segment’s through forward-catalog’s batch path', () => {
  it('sends the events in one request by performBatch, in the test’s order, past the batch size', async () => {
    const { sent, fetch } = capture();
    const batch = await runBatch(runSegmentEvent, events, webhook(), {}, { fetch, now: NOW });
    assert.equal(batch.sent, 1);
    assert.equal(sent.length, 1);
    assert.deepEqual(JSON.parse(sent[0]?.body ?? ''), [{ name: 'First' }, {}, { name: 'Third' }]);
    assert.deepEqual(
      batch.multistatus.map((n) => n?.status),
      [200, 200, 200],
    );
    assert.equal(batch.results.length, 3);
    for (const r of batch.results) assert.deepEqual(r.outcomes[0]?.outcome.status, 'delivered');
    assert.equal(batchFailure(batch), undefined);
  });

  it('unbatched, each event is sent alone (the runner’s own `send-alone` mutation)', async () => {
    const { sent, fetch } = capture();
    const batch = await runBatch(runSegmentEvent, events, webhook(), {}, { fetch, now: NOW }, true);
    assert.equal(batch.sent, 0);
    assert.equal(sent.length, 3);
    assert.match(String((batchFailure(batch) as Error).message), /sent no batch/);
  });

  it('an event its action refuses is an entry of the answer, the others sent; no throw', async () => {
    const { sent, fetch } = capture();
    const url = { '@path': '$.properties.url' };
    const withUrl = (e: Record<string, unknown>, i: number) =>
      i === 1 ? e : { ...e, properties: { url: 'https://hooks.example/in' } };
    const batch = await runBatch(
      runSegmentEvent,
      events.map(withUrl),
      webhook({ url }),
      {},
      { fetch, now: NOW },
    );
    assert.equal(sent.length, 1);
    assert.deepEqual(JSON.parse(sent[0]?.body ?? ''), [{ name: 'First' }, { name: 'Third' }]);
    assert.deepEqual(
      batch.multistatus.map((n) => n?.status),
      [200, 400, 200],
    );
    assert.equal(batch.results[1]?.outcomes[0]?.outcome.status, 'rejected');
    assert.equal(batchFailure(batch), undefined);
  });

  it('what the batch’s send throws is thrown, as is a refusal before any batch', async () => {
    const refused = capture(400);
    const batch = await runBatch(runSegmentEvent, events, webhook(), {}, { fetch: refused.fetch, now: NOW });
    assert.equal(batch.sent, 1);
    assert.equal(refused.sent.length, 1);
    assert.equal((batchFailure(batch) as { response?: { status?: number } }).response?.status, 400);

    const none = capture();
    const unknown = { ...webhook(), destination: 'no-such-destination' } as Destination;
    const stopped = await runBatch(runSegmentEvent, events, unknown, {}, { fetch: none.fetch, now: NOW });
    assert.equal(none.sent.length, 0);
    assert.match(String((batchFailure(stopped) as Error).message), /no Segment Action Destination/);
  });
});
