/**
 * A stored event as the Segment spec event an Action Destination reads
 * (core/platforms/segment-action/segment-event.ts): the call type, the spec's event names, the
 * properties and products, traits, context and consent, identity and time.
 */
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../../../core/event.ts';
import { NO_IP, segmentEventOf } from '../../../../core/platforms/segment-action/segment-event.ts';

const base: StoredEvent = {
  event_name: 'purchase',
  event_id: 'evt-1',
  event_time: '2026-11-24T10:00:00.000Z',
  received_at: '2026-11-24T10:00:01.000Z',
  user_id: 'u-1',
  anonymous_id: 'a-1',
  user: { email: 'a@example.com', first_name: 'Ada', city: 'Paris', country: 'FR' },
  page: { url: 'https://shop.example/checkout?step=2', title: 'Checkout', referrer: 'https://ref.example/' },
  device: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0', locale: 'fr-FR' },
  campaign: { source: 'news', medium: 'email' },
  consent: { analytics: 'granted', ads: 'denied' },
  event_data: {
    value: 42,
    currency: 'EUR',
    transaction_id: 'o-1',
    coupon: 'WINTER',
    items: [{ item_id: 'sku-1', item_name: 'Sock', price: 21, quantity: 2 }],
  },
};

describe('segment_action: the Segment event', () => {
  it('a catalogue event is a track call under its spec name, with spec properties and products', () => {
    const e = segmentEventOf(base);
    assert.equal(e.type, 'track');
    assert.equal(e['event'], 'Order Completed');
    assert.deepEqual(e['properties'], {
      value: 42,
      total: 42,
      revenue: 42,
      currency: 'EUR',
      order_id: 'o-1',
      coupon: 'WINTER',
      products: [{ product_id: 'sku-1', sku: 'sku-1', name: 'Sock', price: 21, quantity: 2 }],
    });
  });

  it('an Order Completed’s revenue is the value less tax and shipping; the producer’s own revenue wins', () => {
    const props = (data: Record<string, unknown>) =>
      segmentEventOf({ ...base, event_data: data })['properties'] as Record<string, unknown>;
    assert.deepEqual(
      [props({ value: 110.1, tax: 10, shipping: 0.1 })].map((p) => [p['total'], p['revenue']]),
      [[110.1, 100]],
    );
    assert.equal(props({ value: 50, properties: { revenue: 45.5 } })['revenue'], 45.5);
    // Only an order has revenue: Amplitude would count a cart's value as revenue.
    const cart = segmentEventOf({ ...base, event_name: 'add_to_cart', event_data: { value: 9 } });
    assert.deepEqual((cart['properties'] as Record<string, unknown>)['revenue'], undefined);
  });

  it('context.campaign comes from the page URL’s utm_* where the producer and the enrichment give none', () => {
    const campaign = (e: Partial<StoredEvent>) =>
      (segmentEventOf({ ...base, ...e })['context'] as Record<string, unknown>)['campaign'];
    const url =
      'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=winter&utm_term=socks&utm_content=ad1';
    assert.deepEqual(campaign({ campaign: {}, page: { url } }), {
      source: 'google',
      medium: 'cpc',
      name: 'winter',
      term: 'socks',
      content: 'ad1',
    });
    assert.deepEqual(
      campaign({ campaign: { source: 'news' }, enriched: { campaign: { medium: 'email' } }, page: { url } }),
      { source: 'news', medium: 'email', name: 'winter', term: 'socks', content: 'ad1' },
    );
  });

  it('context.ip is the device IP, else the destination’s documented “no IP” value (Mixpanel’s "0")', () => {
    const ip = (e: StoredEvent, noIp?: string) =>
      (segmentEventOf(e, noIp)['context'] as Record<string, unknown>)['ip'];
    assert.equal(ip(base, NO_IP['mixpanel']), '203.0.113.7');
    assert.equal(ip({ ...base, device: {} }, NO_IP['mixpanel']), '0');
    assert.equal(ip({ ...base, device: {} }, NO_IP['amplitude']), undefined);
  });

  it('messageId is the event identity, timestamp the event time, receivedAt and sentAt the store time', () => {
    const e = segmentEventOf(base);
    assert.equal(e.messageId, 'evt-1');
    assert.equal(e.timestamp, '2026-11-24T10:00:00.000Z');
    assert.equal(e['receivedAt'], '2026-11-24T10:00:01.000Z');
    assert.equal(e['sentAt'], '2026-11-24T10:00:01.000Z');
    assert.equal(e['userId'], 'u-1');
    assert.equal(e['anonymousId'], 'a-1');
  });

  it('context carries ip, userAgent, locale, page, campaign, traits and consent as Segment writes them', () => {
    const c = segmentEventOf(base)['context'] as Record<string, unknown>;
    assert.equal(c['ip'], '203.0.113.7');
    assert.equal(c['userAgent'], 'Mozilla/5.0');
    assert.equal(c['locale'], 'fr-FR');
    assert.deepEqual(c['page'], {
      url: 'https://shop.example/checkout?step=2',
      path: '/checkout',
      search: '?step=2',
      title: 'Checkout',
      referrer: 'https://ref.example/',
    });
    assert.deepEqual(c['campaign'], { source: 'news', medium: 'email' });
    assert.deepEqual(c['traits'], {
      email: 'a@example.com',
      firstName: 'Ada',
      address: { city: 'Paris', country: 'FR' },
      userId: 'u-1',
    });
    assert.deepEqual(c['consent'], { categoryPreferences: { Advertising: false, Analytics: true } });
  });

  it('a custom event keeps its name and its own properties', () => {
    const e = segmentEventOf({
      ...base,
      event_name: 'trial_started',
      event_data: { plan: 'pro', properties: { seats: 3 } },
    });
    assert.equal(e['event'], 'trial_started');
    assert.deepEqual(e['properties'], { seats: 3, plan: 'pro' });
  });

  it('page_view is a page call named by its page', () => {
    const e = segmentEventOf({ ...base, event_name: 'page_view', event_data: {} });
    assert.equal(e.type, 'page');
    assert.equal(e['name'], 'Checkout');
    assert.equal((e['properties'] as Record<string, unknown>)['path'], '/checkout');
  });

  it('user_identified is an identify call whose traits are the person’s and the producer’s', () => {
    const e = segmentEventOf({
      ...base,
      event_name: 'user_identified',
      event_data: { traits: { plan: 'pro' } },
    });
    assert.equal(e.type, 'identify');
    assert.deepEqual(e['traits'], {
      email: 'a@example.com',
      firstName: 'Ada',
      address: { city: 'Paris', country: 'FR' },
      userId: 'u-1',
      plan: 'pro',
    });
    assert.equal(e['event'], undefined);
  });

  it('user_grouped is a group call with its groupId; user_aliased an alias with previousId', () => {
    const g = segmentEventOf({
      ...base,
      event_name: 'user_grouped',
      event_data: { group_id: 'acme', traits: { name: 'Acme' } },
    });
    assert.equal(g.type, 'group');
    assert.equal(g['groupId'], 'acme');
    assert.deepEqual(g['traits'], { name: 'Acme' });
    const a = segmentEventOf({ ...base, event_name: 'user_aliased', event_data: { previous_id: 'old' } });
    assert.equal(a.type, 'alias');
    assert.equal(a['previousId'], 'old');
  });

  it('leaves out what the event does not say (no consent, no page, no user)', () => {
    const e = segmentEventOf({
      event_name: 'lead',
      event_id: 'e',
      event_time: '2026-11-24T10:00:00.000Z',
      event_data: {},
    });
    assert.deepEqual(e['context'], {});
    assert.equal(e['userId'], undefined);
    assert.equal(e['receivedAt'], '2026-11-24T10:00:00.000Z');
    assert.equal(e['sentAt'], '2026-11-24T10:00:00.000Z');
  });
});
