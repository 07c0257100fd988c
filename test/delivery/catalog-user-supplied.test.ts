/**
 * What the deliverable run types as a user would, and what its capture server answers
 * (test/support/user-supplied.ts; docs/catalog-destinations.md, "Deliverable"): every value read
 * from Segment's own test input in the committed conformance data, none written per destination.
 */
import assert from 'node:assert/strict';
import { segmentEventOf } from '../../core/platforms/segment-action/segment-event.ts';
import { applyViolations } from '../../core/registry/resources.ts';
import {
  audienceOf,
  audienceSync,
  batchingForced,
  mintedId,
  ORDINARY,
  ordinaryEvent,
  setUp,
  VERIFIED,
  type Verified,
  withEventValues,
} from '../support/catalog-deliverable.ts';
import {
  platformAnswerAt,
  recordedAnswer,
  recordedAnswerAt,
  resolved,
  typedEventValue,
  typedField,
  typedSettings,
  typedWhen,
} from '../support/user-supplied.ts';

const UUID = /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;
const verified = (slug: string) => VERIFIED.find((v) => v.slug === slug) as Verified;
const ordinary = (kind: string) =>
  ordinaryEvent(ORDINARY.find((o) => o.kind === kind) as (typeof ORDINARY)[number], mintedId(), new Date(0));

describe('deliverable run: values the user supplies, from Segment’s test input', () => {
  it('gives each audience setting a destination requires a stand-in shaped as its schema asks, as apply asks', () => {
    // Dynamic Yield asks each audience's name and identifier type; Segment's tests give neither.
    const dy = audienceOf('dynamic-yield-audiences', false, 'identify');
    assert.deepEqual(dy.settings, {
      audience_name: 'standin-audience_name',
      identifier_type: 'standin-identifier_type',
    });
    // A choice takes its first value (DV360's audience type); a setting it does not require is left out.
    assert.equal(
      audienceOf('first-party-dv360', false, 'track').settings?.['audienceType'],
      'CUSTOMER_MATCH_CONTACT_INFO',
    );
    assert.equal(audienceOf('first-party-dv360', false, 'track').settings?.['description'], undefined);
    // A destination whose audiences need no settings gets none.
    assert.equal(audienceOf('braze-cohorts', false, 'track').settings, undefined);
    // The sync so set up is one apply takes.
    const sync = audienceSync('dynamic-yield-audiences', dy);
    const doc = { kind: 'Sync', name: sync.name, spec: sync.spec };
    const context = {
      connections: [],
      catalogDestinations: { 'd-dynamic-yield-audiences': 'dynamic-yield-audiences' },
    };
    assert.deepEqual(applyViolations([doc], context), []);
    assert.equal(
      applyViolations(
        [{ ...doc, spec: { ...sync.spec, destination: { audience: { ...dy, settings: {} } } } }],
        context,
      ).length,
      2,
    );
  });

  it('types a field’s value itself: a directive of the test is resolved against the test’s own event', () => {
    // Twilio's test maps `To` to `{"@path": "$.properties.To"}`: the user types the number.
    const to = typedField('twilio', 'sendSMS', 'To');
    assert.equal(typeof to, 'string');
    assert.match(to as string, /^\+\d{8,15}$/);
    // A literal is typed as it is; a field no test maps is left to the suggestions.
    assert.equal(typedField('webhook', 'send', 'url'), 'https://example.com');
    assert.equal(typedField('twilio', 'sendSMS', 'no_such_field'), undefined);
    assert.equal(typedField('no-such-destination', 'send', 'url'), undefined);
  });

  it('keeps a directive inside an object the test maps where it reads each event the action takes', () => {
    // HubSpot's upsertObject: the object type and id field typed, the record's id read from the
    // person's id as the test maps it (`$.userId`), not the test person's id as a constant.
    const tracks = ['purchase', 'add_to_cart'].map((k) => segmentEventOf(ordinary(k)));
    const details = typedField('hubspot', 'upsertObject', 'object_details', tracks) as Record<
      string,
      unknown
    >;
    assert.deepEqual(details['id_field_value'], { '@path': '$.userId' });
    assert.equal(typeof details['object_type'], 'string');
    // Where an event lacks what it reads, the test's own event's value, typed (as before).
    const anonymous = tracks.map((e) => ({ ...e, userId: undefined }));
    const typed = typedField('hubspot', 'upsertObject', 'object_details', anonymous) as Record<
      string,
      unknown
    >;
    assert.equal(typeof typed['id_field_value'], 'string');
  });

  it('takes the values of a test the platform refused nothing before those of a test it refused', () => {
    // HubSpot's first upsertObject test names an object type the account lacks (`objectx`), to
    // see the properties' read refused with a 400; the others name the contact object.
    const details = typedField('hubspot', 'upsertObject', 'object_details') as Record<string, unknown>;
    assert.equal(details['object_type'], 'contact');
  });

  it('sets up an action whose batching Segment forces, left out by the suggestions, as its user would', () => {
    // The rule: a performBatch, and enable_batching on and hidden in Segment's app.
    assert.equal(batchingForced('hubspot', 'upsertObject'), true);
    assert.equal(batchingForced('hubspot', 'upsertContact'), false, 'batching not on by default');
    assert.equal(batchingForced('braze', 'trackEvent'), false, 'on by default, not hidden');
    assert.equal(
      batchingForced('google-enhanced-conversions', 'uploadClickConversion'),
      false,
      'hidden, off',
    );
    const forcedSlugs = VERIFIED.filter((v) => v.actions.some((a) => batchingForced(v.slug, a)));
    assert.equal(forcedSlugs.length, 13);
    // HubSpot's upsertObject has no subscription of its own and a required field nothing suggests:
    // its `when` and `object_details` typed from its tests; its other actions as they are.
    const hubspot = setUp(verified('hubspot'), 'http://standin', false);
    assert.deepEqual(hubspot.forced, ['upsertObject.when', 'upsertObject.object_details']);
    assert.deepEqual(hubspot.typed, []);
    const upsert = hubspot.destination.actions?.find((a) => a.action === 'upsertObject');
    assert.equal(upsert?.when, 'type = "track"');
    const details = (upsert?.mapping?.['object_details'] ?? {}) as Record<string, unknown>;
    assert.deepEqual(details['id_field_value'], { '@path': '$.userId' });
    assert.deepEqual(
      hubspot.destination.actions?.filter((a) => a.action !== 'upsertObject'),
      [{ action: 'upsertCompany' }, { action: 'upsertContact' }],
    );
    // A destination none of whose actions Segment forces to batch types nothing so.
    assert.deepEqual(setUp(verified('braze'), 'http://standin', false).forced, []);
  });

  it('types what a field’s default reads from a test’s event where no test maps it and no site’s event carries it', () => {
    // Pinterest's `app_name` reads `context.app.name`: its tests' (mobile) events carry one, a
    // website's events never do, so the user types their app's name.
    const appName = { '@path': '$.context.app.name' };
    assert.equal(typedField('pinterest-conversions', 'reportConversionEvent', 'app_name'), undefined);
    assert.equal(
      typedField('pinterest-conversions', 'reportConversionEvent', 'app_name', [], undefined, appName),
      'InitechGlobal',
    );
    const pinterest = setUp(verified('pinterest-conversions'), 'http://standin', true);
    assert.ok(pinterest.typed.includes('reportConversionEvent.app_name'));
    // What a site's event can carry (VWO's audience key, a property) is not typed as a constant:
    // VWO's audience action, which takes Engage's events, is left out as before.
    const vwo = setUp(verified('vwo'), 'http://standin', true);
    assert.equal(
      vwo.typed.some((t) => t.startsWith('syncAudience.')),
      false,
    );
  });

  it('types the user’s own audience key where a test fills a field with its own event’s audience key', () => {
    // Braze Cohorts' `personas_audience_key` must repeat the audience's key: the user types theirs.
    assert.equal(
      typedField('braze-cohorts', 'syncAudiences', 'personas_audience_key', [], 'vip_customers'),
      'vip_customers',
    );
    // Without an audience of their own, the key of a test whose run reached the platform, never
    // the word a refusal test typed to see the mismatch refused.
    assert.equal(
      typedField('braze-cohorts', 'syncAudiences', 'personas_audience_key'),
      'j_o_jons__step_1_ns3i7',
    );
    // A field no test fills with its audience key is typed as the tests give it.
    assert.equal(typedField('webhook', 'send', 'url', [], 'vip_customers'), 'https://example.com');
  });

  it('gives the ordinary events UUID ids, as the tag and the gateway mint them', () => {
    const a = ordinary('purchase');
    assert.match(a.event_id, UUID);
    assert.notEqual(ordinary('purchase').event_id, a.event_id);
    assert.equal(segmentEventOf(a).messageId, a.event_id);
  });

  it('reads a value the tests’ events carry at a path, the first that fits', () => {
    // Gwen's tests send UUID user ids (one refusal test sends none).
    assert.match(String(typedEventValue('gwen', '$.userId', (x) => UUID.test(String(x)))), UUID);
    assert.equal(typedEventValue('vwo', '$.properties.vwo_uuid'), 'ABC123');
    assert.equal(
      typedEventValue('vwo', '$.properties.vwo_uuid', () => false),
      undefined,
      'none that fits',
    );
    assert.equal(typedEventValue('no-such-destination', '$.userId'), undefined);
  });

  it('has the user’s events carry what an action reads of them and the ordinary events lack or carry refused', () => {
    // A user id the field's uuid format refuses (`u-1`): the user's ids are UUIDs, as the tests'.
    for (const slug of ['gwen', 'attentive']) {
      const { events, typed } = setUp(verified(slug), 'http://standin', true);
      assert.match(String(events['$.userId']), UUID, slug);
      assert.ok(typed.includes('event.userId'), slug);
    }
    // A required field read from the event that no ordinary event carries: VWO's visitor id, as
    // a property of tracks and pages and a trait of identify calls; nothing for its audience action
    // (Engage's events, not a site's).
    const vwo = setUp(verified('vwo'), 'http://standin', true).events;
    assert.deepEqual(vwo, { '$.traits.vwo_uuid': 'ABC123', '$.properties.vwo_uuid': 'ABC123' });
    // Read under another spelling of what the events carry (`orderId` beside `order_id`): a mapping
    // for the user to write, not a value their site adds; and nothing without `supplied`.
    const gec = setUp(verified('google-enhanced-conversions'), 'http://standin', true).events;
    assert.equal(gec['$.properties.orderId'], undefined);
    assert.deepEqual(setUp(verified('gwen'), 'http://standin', false).events, {});
  });

  it('puts each carried value where a site’s event carries it, for the calls that carry it', () => {
    const values = {
      '$.userId': 'a7c1e1de-2f0b-4a43-9d51-0c1e8e5b9f10',
      '$.properties.vwo_uuid': 'V1',
      '$.traits.vwo_uuid': 'V2',
    };
    const track = segmentEventOf(withEventValues(ordinary('purchase'), values));
    assert.equal(track.userId, values['$.userId']);
    assert.equal((track['properties'] as Record<string, unknown>)['vwo_uuid'], 'V1');
    const identify = segmentEventOf(withEventValues(ordinary('identify'), values));
    assert.equal((identify['traits'] as Record<string, unknown>)['vwo_uuid'], 'V2');
    assert.equal(identify['properties'], undefined);
    // A group's traits are the group's: no person's trait goes there.
    const group = segmentEventOf(withEventValues(ordinary('group'), values));
    assert.equal((group['traits'] as Record<string, unknown>)['vwo_uuid'], undefined);
    // The stored event itself is left as it was.
    const stored = ordinary('purchase');
    withEventValues(stored, values);
    assert.equal(stored.user_id, 'u-1');
  });

  it('takes the settings of a test that reached the platform before those of a refusal test', () => {
    // LinkedIn Audiences' first case (a snapshot of a refused combination) sends neither identifier.
    const linkedin = typedSettings('linkedin-audiences');
    assert.ok(linkedin['send_email'] === true || linkedin['send_google_advertising_id'] === true);
  });

  it('takes the settings the tests configure (scalars only) and the subscription they run an action under', () => {
    assert.deepEqual(typedSettings('salesforce'), { instanceUrl: 'https://test.salesforce.com/' });
    // TikTok Audiences' tests configure only a list (`advertiser_ids`), which a setting cannot hold.
    assert.deepEqual(typedSettings('tiktok-audiences'), {});
    assert.equal(typedWhen('webhook', 'send'), 'type = "track"');
  });

  it('resolves mapping-kit directives, and gives undefined for what it cannot resolve', () => {
    const event = { type: 'track', properties: { total: 12 } };
    assert.equal(resolved({ '@path': '$.properties.total' }, event), 12);
    assert.equal(resolved({ '@path': '$.properties.missing' }, event), undefined);
    assert.equal(resolved('literal', event), 'literal');
  });

  it('answers as the vendor documents where it does, before any answer the tests recorded', () => {
    // Marketo's tests first mock an expired token (HTTP 200, `success: false`, code 601).
    const bulk = 'https://000-abc-123.mktorest.com/bulk/v1/leads.json';
    const recorded = recordedAnswer('marketo-static-lists', 'POST', bulk);
    assert.equal(JSON.parse(recorded?.text ?? '{}').success, false);
    const at = '/standin/marketo-static-lists/000-abc-123.mktorest.com/bulk/v1/leads.json?format=csv';
    assert.equal(JSON.parse(platformAnswerAt('POST', at)?.text ?? '{}').success, true);
    // Where no vendor page says, the recorded answer, as recordedAnswerAt gives it.
    const search =
      '/standin/blackbaud-raisers-edge-nxt/api.sky.blackbaud.com/constituent/v1/constituents/search';
    assert.deepEqual(platformAnswerAt('GET', search), recordedAnswerAt('GET', search));
  });

  it('answers a request as the tests mocked the same method, host and path (query aside), 2xx only', () => {
    const search = 'api.sky.blackbaud.com/constituent/v1/constituents/search?search_text=someone';
    const answer = recordedAnswerAt('GET', `/standin/blackbaud-raisers-edge-nxt/${search}`);
    assert.equal(answer?.status, 200);
    assert.deepEqual(JSON.parse(answer?.text ?? 'null'), { count: 0, value: [] });
    // Another method, another destination's path, or a path outside the stand-in: nothing recorded.
    assert.equal(recordedAnswer('blackbaud-raisers-edge-nxt', 'POST', `https://${search}`), undefined);
    assert.equal(recordedAnswerAt('GET', `/standin/webhook/${search}`), undefined);
    assert.equal(recordedAnswerAt('GET', '/elsewhere/x'), undefined);
  });
});
