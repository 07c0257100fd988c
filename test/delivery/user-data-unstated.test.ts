/**
 * A purpose no signal states is refused for the person's data everywhere (#96): with the docs'
 * Consent Mode snippet (`analytics_storage` granted, `ad_storage` denied, `ad_user_data` not
 * stated), no platform is sent the hashed e-mail or phone — Meta and the other ad platforms are
 * skipped at their type's defaults, and a destination whose own consent list lets the event
 * through still gets none of the person's data, the dropped note naming the missing purpose. The
 * same event with `ad_user_data` granted carries them, so the check can fail.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decideOne } from '../../core/decision/decision.ts';
import type { StoredEvent } from '../../core/event.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import { PLATFORM_FACTS } from '../../core/platforms/facts.ts';
import type { Destination, DestinationType } from '../../schemas/settings.ts';
import { JOHN_SMITH, NOW, PHONE_US, storedEvent } from '../unit/linkage/sample-events.ts';

/** The docs' snippet (docs/browser.md): analytics granted, ads storage denied, ad_user_data unstated. */
const SNIPPET = { analytics_storage: 'granted', ad_storage: 'denied' } as const;
const GRANTED = { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' } as const;

/** Each platform that sends the person's data, and its config; a purchase routed where it needs a route. */
const CONFIGS: Partial<Record<DestinationType, Record<string, string>>> = {
  meta_capi: { pixel_id: '123456789012345' },
  ga4_mp: { measurement_id: 'G-ABC123' },
  tiktok_events: { pixel_code: 'CABCDEFGHIJ1234567' },
  google_ads: { operating_account_id: '1234567890' },
  linkedin_capi: {},
  microsoft_uet: { tag_id: '187000001' },
  reddit_capi: { pixel_id: 'a2_pixel' },
  pinterest_capi: { ad_account_id: '549755885175' },
  snapchat_capi: { pixel_id: '1ec32188-754e-4be2-8e55-c949a984a39f' },
  x_conversions: { pixel_id: 'o8z6j' },
};
const ROUTES: Partial<Record<DestinationType, string>> = {
  google_ads: '1001',
  linkedin_capi: '2001',
  x_conversions: 'o87ne',
};
const DESTINATIONS = Object.fromEntries(
  Object.entries(CONFIGS).map(([type, config]) => {
    const route = ROUTES[type as DestinationType];
    const d = { id: type, type, config, ...(route ? { mappings: { purchase: { event: route } } } : {}) };
    return [type, d as Destination];
  }),
) as Partial<Record<DestinationType, Destination>>;
const SECRETS = {
  access_token: 'tok',
  api_secret: 'sec',
  credentials: '{}',
  consumer_key: 'ck',
  consumer_secret: 'cs',
  access_token_secret: 'ats',
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
/** The person's e-mail and phone as any platform hashes them (Meta's and Google's forms, Reddit's e-mail, E.164). */
const PERSON = [JOHN_SMITH, PHONE_US, sha256('johnsmith@gmail.com'), sha256('+16505551212')];
const carries = (body: string) => PERSON.some((h) => body.includes(h));

/** A purchase with a click id of every platform, so each still has something to match it by. */
const purchase = (consent: NonNullable<StoredEvent['consent']>): StoredEvent => {
  const e = storedEvent('purchase');
  return {
    ...e,
    campaign: { ...e.campaign, gclid: 'g-1', li_fat_id: 'li-1', twclid: 'tw-1', rdt_cid: 'rd-1' },
    consent,
  };
};

function prepare(d: Destination, e: StoredEvent): { body: string; dropped: string } {
  const driver = driverFor(d.type);
  assert.ok(driver, d.type);
  const prepared = driver.prepare(e, { destination: d, secrets: SECRETS, now: NOW });
  assert.ok(prepared.ok, prepared.ok ? '' : `${d.type}: ${prepared.reason}`);
  return { body: prepared.request.body, dropped: prepared.dropped ?? '' };
}

describe('consent: a purpose no signal states withholds the person’s data everywhere (#96)', () => {
  it('every platform that takes the person’s data declares it needs ad_user_data granted', () => {
    for (const type of Object.keys(DESTINATIONS) as DestinationType[])
      assert.equal(PLATFORM_FACTS[type].userData, 'granted', type);
  });

  it('the docs’ snippet skips Meta at its defaults and sends GA4 without user data', () => {
    const e = purchase(SNIPPET);
    const meta = decideOne(DESTINATIONS.meta_capi as Destination, e, { isKnownEvent: () => true });
    assert.deepEqual(meta, {
      action: 'skip',
      destination: 'meta_capi',
      reason: 'consent ad_storage denied (Consent Mode)',
    });
    const ga4 = prepare(DESTINATIONS.ga4_mp as Destination, e);
    assert.doesNotMatch(ga4.body, /"user_data"/);
    assert.equal(ga4.dropped, 'left out user_data (consent ad_user_data missing)');
  });

  for (const [type, destination] of Object.entries(DESTINATIONS)) {
    it(`${type}, let through by its own consent list: no hashed e-mail or phone, and the ledger says why`, () => {
      const own: Destination = { ...destination, consent: ['analytics'] };
      const granted = prepare(own, purchase(GRANTED));
      assert.ok(carries(granted.body), `${type} sends the person's data when ad_user_data is granted`);
      const e = purchase(SNIPPET);
      assert.equal(decideOne(own, e, { isKnownEvent: () => true }).action, 'send');
      const { body, dropped } = prepare(own, e);
      assert.ok(!carries(body), `${type}: ${body}`);
      assert.doesNotMatch(body, /john_smith|5551212/i);
      assert.match(dropped, /left out .*\(consent ad_user_data missing\)/);
    });
  }
});
