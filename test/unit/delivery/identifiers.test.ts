/** core/delivery/identifiers.ts: the identifier kinds a platform request carries, by name. */
import assert from 'node:assert/strict';
import { requestIdentifiers } from '../../../core/delivery/identifiers.ts';

describe('match quality: identifier kinds of a request', () => {
  const cases: { name: string; body: unknown; kinds: string[] }[] = [
    {
      name: "Meta's user_data: hashed e-mail, an empty phone list and an empty fbc do not count",
      body: {
        data: [
          {
            event_name: 'Lead',
            user_data: { em: ['a1b2'], ph: [], fbc: '', fbp: 'fb.1.2', client_ip_address: '1.2.3.4' },
          },
        ],
      },
      kinds: ['email', 'fbp', 'ip'],
    },
    {
      name: "TikTok's user object with ttclid and user agent",
      body: { data: [{ user: { ttclid: 'x', user_agent: 'UA', external_id: 'h' } }] },
      kinds: ['external_id', 'ttclid', 'user_agent'],
    },
    {
      name: "GA4's client_id and user_data's sha256_email_address",
      body: { client_id: '1.2', user_data: { sha256_email_address: ['h'] } },
      kinds: ['client_id', 'email'],
    },
    {
      name: 'Google Ads identifiers in a list of objects',
      body: { userIdentifiers: [{ hashedEmail: 'h' }, { hashedPhoneNumber: 'p' }], gclid: 'g' },
      kinds: ['email', 'gclid', 'phone'],
    },
    {
      name: "LinkedIn's {idType, idValue} pairs: hashed e-mail and the first-party cookie",
      body: {
        userIds: [
          { idType: 'SHA256_EMAIL', idValue: 'h' },
          { idType: 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', idValue: 'f' },
        ],
      },
      kinds: ['email', 'li_fat_id'],
    },
    {
      name: 'click ids and cookies of Microsoft, X, Snapchat, Pinterest and Reddit',
      body: {
        data: [{ userData: { msclkid: 'm' } }],
        conversions: [{ identifiers: [{ twclid: 't' }, { hashed_email: 'h' }] }],
        sc: { sc_click_id: 's', sc_cookie1: 'c' },
        user_data: { click_id: 'epik', hashed_maids: ['d'] },
      },
      kinds: ['click_id', 'cookie', 'email', 'mobile_ad_id', 'msclkid', 'sccid', 'twclid'],
    },
    {
      // Mixpanel's /import (properties.distinct_id), Amplitude's /2/httpapi (device_id, user_id) and
      // a Segment-shaped body (userId, anonymousId), as the catalogue's actions build them.
      name: 'the catalogue destinations’ person ids',
      body: {
        mixpanel: [{ properties: { distinct_id: 'd' } }],
        amplitude: { events: [{ device_id: 'dev', user_id: 'u' }] },
        segment: { userId: 'u', anonymousId: 'a' },
      },
      kinds: ['anonymous_id', 'external_id'],
    },
    { name: 'JSON text', body: '{"user_id":"u1"}', kinds: ['external_id'] },
    { name: 'a form', body: 'email=a%40b.example&ip=1.2.3.4&other=1', kinds: ['email', 'ip'] },
    { name: 'nothing to match on', body: { event: 'x', value: 1 }, kinds: [] },
    { name: 'no body', body: undefined, kinds: [] },
  ];
  for (const c of cases)
    it(c.name, () => {
      assert.deepEqual(requestIdentifiers(c.body), c.kinds);
    });
});
