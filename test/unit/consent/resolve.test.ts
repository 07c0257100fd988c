/**
 * One resolver for every consent signal (core/consent/resolve.ts, docs/delivery.md "Consent",
 * #74): an opt-out of sale or sharing removes the advertising purposes for every destination —
 * GA4 is sent `ad_user_data` and `ad_personalization` DENIED and no user data, Meta and TikTok
 * are skipped naming the signal —, a TCF-only site delivers where TCF grants, a refusal wins over
 * a grant, and the signal that decided is named (Consent Mode included). The decision layer and
 * the GA4 driver are run as the store and forward functions run them.
 */
import assert from 'node:assert/strict';
import { GppModel } from '@iabgpp/cmpapi';
import { resolveConsent, resolvePurposes } from '../../../core/consent/resolve.ts';
import { decideOne } from '../../../core/decision/decision.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { DriverContext } from '../../../core/platforms/driver.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { metaCapiDriver } from '../../../core/platforms/meta/index.ts';
import { PLATFORMS } from '../../../core/platforms/platforms.ts';
import { TCF_VENDORS } from '../../../core/platforms/requirements.ts';
import { tiktokEventsDriver } from '../../../core/platforms/tiktok/index.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { tcString } from '../../support/tc-strings.ts';

const options = { isKnownEvent: () => true };
const ALL_GRANTED = {
  analytics: 'granted',
  ads: 'granted',
  ad_user_data: 'granted',
  ad_personalization: 'granted',
} as const;

const ga4: Destination = { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-TEST' } };
const meta: Destination = { id: 'meta', type: 'meta_capi', config: { pixel_id: '1' } };
const tiktok: Destination = { id: 'tiktok', type: 'tiktok_events', config: { pixel_code: 'C1' } };

const event = (consent: StoredEvent['consent']): StoredEvent => ({
  event_name: 'view_content',
  event_id: 'e-1',
  event_time: new Date(Date.now() - 60_000).toISOString(),
  anonymous_id: '1874934510.1700000000',
  user: { email: 'jane@example.com' },
  ...(consent ? { consent } : {}),
  event_data: { content_name: 'Shoe', content_type: 'product' },
});

const verdict = (d: Destination, e: StoredEvent, honorGpc = true): string => {
  const r = decideOne(d, e, { ...options, honorGpc });
  return r.action === 'send' ? 'send' : r.reason;
};

/** The GA4 request body the forward function would send for the event. */
function ga4Body(e: StoredEvent, honorGpc?: boolean): Record<string, unknown> {
  const ctx: DriverContext = {
    destination: ga4,
    secrets: { api_secret: 's' },
    now: new Date(),
    ...(honorGpc === undefined ? {} : { honorGpc }),
  };
  const prepared = ga4MpDriver.prepare(e, ctx);
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  return JSON.parse(prepared.request.body) as Record<string, unknown>;
}

function gppSaleOptOut(): string {
  const m = new GppModel();
  m.setFieldValue('usnat', 'SaleOptOutNotice', 1);
  m.setFieldValue('usnat', 'SaleOptOut', 1);
  return m.encode();
}

describe('consent resolver: an opt-out of sale or sharing reaches every destination', () => {
  const optOuts = [
    { name: 'Sec-GPC', consent: { ...ALL_GRANTED, gpc: true }, reason: 'consent Sec-GPC opt-out' },
    {
      name: 'a GPP usnat sale opt-out',
      consent: { ...ALL_GRANTED, gpp: gppSaleOptOut(), gpp_sid: '7' },
      reason: 'consent GPP opt-out (usnat SaleOptOut)',
    },
    {
      name: 'US Privacy 1YYN',
      consent: { ...ALL_GRANTED, us_privacy: '1YYN' },
      reason: 'consent US Privacy opt-out',
    },
  ];

  it('without an opt-out, GA4 is told what the person granted and gets the hashed e-mail', () => {
    const body = ga4Body(event(ALL_GRANTED));
    assert.deepEqual(body['consent'], { ad_user_data: 'GRANTED', ad_personalization: 'GRANTED' });
    assert.ok(body['user_data'] !== undefined);
  });

  it('a purpose no signal states is refused: the docs’ snippet sends GA4 DENIED and no user data (#96)', () => {
    // docs/browser.md's Consent Mode snippet: analytics granted, ad_storage denied, ad_user_data unstated.
    const e = event({ analytics_storage: 'granted', ad_storage: 'denied' });
    assert.equal(verdict(ga4, e), 'send');
    const body = ga4Body(e);
    assert.deepEqual(body['consent'], { ad_user_data: 'DENIED', ad_personalization: 'DENIED' });
    assert.equal(body['user_data'], undefined);
    assert.doesNotMatch(JSON.stringify(body), /jane|"user_data"/);
    const prepared = ga4MpDriver.prepare(e, {
      destination: ga4,
      secrets: { api_secret: 's' },
      now: new Date(),
    });
    assert.equal(prepared.ok && prepared.dropped, 'left out user_data (consent ad_user_data missing)');
  });

  for (const o of optOuts) {
    it(`${o.name}: GA4 is sent ad_user_data and ad_personalization DENIED and no user data`, () => {
      const e = event(o.consent);
      assert.equal(verdict(ga4, e), 'send');
      const body = ga4Body(e);
      assert.deepEqual(body['consent'], { ad_user_data: 'DENIED', ad_personalization: 'DENIED' });
      assert.equal(body['user_data'], undefined);
    });

    it(`${o.name}: Meta and TikTok are skipped with the signal named`, () => {
      const e = event(o.consent);
      assert.equal(verdict(meta, e), o.reason);
      assert.equal(verdict(tiktok, e), o.reason);
    });
  }

  it('a Meta destination whose own consent list lets the event through is told: opt_out and limited data use', () => {
    const own: Destination = { ...meta, consent: ['analytics'] };
    // From a browser: its address and user agent, which Meta matches as sent.
    const e = {
      ...event({ ...ALL_GRANTED, us_privacy: '1YYN' }),
      device: { ip: '203.0.113.9', user_agent: 'Mozilla/5.0' },
    };
    assert.equal(verdict(own, e), 'send');
    const prepared = metaCapiDriver.prepare(e, {
      destination: own,
      secrets: { access_token: 't' },
      now: new Date(),
    });
    assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
    const [sent] = (JSON.parse(prepared.request.body) as { data: Record<string, unknown>[] }).data;
    assert.equal(sent?.['opt_out'], true);
    assert.deepEqual(sent?.['data_processing_options'], ['LDU']);
    // No hashed user data: what Meta is told follows the verdict, not the destination's list.
    const userData = sent?.['user_data'] as Record<string, unknown>;
    assert.equal(userData['em'], undefined, JSON.stringify(userData));
    assert.equal(userData['external_id'], undefined);
    assert.match(prepared.dropped ?? '', /left out user_data em.*\(consent US Privacy opt-out\)/);
  });

  it('without an opt-out the same Meta destination keeps the hashed e-mail', () => {
    const own: Destination = { ...meta, consent: ['analytics'] };
    const prepared = metaCapiDriver.prepare(event(ALL_GRANTED), {
      destination: own,
      secrets: { access_token: 't' },
      now: new Date(),
    });
    assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
    const [sent] = (JSON.parse(prepared.request.body) as { data: Record<string, unknown>[] }).data;
    assert.ok(
      (sent?.['user_data'] as Record<string, unknown> | undefined)?.['em'],
      'the hashed e-mail is sent',
    );
  });

  it('a TikTok destination whose own list lets an opted-out event through gets no hashed e-mail', () => {
    const own: Destination = { ...tiktok, consent: ['analytics'] };
    const e = event({ ...ALL_GRANTED, gpc: true });
    assert.equal(verdict(own, e), 'send');
    const prepared = tiktokEventsDriver.prepare(e, {
      destination: own,
      secrets: { access_token: 't' },
      now: new Date(),
    });
    assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
    const body = prepared.request.body;
    assert.ok(!body.includes('"email"'), body);
    assert.ok(body.includes('"limited_data_use":true'), body);
  });

  it('producers.honor_gpc false: GPC decides nothing, at the decision layer and in what GA4 is told', () => {
    const e = event({ ...ALL_GRANTED, gpc: true });
    assert.equal(verdict(meta, e, false), 'send');
    assert.deepEqual(ga4Body(e, false)['consent'], {
      ad_user_data: 'GRANTED',
      ad_personalization: 'GRANTED',
    });
  });
});

describe('consent resolver: a TCF-only site', () => {
  const everything = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

  it('full consent in the TC string alone delivers to GA4, Meta and TikTok', () => {
    const e = event({ tcf: tcString({ purposes: everything, vendors: [755, 1126] }) });
    for (const d of [ga4, meta, tiktok]) assert.equal(verdict(d, e), 'send', d.id);
    assert.deepEqual(ga4Body(e)['consent'], { ad_user_data: 'GRANTED', ad_personalization: 'GRANTED' });
    assert.equal(resolveConsent(e, { purposes: ['ads', 'ad_user_data'] }, true).signal, 'TCF');
  });

  it('GDPR said to apply with no TC string (a CMP that had not answered) is no consent under TCF', () => {
    const e = event({ ...ALL_GRANTED, gdpr_applies: true });
    for (const d of [ga4, meta, tiktok])
      assert.equal(verdict(d, e), 'consent TCF string missing (gdpr_applies true)', d.id);
    assert.equal(verdict(meta, event({ ...ALL_GRANTED, gdpr_applies: false })), 'send');
  });

  it('purpose 1 refused skips all three, naming TCF', () => {
    const e = event({ tcf: tcString({ purposes: everything.slice(1), vendors: [755] }) });
    for (const d of [ga4, meta, tiktok]) assert.equal(verdict(d, e), 'consent TCF purpose 1 denied', d.id);
  });

  it("Google's vendor refused skips GA4 only; personalisation refused (3, 4) tells GA4 DENIED", () => {
    const e = event({ tcf: tcString({ purposes: [1, 7], vendors: [1126] }) });
    assert.equal(verdict(ga4, e), 'consent vendor 755 not consented (TCF)');
    assert.equal(verdict(meta, e), 'send');
    const personal = event({ tcf: tcString({ purposes: [1, 7], vendors: [755] }) });
    assert.deepEqual(ga4Body(personal)['consent'], { ad_user_data: 'GRANTED', ad_personalization: 'DENIED' });
  });
});

describe('consent resolver: precedence and the deciding signal', () => {
  it('a refusal wins: Consent Mode granted beside a TC string refusing purpose 1', () => {
    const e = event({
      ad_storage: 'granted',
      ad_user_data: 'granted',
      tcf: tcString({ purposes: [2], vendors: [] }),
    });
    assert.equal(verdict(meta, e), 'consent TCF purpose 1 denied');
  });

  it('Consent Mode is named when it decides, refusing or granting', () => {
    const denied = resolveConsent(event({ analytics_storage: 'denied' }), { purposes: ['analytics'] }, true);
    assert.deepEqual(
      [denied.refusal, denied.signal],
      ['consent analytics_storage denied (Consent Mode)', 'Consent Mode'],
    );
    const granted = resolveConsent(
      event({ analytics_storage: 'granted' }),
      { purposes: ['analytics'] },
      true,
    );
    assert.deepEqual([granted.refusal, granted.signal], [undefined, 'Consent Mode']);
  });

  it('the event states the purpose: its own word is named before TCF and the opt-outs', () => {
    const e = event({
      ads: 'denied',
      ad_user_data: 'granted',
      gpc: true,
      tcf: tcString({ purposes: [2], vendors: [] }),
    });
    assert.equal(verdict(meta, e), 'consent ads denied');
  });

  it('a destination needing no purpose is gated by no signal', () => {
    const e = event({ gpc: true, tcf: 'not-a-tc-string' });
    assert.equal(resolveConsent(e, { purposes: [] }, true).refusal, undefined);
    assert.equal(resolvePurposes(e, undefined, true).ads.state, 'denied');
  });
});

describe("consent resolver: each destination's needs live on its Platform", () => {
  it('the TCF vendor the decision layer checks is the one its platform folder declares', () => {
    for (const p of Object.values(PLATFORMS)) assert.equal(TCF_VENDORS[p.type], p.tcfVendor, p.type);
    assert.equal(PLATFORMS.ga4_mp.tcfVendor, 755);
    assert.equal(PLATFORMS.microsoft_uet.tcfVendor, 1126);
  });
});

describe('consent resolver: a GPP CMP that had not answered', () => {
  it('gpp_pending without a GPP string denies the advertising purposes, naming GPP; analytics still goes', () => {
    const e = event({ ...ALL_GRANTED, gpp_pending: true });
    const reason = 'consent GPP unknown (sent before the GPP CMP was ready)';
    assert.equal(verdict(meta, e), reason);
    assert.equal(verdict(tiktok, e), reason);
    assert.equal(verdict(ga4, e), 'send');
    assert.deepEqual(ga4Body(e)['consent'], { ad_user_data: 'DENIED', ad_personalization: 'DENIED' });
  });

  it('with the GPP string it was waiting for, the string decides', () => {
    const e = event({ ...ALL_GRANTED, gpp_pending: true, gpp: gppSaleOptOut(), gpp_sid: '7' });
    assert.equal(verdict(meta, e), 'consent GPP opt-out (usnat SaleOptOut)');
  });
});

describe('consent resolver: Consent Mode region defaults', () => {
  /** Granted everywhere by default, denied by default in Spain and California. */
  const regional = (country: string | undefined, extra: Record<string, unknown> = {}): StoredEvent => ({
    ...event({
      ...ALL_GRANTED,
      ad_storage: 'granted',
      ...extra,
      region_defaults: [
        { region: ['ES', 'FR'], ad_storage: 'denied', ad_user_data: 'denied' },
        { region: ['US-CA'], ad_storage: 'denied' },
      ],
    } as StoredEvent['consent']),
    ...(country ? { enriched: { geo: { country } } } : {}),
  });

  it("the visitor's country matches: its default applies, named as Consent Mode's for that region", () => {
    const r = resolveConsent(regional('ES'), { purposes: ['ads', 'ad_user_data'] }, true);
    assert.deepEqual(
      [r.refusal, r.signal],
      ['consent ad_storage denied (Consent Mode default for region ES)', 'Consent Mode'],
    );
  });

  it('another country: the default without a region applies', () => {
    assert.equal(verdict(meta, regional('DE')), 'send');
  });

  it('a subdivision of the visitor’s country denies: the server cannot tell the state, so denied', () => {
    assert.equal(
      verdict(meta, regional('US')),
      'consent ad_storage denied (Consent Mode default for region US-CA; the visitor is in US)',
    );
  });

  it("the visitor's region unknown (no geography enrichment): a region's denial applies", () => {
    assert.match(
      verdict(meta, regional(undefined)),
      /Consent Mode default for region ES; the visitor's region is unknown/,
    );
  });

  it('a region default that grants only grants where it matches; the event’s own denial still wins', () => {
    const grants = (country: string): StoredEvent => ({
      ...event({
        ad_storage: 'denied',
        ad_user_data: 'denied',
        region_defaults: [{ region: ['us'], ad_storage: 'granted', ad_user_data: 'granted' }],
      } as StoredEvent['consent']),
      enriched: { geo: { country } },
    });
    assert.equal(verdict(meta, grants('US')), 'send');
    assert.equal(verdict(meta, grants('GB')), 'consent ad_storage denied (Consent Mode)');
    const own = { ...grants('US'), consent: { ...grants('US').consent, ads: 'denied' } } as StoredEvent;
    assert.equal(verdict(meta, own), 'consent ads denied');
  });
});
