/**
 * Defined events in the contract: an event whose name has a definition is validated against it
 * (the violations name the field and the version), stamped with that version, and accepted even
 * where the environment rejects unknown events; a near miss of a defined name is refused with a
 * "did you mean"; `store` re-validates against the stamped version, not the current one. The
 * decision layer and forward take the definition's mappings unless the settings map the event.
 */
import assert from 'node:assert/strict';
import { CATALOGUE_OPTIONS, decideOne } from '../../../core/decision/decision.ts';
import {
  type DefinitionSpec,
  definedEvent,
  definedEvents,
  parseStamp,
  withDefinitionMappings,
} from '../../../core/definitions/defined-events.ts';
import { normalizeEvent, normalizeOptions, type StoredEvent } from '../../../core/event.ts';
import type { Destination } from '../../../schemas/settings.ts';

const V1: DefinitionSpec = {
  fields: [
    { name: 'amount', type: 'number', required: true },
    { name: 'product', type: 'string' },
  ],
  mappings: { meta_capi: { event: 'Lead' } },
};
const V2: DefinitionSpec = {
  fields: [
    { name: 'amount', type: 'number', required: true },
    { name: 'product', type: 'string', required: true },
  ],
};

const base = {
  options: normalizeOptions({ name: 'test', project: 'test-project', region: 'europe-west1' }),
  now: Date.parse('2026-01-01T00:00:00.000Z'),
  newId: () => '0190b6a4-0000-7000-8000-000000000000',
};
const current = definedEvents(
  [{ name: 'quote_requested', version: '2.0', spec: V2 }],
  [definedEvent('quote_requested', '1.3', V1)],
);

describe('contract: defined events', () => {
  it('validates a defined event against its current version and stamps it', () => {
    const ok = normalizeEvent(
      { event_name: 'quote_requested', amount: 3, product: 'roof' },
      { ...base, defined: current },
    );
    assert.ok(ok.ok);
    assert.equal(ok.definition?.stamp, 'quote_requested@2.0');
    assert.equal(ok.version, 0);

    const bad = normalizeEvent(
      { event_name: 'quote_requested', amount: 'three', event_data: { colour: 'red' } },
      { ...base, defined: current, prefix: '[1]' },
    );
    assert.ok(!bad.ok);
    const fields = bad.violations.map((v) => v.field).sort();
    assert.deepEqual(fields, ['[1].amount', '[1].event_data.colour', '[1].product']);
    for (const v of bad.violations) assert.match(v.description, /\(quote_requested@2\.0\)$/);
  });

  it('re-validates against the stamped version in store, and falls back to the current one', () => {
    const event = { event_name: 'quote_requested', amount: 3 };
    const stamped = normalizeEvent(event, { ...base, defined: current, stamp: 'quote_requested@1.3' });
    assert.ok(stamped.ok, 'valid under 1.3, where product is optional');
    assert.equal(stamped.definition?.stamp, 'quote_requested@1.3');
    const unknownStamp = normalizeEvent(event, { ...base, defined: current, stamp: 'quote_requested@7.0' });
    assert.ok(!unknownStamp.ok, 'an unknown stamp falls back to the current version, which requires product');
    const otherName = normalizeEvent(event, { ...base, defined: current, stamp: 'lead_created@1.0' });
    assert.ok(!otherName.ok, "another event's stamp is ignored");
  });

  it('accepts defined events where unknown events are rejected, and refuses near misses', () => {
    const strict = {
      ...base,
      options: { ...base.options, unknownEvents: 'reject' as const },
      defined: current,
    };
    assert.ok(normalizeEvent({ event_name: 'quote_requested', amount: 1, product: 'x' }, strict).ok);
    const other = normalizeEvent({ event_name: 'newsletter_open' }, strict);
    assert.ok(!other.ok);
    assert.match(other.violations[0]?.description ?? '', /neither in the event catalogue nor defined/);
    const typo = normalizeEvent({ event_name: 'quote_requestd', amount: 1 }, { ...base, defined: current });
    assert.ok(!typo.ok);
    assert.match(typo.violations[0]?.description ?? '', /did you mean "quote_requested"\?/);
    assert.ok(
      normalizeEvent({ event_name: 'quote_requestd', amount: 1 }, base).ok,
      'no definitions: a custom event',
    );
  });

  it('accepts the previous major until accept_previous_major_until, as that version, then refuses', () => {
    const v1 = definedEvent('lead_form', '1.4', {
      fields: [
        { name: 'amount', type: 'number', required: true },
        { name: 'note', type: 'string' },
      ],
    });
    const v2 = definedEvent(
      'lead_form',
      '2.0',
      {
        fields: [{ name: 'amount', type: 'string', required: true }],
        accept_previous_major_until: '2026-03-31',
      },
      { created: '2026-01-01T00:00:00.000Z', previous: v1 },
    );
    const defined = definedEvents([v2]);
    const old = { event_name: 'lead_form', amount: 3, note: 'x' };
    const during = normalizeEvent(old, { ...base, defined, now: Date.parse('2026-03-31T23:00:00Z') });
    assert.ok(during.ok);
    assert.equal(during.definition?.stamp, 'lead_form@1.4');
    assert.equal(during.deprecated?.untilMs, Date.parse('2026-04-01T00:00:00Z'));
    assert.equal(during.deprecated?.sinceMs, Date.parse('2026-01-01T00:00:00Z'));
    const current = normalizeEvent({ event_name: 'lead_form', amount: 'three' }, { ...base, defined });
    assert.ok(
      current.ok && current.deprecated === undefined && current.definition?.stamp === 'lead_form@2.0',
    );
    const after = normalizeEvent(old, { ...base, defined, now: Date.parse('2026-04-01T00:00:00Z') });
    assert.ok(!after.ok);
    assert.match(after.violations[0]?.description ?? '', /lead_form@2\.0/);
    assert.equal(defined.exact('lead_form@1.4'), v1, 'store finds the stamped previous major');
  });

  it('parses stamps strictly', () => {
    assert.deepEqual(parseStamp('quote_requested@1.3'), { name: 'quote_requested', version: '1.3' });
    for (const bad of ['quote_requested', 'quote_requested@1', 'Quote@1.0', '@1.0', 'a@1.0.0', 'a@x.y'])
      assert.equal(parseStamp(bad), undefined, bad);
  });

  it("takes the definition's mapping for a destination type unless the settings map the event", () => {
    const meta: Destination = { id: 'meta', type: 'meta_capi' } as Destination;
    const v1 = current.exact('quote_requested@1.3');
    assert.deepEqual(withDefinitionMappings(meta, v1).mappings, { quote_requested: { event: 'Lead' } });
    const ga4: Destination = { id: 'ga4', type: 'ga4_mp' } as Destination;
    assert.equal(withDefinitionMappings(ga4, v1), ga4, 'no mapping for ga4_mp in the definition');
    const overridden = { ...meta, mappings: { quote_requested: { event: 'Contact' } } } as Destination;
    assert.equal(withDefinitionMappings(overridden, v1), overridden, "the engineer's override wins");
  });

  it('lets the decision layer send a defined event where its definition maps it', () => {
    const event: StoredEvent = {
      event_name: 'quote_requested',
      event_id: 'e1',
      event_time: '2026-01-01T00:00:00.000Z',
      definition_version: 'quote_requested@1.3',
      consent: { ads: 'granted', ad_user_data: 'granted', analytics: 'granted' },
      event_data: { amount: 3 },
    } as StoredEvent;
    const options = {
      ...CATALOGUE_OPTIONS,
      definitionMaps: (stamp: string, type: string) =>
        current.exact(stamp)?.spec.mappings?.[type] !== undefined,
    };
    const meta = { id: 'meta', type: 'meta_capi' } as Destination;
    const ga4 = { id: 'ga4', type: 'ga4_mp' } as Destination;
    const hook = { id: 'hook', type: 'webhook' } as Destination;
    assert.equal(decideOne(meta, event, options).action, 'send');
    assert.match(JSON.stringify(decideOne(ga4, event, options)), /has no mapping for ga4_mp/);
    assert.equal(decideOne(hook, event, options).action, 'send', 'a defined event is known to webhooks');
    const { definition_version: _, ...undefinedEvent } = event;
    assert.equal(decideOne(meta, undefinedEvent as StoredEvent, options).action, 'skip');
  });
});
