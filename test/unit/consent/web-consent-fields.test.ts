/**
 * Every field name and form the web consent reader takes (core/consent/web-consent.ts,
 * docs/delivery.md "Consent"), and the ones it leaves: each name producers send a TC string under,
 * the `gdpr` macro's forms, blank text, `gpp_sid` as a number or a list, the US Privacy pattern,
 * GPC and a pending GPP CMP only when true, and each category id of an SDK's consent.
 */
import assert from 'node:assert/strict';
import { sdkPurpose, webConsent } from '../../../core/consent/web-consent.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { ConsentPurpose } from '../../../schemas/settings.ts';

const read = (consent: Record<string, unknown> | undefined, event_data: Record<string, unknown> = {}) =>
  webConsent({
    event_id: 'e-web',
    event_name: 'page_view',
    event_time: '2026-03-01T10:00:00.000Z',
    event_data,
    ...(consent === undefined ? {} : { consent }),
  } as StoredEvent);

describe('consent: the fields web consent is read from', () => {
  it('takes a TC string under each name producers use, the first found, trimmed', () => {
    for (const name of ['gdpr_consent', 'tc_string', 'tcf_string', 'tcString', 'euconsent'])
      assert.deepEqual(read(undefined, { [name]: ' T ' }), { tcf: 'T' }, name);
    assert.deepEqual(read(undefined, { euconsent: 'E', gdpr_consent: '  ', tc_string: 'C' }), { tcf: 'C' });
    assert.deepEqual(read({ tcf: '   ' }, { tcf_string: 'F' }), { tcf: 'F' });
    assert.deepEqual(read({ tcf: 7 }, {}), {});
  });

  it("reads the gdpr macro as 1 or 0 in any form, the consent group's boolean first", () => {
    const applies = (gdpr: unknown) => read(undefined, { gdpr }).gdprApplies;
    assert.deepEqual([1, '1', true, 0, '0', false, 2, 'yes', null].map(applies), [
      true,
      true,
      true,
      false,
      false,
      false,
      undefined,
      undefined,
      undefined,
    ]);
    assert.equal(read({ gdpr_applies: false }, { gdpr: 1 }).gdprApplies, false);
    assert.equal(read({ gdpr_applies: 'true' }, { gdpr: 0 }).gdprApplies, false);
  });

  it('reads GPP and its section ids from the group or the top level, a list only of numbers', () => {
    assert.deepEqual(read(undefined, { gpp: 'G', gpp_sid: 7 }), { gpp: 'G', gppSid: '7' });
    assert.deepEqual(read({ gpp: ' ' }, { gpp: 'D', gpp_sid: ' 2,7 ' }), { gpp: 'D', gppSid: '2,7' });
    assert.deepEqual(read(undefined, { gpp_sid: ['2', 'x'] }), {});
    assert.deepEqual(read({ gpp_sid: '8' }, { gpp_sid: [7] }), { gppSid: '8' });
  });

  it('takes a US Privacy string of the IAB form only, under either top-level name', () => {
    assert.deepEqual(read(undefined, { usprivacy: '1yn-' }), { usPrivacy: '1yn-' });
    assert.deepEqual(read(undefined, { us_privacy: '1---' }), { usPrivacy: '1---' });
    for (const usp of ['1YN', '1YNNN', 'AYNN', '1YNX', 'x1YNN'])
      assert.deepEqual(read({ us_privacy: usp }), {}, usp);
  });

  it('GPC and a pending GPP CMP count only as true, and only in the consent group', () => {
    assert.deepEqual(read({ gpc: true, gpp_pending: true }), { gpc: true, gppPending: true });
    assert.deepEqual(read({ gpc: 'true', gpp_pending: 1 }), {});
    assert.deepEqual(read(undefined, { gpc: true, gpp_pending: true }), {});
  });
});

describe("consent: an SDK's category ids for each purpose", () => {
  const cm = (consent_management: unknown, purpose: ConsentPurpose) =>
    sdkPurpose(
      {
        event_id: 'e-sdk',
        event_name: 'page_view',
        event_time: '2026-03-01T10:00:00.000Z',
        event_data: { consent_management },
      } as StoredEvent,
      purpose,
    );

  it('knows OneTrust groups and the usual names, in any case', () => {
    for (const id of ['C0002', 'Analytics', 'PERFORMANCE', 'statistics'])
      assert.equal(cm({ allowedConsentIds: [id] }, 'analytics')?.state, 'granted', id);
    for (const purpose of ['ads', 'ad_user_data', 'ad_personalization'] as const)
      for (const id of ['c0004', 'Advertising', 'marketing', 'Targeting', 'ADS'])
        assert.deepEqual(cm({ deniedConsentIds: [id] }, purpose), {
          state: 'denied',
          name: `${purpose} (consent category ${id})`,
        });
    assert.equal(cm({ allowedConsentIds: ['C0004'] }, 'analytics'), undefined);
  });

  it('skips ids that are not text and lists that are not lists; no object reads nothing', () => {
    assert.equal(cm({ allowedConsentIds: [2, 'C0002'] }, 'analytics')?.state, 'granted');
    assert.equal(
      cm({ deniedConsentIds: 'C0002', allowedConsentIds: ['C0002'] }, 'analytics')?.state,
      'granted',
    );
    assert.equal(cm({ deniedConsentIds: [null] }, 'analytics'), undefined);
    assert.equal(cm(null, 'analytics'), undefined);
    assert.equal(cm('C0002', 'analytics'), undefined);
  });
});
