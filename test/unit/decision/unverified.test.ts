/**
 * core/decision/unverified.ts: a money event a browser write key sent without the money allowance
 * reaches no ad platform as a conversion, with a reason naming the allowance; GA4 and webhooks
 * still get it, and a verified one (or any other event) goes on as before.
 */
import assert from 'node:assert/strict';
import { decideOne } from '../../../core/decision/decision.ts';
import { isMoneyEvent, unverifiedOf, unverifiedSkip } from '../../../core/decision/unverified.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { Destination } from '../../../schemas/settings.ts';

const options = { isKnownEvent: (n: string) => n === 'purchase' || n === 'page_view' };
const purchase = (over: Partial<StoredEvent> = {}): StoredEvent => ({
  event_name: 'purchase',
  event_id: 'e-1',
  event_time: '2026-01-01T00:00:00.000Z',
  anonymous_id: '1874934510.1700000000',
  user: { email: 'a@b.c' },
  page: { url: 'https://shop.example/thanks' },
  consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
  event_data: { transaction_id: 'T1', value: 10, currency: 'EUR' },
  ...over,
});
const meta: Destination = { id: 'meta', type: 'meta_capi' };
const tiktok: Destination = { id: 'tiktok', type: 'tiktok_events' };
const ga4: Destination = { id: 'ga4', type: 'ga4_mp' };
const hook: Destination = { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:1' };

describe('decision: unverified money events', () => {
  it('skips an unverified purchase for every ad platform, naming the key allowance', () => {
    for (const d of [meta, tiktok]) {
      const got = decideOne(d, purchase({ unverified: 'money' }), options);
      assert.equal(got.action, 'skip', d.id);
      assert.match((got as { reason: string }).reason, /unverified money event purchase.*--money/);
    }
  });

  it('sends it to GA4 and webhooks, which report and do not bid', () => {
    for (const d of [ga4, hook])
      assert.equal(decideOne(d, purchase({ unverified: 'money' }), options).action, 'send');
  });

  it('sends a verified purchase to the ad platforms', () => {
    assert.equal(decideOne(meta, purchase(), options).action, 'send');
    assert.equal(unverifiedSkip(meta, { event_name: 'purchase' }), undefined);
  });

  it('knows the money events and reads only its own attribute value', () => {
    assert.deepEqual(['purchase', 'subscribe', 'page_view', 'add_to_cart'].map(isMoneyEvent), [
      true,
      true,
      false,
      false,
    ]);
    assert.deepEqual(['money', 'yes', undefined].map(unverifiedOf), ['money', undefined, undefined]);
  });
});
