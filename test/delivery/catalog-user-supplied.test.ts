/**
 * What the deliverable run types as a user would, and what its capture server answers
 * (test/support/user-supplied.ts; docs/catalog-destinations.md, "Deliverable"): every value read
 * from Segment's own test input in the committed conformance data, none written per destination.
 */
import assert from 'node:assert/strict';
import { applyViolations } from '../../core/registry/resources.ts';
import { audienceOf, audienceSync } from '../support/catalog-deliverable.ts';
import {
  platformAnswerAt,
  recordedAnswer,
  recordedAnswerAt,
  resolved,
  typedField,
  typedSettings,
  typedWhen,
} from '../support/user-supplied.ts';

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
