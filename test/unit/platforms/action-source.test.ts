/**
 * The `action_source` each platform gets when neither the event nor the destination sets one follows
 * who sent the event (core/sender.ts, docs/gateway.md "Who sent an event"): a browser's or a
 * server's is a website's when it names its page, a translator's (a webhook, a file) never is. The
 * event's own `action_source` and the destination's still win.
 */
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../../core/event.ts';
import type { DriverContext } from '../../../core/platforms/driver.ts';
import { googleAdsEvent } from '../../../core/platforms/google-ads/driver.ts';
import { metaServerEvent } from '../../../core/platforms/meta/driver.ts';
import { pinterestEvent } from '../../../core/platforms/pinterest/driver.ts';
import { redditEvent } from '../../../core/platforms/reddit/driver.ts';
import { snapchatEvent } from '../../../core/platforms/snapchat/driver.ts';
import type { Sender } from '../../../core/sender.ts';
import type { Destination } from '../../../schemas/settings.ts';

const ctx = (type: Destination['type'], config: Record<string, string> = {}): DriverContext => ({
  destination: { id: 'd', type, config } as Destination,
  secrets: {},
  now: new Date(),
});
const mapped = { event: 'Purchase', payload: {} };

/** Each platform's default where-it-happened, read from the event it would send. */
const PLATFORMS: Record<string, { website: string; other: string; of: (e: StoredEvent) => unknown }> = {
  meta: {
    website: 'website',
    other: 'other',
    of: (e) => metaServerEvent(mapped, e, ctx('meta_capi')).action_source,
  },
  pinterest: {
    website: 'web',
    other: 'offline',
    of: (e) => pinterestEvent(mapped, e, ctx('pinterest_capi'))['action_source'],
  },
  snapchat: {
    website: 'WEB',
    other: 'OFFLINE',
    of: (e) => snapchatEvent(mapped, e, ctx('snapchat_capi')).action_source,
  },
  reddit: { website: 'WEBSITE', other: 'OTHER', of: (e) => redditEvent(mapped, e)['action_source'] },
  google_ads: { website: 'WEB', other: 'OTHER', of: (e) => googleAdsEvent(mapped, e)['eventSource'] },
};

const event = (
  sender: Sender | undefined,
  page: boolean,
  data: Record<string, unknown> = {},
): StoredEvent => ({
  event_name: 'purchase',
  event_id: 'e1',
  event_time: '2026-01-01T00:00:00.000Z',
  ...(sender ? { sender } : {}),
  ...(page ? { page: { url: 'https://shop.example/checkout' } } : {}),
  event_data: data,
});

describe('platforms: the default action_source follows who sent the event', () => {
  const cases: [string, Sender | undefined, boolean, 'website' | 'other'][] = [
    ['a browser’s event without a page', 'browser', false, 'other'],
    ['a browser’s event with a page', 'browser', true, 'website'],
    ['a server’s event forwarding a page', 'server', true, 'website'],
    ['a server’s event without a page (a backend webhook)', 'server', false, 'other'],
    ['a translator’s event naming a page', 'translator', true, 'other'],
    ['an event of unknown sender with a page (a native publish, a replayed row)', undefined, true, 'website'],
    ['an event of unknown sender without a page', undefined, false, 'other'],
  ];
  for (const [platform, p] of Object.entries(PLATFORMS))
    for (const [name, sender, page, expected] of cases)
      it(`${platform}: ${name} is ${expected === 'website' ? 'a website' : 'not a website'}`, () =>
        assert.equal(p.of(event(sender, page)), p[expected]));

  it('the event’s own action_source still counts for a translator’s event (physical_store)', () => {
    const shop = event('translator', true, { action_source: 'physical_store' });
    assert.equal(PLATFORMS['snapchat']?.of(shop), 'physical_store');
    assert.equal(PLATFORMS['reddit']?.of(shop), 'PHYSICAL_STORE');
    assert.equal(PLATFORMS['google_ads']?.of(shop), 'IN_STORE');
  });

  it('the destination’s action_source still wins over the sender', () => {
    const c = ctx('meta_capi', { action_source: 'app' });
    assert.equal(metaServerEvent(mapped, event('browser', true), c).action_source, 'app');
    assert.equal(
      pinterestEvent(mapped, event('translator', false), ctx('pinterest_capi', { action_source: 'web' }))[
        'action_source'
      ],
      'web',
    );
  });
});
