/**
 * Consent as the web expresses it, at the decision layer (core/decision/consent.ts,
 * docs/delivery.md "Consent"): Google Consent Mode's names, the IAB TCF string (built with
 * @iabtcf/core's encoder: test/support/tc-strings.ts), US Privacy, GPP (built with
 * @iabgpp/cmpapi's encoder) and Global Privacy Control, each named in the skip reason.
 */
import assert from 'node:assert/strict';
import { GppModel } from '@iabgpp/cmpapi';
import { decide, decideOne } from '../../core/decision/decision.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { tcString } from '../support/tc-strings.ts';

const options = { isKnownEvent: () => true };
const ALL_GRANTED = { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' } as const;

const event = (consent: StoredEvent['consent'], data: Record<string, unknown> = {}): StoredEvent => ({
  event_name: 'view_content',
  event_id: 'e-1',
  event_time: '2026-01-01T00:00:00.000Z',
  anonymous_id: '1874934510.1700000000',
  ...(consent ? { consent } : {}),
  event_data: { content_name: 'Shoe', ...data },
});

const meta: Destination = { id: 'meta', type: 'meta_capi' };
const ga4: Destination = { id: 'ga4', type: 'ga4_mp' };
const googleAds: Destination = {
  id: 'gads',
  type: 'google_ads',
  mappings: { view_content: { event: '123' } },
} as Destination;
const microsoft: Destination = { id: 'ms', type: 'microsoft_uet' };
const webhook: Destination = { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:1' };

const reason = (d: Destination, e: StoredEvent, honorGpc?: boolean): string => {
  const r = decideOne(d, e, honorGpc === undefined ? options : { ...options, honorGpc });
  return r.action === 'send' ? 'send' : r.reason;
};

describe('consent: Google Consent Mode names', () => {
  it('ad_storage and analytics_storage stand for ads and analytics, per destination', () => {
    const e = event({ ad_storage: 'granted', ad_user_data: 'granted', analytics_storage: 'denied' });
    assert.equal(reason(meta, e), 'send');
    assert.equal(reason(ga4, e), 'consent analytics_storage denied (Consent Mode)');
  });

  it('ad_storage denied skips ad destinations, named as the producer sent it', () => {
    const e = event({ ad_storage: 'denied', ad_user_data: 'granted', analytics_storage: 'granted' });
    assert.equal(reason(meta, e), 'consent ad_storage denied (Consent Mode)');
    assert.equal(reason(ga4, e), 'send');
  });

  it('our name and Consent Mode name given and different: the stricter (denied) wins', () => {
    assert.equal(
      reason(meta, event({ ads: 'granted', ad_storage: 'denied', ad_user_data: 'granted' })),
      'consent ad_storage denied (Consent Mode)',
    );
    assert.equal(
      reason(meta, event({ ads: 'denied', ad_storage: 'granted', ad_user_data: 'granted' })),
      'consent ads denied',
    );
  });
});

describe('consent: the IAB TCF string', () => {
  const granted = (tcf: string) => event({ ...ALL_GRANTED, tcf });

  it('purpose 1 denied skips ad and analytics destinations with a reason naming TCF', () => {
    const tcf = tcString({ purposes: [2, 3, 4, 7], vendors: [755, 1126] });
    for (const d of [meta, ga4, googleAds, microsoft])
      assert.equal(reason(d, granted(tcf)), 'consent TCF purpose 1 denied');
    assert.equal(reason(webhook, granted(tcf)), 'send');
  });

  it("the platform's vendor not consented skips that platform only", () => {
    const tcf = tcString({ purposes: [1, 7], vendors: [1126] });
    assert.equal(reason(googleAds, granted(tcf)), 'consent vendor 755 not consented (TCF)');
    assert.equal(reason(ga4, granted(tcf)), 'consent vendor 755 not consented (TCF)');
    assert.equal(reason(microsoft, granted(tcf)), 'send');
    // Meta's id is not hard-coded (docs/delivery.md): purpose 1 alone gates it.
    assert.equal(reason(meta, granted(tcf)), 'send');
  });

  it('a vendor the CMP did not disclose (disclosed-vendors segment) is refused', () => {
    const tcf = tcString({ purposes: [1, 7], vendors: [755, 1126], disclosed: [1126, 32] });
    assert.equal(reason(googleAds, granted(tcf)), 'consent vendor 755 not disclosed (TCF)');
    assert.equal(reason(microsoft, granted(tcf)), 'send');
  });

  it('a malformed string skips with a reason naming TCF; gdpr_applies false ignores the string', () => {
    assert.match(reason(meta, granted('not-a-tc-string')), /^consent TCF string malformed \(/);
    assert.equal(
      reason(meta, event({ ...ALL_GRANTED, tcf: 'not-a-tc-string', gdpr_applies: false })),
      'send',
    );
  });

  it("a GPP string's TCF EU section (tcfeuv2) is read as the TC string", () => {
    const model = new GppModel();
    model.decodeSection('tcfeuv2', tcString({ purposes: [2], vendors: [755], serviceSpecific: true }));
    const gpp = model.encode();
    assert.equal(reason(meta, event({ ...ALL_GRANTED, gpp, gpp_sid: '2' })), 'consent TCF purpose 1 denied');
  });

  it('the string where producers put it today: a top-level gdpr_consent (event_data), gdpr=0 honoured', () => {
    const tcf = tcString({ purposes: [2], vendors: [] });
    assert.equal(reason(meta, event(ALL_GRANTED, { gdpr_consent: tcf })), 'consent TCF purpose 1 denied');
    assert.equal(reason(meta, event(ALL_GRANTED, { gdpr_consent: tcf, gdpr: 0 })), 'send');
  });
});

describe('consent: opt-outs of sale and sharing', () => {
  it('Sec-GPC (consent.gpc) skips ad destinations by default, not analytics; honor_gpc false turns it off', () => {
    const e = event({ ...ALL_GRANTED, gpc: true });
    assert.equal(reason(meta, e), 'consent Sec-GPC opt-out');
    assert.equal(reason(ga4, e), 'send');
    assert.equal(reason(meta, e, false), 'send');
    const settings = { producers: { honor_gpc: false }, destinations: [meta] } as unknown as Settings;
    assert.deepEqual(decide(settings, e, options), [{ destination: 'meta', action: 'send' }]);
  });

  it('a US Privacy string saying opted out (1YYN) skips ad destinations', () => {
    assert.equal(reason(meta, event({ ...ALL_GRANTED, us_privacy: '1YYN' })), 'consent US Privacy opt-out');
    assert.equal(reason(meta, event({ ...ALL_GRANTED, us_privacy: '1YNN' })), 'send');
    assert.equal(reason(meta, event(ALL_GRANTED, { us_privacy: '1YYN' })), 'consent US Privacy opt-out');
  });

  it('a GPP string whose usnat section opts out of sale skips ad destinations, per gpp_sid', () => {
    const model = new GppModel();
    model.setFieldValue('usnat', 'SaleOptOutNotice', 1);
    model.setFieldValue('usnat', 'SaleOptOut', 1);
    const gpp = model.encode();
    assert.equal(
      reason(meta, event({ ...ALL_GRANTED, gpp, gpp_sid: '7' })),
      'consent GPP opt-out (usnat SaleOptOut)',
    );
    assert.equal(reason(ga4, event({ ...ALL_GRANTED, gpp, gpp_sid: '7' })), 'send');
    // A section not in force for the page is not read.
    assert.equal(reason(meta, event({ ...ALL_GRANTED, gpp, gpp_sid: '8' })), 'send');
    const optedIn = new GppModel();
    optedIn.setFieldValue('usnat', 'SaleOptOutNotice', 1);
    optedIn.setFieldValue('usnat', 'SaleOptOut', 2);
    assert.equal(reason(meta, event({ ...ALL_GRANTED, gpp: optedIn.encode() })), 'send');
  });
});

describe('consent: an SDK shape kept by its translator', () => {
  it("RudderStack's consentManagement: a denied advertising category skips, an allowed one grants", () => {
    const denied = {
      provider: 'oneTrust',
      allowedConsentIds: ['C0001', 'C0002'],
      deniedConsentIds: ['C0004'],
    };
    assert.equal(
      reason(meta, event({}, { consent_management: denied })),
      'consent ads (consent category C0004) denied',
    );
    assert.equal(reason(ga4, event({}, { consent_management: denied })), 'send');
    const allowed = { provider: 'custom', allowedConsentIds: ['Advertising'], deniedConsentIds: [] };
    assert.equal(reason(meta, event({}, { consent_management: allowed })), 'send');
  });
});
