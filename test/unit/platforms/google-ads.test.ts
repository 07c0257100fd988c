/**
 * Google Ads through the Data Manager API (docs/platforms.md, "Google Ads"): what the platform
 * adds beyond the conformance table — events routed to conversion actions (an unrouted one is
 * skipped by the decision layer, a name that is not an id is refused by the settings check), the
 * request's destinations and test mode, each event checked alone before it joins a batch (Data
 * Manager refuses a whole request for one bad field), and Google's own normalisers.
 */
import assert from 'node:assert/strict';
import { decide } from '../../../core/decision/decision.ts';
import { previewDelivery } from '../../../core/delivery/preview.ts';
import { googleAdsEmail, googleAdsName } from '../../../core/linkage/transforms.ts';
import { plan } from '../../../core/plan.ts';
import { GOOGLE_ADS_FACTS } from '../../../core/platforms/google-ads/facts.ts';
import { googleAdsDriver } from '../../../core/platforms/google-ads/index.ts';
import { checkGoogleAdsRequest } from '../../../core/platforms/google-ads/target.ts';
import { PLATFORM_TYPES, STANDARD_EVENTS } from '../../../core/platforms/standard-events.ts';
import { platformMappings } from '../../../core/samples/draft.ts';
import { checkSettings } from '../../../core/settings.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { NOW, storedEvent } from '../linkage/sample-events.ts';

const DESTINATION: Destination = {
  id: 'google-ads',
  type: 'google_ads',
  config: { operating_account_id: '1234567890', login_account_id: '987-654-3210' },
  secrets: { credentials: 'GOOGLE_ADS_CREDENTIALS' },
  mappings: { purchase: { event: '111' }, lead: { event: '222' } },
};
const ctx = (destination: Destination = DESTINATION) => ({
  destination,
  secrets: { credentials: '{}', access_token: 'ya29.token' },
  now: NOW,
});
const base = { name: 'shop', project: 'shop-project', region: 'europe-west1' };
const granted = { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' } as const;

describe('Google Ads (Data Manager API)', () => {
  it('a catalogue event without a conversion action is skipped, saying which setting routes it', () => {
    const settings = { ...base, destinations: [DESTINATION] } as Settings;
    const decide1 = (name: string) => decide(settings, { ...storedEvent(name), consent: granted })[0];
    assert.deepEqual(decide1('purchase'), { destination: 'google-ads', action: 'send' });
    assert.deepEqual(decide1('sign_up'), {
      destination: 'google-ads',
      action: 'skip',
      reason:
        'no conversion action for event sign_up: set mappings.sign_up.event to its conversion action id',
    });
  });

  it('the settings check wants the operating account and a conversion action id as event, and no key', () => {
    const result = checkSettings({
      ...base,
      destinations: [
        {
          id: 'g',
          type: 'google_ads',
          config: { login_account_id: '1' },
          mappings: { lead: { event: 'Lead' } },
        },
      ],
    });
    assert.equal(result.ok, false);
    if (result.ok) return;
    const fields = result.errors.map((e) => `${e.field}: ${e.description}`);
    assert.ok(
      fields.includes('destinations[0].config.operating_account_id: is required for google_ads'),
      fields.join('\n'),
    );
    // No credentials secret is needed: forward then calls with its own service account's token.
    assert.ok(!fields.some((f) => f.startsWith('destinations[0].secrets.credentials')), fields.join('\n'));
    assert.ok(
      fields.some((f) =>
        f.startsWith('destinations[0].mappings.lead.event: "Lead" is not a conversion action id'),
      ),
    );
    assert.equal(checkSettings({ ...base, destinations: [DESTINATION] }).ok, true);
  });

  it('the request names the accounts in the body, a destination per conversion action, the token in a header', () => {
    const batch = googleAdsDriver.prepareBatch?.(
      [storedEvent('purchase'), storedEvent('lead'), { ...storedEvent('purchase'), event_id: 'evt-2' }],
      ctx(),
    );
    assert.ok(batch);
    assert.deepEqual(batch.rejected, []);
    assert.equal(batch.requests.length, 1);
    const request = batch.requests[0]?.request;
    assert.ok(request);
    assert.equal(request.url, 'https://datamanager.googleapis.com/v1/events:ingest');
    assert.equal(request.headers['authorization'], 'Bearer ya29.token');
    assert.ok(!request.redactedUrl.includes('ya29'));
    const body = JSON.parse(request.body) as Record<string, unknown>;
    const account = { accountType: 'GOOGLE_ADS', accountId: '1234567890' };
    const login = { accountType: 'GOOGLE_ADS', accountId: '9876543210' };
    assert.deepEqual(body['destinations'], [
      { operatingAccount: account, loginAccount: login, productDestinationId: '111', reference: '111' },
      { operatingAccount: account, loginAccount: login, productDestinationId: '222', reference: '222' },
    ]);
    assert.equal(body['encoding'], 'HEX');
    assert.equal(body['validateOnly'], undefined);
    assert.deepEqual(checkGoogleAdsRequest(body), []);
  });

  it('test mode is validateOnly', () => {
    const prepared = googleAdsDriver.prepare(storedEvent('lead'), ctx({ ...DESTINATION, test_mode: true }));
    assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
    assert.equal(JSON.parse(prepared.request.body).validateOnly, true);
  });

  it('one bad event is refused alone; the rest go in one request (Data Manager would refuse them all)', () => {
    const bad = { ...storedEvent('lead'), event_id: 'bad', user: {}, campaign: {} };
    const batch = googleAdsDriver.prepareBatch?.([storedEvent('purchase'), bad, storedEvent('lead')], ctx());
    assert.ok(batch);
    assert.deepEqual(
      batch.requests.map((r) => r.eventIds),
      [['evt-purchase', 'evt-lead']],
    );
    assert.equal(batch.rejected.length, 1);
    assert.equal(batch.rejected[0]?.eventId, 'bad');
    assert.match(
      batch.rejected[0]?.reason ?? '',
      /^google_ads payload refused: adIdentifiers holds no click id/,
    );
  });

  it('the request check refuses what Google refuses: a bad hash, two identifiers in one, too many events', () => {
    const prepared = googleAdsDriver.prepare(storedEvent('lead'), ctx());
    assert.ok(prepared.ok);
    const body = JSON.parse(prepared.request.body) as { events: Record<string, unknown>[] } & Record<
      string,
      unknown
    >;
    const event = body.events[0] as Record<string, unknown>;
    const fields = (b: unknown) => checkGoogleAdsRequest(b).map((v) => `${v.field} ${v.description}`);
    assert.deepEqual(
      fields({
        ...body,
        events: [{ ...event, userData: { userIdentifiers: [{ emailAddress: 'a@example.com' }] } }],
      }),
      [
        'events[0].userData.userIdentifiers[0].emailAddress must be SHA-256 lowercase hex (normalise, then hash)',
      ],
    );
    const h = 'a'.repeat(64);
    assert.deepEqual(
      fields({
        ...body,
        events: [{ ...event, userData: { userIdentifiers: [{ emailAddress: h, phoneNumber: h }] } }],
      }),
      [
        'events[0].userData.userIdentifiers[0] must hold exactly one of emailAddress, phoneNumber, address (holds 2)',
      ],
    );
    assert.ok(fields({ ...body, events: Array(2001).fill(event) }).some((f) => f.startsWith('events ')));
    assert.ok(
      fields({ ...body, encoding: undefined }).includes('encoding is required when events carry userData'),
    );
  });

  it("Google's normalisers: gmail loses dots and +tag, other domains keep them; names keep their words", () => {
    assert.equal(googleAdsEmail('cloudy.sanfrancisco+shopping@gmail.com'), 'cloudysanfrancisco@gmail.com');
    assert.equal(googleAdsEmail('User.Name+NYC@Example.com'), 'user.name+nyc@example.com');
    assert.equal(googleAdsEmail(' a.b @ googlemail.com '), 'ab@googlemail.com');
    assert.equal(googleAdsEmail('+tag@gmail.com'), undefined);
    assert.equal(googleAdsName('  Dr. Mary  Ann-Lee Jr. '), 'mary annlee');
    assert.equal(googleAdsName('Mr.'), undefined);
  });

  it('preview shows the request with the token redacted and where each field came from; plan declares the credentials secret', () => {
    const settings = { ...base, destinations: [DESTINATION] } as Settings;
    const raw = {
      event_name: 'purchase',
      event_time: NOW.toISOString(),
      transaction_id: 'T-9',
      value: 10,
      currency: 'EUR',
      user: { email: 'Jane.Doe+x@gmail.com' },
      consent: granted,
    };
    const result = previewDelivery(settings, 'google-ads', raw, NOW);
    assert.equal(result.outcome, 'send', JSON.stringify(result));
    if (result.outcome !== 'send') return;
    assert.equal(result.request.headers['authorization'], 'REDACTED');
    const body = result.request.body as { events: Record<string, unknown>[] };
    assert.equal(body.events[0]?.['transactionId'], 'T-9');
    assert.deepEqual(
      result.fields?.find((f) => f.target === 'userData.userIdentifiers')?.transforms,
      [],
      'the identifiers list is traced (its parts carry the transforms)',
    );
    assert.ok(result.fields?.some((f) => f.target === 'transactionId' && f.source === 'transaction_id'));
    const forward = plan(settings).functions.find((f) => f.name === 'forward');
    assert.ok(forward?.secrets.includes('GOOGLE_ADS_CREDENTIALS'));
    const skipped = previewDelivery(settings, 'google-ads', { ...raw, event_name: 'sign_up' }, NOW);
    assert.equal(skipped.outcome, 'skipped');
  });

  it("the creator's platform step: a conversion action id typed for Google Ads becomes its mapping, with value and currency", () => {
    // No names to pick: step 3 shows a text field for it (its facts' `step3`, studio/web/creator-platforms.ts).
    assert.ok(PLATFORM_TYPES.includes('google_ads'));
    assert.equal(GOOGLE_ADS_FACTS.step3?.kind, 'id');
    assert.deepEqual(STANDARD_EVENTS.google_ads, []);
    assert.deepEqual(
      platformMappings({
        events: { google_ads: '987654321' },
        valueField: 'amount',
        currency: { code: 'eur' },
      }),
      {
        google_ads: {
          event: '987654321',
          fields: { conversionValue: { from: 'amount', transform: ['number'] }, currency: { const: 'EUR' } },
        },
      },
    );
  });
});
