/**
 * core/plan-warnings/catalog-actions.ts: what `settings check` says of a segment_action destination's
 * actions that Segment's app accepts but that seldom mean what they say — one event sent twice by
 * two actions named without `when`, and a plain mapping text whose {{…}} would go out literally —
 * and a destination the project's own run of the catalogue made deliver nothing.
 */
import assert from 'node:assert/strict';
import { catalogActionWarnings } from '../../../core/plan-warnings/catalog-actions.ts';
import results from '../../../core/platforms/segment-action/deliverable.json' with { type: 'json' };
import { UNDELIVERED_SAYS, undelivered } from '../../../core/platforms/segment-action/deliverable.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const settingsWith = (d: Partial<Destination>): Settings =>
  ({
    name: 'dev',
    destinations: [{ id: 'd', type: 'segment_action', ...d }],
  }) as Settings;

describe('plan warnings: catalogue actions', () => {
  it('two actions without when that take one event: Klaviyo’s trackEvent and orderCompleted both take a purchase', () => {
    const warnings = catalogActionWarnings(
      settingsWith({
        destination: 'klaviyo',
        actions: [{ action: 'trackEvent' }, { action: 'orderCompleted' }],
      }),
    );
    assert.ok(
      warnings.includes(
        'destinations[0].actions: purchase goes to trackEvent and orderCompleted of klaviyo (each by its own subscription): one purchase is sent 2 times; give all but one a when, unless that is meant',
      ),
      warnings.join('\n'),
    );
    // Asked for: a when on one of them says which events it takes.
    assert.deepEqual(
      catalogActionWarnings(
        settingsWith({
          destination: 'klaviyo',
          actions: [{ action: 'trackEvent' }, { action: 'orderCompleted', when: ['purchase'] }],
        }),
      ),
      [],
    );
  });

  it('none for Segment’s presets: Mixpanel’s trackEvent and trackPurchase split the track calls', () => {
    assert.deepEqual(
      catalogActionWarnings(
        settingsWith({
          destination: 'mixpanel',
          actions: [{ action: 'trackEvent' }, { action: 'trackPurchase' }],
        }),
      ),
      [],
    );
    assert.deepEqual(catalogActionWarnings(settingsWith({ destination: 'mixpanel' })), []);
  });

  it('a destination that delivered nothing in the catalogue run is said so, with its reason and first refusal', () => {
    const [warning, ...rest] = catalogActionWarnings(settingsWith({ destination: 'ambee' }));
    assert.deepEqual(rest, []);
    assert.match(warning ?? '', /^destinations\[0\]: ambee delivered none of a site's ordinary events/);
    assert.ok(warning?.includes(UNDELIVERED_SAYS['refused-before-sending']), warning);
    assert.ok(warning?.includes('Payload must be sent from the Segment analytics.js library'), warning);
    assert.match(warning ?? '', /docs\/catalog-destinations\.md#deliverable/);
    // With actions of its own it is still said (the actions' own warnings come after it).
    assert.equal(
      catalogActionWarnings(
        settingsWith({ destination: 'segment', actions: [{ action: 'sendTrack' }] }),
      ).filter((w) => w.startsWith('destinations[0]: segment delivered none')).length,
      1,
    );
  });

  it('every destination the run made deliver nothing is said so, but kafka, which the settings check refuses', () => {
    for (const { slug, why } of results.not_delivered) {
      const said = catalogActionWarnings(settingsWith({ destination: slug })).some((w) =>
        w.startsWith(`destinations[0]: ${slug} delivered none`),
      );
      assert.equal(said, why !== 'own-transport', slug);
      assert.equal(undelivered(slug)?.why, why, slug);
    }
    for (const { slug } of results.deliverable.slice(0, 40)) {
      assert.equal(undelivered(slug), undefined, slug);
      assert.ok(
        !catalogActionWarnings(settingsWith({ destination: slug })).some((w) => w.includes('delivered none')),
        slug,
      );
    }
  });

  it('a plain text with {{…}} is said to go out literally, with the @template to write', () => {
    const warnings = catalogActionWarnings(
      settingsWith({
        destination: 'slack',
        actions: [
          {
            action: 'postToChannel',
            when: ['lead'],
            mapping: { text: 'New lead {{messageId}}', channel: 'x' },
          },
        ],
      }),
    );
    assert.deepEqual(warnings, [
      'destinations[0].actions[0].mapping.text: a plain text is sent as written, braces included; to fill {{…}} from the event write {"@template": "New lead {{messageId}}"}',
    ]);
  });
});
