/**
 * GA4's own recommended events outside the catalogue (issue #80): a custom `login`, `share` or
 * `select_content` (a GA4 MP sender's) reaches a GA4 destination under its own name with its
 * parameters, with no mapping in the settings, and passes GA4's request check; GA4's reserved
 * event names and prefixes are skipped with GA4's own rule, never "no mapping"; other platforms
 * still need a mapping for them.
 */
import assert from 'node:assert/strict';
import { CATALOGUE_OPTIONS, decideOne } from '../../../core/decision/decision.ts';
import type { StoredEvent } from '../../../core/event.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { checkGa4Request } from '../../../core/platforms/ga4/target.ts';
import { isNativeEvent } from '../../../core/platforms/mappings.ts';
import type { Destination } from '../../../schemas/settings.ts';

const NOW = new Date('2026-11-25T12:00:00Z');
const ga4: Destination = { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-TEST' } };
const meta: Destination = { id: 'meta', type: 'meta_capi' };
const event = (name: string, data: Record<string, unknown> = {}): StoredEvent =>
  ({
    event_name: name,
    event_id: `e-${name}`,
    event_time: new Date(NOW.getTime() - 60_000).toISOString(),
    anonymous_id: '1874934510.1700000003',
    consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
    event_data: data,
  }) as StoredEvent;

describe('GA4: its recommended events outside the catalogue, and its reserved names', () => {
  it('relays login, share and select_content to GA4 as sent, with their parameters', () => {
    for (const [name, data, params] of [
      ['login', { method: 'Google' }, { method: 'Google' }],
      [
        'share',
        { method: 'Twitter', content_type: 'image', content_id: 'C_12345' },
        { method: 'Twitter', content_type: 'image', item_id: 'C_12345' },
      ],
      [
        'select_content',
        { content_type: 'product', content_id: 'I_77' },
        { content_type: 'product', item_id: 'I_77' },
      ],
    ] as const) {
      assert.equal(isNativeEvent('ga4_mp', name), true, name);
      assert.equal(decideOne(ga4, event(name, data), CATALOGUE_OPTIONS).action, 'send', name);
      const prepared = ga4MpDriver.prepare(event(name, data), {
        destination: ga4,
        secrets: { api_secret: 'sec' },
        now: NOW,
      });
      assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
      const body = JSON.parse(prepared.request.body) as {
        events: { name: string; params: Record<string, unknown> }[];
      };
      assert.equal(body.events[0]?.name, name);
      for (const [k, v] of Object.entries(params)) assert.equal(body.events[0]?.params[k], v, `${name}.${k}`);
      assert.deepEqual(checkGa4Request(body, NOW), [], name);
    }
  });

  it('still needs a mapping for them at other platforms', () => {
    assert.equal(isNativeEvent('meta_capi', 'login'), false);
    assert.match(
      JSON.stringify(decideOne(meta, event('login'), CATALOGUE_OPTIONS)),
      /has no mapping for meta_capi/,
    );
  });

  it('skips GA4’s reserved event names and prefixes with GA4’s rule', () => {
    for (const [name, why] of [
      ['session_start', /"session_start" is a reserved event name/],
      ['first_visit', /"first_visit" is a reserved event name/],
      ['firebase_campaign', /reserved prefix "firebase_"/],
    ] as const) {
      const got = decideOne(ga4, event(name), CATALOGUE_OPTIONS);
      assert.equal(got.action, 'skip', name);
      assert.match((got as { reason: string }).reason, /^GA4 refuses the event name: /, name);
      assert.match((got as { reason: string }).reason, why, name);
    }
    assert.equal(isNativeEvent('ga4_mp', 'ad_impression'), false, 'reserved for the Measurement Protocol');
  });
});
