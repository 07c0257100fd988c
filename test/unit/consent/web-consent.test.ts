/** core/consent/web-consent.ts: the signals read from the consent group, else the top-level fields. */
import assert from 'node:assert/strict';
import { sdkPurpose, webConsent } from '../../../core/consent/web-consent.ts';
import type { StoredEvent } from '../../../core/event.ts';

const event = (consent: StoredEvent['consent'], data: Record<string, unknown> = {}): StoredEvent => ({
  event_name: 'page_view',
  event_id: 'e-1',
  event_time: '2026-01-01T00:00:00.000Z',
  ...(consent ? { consent } : {}),
  event_data: data,
});

describe('consent: webConsent', () => {
  it('reads the consent group first', () => {
    const e = event(
      { tcf: 'T1', gdpr_applies: true, gpp: 'G', gpp_sid: '7', us_privacy: '1YNN', gpc: true },
      { gdpr_consent: 'T2', gdpr: 0, us_privacy: '1YYN' },
    );
    assert.deepEqual(webConsent(e), {
      tcf: 'T1',
      gdprApplies: true,
      gpp: 'G',
      gppSid: '7',
      usPrivacy: '1YNN',
      gpc: true,
    });
  });

  it('falls back to the fields producers put at the top level (IAB macros and CMP names)', () => {
    const e = event(undefined, { tcString: 'T', gdpr: '1', usprivacy: '1YYN', gpp: 'G', gpp_sid: [2, 7] });
    assert.deepEqual(webConsent(e), {
      tcf: 'T',
      gdprApplies: true,
      gpp: 'G',
      gppSid: '2,7',
      usPrivacy: '1YYN',
    });
    assert.deepEqual(webConsent(event(undefined, { us_privacy: 'nonsense' })), {});
  });
});

describe('consent: sdkPurpose (RudderStack consentManagement)', () => {
  const cm = (allowed: string[], denied: string[]) =>
    event(undefined, { consent_management: { allowedConsentIds: allowed, deniedConsentIds: denied } });

  it('a denied id of the purpose denies it, even when another allowed id grants it', () => {
    assert.deepEqual(sdkPurpose(cm(['Marketing'], ['C0004']), 'ads'), {
      state: 'denied',
      name: 'ads (consent category C0004)',
    });
  });

  it('an allowed id grants it; ids of other purposes, or none, decide nothing', () => {
    assert.deepEqual(sdkPurpose(cm(['analytics'], []), 'analytics'), { state: 'granted', name: 'analytics' });
    assert.equal(sdkPurpose(cm(['C0003'], ['C0005']), 'ads'), undefined);
    assert.equal(sdkPurpose(event(undefined), 'ads'), undefined);
  });
});
