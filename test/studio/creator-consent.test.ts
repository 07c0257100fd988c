/**
 * The creator's consent warning (studio/web/creator-consent.ts; issue #99): every platform step 3
 * offers is named when a purpose it needs has no source, from its own facts, so no platform skips
 * a new event without the page having said so.
 */
import assert from 'node:assert/strict';
import { factsWith, PLATFORM_FACTS } from '../../core/platforms/facts.ts';
import type { ConsentPurposeName } from '../../schemas/consent-purposes.ts';
import { consentWarning } from '../../studio/web/creator-consent.ts';

const none = () => false;
const given =
  (...purposes: ConsentPurposeName[]) =>
  (p: ConsentPurposeName) =>
    purposes.includes(p);

describe('studio creator: the consent warning', () => {
  it('names every platform step 3 offers, with each purpose it needs, when none has a source', () => {
    const offered = factsWith('step3');
    assert.ok(offered.length >= 10, 'step 3 offers the ad platforms');
    for (const f of offered) {
      const note = consentWarning([f.type], none);
      assert.ok(
        note.startsWith(`${f.names.short} receives an event only with consent to `),
        `${f.type}: ${note}`,
      );
      for (const p of f.consent) assert.ok(note.includes(p), `${f.type}'s warning names ${p}: ${note}`);
    }
  });

  it('names the platforms the old page left out: Google Ads, LinkedIn, Microsoft and Reddit', () => {
    for (const type of ['google_ads', 'linkedin_capi', 'microsoft_uet', 'reddit_capi'] as const)
      assert.match(
        consentWarning([type], none),
        /only with consent to ads and ad user data: say where consent to ads, ad_user_data/,
      );
  });

  it('is empty once each purpose the chosen platforms need has a source, and for a platform needing none', () => {
    assert.equal(consentWarning(['meta_capi', 'google_ads'], given('ads', 'ad_user_data')), '');
    assert.equal(consentWarning(['ga4_mp'], given('analytics')), '');
    assert.equal(consentWarning(['webhook'], none), '');
    assert.equal(consentWarning([], none), '');
  });

  it('groups platforms needing the same purposes, and names only those still short of one', () => {
    assert.equal(
      consentWarning(['meta_capi', 'ga4_mp', 'reddit_capi'], none),
      'Meta and Reddit receive an event only with consent to ads and ad user data, GA4 receives an event only with consent to analytics: say where consent to ads, ad_user_data, analytics comes from above, or nothing is sent there.',
    );
    // Ads and ad user data given: only GA4 is still short.
    assert.equal(
      consentWarning(['meta_capi', 'ga4_mp'], given('ads', 'ad_user_data')),
      'GA4 receives an event only with consent to analytics: say where consent to analytics comes from above, or nothing is sent there.',
    );
    // One of two purposes given: the other is the one asked for.
    assert.match(
      consentWarning(['tiktok_events'], given('ads')),
      /say where consent to ad_user_data comes from/,
    );
    assert.deepEqual(PLATFORM_FACTS.tiktok_events.consent, ['ads', 'ad_user_data']);
  });
});
