/**
 * A delivery whose ledger row never got written: `forward` settled the send-once claim, then its
 * ledger append failed (or its process died) before the acknowledgement. Pub/Sub brings the same
 * message back; it must record its own delivery again, not fold into it (a fold leaves the ledger
 * with no `delivered` row for an event the platform got) and not send it again. A copy from another
 * message still folds. docs/delivery.md, "One event, one delivery".
 */
import assert from 'node:assert/strict';
import { REDELIVERY_RECORD } from '../../core/claims/send-once.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import { deliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import { createForwardHandler } from '../../functions/forward/handler.ts';
import { type FrameworkServer, postPush, serveFunction } from '../support/framework-server.ts';
import { memoryClaims } from '../support/memory-claims.ts';
import { SIGNING_KEY, testSettings } from './support/stack.ts';

const event = {
  event_id: 'lost-row-1',
  event_name: 'purchase',
  event_time: new Date().toISOString(),
  payload_digest: 'e'.repeat(64),
  event_data: {},
} as unknown as StoredEvent;

describe('forward: a delivery whose ledger row was lost', () => {
  let server: FrameworkServer;
  const settings = testSettings();
  const claims = memoryClaims();
  let sends = 0;
  /** Rows the warehouse took, with their insertIds; the first append fails. */
  const written: LedgerEntry[] = [];
  let appends = 0;

  before(async () => {
    server = await serveFunction(
      'forwardLostRowTest',
      createForwardHandler({ settings, plan: plan(settings) }, () => ({
        secrets: { get: async () => SIGNING_KEY, peek: () => ({ value: SIGNING_KEY }) },
        claims,
        send: async (request) => {
          // A cold instance's first call is an eventless probe (a HEAD) before the event.
          if (request.method !== 'HEAD') sends++;
          return { kind: 'response', status: 200, headers: {}, body: 'ok' };
        },
        ledger: {
          write: async (entries) => {
            if (++appends === 1) throw new Error('the append was cut off');
            written.push(...entries);
            return [];
          },
        },
      })),
    );
  });
  after(() => server?.close());

  const push = (messageId: string, deliveryAttempt: number) =>
    postPush(server.url, {
      ...deliveryMessage(event, 'hook'),
      messageId,
      deliveryAttempt,
      subscription: 'projects/delivery-test/subscriptions/deliveries-hook',
    });

  it('records the delivery again on the same message’s redelivery, sends once, folds another copy', async () => {
    // Sent, claim settled delivered, the row lost: the push is answered 503 (not acknowledged).
    assert.equal((await push('m-lost', 1)).status, 503);
    assert.equal(sends, 1);
    assert.equal(written.length, 0);
    // Pub/Sub's redelivery of that message: a `delivered` row for attempt 1, nothing sent.
    assert.equal((await push('m-lost', 2)).status, 204);
    assert.equal(sends, 1, 'not sent again');
    const [again] = written;
    assert.deepEqual([again?.row.status, again?.row.attempt, again?.row.http_status], ['delivered', 1, 200]);
    assert.ok(again?.row.reason?.startsWith(REDELIVERY_RECORD), again?.row.reason ?? '');
    assert.match(again?.insertId ?? '', /\/m-lost\/1\/delivered$/, 'the lost row’s own insertId');
    // A copy from another message (a producer's retry fanned out again): folded, not recorded as delivered.
    assert.equal((await push('m-copy', 1)).status, 204);
    assert.equal(sends, 1);
    assert.deepEqual(
      written.map((e) => e.row.status),
      ['delivered', 'folded'],
    );
  });
});
