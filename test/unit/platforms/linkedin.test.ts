/**
 * LinkedIn Conversions API (docs/platforms.md, LinkedIn): each event routed to a conversion rule
 * chosen in settings, times in milliseconds and at most 90 days old, the dated `LinkedIn-Version`
 * header, the hashed e-mail and the li_fat_id as user ids, batches of up to 5,000 as BATCH_CREATE,
 * LinkedIn's answers read; and the strict stand-in taking what the driver sends and refusing what
 * LinkedIn refuses.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decide } from '../../../core/decision/decision.ts';
import { previewDelivery } from '../../../core/delivery/preview.ts';
import { plan } from '../../../core/plan.ts';
import type { DriverContext, Prepared } from '../../../core/platforms/driver.ts';
import { LINKEDIN_API_VERSION } from '../../../core/platforms/linkedin/driver.ts';
import { linkedinDriver } from '../../../core/platforms/linkedin/index.ts';
import { checkLinkedInRequest, LINKEDIN_MAX_EVENTS } from '../../../core/platforms/linkedin/target.ts';
import { STANDARD_EVENTS } from '../../../core/platforms/standard-events.ts';
import { platformMappings } from '../../../core/samples/draft.ts';
import { checkSettings } from '../../../core/settings.ts';
import { startLinkedInReceiver } from '../../../local/platforms/index.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { NOW, storedEvent } from '../linkage/sample-events.ts';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const DESTINATION: Destination = {
  id: 'linkedin',
  type: 'linkedin_capi',
  secrets: { access_token: 'LINKEDIN_TOKEN' },
  mappings: { purchase: { event: '111' }, lead: { event: '222' } },
};
const ctx = (destination: Destination = DESTINATION): DriverContext => ({
  destination,
  secrets: { access_token: 'li-token' },
  now: NOW,
});
const base = { name: 'shop', project: 'shop-project', region: 'europe-west1' };
const granted = { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' } as const;

function sent(p: Prepared) {
  assert.ok(p.ok, p.ok ? '' : p.reason);
  return { headers: p.request.headers, body: JSON.parse(String(p.request.body)) as Record<string, unknown> };
}

describe('LinkedIn Conversions API', () => {
  it('a purchase goes to its conversion rule with the time in ms, the value as a string, the hashed e-mail and li_fat_id', () => {
    const event = { ...storedEvent('purchase'), campaign: { li_fat_id: ' li-fat-1 ' } };
    const { headers, body } = sent(linkedinDriver.prepare(event, ctx()));
    assert.equal(body['conversion'], 'urn:lla:llaPartnerConversion:111');
    assert.equal(body['conversionHappenedAt'], Date.parse('2024-11-16T07:17:34.567Z'));
    assert.deepEqual(body['conversionValue'], { currencyCode: 'USD', amount: '64.9' });
    assert.equal(body['eventId'], event.event_id);
    assert.deepEqual((body['user'] as Record<string, unknown>)['userIds'], [
      // LinkedIn's rule: trimmed and lower-cased, then SHA-256 hex.
      { idType: 'SHA256_EMAIL', idValue: sha('john_smith@gmail.com') },
      { idType: 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', idValue: 'li-fat-1' },
    ]);
    assert.deepEqual((body['user'] as Record<string, unknown>)['userInfo'], {
      firstName: 'Valéry',
      lastName: "O'Brien",
      countryCode: 'US',
    });
    assert.equal(headers['linkedin-version'], LINKEDIN_API_VERSION);
    assert.equal(headers['x-restli-protocol-version'], '2.0.0');
    assert.equal(headers['authorization'], 'Bearer li-token');
    assert.equal(headers['x-restli-method'], undefined, 'one event is a plain create');
  });

  it('the briefing\'s amount example: a string amount such as "118.0" passes, a number does not', () => {
    const event = {
      conversion: 'urn:lla:llaPartnerConversion:1',
      conversionHappenedAt: NOW.getTime(),
      conversionValue: { currencyCode: 'USD', amount: '118.0' },
      user: { userIds: [] as unknown[], userInfo: { firstName: 'A', lastName: 'B' } },
    };
    assert.deepEqual(checkLinkedInRequest(event, NOW, false), []);
    const numeric = { ...event, conversionValue: { currencyCode: 'USD', amount: 118 } };
    assert.ok(checkLinkedInRequest(numeric, NOW, false).some((v) => v.field.startsWith('conversionValue')));
  });

  it('an event older than 90 days, one in seconds, and one with nothing to match are rejected alone', () => {
    const old = {
      ...storedEvent('lead'),
      event_time: new Date(NOW.getTime() - 91 * 86_400_000).toISOString(),
    };
    const p1 = linkedinDriver.prepare(old, ctx());
    assert.ok(!p1.ok && /more than 90 days old/.test(p1.reason));
    const seconds = checkLinkedInRequest(
      {
        conversion: 'urn:lla:llaPartnerConversion:1',
        conversionHappenedAt: 1731741454,
        user: { userIds: [] },
      },
      NOW,
      false,
    );
    assert.ok(seconds.some((v) => /milliseconds, not seconds/.test(v.description)));
    const { user: _u, ...anonymous } = storedEvent('lead');
    const p2 = linkedinDriver.prepare(anonymous, ctx());
    assert.ok(!p2.ok && /nothing LinkedIn can match/.test(p2.reason), p2.ok ? '' : p2.reason);
  });

  it('userIds is sent even when empty (a name alone can match)', () => {
    const { campaign: _c, ...event } = {
      ...storedEvent('lead'),
      user: { first_name: 'Ann', last_name: 'Lee' },
    };
    const { body } = sent(linkedinDriver.prepare(event, ctx()));
    assert.deepEqual((body['user'] as Record<string, unknown>)['userIds'], []);
  });

  it('a batch over 5,000 is split; each request is a BATCH_CREATE of elements', () => {
    const events = Array.from({ length: LINKEDIN_MAX_EVENTS + 1 }, (_, i) => ({
      ...storedEvent('lead'),
      event_id: `e-${i}`,
    }));
    const batch = linkedinDriver.prepareBatch?.(events, ctx());
    assert.deepEqual(
      batch?.requests.map((r) => r.eventIds.length),
      [LINKEDIN_MAX_EVENTS, 1],
    );
    const first = batch?.requests[0]?.request;
    assert.equal(first?.headers['x-restli-method'], 'BATCH_CREATE');
    assert.equal(
      (JSON.parse(String(first?.body)) as { elements: unknown[] }).elements.length,
      LINKEDIN_MAX_EVENTS,
    );
  });

  it('an event routed to no conversion rule is skipped saying which setting routes it; a name that is not a rule id is refused by the settings check', () => {
    const settings = { ...base, destinations: [DESTINATION] } as Settings;
    const one = (name: string) => decide(settings, { ...storedEvent(name), consent: granted })[0];
    assert.deepEqual(one('lead'), { destination: 'linkedin', action: 'send' });
    assert.deepEqual(one('sign_up'), {
      destination: 'linkedin',
      action: 'skip',
      reason: 'no conversion rule for event sign_up: set mappings.sign_up.event to its conversion rule id',
    });
    const result = checkSettings({
      ...base,
      destinations: [{ ...DESTINATION, mappings: { lead: { event: 'LEAD' } } }],
    });
    assert.equal(result.ok, false);
    assert.match(JSON.stringify(result), /is not a conversion rule id/);
  });

  it('with ad_user_data denied (a destination that does not require it), only the click id is sent', () => {
    const destination = { ...DESTINATION, consent: ['ads' as const] };
    const event = {
      ...storedEvent('lead'),
      campaign: { li_fat_id: 'f' },
      consent: { ads: 'granted', ad_user_data: 'denied' },
    } as const;
    const p = linkedinDriver.prepare(event, ctx(destination));
    const { body } = sent(p);
    assert.deepEqual(body['user'], {
      userIds: [{ idType: 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', idValue: 'f' }],
    });
    assert.ok(p.ok && /ad_user_data denied/.test(p.dropped ?? ''));
  });

  it("LinkedIn's answers: 201 delivered, 401 and 422 rejected with LinkedIn's words, 429 and 5xx retried", () => {
    const answer = (status: number, body = '') =>
      linkedinDriver.interpret({ kind: 'response', status, headers: {}, body }, ctx());
    assert.equal(answer(201).status, 'delivered');
    const refused = answer(
      401,
      JSON.stringify({
        status: 401,
        serviceErrorCode: 65600,
        code: 'INVALID_ACCESS_TOKEN',
        message: 'Invalid access token',
      }),
    );
    assert.deepEqual(
      refused.status === 'rejected' && refused.reason,
      'linkedin 401 INVALID_ACCESS_TOKEN 65600: Invalid access token',
    );
    assert.equal(answer(422, JSON.stringify({ status: 422, message: 'bad urn' })).status, 'rejected');
    assert.equal(answer(429, JSON.stringify({ status: 429, message: 'throttled' })).status, 'retry');
    assert.equal(answer(503).status, 'retry');
    const partial = answer(
      200,
      JSON.stringify({ elements: [{ status: 201 }, { status: 422, message: 'x' }] }),
    );
    assert.ok(partial.status === 'delivered' && /1 of 2 created/.test(partial.detail ?? ''));
  });

  it("the creator's platform step: a rule id typed for LinkedIn becomes the mapping, and its numeric value goes as a string", () => {
    assert.deepEqual(STANDARD_EVENTS.linkedin_capi, []);
    const mapping = platformMappings({
      events: { linkedin_capi: '444' },
      valueField: 'amount',
      currency: { code: 'eur' },
    });
    const destination: Destination = {
      ...DESTINATION,
      mappings: { custom_quote: mapping['linkedin_capi'] as NonNullable<Destination['mappings']>[string] },
    };
    const event = storedEvent('custom_quote', { amount: 12.5 });
    const { body } = sent(linkedinDriver.prepare(event, ctx(destination)));
    assert.equal(body['conversion'], 'urn:lla:llaPartnerConversion:444');
    assert.deepEqual(body['conversionValue'], { currencyCode: 'EUR', amount: '12.5' });
  });

  it('test mode is refused, by the settings check and before sending: LinkedIn has none, and events would go out live', () => {
    const result = checkSettings({ ...base, destinations: [{ ...DESTINATION, test_mode: true }] });
    assert.equal(result.ok, false);
    assert.match(JSON.stringify(result), /test_mode.*no test mode/);
    const p = linkedinDriver.prepare(storedEvent('lead'), ctx({ ...DESTINATION, test_mode: true }));
    assert.ok(!p.ok && /linkedin_capi has no test mode: send tests to a conversion rule/.test(p.reason));
  });

  it('a LinkedIn-Version that is not YYYYMM is refused by the settings check and before sending', () => {
    const bad = { ...DESTINATION, config: { api_version: '2026-03' } };
    assert.match(JSON.stringify(checkSettings({ ...base, destinations: [bad] })), /api_version.*YYYYMM/);
    const p = linkedinDriver.prepare(storedEvent('lead'), ctx(bad));
    assert.ok(!p.ok && /config.api_version must be a LinkedIn-Version, YYYYMM/.test(p.reason));
    const good = checkSettings({
      ...base,
      destinations: [{ ...DESTINATION, config: { api_version: '202611' } }],
    });
    assert.equal(good.ok, true, JSON.stringify(good));
  });

  it('preview redacts the token and plan declares the secret', () => {
    const settings = { ...base, destinations: [DESTINATION] } as Settings;
    const raw = {
      event_name: 'lead',
      event_time: NOW.toISOString(),
      user: { email: 'a@b.co' },
      consent: granted,
    };
    const result = previewDelivery(settings, 'linkedin', raw, NOW);
    assert.equal(result.outcome, 'send', JSON.stringify(result));
    if (result.outcome !== 'send') return;
    assert.equal(result.request.headers['authorization'], 'REDACTED');
    assert.ok(result.fields?.some((f) => f.target === 'conversionHappenedAt' && f.source === 'event_time'));
    assert.ok(
      plan(settings)
        .functions.find((f) => f.name === 'forward')
        ?.secrets.includes('LINKEDIN_TOKEN'),
    );
  });

  describe('the stand-in', () => {
    it("takes what the driver sends (one event and a batch) and refuses LinkedIn's way: a foreign token, an expired version, seconds", async () => {
      const standIn = await startLinkedInReceiver({ accessToken: 'li-token', now: () => NOW });
      try {
        // A version LinkedIn served at the stand-in's clock (the destination's own setting).
        const d = { ...DESTINATION, base_url: standIn.url, config: { api_version: '202410' } };
        const call = async (p: Prepared, headers: Record<string, string> = {}) => {
          assert.ok(p.ok);
          const res = await fetch(p.request.url, {
            method: 'POST',
            headers: { ...p.request.headers, ...headers },
            body: String(p.request.body),
          });
          return { status: res.status, text: await res.text() };
        };
        assert.equal((await call(linkedinDriver.prepare(storedEvent('purchase'), ctx(d)))).status, 201);
        const batch = linkedinDriver.prepareBatch?.([storedEvent('lead'), storedEvent('purchase')], ctx(d));
        const r = batch?.requests[0];
        assert.ok(r);
        const res = await call({ ok: true, request: r.request });
        assert.equal(res.status, 200);
        assert.deepEqual(JSON.parse(res.text), { elements: [{ status: 201 }, { status: 201 }] });
        const foreign = await call(linkedinDriver.prepare(storedEvent('lead'), ctx(d)), {
          authorization: 'Bearer other',
        });
        assert.equal(foreign.status, 401);
        const expired = await call(linkedinDriver.prepare(storedEvent('lead'), ctx(d)), {
          'linkedin-version': '202301',
        });
        assert.deepEqual(JSON.parse(expired.text), {
          status: 426,
          code: 'NONEXISTENT_VERSION',
          message: 'Requested version 202301 is not active',
        });
        const good = linkedinDriver.prepare(storedEvent('lead'), ctx(d));
        assert.ok(good.ok);
        const body = JSON.parse(String(good.request.body)) as Record<string, unknown>;
        const seconds = await call({
          ok: true,
          request: { ...good.request, body: JSON.stringify({ ...body, conversionHappenedAt: 1731741454 }) },
        });
        assert.equal(seconds.status, 422);
        assert.match(seconds.text, /in seconds, not milliseconds/);
        assert.deepEqual(
          standIn.received.map((x) => x.problems.length > 0),
          [false, false, true, true, true],
        );
      } finally {
        await standIn.close();
      }
    });
  });
});
