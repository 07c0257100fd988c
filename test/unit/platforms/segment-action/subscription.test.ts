/**
 * core/platforms/segment-action/subscription.ts: which events a segment_action destination's
 * actions take — `when`, else the action's default subscription from the generated table — and
 * which custom events an action's own `when` names.
 */
import assert from 'node:assert/strict';
import {
  segmentActionMaps,
  segmentActionTakes,
  segmentCallOf,
} from '../../../../core/platforms/segment-action/subscription.ts';
import type { Destination } from '../../../../schemas/settings.ts';

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
    assert.equal(segmentActionTakes(d, 'purchase'), true);
    assert.equal(segmentActionTakes(d, 'user_identified'), true);
    assert.equal(segmentActionTakes(d, 'page_view'), false);
  });

  it('`when` replaces the default, as names or FQL', () => {
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: ['purchase'] }]), 'add_to_cart'),
      false,
    );
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: ['purchase'] }]), 'purchase'),
      true,
    );
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: 'type = "page"' }]), 'page_view'),
      true,
    );
  });

  it('cannot tell (the runtime decides) for a property condition, an unknown action or destination', () => {
    assert.equal(
      segmentActionTakes(klaviyo([{ action: 'trackEvent', when: 'properties.total > 100' }]), 'purchase'),
      undefined,
    );
    assert.equal(segmentActionTakes(klaviyo([{ action: 'noSuchAction' }]), 'purchase'), undefined);
    assert.equal(
      segmentActionTakes({ ...klaviyo([{ action: 'trackEvent' }]), destination: 'no-such-slug' }, 'purchase'),
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
    assert.equal(segmentActionTakes(slack, 'purchase'), false);
  });

  it('keeps its verdicts per destination value: a new settings load compiles again', () => {
    const first = klaviyo([{ action: 'trackEvent', when: ['purchase'] }]);
    assert.equal(segmentActionTakes(first, 'purchase'), true);
    assert.equal(segmentActionTakes(first, 'purchase'), true);
    assert.equal(segmentActionTakes(klaviyo([{ action: 'trackEvent', when: ['lead'] }]), 'purchase'), false);
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
