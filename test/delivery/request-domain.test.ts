/**
 * Under the real functions framework, which runs each request in a `node:domain`, the forward
 * handler does its work outside it (adapters/request-domain.ts): the send and the ledger write
 * see no active domain, and the push is still answered.
 */
import assert from 'node:assert/strict';
import { deliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import { createForwardHandler } from '../../functions/forward/handler.ts';
import { activeDomain, type FrameworkServer, postPush, serveFunction } from '../support/framework-server.ts';
import { SIGNING_KEY, testSettings } from './support/stack.ts';

describe('forward handler under the functions framework: outside the request domain', () => {
  let server: FrameworkServer;
  const seen: { send?: unknown; ledger?: unknown } = {};
  const settings = testSettings();

  before(async () => {
    server = await serveFunction(
      'forwardDomainTest',
      createForwardHandler({ settings, plan: plan(settings) }, () => ({
        secrets: { get: async () => SIGNING_KEY, peek: () => ({ value: SIGNING_KEY }) },
        send: async () => {
          seen.send = activeDomain() ?? 'none';
          return { kind: 'response', status: 200, headers: {}, body: 'ok' };
        },
        ledger: {
          write: async () => {
            seen.ledger = activeDomain() ?? 'none';
            return [];
          },
        },
      })),
    );
  });
  after(() => server?.close());

  it('sends and writes the ledger row with no active domain, and acknowledges', async () => {
    const event = {
      event_id: 'domain-1',
      event_name: 'page_view',
      event_time: new Date().toISOString(),
      event_data: {},
    } as unknown as StoredEvent;
    const res = await postPush(server.url, {
      ...deliveryMessage(event, 'hook'),
      messageId: 'm-domain-1',
      subscription: 'projects/delivery-test/subscriptions/deliveries-hook',
    });
    assert.equal(res.status, 204);
    assert.equal(seen.send, 'none');
    assert.equal(seen.ledger, 'none');
  });
});
