/**
 * The enrichment step end to end in `store` (docs/enrichment.md): the store function under the
 * real functions framework, pushed by the Pub/Sub emulator, loads its referrer list and country
 * database at cold start and writes the `enriched` RECORD the BigQuery emulator takes.
 */
import assert from 'node:assert/strict';
import { eventually, type StorageStack, startStorageStack, testSettings } from './support.ts';

describe('storage: the enriched column', function () {
  this.timeout(60_000);
  let stack: StorageStack;

  before(async () => {
    stack = await startStorageStack(testSettings({ enrichment: { geo: 'country' } }));
  });
  after(async () => {
    await stack?.close();
  });

  it('stores channel, click ids, fbc, device, bot flag and country of a landing page view', async () => {
    await stack.pubsub.topic('events').publishMessage({
      data: Buffer.from(
        JSON.stringify({
          event_name: 'page_view',
          event_id: 'enriched-1',
          event_time: '2026-11-02T09:30:00.250Z',
          page: {
            url: 'https://shop.example/?utm_source=google&utm_medium=cpc&gclid=Cj0-g&fbclid=IwAR-f',
            referrer: 'https://www.google.com/',
          },
          device: {
            ip: '193.0.6.139',
            user_agent:
              'Mozilla/5.0 (Windows NT 6.2) AppleWebKit/536.6 (KHTML, like Gecko) Chrome/20.0.1090.0 Safari/536.6',
          },
        }),
      ),
    });
    const rows = await eventually(async () => {
      const r = await stack.query(
        `SELECT enriched.channel AS channel, enriched.campaign.gclid AS gclid, enriched.campaign.fbc AS fbc,
           enriched.device.browser AS browser, enriched.bot AS bot, enriched.geo.country AS country
         FROM events WHERE event_id = 'enriched-1'`,
      );
      return r.length > 0 ? r : undefined;
    });
    assert.deepEqual(rows, [
      {
        channel: 'paid_search',
        gclid: 'Cj0-g',
        fbc: `fb.1.${Date.parse('2026-11-02T09:30:00.250Z')}.IwAR-f`,
        browser: 'Chrome',
        bot: false,
        country: 'NL',
      },
    ]);
    // The event type's typed view carries it too.
    const typed = await stack.query(
      `SELECT enriched.channel AS channel FROM page_view WHERE event_id = 'enriched-1'`,
    );
    assert.deepEqual(typed, [{ channel: 'paid_search' }]);
  });

  it('stores the client hints the gateway carried and the device they make more precise', async () => {
    // MDN's Sec-CH-UA-Model example (a Pixel 3 XL), behind Chromium's reduced Android user agent.
    await stack.pubsub.topic('events').publishMessage({
      data: Buffer.from(
        JSON.stringify({
          event_name: 'page_view',
          event_id: 'enriched-hints',
          device: {
            user_agent:
              'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/96.0.0.0 Mobile Safari/537.36',
            client_hints: {
              ua: '" Not A;Brand";v="99", "Chromium";v="96", "Google Chrome";v="96"',
              mobile: '?1',
              platform: '"Android"',
              platform_version: '"12.0.0"',
              model: '"Pixel 3 XL"',
            },
          },
        }),
      ),
    });
    const rows = await eventually(async () => {
      const r = await stack.query(
        `SELECT device.client_hints.model AS hint, enriched.device.model AS model,
           enriched.device.os_version AS os_version, enriched.device.type AS type
         FROM events WHERE event_id = 'enriched-hints'`,
      );
      return r.length > 0 ? r : undefined;
    });
    assert.deepEqual(rows, [
      { hint: '"Pixel 3 XL"', model: 'Pixel 3 XL', os_version: '12.0.0', type: 'mobile' },
    ]);
  });
});
