/**
 * core/platforms/segment-action/subscription.ts: which events a segment_action destination's
 * actions take — `when`, else the action's presets or default subscription from the generated
 * table, matched by Segment's own matcher — and
 * which custom events an action's own `when` names.
 */
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../../../core/event.ts';
import {
  segmentActionMaps,
  segmentActionMissing,
  segmentActionTakes,
  segmentCallOf,
} from '../../../../core/platforms/segment-action/subscription.ts';
import type { Destination } from '../../../../schemas/settings.ts';

/** A stored event of a name (its event_data as given). */
const ev = (name: string, data: Record<string, unknown> = {}): StoredEvent =>
  ({
    event_id: `e-${name}`,
    event_name: name,
    event_time: '2026-11-25T10:00:00.000Z',
    event_data: data,
  }) as StoredEvent;

const klaviyo = (actions: NonNullable<Destination['actions']>): Destination => ({
  id: 'k',
  type: 'segment_action',
  destination: 'klaviyo',
  actions,
});

describe('segment_action: subscriptions at the decision layer', () => {
  it('writes our events as the Segment calls the runtime sends', () => {
    assert.deepEqual(segmentCallOf('page_view'), { type: 'page', event: undefined });
    assert.deepEqual(segmentCallOf('user_identified'), { type: 'identify', event: undefined });
    assert.deepEqual(segmentCallOf('purchase'), { type: 'track', event: 'Order Completed' });
    assert.deepEqual(segmentCallOf('quote_requested'), { type: 'track', event: 'quote_requested' });
  });

  it('uses the actions’ default subscriptions: Klaviyo’s trackEvent takes track calls, upsertProfile identify', () => {
    const d = klaviyo([{ action: 'trackEvent' }, { action: 'upsertProfile' }]);
    assert.equal(segmentActionTakes(d, ev('purchase')), true);
    assert.equal(segmentActionTakes(d, ev('user_identified')), true);
    assert.equal(segmentActionTakes(d, ev('page_view')), false);
  });

  it('`when` replaces the default, as names or FQL', () => {
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: ['purchase'] }]), ev('add_to_cart')),
      false,
    );
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: ['purchase'] }]), ev('purchase')),
      true,
    );
    assert.equal(
      segmentActionTakes(
        klaviyo([{ action: 'trackEvent', when: 'type = "page"', mapping: { metric_name: 'Viewed Page' } }]),
        ev('page_view'),
      ),
      true,
    );
  });

  it('takes an event only if it carries what the action’s required fields read, unless they are mapped', () => {
    // trackEvent's metric name reads `$.event`: a page call has none, so the action would refuse it.
    const pages = klaviyo([{ action: 'trackEvent', when: 'type = "page"' }]);
    assert.equal(segmentActionTakes(pages, ev('page_view')), false);
    assert.deepEqual(segmentActionMissing(pages, ev('page_view')), {
      action: 'trackEvent',
      field: 'metric_name',
      path: 'event',
    });
    // Mapped to null (cleared), it still needs a value: the runtime judges.
    const cleared = klaviyo([
      { action: 'trackEvent', when: 'type = "page"', mapping: { metric_name: null } },
    ]);
    assert.equal(segmentActionTakes(cleared, ev('page_view')), true);
    // An audience action reads the audience from context.personas: present, taken; absent, not.
    const audience: Destination = { id: 'r', type: 'segment_action', destination: 'rokt-audiences' };
    assert.equal(segmentActionTakes(audience, ev('user_identified')), false);
    // An audience sync's event carries Engage's personas in its data (segment-event.ts).
    const member = ev('user_identified', {
      personas: { computation_key: 'vip', computation_class: 'audience', computation_id: 'a1' },
    });
    assert.equal(segmentActionTakes(audience, member), true);
    // A verdict that reads the event is not kept by name.
    assert.equal(segmentActionTakes(audience, ev('user_identified')), false);
    assert.equal(segmentActionMissing(audience, member), undefined);
  });

  it('judges a property condition on the Segment event the runtime would send, and keeps no verdict by name', () => {
    const big = klaviyo([{ action: 'trackEvent', when: 'properties.total > 100' }]);
    assert.equal(segmentActionTakes(big, ev('purchase', { value: 150, currency: 'EUR' })), true);
    assert.equal(segmentActionTakes(big, ev('purchase', { value: 50, currency: 'EUR' })), false);
    assert.equal(segmentActionTakes(big, ev('purchase', { value: 150, currency: 'EUR' })), true);
  });

  it('uses Segment’s presets: Iterable takes a purchase once (trackPurchase) and no page view', () => {
    const iterable: Destination = { id: 'i', type: 'segment_action', destination: 'iterable' };
    const purchase = ev('purchase', { value: 20, currency: 'USD' });
    assert.equal(segmentActionTakes(iterable, purchase), true);
    assert.equal(segmentActionTakes(iterable, ev('page_view')), false);
    // Named without when, trackPurchase runs under its preset (its default reads `==`: nothing).
    const named = { ...iterable, actions: [{ action: 'trackPurchase' }] };
    assert.equal(segmentActionTakes(named, purchase), true);
    // Its required total reads properties.total: a purchase without a value would be refused.
    assert.equal(segmentActionTakes(named, ev('purchase')), false);
    assert.equal(segmentActionTakes(named, ev('lead')), false);
  });

  it('a when Segment cannot parse is left to the runtime (its row says why)', () => {
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: 'type = "track" and (' }]), ev('purchase')),
      undefined,
    );
  });

  it('cannot tell (the runtime decides) for an unknown action or destination', () => {
    assert.equal(segmentActionTakes(klaviyo([{ action: 'noSuchAction' }]), ev('purchase')), undefined);
    assert.equal(
      segmentActionTakes(
        { ...klaviyo([{ action: 'trackEvent' }]), destination: 'no-such-slug' },
        ev('purchase'),
      ),
      undefined,
    );
  });

  it('an action without a subscription takes nothing (Slack’s postToChannel without when)', () => {
    const slack: Destination = {
      id: 's',
      type: 'segment_action',
      destination: 'slack',
      actions: [{ action: 'postToChannel' }],
    };
    assert.equal(segmentActionTakes(slack, ev('purchase')), false);
  });

  it('keeps its verdicts per destination value: a new settings load compiles again', () => {
    const first = klaviyo([{ action: 'trackEvent', when: ['purchase'] }]);
    assert.equal(segmentActionTakes(first, ev('purchase')), true);
    assert.equal(segmentActionTakes(first, ev('purchase')), true);
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: ['lead'] }]), ev('purchase')),
      false,
    );
  });

  it('maps a custom track event only through an action’s own when', () => {
    const named = klaviyo([{ action: 'trackEvent', when: ['quote_requested'] }]);
    assert.equal(segmentActionMaps(named, 'quote_requested'), true);
    assert.equal(
      segmentActionMaps(
        klaviyo([{ action: 'trackEvent', when: 'event = "quote_requested"' }]),
        'quote_requested',
      ),
      true,
    );
    assert.equal(segmentActionMaps(named, 'other_custom'), false);
    assert.equal(segmentActionMaps(klaviyo([{ action: 'trackEvent' }]), 'quote_requested'), false);
  });

  it('maps the events the runtime writes as identify, group and alias calls', () => {
    const plain = klaviyo([{ action: 'upsertProfile' }]);
    assert.equal(segmentActionMaps(plain, 'user_identified'), true);
    assert.equal(segmentActionMaps(plain, 'user_grouped'), true);
    assert.equal(segmentActionMaps(plain, 'quote_requested'), false);
  });
});
