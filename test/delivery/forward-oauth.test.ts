/**
 * The forward core for a platform that takes an OAuth access token (Google Ads, Data Manager
 * API): the token comes from the credentials secret, a 401 gets one fresh token and one more
 * call (never a third), a token that cannot be had is retried with the reason, and a throttled
 * answer's `Retry-After`, or Google's `RetryInfo` detail, holds the destination back until the time
 * it asked for.
 */
import assert from 'node:assert/strict';
import { Breaker, MAX_HOLD_MS, retryAfterTime, retryInfoTime } from '../../core/delivery/breaker.ts';
import { type ForwardDeps, forwardPush } from '../../core/delivery/forward.ts';
import { decodePush, deliveryMessage, type PushedMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { InboundResponse, OutboundRequest } from '../../core/platforms/driver.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import type { Destination } from '../../schemas/settings.ts';

const NOW = new Date('2026-10-01T12:00:00.000Z');
const ads: Destination = {
  id: 'ads',
  type: 'google_ads',
  config: { operating_account_id: '1234567890' },
  secrets: { credentials: 'ADS_CREDENTIALS' },
  mappings: { lead: { event: '222' } },
};
const lead: StoredEvent = {
  event_name: 'lead',
  event_id: 'lead-1',
  event_time: '2026-10-01T11:59:00.000Z',
  campaign: { gclid: 'G-1' },
  consent: { ads: 'granted', ad_user_data: 'granted' },
  event_data: {},
};

function push(event: StoredEvent): PushedMessage {
  const m = deliveryMessage(event, 'ads');
  const decoded = decodePush({
    message: { data: Buffer.from(m.data).toString('base64'), attributes: m.attributes, messageId: 'm-1' },
    subscription: 'projects/p/subscriptions/deliveries-ads',
    deliveryAttempt: 1,
  });
  assert.ok(decoded.ok);
  return decoded.push;
}

const answer = (
  status: number,
  body: unknown = {},
  headers: Record<string, string> = {},
): InboundResponse => ({
  kind: 'response',
  status,
  headers,
  body: JSON.stringify(body),
});
const UNAUTHENTICATED = answer(401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'expired' } });

function setup(answers: InboundResponse[], clock: { now: Date } = { now: NOW }) {
  const sent: OutboundRequest[] = [];
  const tokens: { credentials: string; scope: string; fresh: boolean }[] = [];
  let issued = 0;
  const d: ForwardDeps = {
    destinations: [ads],
    driverFor,
    getSecret: (name) => (name === 'ADS_CREDENTIALS' ? '{"type":"authorized_user"}' : undefined),
    send: async (request) => {
      sent.push(request);
      return answers.shift() ?? answer(200, { requestId: 'r' });
    },
    now: () => clock.now,
    accessToken: async (credentials, scope, fresh) => {
      tokens.push({ credentials, scope, fresh });
      issued++;
      return `token-${issued}`;
    },
  };
  return { d, sent, tokens };
}

describe('forward core: OAuth access tokens and Retry-After', () => {
  it('sends the token the credentials give, in the Authorization header', async () => {
    const { d, sent, tokens } = setup([answer(200, { requestId: 'req-9' })]);
    const result = await forwardPush(push(lead), d);
    assert.equal(result.ack, true);
    assert.equal(result.entries[0]?.row.status, 'delivered');
    assert.equal(result.entries[0]?.row.reason, 'requestId=req-9');
    assert.deepEqual(tokens, [
      {
        credentials: '{"type":"authorized_user"}',
        scope: 'https://www.googleapis.com/auth/datamanager',
        fresh: false,
      },
    ]);
    assert.equal(sent[0]?.headers['authorization'], 'Bearer token-1');
  });

  it('a 401 gets a fresh token and one more call, and the delivered row says so', async () => {
    const { d, sent, tokens } = setup([UNAUTHENTICATED, answer(200, { requestId: 'req-2' })]);
    const result = await forwardPush(push(lead), d);
    assert.deepEqual(
      tokens.map((t) => t.fresh),
      [false, true],
    );
    assert.deepEqual(
      sent.map((r) => r.headers['authorization']),
      ['Bearer token-1', 'Bearer token-2'],
    );
    assert.equal(result.entries.length, 1);
    assert.equal(result.entries[0]?.row.status, 'delivered');
    assert.equal(result.entries[0]?.row.reason, 'access token refreshed after a 401; requestId=req-2');
  });

  it('a second 401 is refused with Google’s reason: the token is refreshed once, not again', async () => {
    const { d, sent } = setup([UNAUTHENTICATED, UNAUTHENTICATED, answer(200)]);
    const result = await forwardPush(push(lead), d);
    assert.equal(sent.length, 2);
    assert.equal(result.ack, true);
    assert.equal(result.entries[0]?.row.status, 'rejected');
    assert.match(result.entries[0]?.row.reason ?? '', /UNAUTHENTICATED \(401\): expired/);
  });

  it('no token: the delivery is retried with the reason, nothing is sent', async () => {
    const { d, sent } = setup([]);
    const failing: ForwardDeps = {
      ...d,
      accessToken: () => Promise.reject(new Error('invalid_grant: Token has been expired or revoked.')),
    };
    const result = await forwardPush(push(lead), failing);
    assert.equal(sent.length, 0);
    assert.equal(result.ack, false);
    assert.equal(
      result.entries[0]?.row.reason,
      'no OAuth access token for ads: invalid_grant: Token has been expired or revoked.',
    );
    const { accessToken: _none, ...without } = d;
    const none = await forwardPush(push(lead), without);
    assert.equal(none.ack, false);
    assert.equal(none.entries[0]?.row.reason, 'no OAuth token source for google_ads in this function');
  });

  it('a 429 with Retry-After holds the destination back until then, then calls it again', async () => {
    const clock = { now: NOW };
    const throttled = answer(
      429,
      { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded' } },
      { 'retry-after': '30' },
    );
    const { d, sent } = setup([throttled], clock);
    const deps: ForwardDeps = { ...d, breaker: new Breaker() };
    const first = await forwardPush(push(lead), deps);
    assert.equal(first.ack, false);
    assert.match(first.entries[0]?.row.reason ?? '', /RESOURCE_EXHAUSTED/);
    clock.now = new Date(NOW.getTime() + 10_000);
    const held = await forwardPush(push(lead), deps);
    assert.equal(sent.length, 1, 'no call while Google asked to wait');
    assert.equal(
      held.entries[0]?.row.reason,
      'held back: ads asked for no calls before 2026-10-01T12:00:30.000Z (Retry-After or RetryInfo)',
    );
    clock.now = new Date(NOW.getTime() + 31_000);
    const after = await forwardPush(push(lead), deps);
    assert.equal(sent.length, 2);
    assert.equal(after.entries[0]?.row.status, 'delivered');
  });

  it('a 429 without Retry-After but with Google’s RetryInfo detail holds the destination back for its retryDelay', async () => {
    const clock = { now: NOW };
    const throttled = answer(429, {
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: 'Quota exceeded',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMIT_EXCEEDED' },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '45s' },
        ],
      },
    });
    const { d, sent } = setup([throttled], clock);
    const deps: ForwardDeps = { ...d, breaker: new Breaker() };
    assert.equal((await forwardPush(push(lead), deps)).ack, false);
    clock.now = new Date(NOW.getTime() + 30_000);
    const held = await forwardPush(push(lead), deps);
    assert.equal(sent.length, 1, 'no call before the retryDelay has passed');
    assert.match(held.entries[0]?.row.reason ?? '', /no calls before 2026-10-01T12:00:45\.000Z/);
    clock.now = new Date(NOW.getTime() + 46_000);
    assert.equal((await forwardPush(push(lead), deps)).entries[0]?.row.status, 'delivered');
    assert.equal(sent.length, 2);
  });

  it('RetryInfo’s retryDelay is read as a protobuf Duration, anything else is no hold', () => {
    const now = NOW.getTime();
    const body = (retryDelay: unknown) =>
      JSON.stringify({
        error: { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }] },
      });
    assert.equal(retryInfoTime(body('1.5s'), now), now + 1500);
    assert.equal(retryInfoTime(body('30s'), now), now + 30_000);
    assert.equal(retryInfoTime(body('soon'), now), undefined);
    assert.equal(retryInfoTime(body(30), now), undefined);
    assert.equal(retryInfoTime('not json', now), undefined);
    assert.equal(retryInfoTime('{"error":{"code":429}}', now), undefined);
  });

  it('Retry-After is read as seconds or an HTTP date, and a hold is bounded', () => {
    const now = NOW.getTime();
    assert.equal(retryAfterTime('120', now), now + 120_000);
    assert.equal(retryAfterTime('Thu, 01 Oct 2026 12:05:00 GMT', now), now + 300_000);
    assert.equal(retryAfterTime('soon', now), undefined);
    assert.equal(retryAfterTime(undefined, now), undefined);
    const breaker = new Breaker();
    breaker.hold('ads', now + 86_400_000, now);
    assert.equal(breaker.heldUntil('ads', now), now + MAX_HOLD_MS);
  });
});
