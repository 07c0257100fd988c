import assert from 'node:assert/strict';
import type { Driver, DriverContext } from '../../../core/platforms/driver.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { checkGa4Request } from '../../../core/platforms/ga4/target.ts';
import { googleAdsDriver } from '../../../core/platforms/google-ads/index.ts';
import { checkGoogleAdsRequest } from '../../../core/platforms/google-ads/target.ts';
import { linkedinDriver } from '../../../core/platforms/linkedin/index.ts';
import { checkLinkedInRequest } from '../../../core/platforms/linkedin/target.ts';
import { DEFAULT_MAPPINGS } from '../../../core/platforms/mappings.ts';
import { metaCapiDriver } from '../../../core/platforms/meta/index.ts';
import { checkMetaRequest } from '../../../core/platforms/meta/target.ts';
import { microsoftDriver } from '../../../core/platforms/microsoft/index.ts';
import { checkMicrosoftRequest } from '../../../core/platforms/microsoft/target.ts';
import { redditDriver } from '../../../core/platforms/reddit/index.ts';
import { checkRedditRequest } from '../../../core/platforms/reddit/target.ts';
import { tiktokEventsDriver } from '../../../core/platforms/tiktok/index.ts';
import { checkTikTokRequest } from '../../../core/platforms/tiktok/target.ts';
import { CATALOGUE } from '../../../schemas/catalogue.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { CATALOGUE_NAMES, JOHN_SMITH, NOW, PHONE_US, storedEvent } from './sample-events.ts';

const DESTINATIONS: Record<string, Destination> = {
  meta_capi: { id: 'meta', type: 'meta_capi', config: { pixel_id: '123456789012345' } },
  ga4_mp: { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-ABC123' } },
  tiktok_events: { id: 'tiktok', type: 'tiktok_events', config: { pixel_code: 'CABCDEFGHIJ1234567' } },
  // Every catalogue event routed to a conversion action, as a destination's settings do.
  google_ads: {
    id: 'google-ads',
    type: 'google_ads',
    config: { operating_account_id: '1234567890' },
    mappings: Object.fromEntries(CATALOGUE_NAMES.map((name, i) => [name, { event: String(1000 + i) }])),
  },
  // Every catalogue event routed to a conversion rule, as a destination's settings do.
  linkedin_capi: {
    id: 'linkedin',
    type: 'linkedin_capi',
    mappings: Object.fromEntries(CATALOGUE_NAMES.map((name, i) => [name, { event: String(2000 + i) }])),
  },
  microsoft_uet: { id: 'microsoft', type: 'microsoft_uet', config: { tag_id: '187000001' } },
  reddit_capi: { id: 'reddit', type: 'reddit_capi', config: { pixel_id: 'a2_pixel' } },
};
const SECRETS = { access_token: 'tok', api_secret: 'sec', credentials: '{}' };
const ctx = (type: string): DriverContext => ({
  destination: DESTINATIONS[type] as Destination,
  secrets: SECRETS,
  now: NOW,
});

const platforms: [string, Driver, (body: unknown) => readonly unknown[]][] = [
  ['meta_capi', metaCapiDriver, (b) => checkMetaRequest(b, NOW)],
  ['ga4_mp', ga4MpDriver, (b) => checkGa4Request(b, NOW)],
  ['tiktok_events', tiktokEventsDriver, (b) => checkTikTokRequest(b)],
  ['google_ads', googleAdsDriver, (b) => checkGoogleAdsRequest(b)],
  ['linkedin_capi', linkedinDriver, (b) => checkLinkedInRequest(b, NOW, false)],
  ['microsoft_uet', microsoftDriver, (b) => checkMicrosoftRequest(b)],
  ['reddit_capi', redditDriver, (b) => checkRedditRequest(b, NOW)],
];

function body(driver: Driver, type: string, name: string): Record<string, unknown> {
  const prepared = driver.prepare(storedEvent(name), ctx(type));
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  return JSON.parse(prepared.request.body) as Record<string, unknown>;
}

describe('linkage defaults: every catalogue event to every platform', () => {
  it('the sample events cover the whole catalogue, and every platform has a default for each', () => {
    assert.deepEqual([...CATALOGUE_NAMES].sort(), CATALOGUE.map((e) => e.name).sort());
    for (const table of Object.values(DEFAULT_MAPPINGS))
      assert.deepEqual(Object.keys(table).sort(), [...CATALOGUE_NAMES].sort());
  });

  for (const [type, driver, check] of platforms) {
    for (const name of CATALOGUE_NAMES) {
      it(`${name} → ${type} passes the target schema and limits`, () => {
        assert.deepEqual(check(body(driver, type, name)), []);
      });
    }
  }

  it('view_content with only the required fields (no content_id) still goes to every platform', () => {
    const minimal = storedEvent('view_content', {
      content_name: 'Red Shoe',
      content_type: 'product',
      value: 49.9,
    });
    for (const [type, driver, check] of platforms) {
      const prepared = driver.prepare(minimal, ctx(type));
      assert.ok(prepared.ok, `${type}: ${prepared.ok ? '' : prepared.reason}`);
      assert.deepEqual(check(JSON.parse(prepared.request.body)), [], type);
    }
    const meta = metaCapiDriver.prepare(minimal, ctx('meta_capi'));
    assert.ok(meta.ok);
    const custom = (JSON.parse(meta.request.body).data[0] as { custom_data: Record<string, unknown> })
      .custom_data;
    assert.equal(custom['contents'], undefined, 'no contents[] entry without an id');
    assert.equal(custom['content_name'], 'Red Shoe');
  });

  it('view_content → Meta ViewContent with custom_data and hashed user_data', () => {
    const data = (body(metaCapiDriver, 'meta_capi', 'view_content')['data'] as Record<string, unknown>[])[0];
    assert.ok(data);
    assert.equal(data['event_name'], 'ViewContent');
    assert.equal(data['event_time'], 1731741454);
    assert.equal(data['action_source'], 'website');
    const user = data['user_data'] as Record<string, unknown>;
    assert.deepEqual(user['em'], [JOHN_SMITH]);
    assert.deepEqual(user['ph'], [PHONE_US]);
    assert.equal(user['client_ip_address'], '123.123.123.123');
    assert.equal(user['fbc'], 'fb.1.1731741454567.abc');
    assert.deepEqual(data['custom_data'], {
      content_name: 'Red Shoe',
      content_category: 'product',
      content_type: 'product',
      content_ids: ['SKU1'],
      contents: [{ id: 'SKU1', quantity: 1, item_price: 49.9 }],
      value: 49.9,
      currency: 'USD',
    });
  });

  it('view_content → GA4 view_item with items[]', () => {
    const b = body(ga4MpDriver, 'ga4_mp', 'view_content');
    assert.equal(b['client_id'], '123.456');
    assert.equal(b['timestamp_micros'], 1731741454567000);
    assert.deepEqual(b['consent'], { ad_user_data: 'GRANTED', ad_personalization: 'DENIED' });
    const events = b['events'] as { name: string; params: Record<string, unknown> }[];
    assert.equal(events[0]?.name, 'view_item');
    assert.deepEqual(events[0]?.params['items'], [
      { item_id: 'SKU1', item_name: 'Red Shoe', item_category: 'product', price: 49.9, quantity: 1 },
    ]);
  });

  it('view_content → TikTok ViewContent with contents[]; purchase → CompletePayment with order_id', () => {
    const v = (
      body(tiktokEventsDriver, 'tiktok_events', 'view_content')['data'] as Record<string, unknown>[]
    )[0];
    assert.equal(v?.['event'], 'ViewContent');
    assert.deepEqual((v?.['properties'] as Record<string, unknown> | undefined)?.['contents'], [
      { content_id: 'SKU1', content_name: 'Red Shoe', price: 49.9, quantity: 1 },
    ]);
    const user = v?.['user'] as Record<string, unknown>;
    assert.equal(user['email'], JOHN_SMITH);
    // TikTok: E.164 with the + before hashing.
    assert.notEqual(user['phone'], PHONE_US);
    const p = body(tiktokEventsDriver, 'tiktok_events', 'purchase');
    const row = (p['data'] as Record<string, unknown>[])[0];
    assert.equal(row?.['event'], 'CompletePayment');
    assert.equal((row?.['properties'] as Record<string, unknown> | undefined)?.['order_id'], 'T-1');
  });
});
