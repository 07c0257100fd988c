/**
 * An audience sync's settings are checked against what each connected catalogue destination asks
 * of an audience (core/syncs/audience-settings.ts; docs/syncs.md, "Audience events"), at apply:
 * Dynamic Yield's `audience_name` and `identifier_type` named field by field when left out.
 */
import assert from 'node:assert/strict';
import { applyViolations } from '../../../core/registry/resources.ts';
import { catalogDestinationsOf } from '../../../core/syncs/audience-settings.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { audienceSyncDoc as sync } from '../../support/audience-sync-doc.ts';

const DESTINATIONS: Destination[] = [
  { id: 'dy', type: 'segment_action', destination: 'dynamic-yield-audiences' },
  { id: 'braze', type: 'segment_action', destination: 'braze-cohorts' },
  { id: 'hook', type: 'webhook', url: 'https://crm.example/hook' } as Destination,
];

const context = { connections: [], catalogDestinations: catalogDestinationsOf(DESTINATIONS) };

describe('syncs: the settings an audience destination asks of each audience', () => {
  it('maps only the catalogue destinations to their Segment folder', () => {
    assert.deepEqual(catalogDestinationsOf(DESTINATIONS), {
      dy: 'dynamic-yield-audiences',
      braze: 'braze-cohorts',
    });
  });

  it('refuses a sync to Dynamic Yield without audience_name and identifier_type, naming each field', () => {
    const problems = applyViolations([sync(['dy'])], context);
    assert.deepEqual(
      problems.map((p) => p.field),
      [
        'documents[0].spec.destination.audience.settings.audience_name',
        'documents[0].spec.destination.audience.settings.identifier_type',
      ],
    );
    assert.match(
      problems[0]?.description ?? '',
      /^is required by destination dy \(Dynamic Yield.*\) of each audience connected to it: Audience Name/,
    );
    // An empty value is no value.
    const empty = applyViolations([sync(['dy'], { audience_name: '', identifier_type: 'email' })], context);
    assert.deepEqual(
      empty.map((p) => p.field),
      ['documents[0].spec.destination.audience.settings.audience_name'],
    );
  });

  it('takes it with both given, and asks nothing for destinations whose audiences need no settings', () => {
    assert.deepEqual(
      applyViolations([sync(['dy', 'braze'], { audience_name: 'VIP', identifier_type: 'email' })], context),
      [],
    );
    assert.deepEqual(applyViolations([sync(['braze', 'hook'])], context), []);
    // Without the settings' destinations (a check with no settings at hand), nothing is asked.
    assert.deepEqual(applyViolations([sync(['dy'])], { connections: [] }), []);
  });
});
