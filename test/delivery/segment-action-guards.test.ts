/**
 * The delivery guards on the `perform` path (core/delivery/forward.ts): a segment_action
 * destination's deliveries pass the same breaker, concurrency limiter and Retry-After hold as a
 * prepared request, per destination. Run with the driver forward-catalog carries
 * (adapters/segment-actions/driver.ts) and Klaviyo's trackEvent, over a scripted fetch
 * standing in for the platform (the requests the action builds are checked in segment-action.test.ts).
 */
import assert from 'node:assert/strict';
import { segmentActionDriver } from '../../adapters/segment-actions/driver.ts';
import { Breaker, FAILURES_TO_OPEN } from '../../core/delivery/breaker.ts';
import { type ForwardDeps, forwardPush } from '../../core/delivery/forward.ts';
import { ConcurrencyLimiter } from '../../core/delivery/limiter.ts';
import { decodePush, deliveryMessage, type PushedMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { Destination } from '../../schemas/settings.ts';

const purchase: StoredEvent = {
  event_name: 'purchase',
  event_id: 'evt-1',
  event_time: '2026-11-24T11:00:00.000Z',
  user_id: 'u-1',
  user: { email: 'test@example.com' },
  consent: { analytics: 'granted' },
  event_data: { value: 10, currency: 'USD', transaction_id: 'o-1' },
};

const klaviyo: Destination = {
  id: 'klaviyo',
  type: 'segment_action',
  destination: 'klaviyo',
  secrets: { api_key: 'KLAVIYO_KEY' },
  // Each event alone, so every call is the event's own (batches: segment-action-batch.test.ts).
  actions: [
    {
      action: 'trackEvent',
      mapping: { profile: { email: { '@path': '$.context.traits.email' } }, enable_batching: false },
    },
  ],
};

function push(id: string): PushedMessage {
  const m = deliveryMessage({ ...purchase, event_id: id }, 'klaviyo');
  const decoded = decodePush({
    message: { data: Buffer.from(m.data).toString('base64'), attributes: m.attributes, messageId: `m-${id}` },
    subscription: 'projects/p/subscriptions/deliveries-klaviyo',
    deliveryAttempt: 1,
  });
  assert.ok(decoded.ok);
  return decoded.push;
}

/** The platform: each request answered by `answer` (a Response, or a rejection for no answer), counted. */
function platform(answer: () => Promise<Response>) {
  const state = { calls: 0 };
  const fetch = ((_input: unknown, _init?: unknown) => {
    state.calls++;
    return answer();
  }) as typeof globalThis.fetch;
  return { state, fetch };
}

function deps(
  fetch: typeof globalThis.fetch,
  clock: { now: number },
  guards: Partial<ForwardDeps>,
): ForwardDeps {
  const driver = segmentActionDriver(fetch);
  return {
    destinations: [klaviyo],
    driverFor: (type) => (type === driver.type ? driver : undefined),
    getSecret: () => 'fake-api-key',
    send: () => Promise.reject(new Error('the core sender is not used for segment_action')),
    now: () => new Date(clock.now),
    ...guards,
  };
}

const T0 = Date.parse('2026-11-24T12:00:00.000Z');

describe('segment_action: the delivery guards on the perform path', () => {
  it('a 429 with Retry-After holds the destination back until then: no request, a failed row saying so', async () => {
    const clock = { now: T0 };
    let throttled = true;
    const p = platform(() =>
      Promise.resolve(
        throttled
          ? new Response('{"errors":[]}', { status: 429, headers: { 'retry-after': '30' } })
          : new Response('{}', { status: 202 }),
      ),
    );
    const d = deps(p.fetch, clock, { breaker: new Breaker() });
    const first = await forwardPush(push('r-1'), d);
    assert.equal(first.entries[0]?.row.status, 'failed');
    assert.equal(first.entries[0]?.row.http_status, 429);
    assert.equal(p.state.calls, 1);

    throttled = false;
    clock.now = T0 + 10_000;
    const held = await forwardPush(push('r-2'), d);
    assert.equal(held.ack, false);
    assert.equal(
      held.entries[0]?.row.reason,
      'held back: klaviyo asked for no calls before 2026-11-24T12:00:30.000Z (Retry-After or RetryInfo)',
    );
    assert.equal(p.state.calls, 1, 'nothing sent while held back');

    clock.now = T0 + 31_000;
    const after = await forwardPush(push('r-3'), d);
    assert.equal(after.entries[0]?.row.status, 'delivered');
    assert.equal(p.state.calls, 2);
  });

  it('the breaker opens after calls that got no answer, and holds the next ones back without a request', async () => {
    const clock = { now: T0 };
    const p = platform(() => Promise.reject(new TypeError('fetch failed')));
    const d = deps(p.fetch, clock, { breaker: new Breaker() });
    for (let i = 0; i < FAILURES_TO_OPEN; i++) {
      const r = await forwardPush(push(`b-${i}`), d);
      assert.match(r.entries[0]?.row.reason ?? '', /no answer from a\.klaviyo\.com/);
    }
    assert.equal(p.state.calls, FAILURES_TO_OPEN);
    const held = await forwardPush(push('b-next'), d);
    assert.equal(held.ack, false);
    assert.match(held.entries[0]?.row.reason ?? '', /^held back: klaviyo did not answer its last 5 calls/);
    assert.equal(p.state.calls, FAILURES_TO_OPEN, 'no request while the breaker is open');
  });

  it('an answer, even a refusal, is an answer: a 400 does not count towards the breaker', async () => {
    const clock = { now: T0 };
    const p = platform(() => Promise.resolve(new Response('{"errors":[{"detail":"bad"}]}', { status: 400 })));
    const breaker = new Breaker();
    const d = deps(p.fetch, clock, { breaker });
    for (let i = 0; i < FAILURES_TO_OPEN + 1; i++)
      assert.equal((await forwardPush(push(`a-${i}`), d)).entries[0]?.row.status, 'rejected');
    assert.equal(breaker.failures('klaviyo'), 0);
    assert.equal(p.state.calls, FAILURES_TO_OPEN + 1);
  });

  it('the concurrency limiter bounds the deliveries in flight: a cold destination gets one at a time', async () => {
    const clock = { now: T0 };
    const pending: ((r: Response) => void)[] = [];
    const p = platform(() => new Promise<Response>((resolve) => pending.push(resolve)));
    const limiter = new ConcurrencyLimiter();
    const d = deps(p.fetch, clock, { breaker: new Breaker(), limiter });
    const first = forwardPush(push('c-1'), d);
    const second = forwardPush(push('c-2'), d);
    await until(() => pending.length === 1);
    assert.deepEqual(
      { inFlight: limiter.view('klaviyo').inFlight, waiting: limiter.view('klaviyo').waiting },
      { inFlight: 1, waiting: 1 },
    );
    (pending.shift() as (r: Response) => void)(new Response('{}', { status: 202 }));
    assert.equal((await first).entries[0]?.row.status, 'delivered');
    await until(() => pending.length === 1);
    (pending.shift() as (r: Response) => void)(new Response('{}', { status: 202 }));
    assert.equal((await second).entries[0]?.row.status, 'delivered');
    assert.equal(p.state.calls, 2);
    assert.equal(limiter.view('klaviyo').inFlight, 0);
    assert.equal(limiter.view('klaviyo').answering, true);
  });

  it('a delivery that made no request (a payload the action refused) gives its slot back and teaches nothing', async () => {
    const clock = { now: T0 };
    const p = platform(() => Promise.resolve(new Response('{}', { status: 202 })));
    const limiter = new ConcurrencyLimiter();
    const breaker = new Breaker();
    const anonymous: Destination = { ...klaviyo, actions: [{ action: 'trackEvent' }] };
    const d = { ...deps(p.fetch, clock, { breaker, limiter }), destinations: [anonymous] };
    const r = await forwardPush(push('n-1'), d);
    assert.equal(r.entries[0]?.row.status, 'rejected');
    assert.equal(p.state.calls, 0);
    assert.deepEqual(
      { inFlight: limiter.view('klaviyo').inFlight, answering: limiter.view('klaviyo').answering },
      { inFlight: 0, answering: false },
    );
  });

  it('guards are per destination: a hold on one leaves another segment_action destination alone', async () => {
    const clock = { now: T0 };
    const p = platform(() => Promise.resolve(new Response('{}', { status: 202 })));
    const breaker = new Breaker();
    breaker.hold('other', T0 + 60_000, T0);
    const r = await forwardPush(push('p-1'), deps(p.fetch, clock, { breaker }));
    assert.equal(r.entries[0]?.row.status, 'delivered');
  });
});

/** Waits (a few event-loop turns at most) until the condition holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(condition(), 'the condition came true');
}
