import assert from 'node:assert/strict';
import {
  decide,
  decideOne,
  evaluateCondition,
  readPath,
  sampleBucket,
} from '../../../core/decision/decision.ts';
import { checkDecisionSettings } from '../../../core/decision/destination-checks.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const known = new Set(['view_content', 'purchase', 'page_view']);
const options = { isKnownEvent: (n: string) => known.has(n) };

const event = (over: Partial<StoredEvent> = {}): StoredEvent => ({
  event_name: 'view_content',
  event_id: 'e-1',
  event_time: '2026-01-01T00:00:00.000Z',
  anonymous_id: '1874934510.1700000000',
  user: { country: 'fr', email: 'a@b.c' },
  consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted', ad_personalization: 'denied' },
  event_data: { content_name: 'Shoe', content_type: 'product', value: 19.99, currency: 'EUR' },
  ...over,
});

const webhook: Destination = { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:1' };
const meta: Destination = { id: 'meta', type: 'meta_capi' };
const ga4: Destination = { id: 'ga4', type: 'ga4_mp' };

describe('decision layer', () => {
  const cases: { name: string; dest: Destination; ev: StoredEvent; want: string }[] = [
    {
      name: 'webhook, catalogue event, no consent needed',
      dest: webhook,
      ev: event({ consent: {} }),
      want: 'send',
    },
    {
      name: 'disabled destination',
      dest: { ...webhook, enabled: false },
      ev: event(),
      want: 'destination disabled',
    },
    {
      name: 'deny list',
      dest: { ...webhook, events: { deny: ['view_content'] } },
      ev: event(),
      want: 'event view_content is in events.deny',
    },
    {
      name: 'allow list without the event',
      dest: { ...webhook, events: { allow: ['purchase'] } },
      ev: event(),
      want: 'event view_content is not in events.allow',
    },
    {
      name: 'deny wins over allow',
      dest: { ...webhook, events: { allow: ['view_content'], deny: ['view_content'] } },
      ev: event(),
      want: 'event view_content is in events.deny',
    },
    {
      name: 'unknown event, platform without mapping',
      dest: meta,
      ev: event({ event_name: 'quote_requested' }),
      want: 'unknown event quote_requested has no mapping for meta_capi',
    },
    {
      name: 'unknown event, platform with a mapping',
      dest: { ...meta, mappings: { quote_requested: { event: 'Lead' } } },
      ev: event({ event_name: 'quote_requested' }),
      want: 'send',
    },
    {
      name: 'unknown event, webhook without allow entry',
      dest: webhook,
      ev: event({ event_name: 'quote_requested' }),
      want: 'unknown event quote_requested: list it in events.allow to forward it to a webhook',
    },
    {
      name: 'unknown event, webhook allow-listed',
      dest: { ...webhook, events: { allow: ['quote_requested'] } },
      ev: event({ event_name: 'quote_requested' }),
      want: 'send',
    },
    { name: 'meta with ads consent granted', dest: meta, ev: event(), want: 'send' },
    {
      name: 'meta, ads denied',
      dest: meta,
      ev: event({ consent: { ads: 'denied', ad_user_data: 'granted' } }),
      want: 'consent ads denied',
    },
    {
      name: 'meta, ad_user_data missing (fail closed)',
      dest: meta,
      ev: event({ consent: { ads: 'granted' } }),
      want: 'consent ad_user_data missing',
    },
    {
      name: 'meta, no consent group at all',
      dest: meta,
      ev: event({ consent: undefined as never }),
      want: 'consent ads missing',
    },
    {
      name: 'ga4 needs analytics only',
      dest: ga4,
      ev: event({ consent: { analytics: 'granted', ads: 'denied' } }),
      want: 'send',
    },
    {
      name: 'ga4 without a client id (no anonymous_id, no user_id): skipped, never an id made up',
      dest: ga4,
      ev: event({ anonymous_id: undefined as never }),
      want: 'no GA4 client id: the event has no anonymous_id (the browser\'s GA client id) or user_id; carry one from the source (docs/sources/README.md, "GA4 client id")',
    },
    {
      name: 'ga4 with a user_id alone: sent (its client id is derived from it, docs/linkage.md)',
      dest: ga4,
      ev: event({ anonymous_id: undefined as never, user_id: 'u-1' }),
      want: 'send',
    },
    {
      name: 'ga4 without a client id, the destination mapping client_id itself: sent',
      dest: { ...ga4, mappings: { view_content: { fields: { client_id: { from: 'session_id' } } } } },
      ev: event({ anonymous_id: undefined as never }),
      want: 'send',
    },
    {
      name: 'ga4, analytics denied',
      dest: ga4,
      ev: event({ consent: { analytics: 'denied' } }),
      want: 'consent analytics denied',
    },
    {
      name: 'explicit consent list replaces the default',
      dest: { ...webhook, consent: ['ad_personalization'] },
      ev: event(),
      want: 'consent ad_personalization denied',
    },
    {
      name: 'condition on a context field, true',
      dest: { ...webhook, conditions: [{ field: 'user.country', op: 'eq', value: 'fr' }] },
      ev: event(),
      want: 'send',
    },
    {
      name: 'condition on an event field, false',
      dest: { ...webhook, conditions: [{ field: 'value', op: 'gte', value: 50 }] },
      ev: event(),
      want: 'condition 0 (value gte 50) false',
    },
    {
      name: 'second condition false',
      dest: {
        ...webhook,
        conditions: [
          { field: 'currency', op: 'in', value: ['EUR', 'USD'] },
          { field: 'user.phone', op: 'exists' },
        ],
      },
      ev: event(),
      want: 'condition 1 (user.phone exists) false',
    },
    {
      name: 'sampling 1 sends everything',
      dest: { ...webhook, sampling: 1 },
      ev: event(),
      want: 'send',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideOne(c.dest, c.ev, options);
      assert.equal(d.destination, c.dest.id);
      assert.equal(d.action === 'send' ? 'send' : d.reason, c.want);
    });
  }

  it('decides for every destination in settings order', () => {
    const settings = {
      name: 'x',
      project: 'proj-x1',
      region: 'europe-west1',
      destinations: [webhook, meta, ga4],
    } as Settings;
    const got = decide(settings, event({ consent: { analytics: 'granted' } }), options);
    assert.deepEqual(
      got.map((d) => [d.destination, d.action]),
      [
        ['hook', 'send'],
        ['meta', 'skip'],
        ['ga4', 'send'],
      ],
    );
  });

  it('samples by a stable hash of event_id, close to the configured share', () => {
    const dest: Destination = { ...webhook, sampling: 0.25 };
    let sent = 0;
    for (let i = 0; i < 4000; i++) {
      const id = `evt-${i}`;
      const first = decideOne(dest, event({ event_id: id }), options).action;
      // Same event, same answer: retries and replays never flip a sampling decision.
      assert.equal(decideOne(dest, event({ event_id: id }), options).action, first);
      if (first === 'send') sent++;
    }
    assert.ok(sent > 850 && sent < 1150, `sent ${sent} of 4000 at 25%`);
    assert.equal(sampleBucket('abc'), sampleBucket('abc'));
    assert.ok(sampleBucket('abc') >= 0 && sampleBucket('abc') < 1);
  });

  const conditionCases: { cond: Parameters<typeof evaluateCondition>[0]; want: boolean }[] = [
    { cond: { field: 'value', op: 'eq', value: '19.99' }, want: true },
    { cond: { field: 'value', op: 'ne', value: 19.99 }, want: false },
    { cond: { field: 'value', op: 'gt', value: 19 }, want: true },
    { cond: { field: 'value', op: 'lt', value: 19 }, want: false },
    { cond: { field: 'value', op: 'lte', value: 19.99 }, want: true },
    { cond: { field: 'content_name', op: 'gt', value: 5 }, want: false },
    { cond: { field: 'event_time', op: 'gte', value: '2025-12-31' }, want: true },
    { cond: { field: 'currency', op: 'not_in', value: ['USD'] }, want: true },
    { cond: { field: 'currency', op: 'in', value: 'EUR' }, want: false },
    { cond: { field: 'page.url', op: 'not_exists' }, want: true },
    { cond: { field: 'user.email', op: 'matches', value: '@b\\.c$' }, want: true },
    { cond: { field: 'user.email', op: 'matches', value: '(' }, want: false },
    { cond: { field: 'event_data.content_type', op: 'eq', value: 'product' }, want: true },
  ];
  for (const c of conditionCases) {
    it(`condition ${c.cond.field} ${c.cond.op} ${JSON.stringify(c.cond.value)} → ${c.want}`, () => {
      assert.equal(evaluateCondition(c.cond, event()), c.want);
    });
  }

  it('reads context fields first, then event_data', () => {
    const ev = event({ event_data: { user: 'shadowed', price: 3 } });
    assert.deepEqual(readPath(ev, 'user.country'), 'fr');
    assert.equal(readPath(ev, 'price'), 3);
    assert.equal(readPath(ev, 'missing.deep'), undefined);
  });

  it('reports condition values that cannot work, with key paths', () => {
    const settings = {
      name: 'x',
      project: 'proj-x1',
      region: 'europe-west1',
      destinations: [
        {
          ...webhook,
          conditions: [
            { field: 'a', op: 'eq' },
            { field: 'a', op: 'in', value: 'x' },
            { field: 'a', op: 'matches', value: '(' },
            { field: 'a', op: 'exists' },
          ],
        },
      ],
    } as Settings;
    assert.deepEqual(
      checkDecisionSettings(settings).map((e) => e.field),
      [
        'destinations[0].conditions[0].value',
        'destinations[0].conditions[1].value',
        'destinations[0].conditions[2].value',
      ],
    );
  });
});
