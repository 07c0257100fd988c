/**
 * Consent as browsers and SDKs send it, through the gateway to the stored event and the
 * decision layer (docs/delivery.md, "Consent"): Google Consent Mode's names are accepted (never a
 * 400), `Sec-GPC: 1` becomes `consent.gpc` and skips ad destinations by default, and the stock
 * Segment/RudderStack translator reads their SDKs' consent shapes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createPublisher, type EventPublisher } from '../../adapters/publisher.ts';
import { decideOne } from '../../core/decision/decision.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { Destination } from '../../schemas/settings.ts';
import { type Bus, startBus } from './emulator-support.ts';
import { fixedTranslators, post, startTestGateway, type TestGateway } from './support.ts';

const SEGMENT = parse(
  readFileSync(join(import.meta.dirname, '../../examples/translators/segment-rudderstack.yaml'), 'utf8'),
) as { spec: unknown };

const meta: Destination = { id: 'meta', type: 'meta_capi' };
const ga4: Destination = { id: 'ga4', type: 'ga4_mp' };
const options = { isKnownEvent: () => true };
const verdict = (d: Destination, e: StoredEvent): string => {
  const r = decideOne(d, e, options);
  return r.action === 'send' ? 'send' : r.reason;
};

describe('gateway: consent as the web expresses it', function () {
  this.timeout(30_000);
  let bus: Bus;
  let publisher: EventPublisher;
  let g: TestGateway;
  let auth: Record<string, string>;
  let basic: Record<string, string>;
  before(async () => {
    bus = await startBus('test-project', ['events']);
    publisher = createPublisher({ project: 'test-project', emulatorHost: bus.host, totalTimeoutMs: 5000 });
    g = await startTestGateway({ publisher, translators: fixedTranslators({ segment: SEGMENT.spec }) });
    auth = { authorization: `Bearer ${await g.mint(['publish:*'])}` };
    basic = {
      authorization: `Basic ${Buffer.from(`${await g.mint(['translate:segment'])}:`).toString('base64')}`,
    };
  });
  after(async () => {
    await g.close();
    await publisher.close();
    await bus.close();
  });
  const stored = async (): Promise<StoredEvent[]> =>
    (await bus.drain('events')).map((m) => JSON.parse(m.data) as StoredEvent);

  it('Consent Mode names are accepted (not a 400) and honoured per destination', async () => {
    const consent = { ad_storage: 'granted', ad_user_data: 'granted', analytics_storage: 'denied' };
    const a = await post(
      `${g.url}/v1/topics/events`,
      { event_name: 'page_view', anonymous_id: 'a.1', consent },
      auth,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const [e] = await stored();
    assert.deepEqual(e?.consent, consent);
    assert.equal(verdict(meta, e as StoredEvent), 'send');
    assert.equal(verdict(ga4, e as StoredEvent), 'consent analytics_storage denied (Consent Mode)');
  });

  it('a TCF string in consent is accepted; a malformed one is stored and skips with a reason naming TCF', async () => {
    const consent = { ads: 'granted', ad_user_data: 'granted', tcf: 'not-a-tc-string' };
    const a = await post(
      `${g.url}/v1/topics/events`,
      { event_name: 'page_view', anonymous_id: 'a.1', consent },
      auth,
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const [e] = await stored();
    assert.match(verdict(meta, e as StoredEvent), /^consent TCF string malformed/);
  });

  it('Sec-GPC: 1 is carried as consent.gpc and skips ad destinations by default', async () => {
    const consent = { ads: 'granted', ad_user_data: 'granted', analytics: 'granted' };
    const body = { event_name: 'page_view', anonymous_id: 'a.1', consent };
    assert.equal((await post(`${g.url}/v1/topics/events`, body, { ...auth, 'sec-gpc': '1' })).status, 200);
    assert.equal((await post(`${g.url}/v1/topics/events`, body, auth)).status, 200);
    const [withGpc, without] = await stored();
    assert.equal(withGpc?.consent?.['gpc'], true);
    assert.equal(verdict(meta, withGpc as StoredEvent), 'consent Sec-GPC opt-out');
    assert.equal(verdict(ga4, withGpc as StoredEvent), 'send');
    assert.equal(without?.consent?.['gpc'], undefined);
    assert.equal(verdict(meta, without as StoredEvent), 'send');
  });

  it("the event's own consent.gpc wins over the header", async () => {
    const consent = { ads: 'granted', ad_user_data: 'granted', gpc: false };
    const body = { event_name: 'page_view', anonymous_id: 'a.1', consent };
    assert.equal((await post(`${g.url}/v1/topics/events`, body, { ...auth, 'sec-gpc': '1' })).status, 200);
    const [e] = await stored();
    assert.equal(e?.consent?.['gpc'], false);
    assert.equal(verdict(meta, e as StoredEvent), 'send');
  });

  it("Segment's context.consent.categoryPreferences is honoured through the stock translator", async () => {
    const call = (Advertising: boolean) => ({
      anonymousId: 'a-1',
      event: 'Product Viewed',
      properties: { product_id: 'p-1', name: 'Shoe' },
      context: { consent: { categoryPreferences: { Advertising, Analytics: true, Functional: true } } },
    });
    assert.equal((await post(`${g.url}/v1/track`, call(true), basic)).status, 200);
    assert.equal((await post(`${g.url}/v1/track`, call(false), basic)).status, 200);
    const [yes, no] = await stored();
    assert.deepEqual(yes?.consent, {
      ads: 'granted',
      ad_user_data: 'granted',
      ad_personalization: 'granted',
      analytics: 'granted',
    });
    assert.equal(verdict(meta, yes as StoredEvent), 'send');
    assert.equal(verdict(meta, no as StoredEvent), 'consent ads denied');
    assert.equal(verdict(ga4, no as StoredEvent), 'send');
  });

  it("RudderStack's context.consentManagement is kept and honoured through the stock translator", async () => {
    const consentManagement = {
      provider: 'oneTrust',
      allowedConsentIds: ['C0001', 'C0002'],
      deniedConsentIds: ['C0004'],
      resolutionStrategy: 'and',
    };
    const call = {
      anonymousId: 'a-1',
      event: 'Product Viewed',
      properties: { product_id: 'p-1', name: 'Shoe' },
      context: { consentManagement },
    };
    const a = await post(`${g.url}/v1/track`, call, basic);
    assert.equal(a.status, 200);
    const [e] = await stored();
    assert.ok(e, JSON.stringify(a.body));
    assert.deepEqual(e?.event_data['consent_management'], consentManagement);
    assert.equal(verdict(meta, e as StoredEvent), 'consent ads (consent category C0004) denied');
    assert.equal(verdict(ga4, e as StoredEvent), 'send');
  });
});
