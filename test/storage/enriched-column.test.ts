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
});
