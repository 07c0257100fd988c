/**
 * Microsoft Advertising UET Conversions API (docs/platforms.md, Microsoft): page views as
 * `pageLoad`, every other event `custom` with UET's recommended name, times in seconds, e-mail
 * and phone hashed (phone in E.164), msclkid and device in clear, `adStorageConsent` from the
 * event's consent, batches of up to 1,000, Microsoft's answers read; and the strict stand-in.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { plan } from '../../../core/plan.ts';
import type { DriverContext, Prepared } from '../../../core/platforms/driver.ts';
import { microsoftDriver } from '../../../core/platforms/microsoft/index.ts';
import { MICROSOFT_MAX_EVENTS } from '../../../core/platforms/microsoft/target.ts';
import { checkSettings } from '../../../core/settings.ts';
import { startMicrosoftReceiver } from '../../../local/platforms/index.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { NOW, storedEvent } from '../linkage/sample-events.ts';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const DESTINATION: Destination = {
  id: 'microsoft',
  type: 'microsoft_uet',
  config: { tag_id: '187000001' },
  secrets: { access_token: 'MICROSOFT_TOKEN' },
};
const ctx = (destination: Destination = DESTINATION): DriverContext => ({
  destination,
  secrets: { access_token: 'uet-token' },
  now: NOW,
});
const first = (p: Prepared) => {
  assert.ok(p.ok, p.ok ? '' : p.reason);
  return (JSON.parse(String(p.request.body)) as { data: Record<string, unknown>[] }).data[0] as Record<
    string,
    unknown
  >;
};

describe('Microsoft Advertising UET Conversions API', () => {
  it('a page view is a pageLoad; a lead is custom generate_lead; times in seconds', () => {
    const page = first(microsoftDriver.prepare(storedEvent('page_view'), ctx()));
    assert.equal(page['eventType'], 'pageLoad');
    assert.equal(page['eventName'], undefined);
    assert.equal(page['eventTime'], Math.floor(Date.parse('2024-11-16T07:17:34.567Z') / 1000));
    const lead = first(microsoftDriver.prepare(storedEvent('lead'), ctx()));
    assert.equal(lead['eventType'], 'custom');
    assert.equal(lead['eventName'], 'generate_lead');
  });

  it('e-mail trimmed and lower-cased, phone in E.164, both hashed; msclkid, IP and user agent in clear; consent as G/D', () => {
    const event = {
      ...storedEvent('purchase'),
      campaign: { msclkid: 'ms-1' },
      user: { email: ' Jane@Example.COM ', phone: '+44 20 7946 0000' },
      consent: { ads: 'granted', ad_user_data: 'granted' },
    } as const;
    const e = first(microsoftDriver.prepare(event, ctx()));
    const u = e['userData'] as Record<string, unknown>;
    assert.equal(u['em'], sha('jane@example.com'));
    assert.equal(u['ph'], sha('+442079460000'));
    assert.equal(u['msclkid'], 'ms-1');
    assert.equal(u['clientIpAddress'], '123.123.123.123');
    assert.equal(e['adStorageConsent'], 'G');
    assert.equal(e['eventId'], event.event_id);
    const c = e['customData'] as Record<string, unknown>;
    assert.equal(c['transactionId'], 'T-1');
    assert.equal(c['currency'], 'USD');
    const denied = first(
      microsoftDriver.prepare(
        { ...event, consent: { ads: 'denied', ad_user_data: 'granted' } },
        {
          ...ctx({ ...DESTINATION, consent: ['ad_user_data'] }),
        },
      ),
    );
    assert.equal(denied['adStorageConsent'], 'D');
  });

  it('the settings check wants the tag id and the token; plan declares the token secret', () => {
    const base = { name: 'shop', project: 'shop-project', region: 'europe-west1' };
    const missing = checkSettings({
      ...base,
      destinations: [{ id: 'm', type: 'microsoft_uet', config: {} }],
    });
    assert.equal(missing.ok, false);
    assert.match(JSON.stringify(missing), /tag_id/);
    const named = checkSettings({ ...base, destinations: [{ ...DESTINATION, config: { tag_id: 'UET-1' } }] });
    assert.match(JSON.stringify(named), /tag_id.*numeric id of a UET tag/);
    const settings = { ...base, destinations: [DESTINATION] } as Settings;
    assert.ok(
      plan(settings)
        .functions.find((f) => f.name === 'forward')
        ?.secrets.includes('MICROSOFT_TOKEN'),
    );
  });

  it('test mode is refused before sending: UET has none (a separate tag is the way)', () => {
    const p = microsoftDriver.prepare(storedEvent('lead'), ctx({ ...DESTINATION, test_mode: true }));
    assert.ok(!p.ok && /microsoft_uet has no test mode: send tests to a separate UET tag/.test(p.reason));
  });

  it('a batch over 1,000 is split into requests of at most 1,000', () => {
    const events = Array.from({ length: MICROSOFT_MAX_EVENTS + 1 }, (_, i) => ({
      ...storedEvent('lead'),
      event_id: `e-${i}`,
    }));
    const batch = microsoftDriver.prepareBatch?.(events, ctx());
    assert.deepEqual(
      batch?.requests.map((r) => r.eventIds.length),
      [MICROSOFT_MAX_EVENTS, 1],
    );
  });

  it("Microsoft's answers: eventsReceived delivered; an error in a 200 or a 400 rejected with its details; 401 rejected; 429 retried", () => {
    const answer = (status: number, body: unknown) =>
      microsoftDriver.interpret({ kind: 'response', status, headers: {}, body: JSON.stringify(body) }, ctx());
    const ok = answer(200, { eventsReceived: 1, traceId: 't' });
    assert.ok(ok.status === 'delivered' && ok.detail === 'eventsReceived=1 traceId=t');
    const error = {
      eventsReceived: 0,
      error: {
        code: 'ValidationError',
        message: 'One or more events are invalid.',
        details: [{ index: 0, propertyName: 'eventName', attemptedValue: null, errorMessage: 'required' }],
      },
    };
    const refused = answer(400, error);
    assert.equal(
      refused.status === 'rejected' && refused.reason,
      'HTTP 400 microsoft ValidationError: One or more events are invalid. ([0] eventName: required)',
    );
    assert.equal(answer(200, error).status, 'rejected');
    assert.equal(answer(401, { error: { code: 'Unauthorized', message: 'no' } }).status, 'rejected');
    assert.equal(answer(429, {}).status, 'retry');
  });

  it('the stand-in takes what the driver sends and refuses a foreign token and a hashed msclkid', async () => {
    const standIn = await startMicrosoftReceiver({ accessToken: 'uet-token' });
    try {
      const p = microsoftDriver.prepare(
        { ...storedEvent('purchase'), campaign: { msclkid: 'm' } },
        ctx({ ...DESTINATION, base_url: standIn.url }),
      );
      assert.ok(p.ok);
      const post = (headers: Record<string, string>, body: string) =>
        fetch(p.request.url, { method: 'POST', headers: { ...p.request.headers, ...headers }, body });
      const good = await post({}, String(p.request.body));
      assert.equal(good.status, 200);
      assert.equal(((await good.json()) as { eventsReceived: number }).eventsReceived, 1);
      assert.equal((await post({ authorization: 'Bearer other' }, String(p.request.body))).status, 401);
      const body = JSON.parse(String(p.request.body)) as { data: { userData: Record<string, unknown> }[] };
      (body.data[0] as { userData: Record<string, unknown> }).userData['msclkid'] = sha('m');
      const hashed = await post({}, JSON.stringify(body));
      assert.equal(hashed.status, 400);
      assert.match(await hashed.text(), /msclkid must not be hashed/);
    } finally {
      await standIn.close();
    }
  });
});
