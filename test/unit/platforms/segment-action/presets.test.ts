/**
 * What an action runs with (core/platforms/segment-action/presets.ts): its subscription from
 * `when` or its default, and its mapping as the presets with the settings' mapping over them.
 */
import assert from 'node:assert/strict';
import { effectiveMapping, subscriptionOf } from '../../../../core/platforms/segment-action/presets.ts';

describe('segment_action: presets', () => {
  it('without `when` the action’s default subscription applies, or none', () => {
    assert.equal(subscriptionOf({}, 'type = "track"'), 'type = "track"');
    assert.equal(subscriptionOf({}, undefined), undefined);
  });

  it('`when` as a string is Segment’s FQL, as given', () => {
    assert.equal(subscriptionOf({ when: 'event = "Signed Up"' }, 'type = "track"'), 'event = "Signed Up"');
  });

  it('`when` as names: our catalogue names as their spec names, call types by type, quotes escaped', () => {
    assert.equal(
      subscriptionOf({ when: ['purchase', 'page_view', 'identify', 'Trial "Pro"'] }, undefined),
      'event = "Order Completed" or type = "page" or type = "identify" or event = "Trial \\"Pro\\""',
    );
  });

  it('the mapping is the fields’ defaults with the settings’ mapping over them', () => {
    const fields = {
      metric_name: { default: { '@path': '$.event' } },
      unique_id: { default: { '@path': '$.messageId' } },
      profile: {},
    };
    assert.deepEqual(effectiveMapping(fields, { profile: { email: 'x@example.com' }, metric_name: 'Buy' }), {
      metric_name: 'Buy',
      unique_id: { '@path': '$.messageId' },
      profile: { email: 'x@example.com' },
    });
    assert.deepEqual(effectiveMapping(fields, undefined), {
      metric_name: { '@path': '$.event' },
      unique_id: { '@path': '$.messageId' },
    });
  });

  it('the mapping’s keys follow the action’s fields, whatever order the settings and preset use', () => {
    // Intercom's identifyContact declares `role` (no default) first: its body starts with it.
    const fields = {
      role: {},
      external_id: { default: { '@path': '$.userId' } },
      email: { default: { '@path': '$.traits.email' } },
      name: {},
    };
    const mapping = effectiveMapping(
      fields,
      { extra: 1, name: { '@path': '$.traits.name' }, role: 'lead' },
      { mapping: { email: 'e@example.com' } },
    );
    assert.deepEqual(Object.keys(mapping), ['role', 'external_id', 'email', 'name', 'extra']);
  });

  it('a field mapped to null is left out, its default and the preset’s value cleared', () => {
    const fields = {
      metric_name: { default: { '@path': '$.event' } },
      unique_id: { default: { '@path': '$.messageId' } },
    };
    assert.deepEqual(effectiveMapping(fields, { unique_id: null }), { metric_name: { '@path': '$.event' } });
    assert.deepEqual(effectiveMapping(fields, { metric_name: null }, { mapping: { metric_name: 'Buy' } }), {
      unique_id: { '@path': '$.messageId' },
    });
  });
});
