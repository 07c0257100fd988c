/**
 * Under the real functions framework, which runs each request in a `node:domain`, the store
 * handler does its work outside it (adapters/request-domain.ts): the warehouse write sees no
 * active domain, and the push is still answered once the row is written.
 */
import assert from 'node:assert/strict';
import { plan } from '../../core/plan.ts';
import { storeConfig } from '../../core/store/store.ts';
import { createStoreHandler } from '../../functions/store/handler.ts';
import { activeDomain, type FrameworkServer, postPush, serveFunction } from '../support/framework-server.ts';
import { testSettings } from './support.ts';

describe('store handler under the functions framework: outside the request domain', () => {
  let server: FrameworkServer;
  const written: { table: string; domain: unknown }[] = [];
  const settings = testSettings();

  before(async () => {
    server = await serveFunction(
      'storeDomainTest',
      createStoreHandler({
        config: storeConfig(settings, plan(settings)),
        writer: {
          write: async (table) => {
            written.push({ table, domain: activeDomain() ?? 'none' });
            return [];
          },
        },
        log: () => undefined,
      }),
    );
  });
  after(() => server?.close());

  it('writes the row with no active domain, then answers 204', async () => {
    const event = {
      event_name: 'purchase',
      event_id: 'domain-1',
      event_time: new Date(Date.now() - 60_000).toISOString(),
      transaction_id: 'T-domain-1',
      value: 10,
      currency: 'EUR',
    };
    const res = await postPush(server.url, {
      data: JSON.stringify(event),
      attributes: {},
      messageId: 'm-domain-1',
      subscription: `projects/${plan(settings).project}/subscriptions/events-store`,
    });
    assert.equal(res.status, 204);
    assert.deepEqual(written, [{ table: 'events', domain: 'none' }]);
  });
});
