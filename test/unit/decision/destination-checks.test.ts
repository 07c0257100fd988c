/**
 * The load-time checks of destinations (core/decision/destination-checks.ts): each need of a
 * platform named at its key with its own words — a config key no driver reads, a required key,
 * base URL or secret, a value of the wrong form, test mode where it would send live events — a
 * disabled destination checked only for typos, and the conditions' problems after them.
 */
import assert from 'node:assert/strict';
import { checkDestinationNeeds } from '../../../core/decision/destination-checks.ts';
import { DESTINATION_REQUIREMENTS } from '../../../core/platforms/requirements.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const check = (...destinations: Destination[]) =>
  checkDestinationNeeds({ name: 'x', project: 'proj-x1', region: 'europe-west1', destinations } as Settings);
const knownOf = (type: Destination['type']) => {
  const needs = DESTINATION_REQUIREMENTS[type];
  return [...needs.config, ...needs.optionalConfig].join(', ');
};

const meta = { id: 'meta', type: 'meta_capi', config: { pixel_id: '1' }, secrets: { access_token: 'T' } };
const uet = { id: 'uet', type: 'microsoft_uet', config: { tag_id: '12' }, secrets: { access_token: 'T' } };

describe('decision: what each destination needs, checked at load', () => {
  it('a complete destination has no problem, nor settings without destinations', () => {
    assert.deepEqual(check(meta as Destination, uet as Destination), []);
    assert.deepEqual(
      checkDestinationNeeds({ name: 'x', project: 'proj-x1', region: 'europe-west1' } as Settings),
      [],
    );
  });

  it('a destination without config misses its required keys', () => {
    assert.deepEqual(
      check({ id: 'm', type: 'meta_capi', secrets: { access_token: 'T' } } as Destination).map(
        (e) => e.field,
      ),
      ['destinations[0].config.pixel_id'],
    );
  });

  it('a config key no driver reads, a missing key and a missing secret, each at its key', () => {
    assert.deepEqual(check({ id: 'm', type: 'meta_capi', config: { pixelid: '1' } } as Destination), [
      {
        field: 'destinations[0].config.pixelid',
        description: `is not a config key of meta_capi (known: ${knownOf('meta_capi')})`,
      },
      { field: 'destinations[0].config.pixel_id', description: 'is required for meta_capi' },
      {
        field: 'destinations[0].secrets.access_token',
        description: 'is required for meta_capi (the name of the secret holding it)',
      },
    ]);
  });

  it('an unknown key is told the known ones; a catalogue destination takes any key', () => {
    const linkedin = { id: 'li', type: 'linkedin_capi', config: { api_version: '202611', x: '1' } };
    const known = knownOf('linkedin_capi');
    assert.deepEqual(check({ ...linkedin, secrets: { access_token: 'T' } } as Destination), [
      {
        field: 'destinations[0].config.x',
        description: `is not a config key of linkedin_capi (known: ${known})`,
      },
    ]);
    const noKeys = { id: 'uet2', type: 'microsoft_uet', config: { tag_id: '1', other: 'y' } };
    assert.match(check({ ...uet, ...noKeys } as Destination)[0]?.description ?? '', /\(known: tag_id\)$/);
    const sa = { id: 'sa', type: 'segment_action', destination: 'klaviyo', config: { anything: 1 } };
    assert.deepEqual(check(sa as unknown as Destination), []);
  });

  it('an empty value is missing, and a value of the wrong form is named with its form', () => {
    assert.deepEqual(
      check({ ...uet, config: { tag_id: '' } } as Destination).map((e) => e.description),
      ['is required for microsoft_uet'],
    );
    assert.deepEqual(check({ ...uet, config: { tag_id: 'UET-12' } } as Destination), [
      {
        field: 'destinations[0].config.tag_id',
        description: 'must be the numeric id of a UET tag for microsoft_uet',
      },
    ]);
    // Only text is held to a pattern: Meta's switches are booleans, and "true" as text is refused.
    assert.deepEqual(check({ ...meta, config: { pixel_id: '1', counts: true } } as Destination), []);
    assert.deepEqual(
      check({ ...meta, config: { pixel_id: '1', counts: 'true' } } as Destination).map((e) => e.field),
      ['destinations[0].config.counts'],
    );
  });

  it('a webhook needs its URL and its signing key', () => {
    assert.deepEqual(check({ id: 'h', type: 'webhook', base_url: '' } as Destination), [
      {
        field: 'destinations[0].base_url',
        description: 'is required for webhook (the URL events are POSTed to)',
      },
      {
        field: 'destinations[0].secrets.signing_key',
        description: 'is required for webhook (the name of the secret holding it)',
      },
    ]);
  });

  it("test mode needs Meta's test event code, and is refused where a platform has none", () => {
    assert.deepEqual(check({ ...meta, test_mode: true } as Destination), [
      {
        field: 'destinations[0].test_event_code',
        description: 'is required when test_mode is on for meta_capi (without it events go out as live ones)',
      },
    ]);
    assert.deepEqual(check({ ...meta, test_mode: true, test_event_code: 'TEST1' } as Destination), []);
    assert.deepEqual(check({ ...meta, test_mode: false } as Destination), []);
    assert.deepEqual(check({ ...uet, test_mode: true } as Destination), [
      {
        field: 'destinations[0].test_mode',
        description: `is not available for microsoft_uet, which has no test mode (events would go out as live ones): ${DESTINATION_REQUIREMENTS.microsoft_uet.noTestMode}`,
      },
    ]);
  });

  it('a disabled destination is checked for typos only', () => {
    const off = { id: 'm', type: 'meta_capi', enabled: false, test_mode: true, config: { pixelid: '1' } };
    assert.deepEqual(
      check(off as Destination).map((e) => e.field),
      ['destinations[0].config.pixelid'],
    );
  });

  it("each destination at its index, the conditions' problems after the needs", () => {
    const cond = {
      ...uet,
      conditions: [
        { field: 'a', op: 'exists' },
        { field: 'a', op: 'eq' },
      ],
    };
    assert.deepEqual(
      check(
        cond as Destination,
        { id: 'h', type: 'webhook', base_url: 'http://127.0.0.1:1' } as Destination,
      ).map((e) => e.field),
      ['destinations[1].secrets.signing_key', 'destinations[0].conditions[1].value'],
    );
  });
});
