/**
 * The consent resolver's rules one at a time (core/consent/resolve.ts, docs/delivery.md
 * "Consent"): which refusal is named when several needed purposes are refused, the TCF purposes
 * each of ours needs, the opt-outs' reach, GDPR said not to apply, region defaults beside the
 * site's own word, an SDK's categories, and the refusals that only wait for a consent platform.
 */
import assert from 'node:assert/strict';
import { GppModel } from '@iabgpp/cmpapi';
import {
  awaitsConsent,
  CONSENT_PURPOSES,
  consentRefusalOf,
  resolveConsent,
  resolvePurposes,
  TCF_MISSING,
} from '../../../core/consent/resolve.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { ConsentPurpose } from '../../../schemas/settings.ts';
import { tcString } from '../../support/tc-strings.ts';

const PURPOSES_1_TO_10 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const stored = (consent: Record<string, unknown> | undefined, over: Partial<StoredEvent> = {}): StoredEvent =>
  ({
    event_id: 'e-resolve',
    event_name: 'purchase',
    event_time: '2026-03-01T10:00:00.000Z',
    event_data: {},
    ...(consent === undefined ? {} : { consent }),
    ...over,
  }) as StoredEvent;
/** The refusal for these needs, as the decision layer asks it. */
const refusal = (e: StoredEvent, purposes: ConsentPurpose[], tcfVendor?: number) =>
  consentRefusalOf(e, { purposes, tcfVendor }, true);
const usnat = (saleOptOut: 1 | 2): string => {
  const m = new GppModel();
  m.setFieldValue('usnat', 'SaleOptOutNotice', 1);
  m.setFieldValue('usnat', 'SaleOptOut', saleOptOut);
  return m.encode();
};

describe('consent: the refusal named among several', () => {
  // Purpose 1 refused under TCF denies analytics; the SDK's marketing category denies ads first.
  const tcfAndSdk = stored(
    { tcf: tcString({ purposes: [2], vendors: [] }) },
    { event_data: { consent_management: { deniedConsentIds: ['Marketing'] } } },
  );

  it("the lowest ranked signal wins whatever the purposes' order: an SDK category before TCF", () => {
    const sdk = 'consent ads (consent category Marketing) denied';
    assert.equal(refusal(tcfAndSdk, ['analytics', 'ads']), sdk);
    assert.equal(refusal(tcfAndSdk, ['ads', 'analytics']), sdk);
    assert.deepEqual(resolveConsent(tcfAndSdk, { purposes: ['analytics', 'ads'] }, true), {
      refusal: sdk,
      signal: 'SDK category',
    });
  });

  it('a refusal is named before a purpose no signal states, and the first of equals is kept', () => {
    const half = stored({ tcf: tcString({ purposes: [2], vendors: [] }), ads: 'granted' });
    assert.equal(refusal(half, ['ad_user_data', 'analytics']), 'consent TCF purpose 1 denied');
    assert.equal(refusal(stored({}), ['ad_user_data', 'ads']), 'consent ad_user_data missing');
    assert.equal(refusal(stored({}), ['ads', 'ad_user_data']), 'consent ads missing');
  });

  it('nothing needed is nothing refused, whatever the event says', () => {
    const refused = stored({ analytics: 'denied', gpc: true });
    assert.equal(refusal(refused, []), undefined);
    assert.deepEqual(resolveConsent(refused, { purposes: [] }, true), {
      refusal: undefined,
      signal: undefined,
    });
  });

  it('a grant names every signal that granted a needed purpose, once each', () => {
    const e = stored({ analytics: 'granted', tcf: tcString({ purposes: PURPOSES_1_TO_10, vendors: [755] }) });
    assert.deepEqual(
      resolveConsent(e, { purposes: ['analytics', 'ads', 'ad_user_data'], tcfVendor: 755 }, true),
      {
        refusal: undefined,
        signal: 'event, TCF',
      },
    );
  });
});

describe('consent: what TCF says of each purpose', () => {
  it('purpose 1 refused denies every purpose, and 7 is needed for ad_user_data only', () => {
    const no1 = resolvePurposes(
      stored({ tcf: tcString({ purposes: [2, 3, 4, 7], vendors: [755] }) }),
      755,
      true,
    );
    for (const p of CONSENT_PURPOSES)
      assert.deepEqual(no1[p], { state: 'denied', signal: 'TCF', reason: 'consent TCF purpose 1 denied' }, p);
    const no7 = resolvePurposes(
      stored({ tcf: tcString({ purposes: [1, 3, 4], vendors: [755] }) }),
      755,
      true,
    );
    assert.deepEqual(
      CONSENT_PURPOSES.map((p) => `${p} ${no7[p].state}`),
      ['analytics granted', 'ads granted', 'ad_user_data denied', 'ad_personalization granted'],
    );
    assert.deepEqual(no7.ads, { state: 'granted', signal: 'TCF', reason: 'consent granted (TCF)' });
  });

  it('a vendor the CMP did not disclose, and a string that cannot be read, each say so', () => {
    const hidden = stored({
      tcf: tcString({ purposes: PURPOSES_1_TO_10, vendors: [1126], disclosed: [1126] }),
    });
    assert.equal(refusal(hidden, ['analytics'], 755), 'consent vendor 755 not disclosed (TCF)');
    assert.match(
      refusal(stored({ tcf: 'not-a-tc-string' }), ['analytics']) ?? '',
      /^consent TCF string malformed \(.+\)$/,
    );
  });

  it('GDPR said not to apply leaves a TC string unread; said to apply with none, nothing is consented', () => {
    const refusing = tcString({ purposes: [2], vendors: [] });
    assert.equal(
      refusal(stored({ tcf: refusing, gdpr_applies: false, analytics: 'granted' }), ['analytics']),
      undefined,
    );
    assert.equal(
      refusal(stored({ tcf: refusing, analytics: 'granted' }), ['analytics']),
      'consent TCF purpose 1 denied',
    );
    assert.equal(
      refusal(stored({ gdpr_applies: true, analytics: 'granted' }), ['analytics']),
      TCF_MISSING.reason,
    );
  });
});

describe('consent: the opt-outs of sale and sharing', () => {
  it('GPC denies every advertising purpose, ads included, and never analytics', () => {
    const all = resolvePurposes(stored({ analytics: 'granted', ads: 'granted', gpc: true }), undefined, true);
    assert.deepEqual(all.ads, { state: 'denied', signal: 'GPC', reason: 'consent Sec-GPC opt-out' });
    assert.equal(all.analytics.state, 'granted');
  });

  it('US Privacy and GPP each name themselves; a GPP string without an opt-out refuses nothing', () => {
    assert.deepEqual(resolvePurposes(stored({ ads: 'granted', us_privacy: '1YYN' }), undefined, true).ads, {
      state: 'denied',
      signal: 'US Privacy',
      reason: 'consent US Privacy opt-out',
    });
    assert.equal(refusal(stored({ ads: 'granted', gpp: usnat(2), gpp_sid: '7' }), ['ads']), undefined);
    assert.deepEqual(
      resolveConsent(stored({ ads: 'granted', gpp_pending: true }), { purposes: ['ads'] }, true),
      {
        refusal: 'consent GPP unknown (sent before the GPP CMP was ready)',
        signal: 'GPP',
      },
    );
    const out = resolvePurposes(stored({ ads: 'granted', gpp: usnat(1), gpp_sid: '7' }), undefined, true).ads;
    assert.deepEqual([out.state, out.signal], ['denied', 'GPP']);
    const bad = resolvePurposes(stored({ ads: 'granted', gpp: 'DBAB!!', gpp_sid: '7' }), undefined, true).ads;
    assert.equal(bad.signal, 'GPP');
    assert.match(bad.reason, /^consent GPP string malformed \(.+\)$/);
  });
});

describe("consent: the event's own word, region defaults and an SDK's categories", () => {
  const spain = { enriched: { geo: { country: 'ES' } } } as Partial<StoredEvent>;
  const grantsInSpain = [{ region: ['ES'], ad_storage: 'granted' }];

  it("a region default that grants is Consent Mode's word where the site said nothing, the site's where it did", () => {
    const silent = resolvePurposes(stored({ region_defaults: grantsInSpain }, spain), undefined, true).ads;
    assert.deepEqual([silent.state, silent.signal], ['granted', 'Consent Mode']);
    assert.match(silent.reason, /Consent Mode default for region ES/);
    const said = resolvePurposes(
      stored({ ads: 'granted', region_defaults: grantsInSpain }, spain),
      undefined,
      true,
    );
    assert.deepEqual(said.ads, { state: 'granted', signal: 'event', reason: 'consent ads granted' });
  });

  it('an event without a consent group states nothing', () => {
    const none = resolvePurposes(stored(undefined), undefined, true);
    for (const p of CONSENT_PURPOSES)
      assert.deepEqual(none[p], { state: undefined, signal: undefined, reason: `consent ${p} missing` }, p);
  });

  it("an SDK's category grants or refuses where the event itself says nothing", () => {
    const cm = { allowedConsentIds: ['C0002'], deniedConsentIds: ['C0004'] };
    const got = resolvePurposes(stored({}, { event_data: { consent_management: cm } }), undefined, true);
    assert.deepEqual(got.analytics, {
      state: 'granted',
      signal: 'SDK category',
      reason: 'consent analytics granted',
    });
    assert.deepEqual(got.ads, {
      state: 'denied',
      signal: 'SDK category',
      reason: 'consent ads (consent category C0004) denied',
    });
  });
});

describe('consent: refusals that wait for a consent platform', () => {
  it('are a TCF CMP not answered, a GPP CMP not ready and a purpose no signal states; no other', () => {
    const waiting = [
      TCF_MISSING.reason,
      'consent GPP unknown (sent before the GPP CMP was ready)',
      ...CONSENT_PURPOSES.map((p) => `consent ${p} missing`),
    ];
    for (const reason of waiting) assert.equal(awaitsConsent(reason), true, reason);
    for (const reason of [
      'consent ads denied',
      'consent Sec-GPC opt-out',
      'consent TCF purpose 1 denied',
      '',
    ])
      assert.equal(awaitsConsent(reason), false, reason);
  });
});
