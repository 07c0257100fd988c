/**
 * Which runs are batched and what each event's entry of a multi-status answer means
 * (core/platforms/segment-action/batching.ts), and the open batches of an instance
 * (adapters/segment-actions/batches.ts): full batches go at once, the rest after the wait, and
 * each event learns its own entry or the batch's failure.
 */
import assert from 'node:assert/strict';
import { createBatches } from '../../../../adapters/segment-actions/batches.ts';
import {
  batchingOf,
  errorOfNode,
  MAX_BATCH_EVENTS,
} from '../../../../core/platforms/segment-action/batching.ts';
import { outcomeOfError } from '../../../../core/platforms/segment-action/outcome.ts';

const batchable = { performBatch: () => undefined };

describe('segment_action batching: which runs, how big, and each event’s entry', () => {
  it('batches an action with performBatch whose mapping enables batching, at most MAX_BATCH_EVENTS', () => {
    assert.equal(batchingOf(batchable, { enable_batching: false }), undefined);
    assert.equal(batchingOf(batchable, {}), undefined);
    assert.equal(batchingOf({}, { enable_batching: true }), undefined, 'no performBatch, no batch');
    assert.deepEqual(
      batchingOf(batchable, { enable_batching: true, batch_size: 75, batch_keys: ['list_id'] }),
      {
        maxEvents: 75,
        waitMs: 200,
        keys: ['list_id'],
      },
    );
    assert.equal(
      batchingOf(batchable, { enable_batching: true, batch_size: 10_000 })?.maxEvents,
      MAX_BATCH_EVENTS,
    );
    assert.equal(
      batchingOf(batchable, { enable_batching: true, batch_size: 'x' })?.maxEvents,
      MAX_BATCH_EVENTS,
    );
  });

  it('an entry becomes the outcome one event would have had', () => {
    assert.equal(errorOfNode({ status: 200, body: {} }), undefined);
    // Refused by the action before sending: rejected, no status (nothing reached the platform for it).
    const refused = outcomeOfError(
      'trackEvent',
      errorOfNode({
        status: 400,
        errortype: 'PAYLOAD_VALIDATION_FAILED',
        errormessage: 'Email is required.',
        errorreporter: 'INTEGRATIONS',
      }),
    );
    assert.deepEqual(refused, { status: 'rejected', reason: 'trackEvent: Email is required.' });
    // Answered by the platform for this event: its status decides.
    const answered = outcomeOfError(
      'trackEvent',
      errorOfNode({ status: 400, errormessage: 'bad metric', errorreporter: 'DESTINATION', body: '{"e":1}' }),
    );
    assert.deepEqual(
      { status: answered.status, http: 'httpStatus' in answered && answered.httpStatus },
      {
        status: 'rejected',
        http: 400,
      },
    );
    // Held back for the others' sake, or an entry missing: retried, with the wire's status.
    const held = outcomeOfError(
      'trackEvent',
      errorOfNode({ status: 500, errorreporter: 'INTEGRATIONS' }, 429),
    );
    assert.deepEqual(
      { status: held.status, http: 'httpStatus' in held && held.httpStatus },
      { status: 'retry', http: 429 },
    );
    assert.equal(
      errorOfNode({ status: undefined as unknown as number }, 202),
      undefined,
      'no status of its own: the wire’s',
    );
  });

  it('a full batch goes at once, the rest when the wait is over; each event gets its own entry', async () => {
    const batches = createBatches();
    const sent: number[][] = [];
    const send = async (items: readonly number[]) => {
      sent.push([...items]);
      return items.map((i) => i * 10);
    };
    const limits = { maxEvents: 2, waitMs: 5 };
    const results = Promise.all([1, 2, 3].map((i) => batches.add('k', i, limits, send)));
    assert.deepEqual(sent, [[1, 2]], 'full: sent without waiting');
    assert.equal(batches.open(), 1);
    assert.deepEqual(await results, [10, 20, 30]);
    assert.deepEqual(sent, [[1, 2], [3]]);
    assert.equal(batches.open(), 0);
  });

  it('a batch that fails fails each of its events; one answer short fails the event left without one', async () => {
    const batches = createBatches();
    const limits = { maxEvents: 2, waitMs: 5 };
    const failing = () => Promise.reject(new Error('down'));
    const both = [1, 2].map((i) => batches.add('a', i, limits, failing));
    for (const p of both) await assert.rejects(p, /down/);
    const short = async () => [1];
    const [first, second] = [1, 2].map((i) => batches.add('b', i, limits, short));
    assert.equal(await first, 1);
    await assert.rejects(second as Promise<unknown>, /no result for its event 2 of 2/);
    // Keys apart: events under other keys never share a batch.
    const seen: string[][] = [];
    const record = async (items: readonly string[]) => {
      seen.push([...items]);
      return items;
    };
    await Promise.all([batches.add('x', 'x1', limits, record), batches.add('y', 'y1', limits, record)]);
    assert.deepEqual(seen.sort(), [['x1'], ['y1']]);
  });
});
