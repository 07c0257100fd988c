/**
 * A slow consent platform loses nothing on the server (#96): events `store` had to decide before
 * the platform answered (GDPR applying with no TC string, a purpose no signal states) wait in their
 * page view's pending record, and a later event of the same page view bringing the answer has them
 * decided again — sent once under it (messages that take the send-once claim), dropped for good
 * under a refusal, and forgotten after the window. Through the fan-out store runs, with the claim
 * store in memory.
 */
import assert from 'node:assert/strict';
import { createStoreFanOut } from '../../adapters/store-fan-out.ts';
import { createConsentWait, WAIT_MS } from '../../core/delivery/consent-wait.ts';
import { type FanOutPlan, planFanOut } from '../../core/delivery/fan-out.ts';
import { DELIVERY_ATTRIBUTES, type DeliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { type ErasedEvents, erasureHash, type Suppression } from '../../core/suppression/erased.ts';
import type { RowWriter } from '../../core/warehouse/rows.ts';
import type { Settings } from '../../schemas/settings.ts';
import { memoryClaims } from '../support/memory-claims.ts';
import { tcString } from '../support/tc-strings.ts';

const T0 = Date.parse('2026-11-27T08:00:00.000Z');
const SETTINGS: Settings = {
  name: 'test',
  project: 'test-project',
  region: 'europe-west1',
  destinations: [
    { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-TEST' } },
    { id: 'meta', type: 'meta_capi', config: { pixel_id: '1' } },
    { id: 'hook', type: 'webhook' },
  ],
};
const EVERYTHING = Array.from({ length: 11 }, (_, i) => i + 1);
/** The CMP's answer: every TCF purpose and Google's vendor consented. */
const GRANTED = { tcf: tcString({ purposes: EVERYTHING, vendors: [755] }), gdpr_applies: true };
/** Sent before the TCF CMP answered (the tag's mark). */
const BEFORE = { gdpr_applies: true };

let n = 0;
const event = (name: string, consent: StoredEvent['consent'], anonymousId = 'page-1'): StoredEvent => ({
  event_name: name,
  event_id: `e-${++n}`,
  event_time: new Date(T0 + n).toISOString(),
  payload_digest: `d-${n}`,
  anonymous_id: anonymousId,
  source: 'web',
  ...(consent ? { consent } : {}),
  event_data: name === 'purchase' ? { value: 10, currency: 'EUR', transaction_id: `o-${n}` } : {},
});

function harness(suppression?: () => Suppression | undefined) {
  const claims = memoryClaims();
  const published: DeliveryMessage[] = [];
  const ledger: string[] = [];
  const rows: RowWriter = {
    async write(_table, batch) {
      for (const r of batch)
        ledger.push(`${r.json['event_id']} ${r.json['destination']} ${r.json['reason']}`);
      return [];
    },
  };
  let now = T0;
  const fanOut = createStoreFanOut({
    settings: SETTINGS,
    rows,
    claims,
    ...(suppression ? { suppression } : {}),
    now: () => new Date(now),
    publish: async (messages) => {
      published.push(...messages);
    },
  });
  assert.ok(fanOut);
  return {
    claims,
    ledger,
    at: (t: number) => {
      now = t;
    },
    /** One store push's fan-out; the messages it published, as `event destination`. */
    async push(...events: StoredEvent[]): Promise<string[]> {
      const before = published.length;
      await fanOut(events, []);
      return published.slice(before).map((m) => `${m.attributes['event_id']} ${m.attributes['destination']}`);
    },
    published,
  };
}

describe('consent wait: events decided before the consent platform answered (#96)', () => {
  it('a later event of the same page view with the answer sends the waiting ones once, not as a first fan-out', async () => {
    const h = harness();
    const pageView = event('page_view', BEFORE);
    const purchase = event('purchase', BEFORE);
    assert.deepEqual(await h.push(pageView, purchase), [
      `${pageView.event_id} hook`,
      `${purchase.event_id} hook`,
    ]);
    assert.ok(
      h.ledger.some((l) => l === `${pageView.event_id} meta consent TCF string missing (gdpr_applies true)`),
    );
    assert.equal(h.claims.records.size, 1, 'one pending record for the page view');
    const answer = event('view_content', GRANTED);
    h.at(T0 + 1500);
    const sent = await h.push(answer);
    for (const e of [pageView, purchase])
      for (const d of ['ga4', 'meta'])
        assert.ok(sent.includes(`${e.event_id} ${d}`), `${e.event_id} ${d}: ${sent}`);
    const again = h.published.filter(
      (m) => m.attributes['event_id'] === purchase.event_id && m.attributes['destination'] === 'meta',
    );
    assert.equal(again.length, 1);
    const m = again[0] as DeliveryMessage;
    // Not the first fan-out's: forward takes the send-once claim, so a second answer's copy folds.
    assert.equal(m.attributes[DELIVERY_ATTRIBUTES.first], undefined);
    assert.equal(m.attributes[DELIVERY_ATTRIBUTES.sightedAt], '0');
    assert.deepEqual(
      (JSON.parse(m.data) as StoredEvent).consent,
      GRANTED,
      'decided and sent under the answer',
    );
    assert.equal(h.claims.records.size, 0, 'the record is gone once nothing waits');
    assert.deepEqual(
      (await h.push(event('add_to_cart', GRANTED))).filter((s) => s.startsWith(pageView.event_id)),
      [],
      'a later answer sends nothing again',
    );
  });

  it('an answer in the same push as the events it answers sends them', async () => {
    const h = harness();
    const early = event('page_view', BEFORE, 'page-2');
    const sent = await h.push(early, event('view_content', GRANTED, 'page-2'));
    assert.ok(sent.includes(`${early.event_id} meta`), String(sent));
  });

  it('an answer that refuses drops the waiting events for good; another page view’s answer sends nothing', async () => {
    const h = harness();
    const early = event('page_view', BEFORE, 'page-3');
    await h.push(early);
    assert.deepEqual(
      (await h.push(event('view_content', GRANTED, 'another-page'))).filter((s) =>
        s.startsWith(early.event_id),
      ),
      [],
    );
    const refusing = { tcf: tcString({ purposes: [], vendors: [] }), gdpr_applies: true };
    assert.deepEqual(
      (await h.push(event('view_content', refusing, 'page-3'))).filter((s) => s.startsWith(early.event_id)),
      [],
    );
    assert.equal(h.claims.records.size, 0, 'no record is left: the refusal stands');
  });

  it('waits at least 30 minutes: an answer at 45 minutes sends, one after the window does not', async () => {
    const h = harness();
    const a = event('page_view', undefined, 'page-4');
    await h.push(a);
    h.at(T0 + 45 * 60_000);
    assert.ok(
      (await h.push(event('purchase', { ...GRANTED, ad_user_data: 'granted' }, 'page-4'))).includes(
        `${a.event_id} ga4`,
      ),
    );
    const b = event('page_view', undefined, 'page-5');
    h.at(T0);
    await h.push(b);
    h.at(T0 + WAIT_MS + 1);
    assert.deepEqual(
      (await h.push(event('purchase', GRANTED, 'page-5'))).filter((s) => s.startsWith(b.event_id)),
      [],
    );
    assert.ok(WAIT_MS >= 30 * 60_000);
  });

  for (const mode of ['strip', 'drop'] as const satisfies readonly ErasedEvents[])
    it(`an erasure before the late answer: the person's kept event is never sent with their identifiers (${mode})`, async () => {
      let list: Suppression | undefined;
      const h = harness(() => list);
      const purchase: StoredEvent = {
        ...event('purchase', BEFORE, 'page-7'),
        user_id: 'u-ann',
        user: { email: 'ann@example.com', phone: '+33 6 12 34 56 78' },
        campaign: { fbp: 'fb.1.1700000000000.1234567890', source: 'news' },
      };
      const view = event('page_view', BEFORE, 'page-7');
      await h.push(view, purchase);
      const record = () => JSON.stringify([...h.claims.records.values()].map((r) => r.fields));
      assert.match(record(), /u-ann/, 'kept whole while it waits');
      // The person is erased by their user id (a browser's anonymous id alone joins nobody).
      list = { hashes: new Set([erasureHash('user_id:u-ann')]), mode };
      // A later event of the page view that brings no answer yet: the record loses the person at once.
      await h.push(event('view_content', BEFORE, 'page-7'));
      assert.doesNotMatch(record(), /u-ann|ann@example\.com|12 34|fb\.1\./);
      assert.match(record(), new RegExp(view.event_id), 'the page view of nobody erased still waits');
      // The late answer: the page view is sent; the purchase stripped, or not at all.
      const before = h.published.length;
      const sent = await h.push(event('add_to_cart', GRANTED, 'page-7'));
      assert.ok(sent.includes(`${view.event_id} meta`), String(sent));
      const theirs = h.published
        .slice(before)
        .filter((m) => m.attributes['event_id'] === purchase.event_id)
        .map((m) => m.data);
      if (mode === 'drop') assert.deepEqual(theirs, []);
      else assert.ok(theirs.length > 0, 'sent without the person (as store keeps it)');
      for (const data of theirs) {
        assert.doesNotMatch(data, /u-ann|ann@example\.com|12 34|page-7|fb\.1\./, data);
        assert.equal((JSON.parse(data) as StoredEvent).event_data['value'], 10, 'what happened stays');
      }
    });

  it('reads no record where no destination needs a purpose', async () => {
    const asked: string[] = [];
    const claims = memoryClaims();
    const counting = {
      ...claims,
      read: async (k: Parameters<typeof claims.read>[0]) => {
        asked.push(k.id);
        return claims.read(k);
      },
    };
    const wait = createConsentWait({
      settings: { ...SETTINGS, destinations: [{ id: 'hook', type: 'webhook' }] },
      records: counting,
      publish: async () => {},
    });
    assert.deepEqual(await wait([event('page_view', GRANTED, 'page-6')], [], T0), []);
    assert.deepEqual(asked, []);
  });

  it('plans the refusals it keeps: only those awaiting an answer', () => {
    const plan: FanOutPlan = planFanOut(
      SETTINGS,
      [event('page_view', { ads: 'denied', analytics: 'granted' })],
      new Date(T0),
    );
    assert.deepEqual(
      plan.refused.map((r) => r.reason),
      ['consent ads denied'],
    );
  });
});
