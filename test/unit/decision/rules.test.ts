/**
 * Each rule of the decision layer (core/decision/decision.ts) on its own reach: who decides Global
 * Privacy Control, what a bot reaches, an event routed nowhere, a defined event, a platform's
 * device id, the name a reason gives, and sampling at its bound (docs/delivery.md).
 */
import assert from 'node:assert/strict';
import {
  botPolicy,
  CATALOGUE_OPTIONS,
  type DecisionOptions,
  decide,
  decideOne,
  sampleBucket,
} from '../../../core/decision/decision.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const ALL_GRANTED = {
  analytics: 'granted',
  ads: 'granted',
  ad_user_data: 'granted',
  ad_personalization: 'granted',
};
const event = (over: Partial<StoredEvent> = {}): StoredEvent => ({
  event_id: 'e-rules',
  event_name: 'purchase',
  event_time: '2026-03-01T10:00:00.000Z',
  event_data: { transaction_id: 'T1', value: 10, currency: 'EUR' },
  anonymous_id: '1874934510.1700000000',
  consent: ALL_GRANTED,
  ...over,
});
const meta: Destination = { id: 'meta', type: 'meta_capi' };
const ga4: Destination = { id: 'ga4', type: 'ga4_mp' };
const hook: Destination = { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:1' };
const settings = (over: Partial<Settings>): Settings =>
  ({ name: 'x', project: 'proj-x1', region: 'europe-west1', ...over }) as Settings;

/** What a decision says: `send`, or the skip's reason. */
const said = (d: Destination, e: StoredEvent, options: DecisionOptions = CATALOGUE_OPTIONS): string => {
  const got = decideOne(d, e, options);
  assert.equal(got.destination, d.id);
  return got.action === 'send' ? 'send' : got.reason;
};
const GPC = 'consent Sec-GPC opt-out';

describe('decision: Global Privacy Control is decided by the settings', () => {
  const gpc = event({ consent: { ...ALL_GRANTED, gpc: true } });

  it('honoured by default, whatever the caller passed', () => {
    assert.equal(said(meta, gpc), GPC);
    const got = decide(settings({ destinations: [meta] }), gpc, { ...CATALOGUE_OPTIONS, honorGpc: false });
    assert.deepEqual(got, [{ destination: 'meta', action: 'skip', reason: GPC }]);
  });

  it('producers.honor_gpc false lets it through, and true keeps it over the caller', () => {
    const off = settings({ destinations: [meta], producers: { honor_gpc: false } } as Partial<Settings>);
    assert.deepEqual(decide(off, gpc), [{ destination: 'meta', action: 'send' }]);
    const on = settings({ destinations: [meta], producers: { honor_gpc: true } } as Partial<Settings>);
    assert.equal(decide(on, gpc, { ...CATALOGUE_OPTIONS, honorGpc: false })[0]?.action, 'skip');
    assert.equal(said(meta, gpc, { ...CATALOGUE_OPTIONS, honorGpc: false }), 'send');
  });

  it('settings without destinations decide nothing', () => {
    assert.deepEqual(decide(settings({}), event()), []);
  });
});

describe('decision: bots', () => {
  const bot = event({ enriched: { bot: true } } as Partial<StoredEvent>);
  const BOT = 'bot: the user agent is a known crawler (enriched.bot; destination bots: send to keep it)';

  it('a platform skips a crawler, a webhook receives it, and each destination may say otherwise', () => {
    assert.deepEqual(
      [
        said(meta, bot),
        said(hook, bot),
        said({ ...meta, bots: 'send' }, bot),
        said({ ...hook, bots: 'skip' }, bot),
      ],
      [BOT, 'send', 'send', BOT],
    );
    assert.deepEqual(
      [botPolicy(meta), botPolicy(hook), botPolicy({ ...ga4, bots: 'send' })],
      ['skip', 'send', 'send'],
    );
    assert.equal(said(meta, event({ enriched: { bot: false } } as Partial<StoredEvent>)), 'send');
  });
});

describe('decision: an event routed nowhere, and defined events', () => {
  const ads = (event_name: string): Destination =>
    ({ id: 'ads', type: 'google_ads', mappings: { [event_name]: { event: 'Purchase' } } }) as Destination;

  it('a Google Ads event without a conversion action is skipped naming the setting', () => {
    assert.equal(
      said(ads('purchase'), event()),
      'no conversion action for event purchase: set mappings.purchase.event to its conversion action id',
    );
    assert.equal(said({ ...ads('purchase'), mappings: { purchase: { event: '123' } } }, event()), 'send');
  });

  it("a defined event is routed by its definition's mapping, resolved when it is forwarded", () => {
    assert.equal(said(ads('purchase'), event({ definition_version: 'purchase@1.0' })), 'send');
  });

  it('a defined custom event reaches a webhook, and a platform only where its definition maps it', () => {
    const quote = event({ event_name: 'quote_requested', definition_version: 'quote_requested@1.2' });
    const asked: string[] = [];
    const maps = (answer: boolean): DecisionOptions => ({
      ...CATALOGUE_OPTIONS,
      definitionMaps: (stamp, type) => {
        asked.push(`${stamp} ${type}`);
        return answer;
      },
    });
    assert.equal(said(hook, quote), 'send');
    assert.equal(said(meta, quote, maps(true)), 'send');
    assert.deepEqual(asked, ['quote_requested@1.2 meta_capi']);
    const unmapped = 'unknown event quote_requested has no mapping for meta_capi';
    assert.equal(said(meta, quote, maps(false)), unmapped);
    assert.equal(said(meta, quote), unmapped);
    assert.equal(said(meta, event({ event_name: 'quote_requested' }), maps(true)), unmapped);
  });
});

describe("decision: a platform's device id", () => {
  const NO_ID = /^no GA4 client id/;

  it('an empty or null anonymous_id is no client id', () => {
    for (const anonymous_id of ['', null])
      assert.match(said(ga4, event({ anonymous_id: anonymous_id as never })), NO_ID, String(anonymous_id));
  });

  it("a mapping of another event does not say where this one's client id comes from", () => {
    const other = { ...ga4, mappings: { sign_up: { fields: { client_id: { from: 'session_id' } } } } };
    assert.match(said(other as Destination, event({ anonymous_id: undefined as never })), NO_ID);
  });
});

describe('decision: unknown events and the names reasons give', () => {
  const unknown = { isKnownEvent: () => false };

  it("a platform's own event needs no mapping; a name it refuses says so", () => {
    assert.equal(said(ga4, event({ event_name: 'login' }), unknown), 'send');
    assert.match(said(ga4, event({ event_name: 'session_start' })), /^GA4 refuses the event name: /);
  });

  it('a webhook with a deny list only still asks for the custom event in its allow list', () => {
    assert.equal(
      said({ ...hook, events: { deny: ['other'] } }, event({ event_name: 'quote_requested' })),
      'unknown event quote_requested: list it in events.allow to forward it to a webhook',
    );
  });

  it('a segment_action destination is named by its catalogue entry, or generically without one', () => {
    const bare = { id: 'sa', type: 'segment_action', actions: [{ action: 'trackEvent' }] } as Destination;
    assert.equal(
      said(bare, event({ event_name: 'quote_requested' })),
      "unknown event quote_requested: name it in an action's when (or in events.allow) to forward it to a segment_action",
    );
    const eu = {
      id: 'klaviyo-eu',
      type: 'segment_action',
      destination: 'klaviyo',
      secrets: { api_key: 'KLAVIYO_KEY' },
      actions: [{ action: 'trackEvent', when: ['purchase'] }],
    } as Destination;
    assert.match(
      said(eu, event({ event_name: 'add_to_cart' })),
      /^no action of klaviyo subscribes to add_to_cart/,
    );
  });
});

describe('decision: sampling', () => {
  it('sampling 0 sends nothing and says so', () => {
    assert.equal(said({ ...hook, sampling: 0 }, event()), 'sampled out (sampling 0)');
  });

  it('an event whose bucket is the sampling share itself is sampled out', () => {
    const share = sampleBucket('e-rules');
    assert.equal(said({ ...hook, sampling: share }, event()), `sampled out (sampling ${share})`);
    assert.equal(said({ ...hook, sampling: share + 1e-9 }, event()), 'send');
  });

  it('the bucket is FNV-1a of the whole id (its published 32-bit values)', () => {
    assert.equal(sampleBucket(''), 0x811c9dc5 / 2 ** 32);
    assert.equal(sampleBucket('a'), 0xe40c292c / 2 ** 32);
    assert.equal(sampleBucket('foobar'), 0xbf9cf968 / 2 ** 32);
  });
});
