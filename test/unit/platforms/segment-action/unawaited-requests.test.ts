/**
 * A delivery is done when every request its action started is answered (adapters/segment-actions/
 * started.ts): a tiny action of our own that fires its request without awaiting it, run by the
 * runtime's actions-core, and Iterable Lists (which does the same) through runSegmentEvent.
 */
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import {
  type LoadedDefinition,
  loadActionsCore,
  runSegmentEvent,
} from '../../../../adapters/segment-actions/run.ts';
import type { RunContext } from '../../../../adapters/segment-actions/run-context.ts';
import { performAnswered, wasLeftInFlight } from '../../../../adapters/segment-actions/started.ts';
import { outcomeOfError } from '../../../../core/platforms/segment-action/outcome.ts';
import type { Destination } from '../../../../schemas/settings.ts';

/** A fetch whose answers wait for `release()`: each call is listed, then answered with `status`. */
function gated(status: number) {
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const calls: string[] = [];
  const fetch = (async (url: string | URL | Request) => {
    calls.push(String(url));
    await gate;
    return new Response(status === 200 ? '{}' : '{"msg":"refused"}', {
      status,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof globalThis.fetch;
  return { fetch, calls, release: () => release() };
}

/** Waits (a bounded number of turns) until the fetch has been called. */
async function untilCalled(calls: readonly string[]): Promise<void> {
  for (let i = 0; i < 1000 && calls.length === 0; i++) await tick();
  assert.equal(calls.length, 1, 'the action started its request');
}

/** Whether `p` has settled, after letting every pending turn run. */
async function settledYet(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 20; i++) await tick();
  return settled;
}

/** One action that starts a request and returns at once, never awaiting it. */
const fireAndForget = {
  name: 'fire-and-forget',
  mode: 'cloud',
  actions: {
    send: {
      title: 'Send',
      description: 'Posts the user id without waiting for the answer.',
      fields: { id: { label: 'Id', description: 'The user id.', type: 'string', required: true } },
      perform: (request: (url: string, options: unknown) => Promise<unknown>, data: { payload: unknown }) => {
        void request('https://api.example.com/things', { method: 'post', json: data.payload });
        return 'sent';
      },
    },
  },
} as unknown as LoadedDefinition;

const trackEvent = { type: 'track', event: 'Order Completed', userId: 'u-1', messageId: 'm-1' };

function runOf(fetch: typeof globalThis.fetch): RunContext {
  return { fetch, baseUrl: undefined, allowedHosts: undefined, requests: [], bodies: [], started: [] };
}

function performFake(run: RunContext, boundMs = 5_000): Promise<unknown> {
  const core = new (loadActionsCore().Destination)(fireAndForget);
  const subscription = {
    subscribe: 'type = "track"',
    partnerAction: 'send',
    mapping: { id: { '@path': '$.userId' } },
  };
  return performAnswered(run, () => core.onSubscription(subscription, trackEvent, {}, {}), boundMs);
}

describe('segment_action: requests an action does not await', () => {
  it('a request answered 2xx: the delivery ends after the answer, not before', async () => {
    const { fetch, calls, release } = gated(200);
    const run = runOf(fetch);
    const p = performFake(run);
    await untilCalled(calls);
    assert.equal(await settledYet(p), false, 'still waiting for the answer');
    release();
    const results = (await p) as readonly { output?: unknown }[];
    assert.equal(results.at(-1)?.output, 'Action Executed');
    assert.equal(run.requests[0]?.status, 200);
  });

  it('a request the platform refuses (400): the delivery is rejected as an awaited refusal is', async () => {
    const { fetch, calls, release } = gated(400);
    const p = performFake(runOf(fetch));
    await untilCalled(calls);
    release();
    const err = await p.then(
      () => assert.fail('not delivered'),
      (e: unknown) => e,
    );
    assert.equal(wasLeftInFlight(err), true);
    const outcome = outcomeOfError('send', err);
    assert.equal(outcome.status, 'rejected');
    assert.equal(outcome.httpStatus, 400);
  });

  it('a 503, and a request never answered within the bound: failed, to be redelivered', async () => {
    const down = gated(503);
    const p = performFake(runOf(down.fetch));
    await untilCalled(down.calls);
    down.release();
    const err = await p.then(
      () => assert.fail('not delivered'),
      (e: unknown) => e,
    );
    assert.equal(outcomeOfError('send', err).status, 'retry');

    const silent = gated(200); // never released
    const q = performFake(runOf(silent.fetch), 5);
    const late = await q.then(
      () => assert.fail('not delivered'),
      (e: unknown) => e,
    );
    assert.equal(wasLeftInFlight(late), true);
    assert.match(
      (late as Error).message,
      /1 request the action started without waiting got no answer within 5 ms/,
    );
    assert.equal(outcomeOfError('send', late).status, 'retry');
  });

  describe('Iterable Lists (subscribes without awaiting) through runSegmentEvent', () => {
    const destination: Destination = {
      id: 'iterable-lists',
      type: 'segment_action',
      destination: 'iterable-lists',
      config: { apiKey: 'key-1' },
      actions: [{ action: 'syncAudience', when: 'type = "identify"', mapping: {} }],
    };
    const entered = {
      type: 'identify',
      userId: 'user-1',
      messageId: 'm-2',
      timestamp: '2026-11-27T10:00:00.000Z',
      traits: { audience_key: 'buyers', buyers: true },
      context: {
        personas: {
          computation_class: 'audience',
          computation_key: 'buyers',
          computation_id: 'aud-1',
          external_audience_id: '12345',
        },
      },
    };
    const now = new Date('2026-11-27T10:00:00.000Z');

    it('delivered only once Iterable has answered', async () => {
      const { fetch, calls, release } = gated(200);
      const p = runSegmentEvent(entered, destination, {}, { fetch, now });
      await untilCalled(calls);
      assert.match(calls[0] ?? '', /api\.iterable\.com\/api\/lists\/subscribe$/);
      assert.equal(await settledYet(p), false);
      release();
      const r = await p;
      assert.deepEqual(r.outcomes, [
        { action: 'syncAudience', outcome: { status: 'delivered', httpStatus: 200 } },
      ]);
    });

    it("Iterable's refusal rejects the delivery; the action itself threw nothing", async () => {
      const { fetch, calls, release } = gated(400);
      const p = runSegmentEvent(entered, destination, {}, { fetch, now });
      await untilCalled(calls);
      release();
      const r = await p;
      assert.equal(r.outcomes[0]?.outcome.status, 'rejected');
      assert.equal(r.thrown.length, 0);
    });
  });
});
