/**
 * A public write key cannot stall storage with consent strings (#74, docs/delivery.md "Consent"):
 * one request of 20 events, each carrying the costliest TC string the schema allows (16,384
 * characters of vendor ranges over 1..65535, which a general decoder took 13.8 s to expand), is
 * answered, its events are written by the store path and the decision layer decides every
 * destination for them — where the TC string grants, they are sent. The bound is the mocha
 * timeout (generous, for a loaded machine), never a timed assertion.
 */
import assert from 'node:assert/strict';
import { planFanOut } from '../../core/delivery/fan-out.ts';
import { plan } from '../../core/plan.ts';
import type { PubSubMessage } from '../../core/store/message.ts';
import { storeConfig, storeMessages } from '../../core/store/store.ts';
import type { InsertRow, RowWriter } from '../../core/warehouse/rows.ts';
import type { Settings } from '../../schemas/settings.ts';
import { worstTcString } from '../support/tc-strings.ts';
import { baseSettings, FakePublisher, ORIGIN, post, startTestGateway, type TestGateway } from './support.ts';

const SETTINGS: Settings = baseSettings({
  destinations: [
    { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-TEST' } },
    { id: 'meta', type: 'meta_capi', config: { pixel_id: '1' } },
    { id: 'gads', type: 'google_ads', mappings: { view_content: { event: '123' } } },
  ],
} as Partial<Settings>);

describe('gateway: consent strings within budget', function () {
  // Generous for a shared machine; before the strings were bounded this took minutes.
  this.timeout(20_000);
  let g: TestGateway;
  let pub: FakePublisher;
  before(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub, settings: SETTINGS });
  });
  after(() => g.close());

  it('a write-key request of 20 events carrying the worst TC string is answered, stored and decided', async () => {
    // Each event its own string (another CMP id), so no cache hides the cost.
    const consent = (i: number) => ({
      analytics: 'granted',
      ads: 'granted',
      ad_user_data: 'granted',
      tcf: worstTcString(16384, 100 + i),
    });
    const events = Array.from({ length: 20 }, (_, i) => ({
      event_name: 'view_content',
      event_id: `worst-${i}`,
      anonymous_id: `1.${i}`,
      content_name: 'Shoe',
      content_type: 'product',
      consent: consent(i),
    }));
    const a = await post(`${g.url}/v1/topics/events`, events, { origin: ORIGIN, 'x-write-key': g.key });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.messageIds?.length, 20);

    const messages: PubSubMessage[] = pub.calls.flatMap((c) =>
      c.messages.map((m, i) => ({
        messageId: `m-${i}`,
        publishTime: new Date().toISOString(),
        attributes: m.attributes,
        data: m.data,
        subscription: 'projects/test-project/subscriptions/events-store',
        deliveryAttempt: 1,
      })),
    );
    const written: InsertRow[] = [];
    const writer: RowWriter = {
      async write(table, rows) {
        if (table === 'events') written.push(...rows);
        return [];
      },
    };
    const outcome = await storeMessages(messages, {
      writer,
      config: storeConfig(SETTINGS, plan(SETTINGS)),
      now: Date.now,
    });
    assert.equal(outcome.stored.length, 20);
    assert.equal(written.length, 20);
    const fanOut = planFanOut(SETTINGS, outcome.stored, new Date());
    // The string consents to every purpose and vendor: nothing is skipped for consent.
    assert.deepEqual(
      fanOut.skips.map((s) => s.row.reason),
      [],
    );
    assert.equal(fanOut.messages.length, 60);
  });
});
