/**
 * A copy of a push that arrives while its first attempt is still sending (a redelivery under
 * load) waits for it in the forward handler (core/delivery/in-flight.ts): one send and one
 * `delivered` row when the first one delivered, its own send when the first one did not.
 */
import assert from 'node:assert/strict';
import { InFlight, inFlightKey } from '../../core/delivery/in-flight.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import { deliveryMessage, type PushedMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import type { InboundResponse } from '../../core/platforms/driver.ts';
import { createForwardHandler } from '../../functions/forward/handler.ts';
import { type FrameworkServer, postPush, serveFunction } from '../support/framework-server.ts';
import { SIGNING_KEY, testSettings } from './support/stack.ts';

const event = (id: string) =>
  ({
    event_id: id,
    event_name: 'page_view',
    event_time: new Date().toISOString(),
    payload_digest: 'd'.repeat(64),
    event_data: {},
  }) as unknown as StoredEvent;

describe('forward: a copy of a push in flight', () => {
  let server: FrameworkServer;
  const settings = testSettings();
  /** Each send waits for the test to answer it. */
  const sends: { eventId: string; answer: (r: InboundResponse) => void }[] = [];
  const rows: LedgerEntry['row'][] = [];

  before(async () => {
    server = await serveFunction(
      'forwardInFlightTest',
      createForwardHandler({ settings, plan: plan(settings) }, () => ({
        secrets: { get: async () => SIGNING_KEY, peek: () => ({ value: SIGNING_KEY }) },
        send: (request) =>
          // The cold instance's eventless probe (a HEAD) is answered at once; the calls, by hand.
          request.method === 'HEAD'
            ? Promise.resolve<InboundResponse>({ kind: 'response', status: 405, headers: {}, body: '' })
            : new Promise<InboundResponse>((answer) =>
                sends.push({ eventId: request.headers['x-eventbus-event-id'] ?? '', answer }),
              ),
        ledger: {
          write: async (entries) => {
            rows.push(...entries.map((e) => e.row));
            return [];
          },
        },
      })),
    );
  });
  after(() => server?.close());

  const push = (id: string, messageId: string, replay = false) =>
    postPush(server.url, {
      ...deliveryMessage(event(id), 'hook', replay),
      messageId,
      subscription: 'projects/delivery-test/subscriptions/deliveries-hook',
    });
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(check(), 'timed out waiting');
  };
  const ok: InboundResponse = { kind: 'response', status: 200, headers: {}, body: 'ok' };
  const sent = (id: string) => sends.filter((s) => s.eventId === id);
  const statuses = (id: string) => rows.filter((r) => r.event_id === id).map((r) => r.status);

  it('sends once when a copy arrives while the first attempt is sending: one delivered row, the copy folded', async () => {
    const first = push('inflight-1', 'm-1');
    await until(() => sent('inflight-1').length === 1);
    const copy = push('inflight-1', 'm-1');
    await new Promise((r) => setTimeout(r, 50)); // the copy reaches the handler and waits
    sent('inflight-1')[0]?.answer(ok);
    assert.equal((await first).status, 204);
    assert.equal((await copy).status, 204);
    assert.equal(sent('inflight-1').length, 1);
    assert.deepEqual(statuses('inflight-1'), ['delivered', 'folded']);
  });

  it('sends the copy itself when the first attempt was not delivered', async () => {
    const first = push('inflight-2', 'm-2');
    await until(() => sent('inflight-2').length === 1);
    const copy = push('inflight-2', 'm-2');
    await new Promise((r) => setTimeout(r, 50));
    sent('inflight-2')[0]?.answer({ kind: 'response', status: 503, headers: {}, body: 'busy' });
    assert.equal((await first).status, 503);
    await until(() => sent('inflight-2').length === 2);
    sent('inflight-2')[1]?.answer(ok);
    assert.equal((await copy).status, 204);
    assert.deepEqual(statuses('inflight-2'), ['failed', 'delivered']);
  });

  it("sends a person's replay even while a copy is in flight", async () => {
    const first = push('inflight-3', 'm-3');
    await until(() => sent('inflight-3').length === 1);
    const replay = push('inflight-3', 'm-3r', true);
    await until(() => sent('inflight-3').length === 2);
    for (const s of sent('inflight-3')) s.answer(ok);
    assert.equal((await first).status, 204);
    assert.equal((await replay).status, 204);
  });
});

describe('inFlightKey and InFlight', () => {
  const pushOf = (attributes: Record<string, string>): PushedMessage => ({
    messageId: '1',
    attributes,
    data: '{}',
    subscription: 's',
    deliveryAttempt: 1,
  });

  it('keys by destination, event id and digest; none for replays or without an event id', () => {
    const m = deliveryMessage(event('k-1'), 'hook');
    assert.equal(inFlightKey(pushOf(m.attributes)), `hook\nk-1\n${'d'.repeat(64)}`);
    assert.equal(inFlightKey(pushOf(deliveryMessage(event('k-1'), 'hook', true).attributes)), undefined);
    assert.equal(inFlightKey(pushOf({ destination: 'hook' })), undefined);
  });

  it('lets one attempt begin per key; its end tells the copies waiting, then forgets it', async () => {
    const inFlight = new InFlight();
    assert.equal(inFlight.begin('a'), true);
    assert.equal(inFlight.begin('a'), false);
    const copies = [inFlight.wait('a'), inFlight.wait('a')];
    inFlight.end('a', true);
    assert.deepEqual(await Promise.all(copies), [true, true]);
    assert.equal(inFlight.size, 0);
    assert.equal(await inFlight.wait('a'), false);
    assert.equal(inFlight.begin('a'), true);
  });
});
