/**
 * core/samples/multi-type.ts: one endpoint, several event types. A vendor's sample holding a
 * payment, a renewal and a refund is grouped by its `type`, each group drafted as its own event,
 * and joined into one translator the registry takes: each row becomes its own type's event with
 * its own mapping, a renewal never a second `subscribe`, and a type the sample never showed is
 * refused by name. The same by a topic header (`header:X-Vendor-Topic`).
 */
import assert from 'node:assert/strict';
import { definedEvent, definedEvents } from '../../../core/definitions/defined-events.ts';
import { normalizeEvent } from '../../../core/event.ts';
import { applyViolations } from '../../../core/registry/resources.ts';
import { draftResources } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { discriminatorOf, draftMultiType, rowsByType } from '../../../core/samples/multi-type.ts';
import type { ParsedSample } from '../../../core/samples/sample.ts';
import { translate } from '../../../core/translate/index.ts';
import { CREATOR_NOW, CREATOR_OPTIONS, CREATOR_WINDOW } from '../../support/creator-clock.ts';

const options = CREATOR_OPTIONS;
const NOW = CREATOR_NOW;
const window = CREATOR_WINDOW;

const ROWS = [
  {
    id: 'evt_1',
    type: 'payment.succeeded',
    created: '2026-11-20T10:00:00Z',
    data: { payment_id: 'pay_1', amount: 49.9, currency: 'EUR' },
  },
  {
    id: 'evt_2',
    type: 'subscription.renewed',
    created: '2026-11-21T10:00:00Z',
    data: { subscription_id: 'sub_1', plan: 'gold', period_end: '2026-12-21T10:00:00Z' },
  },
  {
    id: 'evt_3',
    type: 'payment.refunded',
    created: '2026-11-22T10:00:00Z',
    data: { payment_id: 'pay_1', refunded_amount: 10, reason: 'requested_by_customer' },
  },
];
const NAMES: Record<string, string> = {
  'payment.succeeded': 'payment_succeeded',
  'subscription.renewed': 'subscription_renewed',
  'payment.refunded': 'payment_refunded',
};

/** Each type drafted from its own rows with every guess taken, then joined. */
function endpoint(sample: ParsedSample, discriminator: string, groups: Map<string, ParsedSample>) {
  const types = [...groups].map(([value, rows]) => {
    const fields = inferFields(rows);
    const choices = guessChoices(fields, rows.rows, { window }).columns;
    const eventName = NAMES[value] ?? 'other';
    return {
      value,
      draft: draftResources({ eventName, translatorName: 'vendor', sample: rows, fields, choices }),
    };
  });
  const made = draftMultiType({ translatorName: 'vendor-json', discriminator, types });
  assert.deepEqual(applyViolations([...made.definitions, made.translator] as never, { connections: [] }), []);
  assert.equal(sample.format, 'json');
  return made;
}

function run(made: ReturnType<typeof endpoint>, body: unknown, headers?: Record<string, string>) {
  const r = translate({
    translator: 'vendor-json',
    spec: made.translator.spec,
    eventName: made.translator.spec.event,
    body: new TextEncoder().encode(JSON.stringify(body)),
    contentType: 'application/json',
    ...(headers ? { headers } : {}),
  });
  assert.ok(r.ok, JSON.stringify(r));
  const defined = definedEvents(made.definitions.map((d) => definedEvent(d.name, '0.0', d.spec as never)));
  const events = r.rows.map((row) => {
    const n = normalizeEvent(row.event as never, { options, now: NOW, newId: () => 'id', defined });
    assert.ok(n.ok, JSON.stringify(!n.ok && n.violations));
    return { name: n.event.event_name, data: n.event.event_data as Record<string, unknown> };
  });
  return { events, problems: r.problems };
}

describe('the creator: one endpoint, several event types', () => {
  it('a multi-type endpoint: each type its own event and mapping, an unknown type refused by name', () => {
    const sample = parseSample(JSON.stringify(ROWS));
    const discriminator = discriminatorOf(sample);
    assert.equal(discriminator, 'type');
    const groups = rowsByType(sample, 'type');
    // Each type with its own columns: a renewal's plan is no column of a payment's.
    assert.ok(groups.get('payment.succeeded')?.columns.includes('data.amount'));
    assert.ok(!groups.get('payment.succeeded')?.columns.includes('data.plan'));
    const made = endpoint(sample, 'type', groups);
    const spec = made.translator.spec;
    assert.deepEqual(spec.events, ['payment_succeeded', 'subscription_renewed', 'payment_refunded']);
    assert.equal(spec.cases?.length, 3);
    assert.deepEqual(
      made.definitions.map((d) => d.name),
      ['payment_succeeded', 'subscription_renewed', 'payment_refunded'],
    );
    const next = [
      {
        ...ROWS[1],
        id: 'evt_4',
        data: { subscription_id: 'sub_2', plan: 'silver', period_end: '2027-01-01T00:00:00Z' },
      },
      { ...ROWS[0], id: 'evt_5', data: { payment_id: 'pay_2', amount: 12.5, currency: 'USD' } },
    ];
    const { events, problems } = run(made, next);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      events.map((e) => e.name),
      ['subscription_renewed', 'payment_succeeded'],
    );
    // Each type's own fields, none of another's.
    const renewal = JSON.stringify(events[0]?.data);
    assert.match(renewal, /silver/);
    assert.doesNotMatch(renewal, /pay_|12\.5/);
    assert.match(JSON.stringify(events[1]?.data), /12\.5/);
    // A type the sample never showed is refused, naming it, not stored as another type.
    const unknown = translate({
      translator: 'vendor-json',
      spec,
      eventName: spec.event,
      body: new TextEncoder().encode(JSON.stringify({ ...ROWS[0], type: 'payout.paid' })),
      contentType: 'application/json',
    });
    assert.ok(unknown.ok);
    // Its name passes through the lookup as the vendor wrote it: no event of the endpoint's, so
    // the row is refused naming it (the gateway's events check refuses it the same way).
    assert.equal(unknown.rows[0]?.event['event_name'], 'payout.paid');
    const defined = definedEvents(made.definitions.map((d) => definedEvent(d.name, '0.0', d.spec as never)));
    const n = normalizeEvent(unknown.rows[0]?.event as never, {
      options,
      now: NOW,
      newId: () => 'id',
      defined,
    });
    assert.ok(!n.ok);
    assert.match(JSON.stringify(n.violations), /event_name/);
  });

  it('by a topic header: the same endpoint chooses the type from X-Vendor-Topic', () => {
    const sample = parseSample(JSON.stringify(ROWS.map(({ type: _t, ...rest }) => rest)));
    assert.equal(discriminatorOf(sample), undefined, 'no type in the body');
    const groups = new Map<string, ParsedSample>(
      ROWS.map((r, i) => [r.type, { ...sample, rows: [sample.rows[i] as Record<string, unknown>] }]),
    );
    const made = endpoint(sample, 'header:X-Vendor-Topic', groups);
    const { events } = run(
      made,
      { ...ROWS[1], type: undefined },
      { 'x-vendor-topic': 'subscription.renewed' },
    );
    assert.deepEqual(
      events.map((e) => e.name),
      ['subscription_renewed'],
    );
  });
});
