/**
 * The dry run of a `segment_action` delivery (adapters/segment-actions/preview.ts): the
 * requests the actions build, recorded and answered 200 without leaving the process, credentials
 * as `secret:<role>` (a Basic pair decoded to show it), and each action's outcome.
 */
import assert from 'node:assert/strict';
import { previewSegmentAction } from '../../../../adapters/segment-actions/preview.ts';
import type { StoredEvent } from '../../../../core/event.ts';
import type { Destination } from '../../../../schemas/settings.ts';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const purchase: StoredEvent = {
  event_name: 'purchase',
  event_id: 'evt-1',
  event_time: '2026-11-24T11:00:00.000Z',
  user_id: 'u-9',
  user: { email: 'ada@example.com' },
  event_data: { value: 5, currency: 'EUR' },
};

describe('segment_action: the dry run preview shares', () => {
  const realFetch = globalThis.fetch;
  // Nothing may reach the network: the global fetch refuses while these tests run.
  beforeEach(() => {
    globalThis.fetch = (() => Promise.reject(new Error('the dry run reached the network'))) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('Klaviyo: the request trackEvent builds, its key as secret:api_key, delivered had it answered 200', async () => {
    const klaviyo: Destination = {
      id: 'klaviyo',
      type: 'segment_action',
      destination: 'klaviyo',
      secrets: { api_key: 'KLAVIYO_KEY' },
      actions: [
        { action: 'trackEvent', mapping: { profile: { email: { '@path': '$.context.traits.email' } } } },
      ],
    };
    const p = await previewSegmentAction(purchase, klaviyo, NOW);
    assert.ok(p.installed);
    assert.deepEqual(p.outcomes, [
      { action: 'trackEvent', outcome: { status: 'delivered', httpStatus: 200 } },
    ]);
    const [request] = p.requests;
    // Klaviyo's Create Event: https://developers.klaviyo.com/en/reference/create_event
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, 'https://a.klaviyo.com/api/events/');
    assert.equal(request?.headers['authorization'], 'Klaviyo-API-Key secret:api_key');
    assert.match(JSON.stringify(request?.body), /"unique_id":"evt-1"/);
    assert.ok(!JSON.stringify(p).includes('KLAVIYO_KEY'), 'the secret name is not a value either');
  });

  it('Customer.io: a Basic pair built from a secret is shown decoded, naming the stand-in', async () => {
    const customerio: Destination = {
      id: 'cio',
      type: 'segment_action',
      destination: 'customerio',
      config: { siteId: 'site-1', accountRegion: 'US 🇺🇸' },
      secrets: { apiKey: 'CIO_KEY' },
      actions: [{ action: 'trackEvent' }],
    };
    const p = await previewSegmentAction(purchase, customerio, NOW);
    assert.ok(p.installed);
    // Customer.io's Track API v2 (https://docs.customer.io/api/track/): Basic site id : API key.
    assert.equal(p.requests[0]?.url, 'https://track.customer.io/api/v2/entity');
    assert.equal(p.requests[0]?.headers['authorization'], 'Basic base64(site-1:secret:apiKey)');
  });
});
