/**
 * The decision layer for `segment_action` destinations (core/decision/decision.ts): an event no
 * configured action subscribes to is skipped at fan-out with its reason, like one `events.allow`
 * leaves out, instead of reaching forward-catalog to be rejected; a custom event goes out when an
 * action's own `when` names it (or `events.allow` does); the other rules still come first.
 */
import assert from 'node:assert/strict';
import { CATALOGUE_OPTIONS, decideOne } from '../../../core/decision/decision.ts';
import { planFanOut } from '../../../core/delivery/fan-out.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const event = (event_name: string, over: Partial<StoredEvent> = {}): StoredEvent => ({
  event_name,
  event_id: `e-${event_name}`,
  event_time: '2026-11-24T12:00:00.000Z',
  user_id: 'u-1',
  consent: { analytics: 'granted' },
  event_data: {},
  ...over,
});
const klaviyo = (over: Partial<Destination> = {}): Destination => ({
  id: 'klaviyo',
  type: 'segment_action',
  destination: 'klaviyo',
  secrets: { api_key: 'KLAVIYO_KEY' },
  actions: [{ action: 'trackEvent' }, { action: 'upsertProfile' }],
  ...over,
});
const decide = (d: Destination, e: StoredEvent) => decideOne(d, e, CATALOGUE_OPTIONS);

describe('decision: segment_action subscriptions', () => {
  it('skips an event no action subscribes to, naming the Segment call it is', () => {
    assert.deepEqual(decide(klaviyo(), event('page_view')), {
      destination: 'klaviyo',
      action: 'skip',
      reason: "no action of klaviyo subscribes to page_view (a Segment page call): an action's when takes it",
    });
    assert.match(
      (
        decide(klaviyo({ actions: [{ action: 'trackEvent' }] }), event('user_identified')) as {
          reason: string;
        }
      ).reason,
      /subscribes to user_identified \(a Segment identify call\)/,
    );
    const purchasesOnly = klaviyo({ actions: [{ action: 'trackEvent', when: ['purchase'] }] });
    assert.deepEqual(decide(purchasesOnly, event('add_to_cart')), {
      destination: 'klaviyo',
      action: 'skip',
      reason:
        'no action of klaviyo subscribes to add_to_cart (Segment track "Product Added"): an action\'s when takes it',
    });
  });

  it('sends an event an action takes, by its default subscription or its when', () => {
    assert.equal(decide(klaviyo(), event('purchase')).action, 'send');
    assert.equal(decide(klaviyo(), event('user_identified')).action, 'send');
    // A page call has no `event`, which trackEvent's required metric name reads: mapped, it goes.
    const pages = klaviyo({
      actions: [{ action: 'trackEvent', when: ['page_view'], mapping: { metric_name: 'Viewed Page' } }],
    });
    assert.equal(decide(pages, event('page_view')).action, 'send');
  });

  it('skips an event a taking action must refuse: a required field reads a path the event does not carry', () => {
    // Engage audience actions read the audience from context.personas: an ordinary event lacks it.
    const launchdarkly: Destination = {
      id: 'ld',
      type: 'segment_action',
      destination: 'launchdarkly-audiences',
    };
    assert.deepEqual(decide(launchdarkly, event('user_identified')), {
      destination: 'ld',
      action: 'skip',
      reason:
        'syncAudience of launchdarkly-audiences requires segment_audience_id, read from $.context.personas.computation_id, which user_identified does not carry (the action would refuse it; a mapping of the field in its settings changes that)',
    });
    // An audience sync's event carries Engage's personas in its data (segment-event.ts).
    const member = event('user_identified', {
      event_data: {
        personas: { computation_id: 'aud_1', computation_key: 'vip', computation_class: 'audience' },
      },
    });
    assert.equal(decide(launchdarkly, member).action, 'send', JSON.stringify(decide(launchdarkly, member)));
    // A page view under trackEvent without a metric name mapped: refused at the runtime, so skipped here.
    const unmapped = klaviyo({ actions: [{ action: 'trackEvent', when: ['page_view'] }] });
    assert.match(
      (decide(unmapped, event('page_view')) as { reason: string }).reason,
      /^trackEvent of klaviyo requires metric_name, read from \$\.event, which page_view does not carry/,
    );
    // Iterable's purchase preset maps nothing over `total`: a purchase without a value is refused.
    const iterable: Destination = { id: 'it', type: 'segment_action', destination: 'iterable' };
    assert.match(
      (decide(iterable, event('purchase')) as { reason: string }).reason,
      /^trackPurchase of iterable requires total, read from \$\.properties\.total/,
    );
  });

  it('judges a property condition on the event itself, as Segment’s matcher would at the runtime', () => {
    const big = klaviyo({ actions: [{ action: 'trackEvent', when: 'properties.total > 100' }] });
    assert.equal(
      decide(big, event('purchase', { event_data: { value: 150, currency: 'EUR' } })).action,
      'send',
    );
    assert.equal(
      decide(big, event('purchase', { event_data: { value: 50, currency: 'EUR' } })).action,
      'skip',
    );
  });

  it('Iterable by its presets: a purchase goes out, a page view is skipped (not a rejected row)', () => {
    const iterable = klaviyo({ id: 'iterable', destination: 'iterable' });
    const { actions: _none, ...bare } = iterable;
    const purchase = event('purchase', { event_data: { value: 20, currency: 'USD' } });
    assert.equal(decide(bare, purchase).action, 'send');
    assert.equal(decide(bare, event('page_view')).action, 'skip');
    assert.equal(decide({ ...bare, actions: [{ action: 'trackPurchase' }] }, purchase).action, 'send');
  });

  it('a custom event goes out when an action’s when names it, or events.allow does', () => {
    assert.deepEqual(decide(klaviyo(), event('quote_requested')), {
      destination: 'klaviyo',
      action: 'skip',
      reason:
        "unknown event quote_requested: name it in an action's when (or in events.allow) to forward it to klaviyo",
    });
    const named = klaviyo({ actions: [{ action: 'trackEvent', when: ['purchase', 'quote_requested'] }] });
    assert.equal(decide(named, event('quote_requested')).action, 'send');
    const fql = klaviyo({ actions: [{ action: 'trackEvent', when: 'event = "quote_requested"' }] });
    assert.equal(decide(fql, event('quote_requested')).action, 'send');
    const allowed = klaviyo({ events: { allow: ['quote_requested', 'purchase'] } });
    assert.equal(decide(allowed, event('quote_requested')).action, 'send');
  });

  it('a custom event allowed but taken by no action is skipped for that', () => {
    const d = klaviyo({ actions: [{ action: 'upsertProfile' }], events: { allow: ['quote_requested'] } });
    assert.match(
      (decide(d, event('quote_requested')) as { reason: string }).reason,
      /no action of klaviyo subscribes/,
    );
  });

  it('the explicit rules come first: disabled, deny, allow', () => {
    assert.deepEqual(decide(klaviyo({ enabled: false }), event('page_view')), {
      destination: 'klaviyo',
      action: 'skip',
      reason: 'destination disabled',
    });
    assert.match(
      (decide(klaviyo({ events: { allow: ['purchase'] } }), event('page_view')) as { reason: string }).reason,
      /not in events.allow/,
    );
  });

  it('consent still decides for an event an action takes', () => {
    const denied = event('purchase', { consent: { analytics: 'denied' } });
    assert.match((decide(klaviyo(), denied) as { reason: string }).reason, /consent/);
  });

  it('at fan-out, an event no action takes is a skipped ledger row, not a delivery message', () => {
    const settings = { destinations: [klaviyo()] } as unknown as Settings;
    const plan = planFanOut(
      settings,
      [event('page_view'), event('purchase')],
      new Date('2026-11-24T12:00:01Z'),
    );
    assert.deepEqual(
      plan.messages.map((m) => m.attributes['event_name']),
      ['purchase'],
    );
    assert.equal(plan.skips.length, 1);
    assert.equal(plan.skips[0]?.row.status, 'skipped');
    assert.match(plan.skips[0]?.row.reason ?? '', /no action of klaviyo subscribes to page_view/);
  });
});
