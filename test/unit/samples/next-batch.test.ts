/**
 * A definition drafted from a small sample accepts the vendor's next real batch (#94): what two
 * events cannot prove (the list of values a text column takes) stays open unless the person
 * tightens it; an id above 2^53 is kept as text, which the definition takes, rather than an
 * integer it refuses; two events sharing a time do not make it "a constant". Each row goes
 * through the drafted translator and the event's validation against the drafted definition, as
 * the gateway runs them (a refused row is its 400).
 */
import assert from 'node:assert/strict';
import { definedEvent, definedEvents } from '../../../core/definitions/defined-events.ts';
import { normalizeEvent } from '../../../core/event.ts';
import { applyViolations } from '../../../core/registry/resources.ts';
import { type ColumnChoice, draftResources } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { translate } from '../../../core/translate/index.ts';
import { CREATOR_NOW, CREATOR_OPTIONS, CREATOR_WINDOW } from '../../support/creator-clock.ts';

const options = CREATOR_OPTIONS;
const NOW = CREATOR_NOW;
const window = CREATOR_WINDOW;

// Two events as a vendor's documentation shows them: one status, one plan, the same time, and a
// 64-bit order number written as a JSON number.
const SAMPLE = `[
  {"order_number": 9007199254740993123, "status": "paid", "plan": "gold", "created_at": "2026-11-20T10:00:00Z", "note": "first"},
  {"order_number": 9007199254740995456, "status": "paid", "plan": "gold", "created_at": "2026-11-20T10:00:00Z", "note": "second"}
]`;
const NEXT = `[
  {"order_number": 9007199254741000789, "status": "refunded", "plan": "platinum", "created_at": "2026-11-22T08:30:00Z", "note": "third"},
  {"order_number": 18014398509481984001, "status": "pending_review_by_the_fraud_team", "plan": "silver", "created_at": "2026-11-22T09:00:00Z", "note": "fourth"}
]`;

function draft(tighten?: (c: ColumnChoice) => ColumnChoice) {
  const sample = parseSample(SAMPLE);
  const fields = inferFields(sample);
  const guesses = guessChoices(fields, sample.rows, { window });
  const choices = tighten ? guesses.columns.map(tighten) : guesses.columns;
  const d = draftResources({ eventName: 'order_paid', translatorName: 'shop-json', sample, fields, choices });
  assert.deepEqual(applyViolations([d.definition, d.translator] as never, { connections: [] }), []);
  return { d, fields, guesses };
}

/** The rows of `text` the gateway would refuse, by note, with why. */
function refused(d: ReturnType<typeof draft>['d'], text: string): Record<string, string> {
  const r = translate({
    translator: 'shop-json',
    spec: d.translator.spec,
    eventName: 'order_paid',
    body: new TextEncoder().encode(text),
    contentType: 'application/json',
  });
  assert.ok(r.ok && r.problems.length === 0, JSON.stringify(r));
  const defined = definedEvents([definedEvent('order_paid', '0.0', d.definition.spec as never)]);
  const out: Record<string, string> = {};
  for (const row of r.rows) {
    const n = normalizeEvent(row.event as never, { options, now: NOW, newId: () => 'id', defined });
    const note = String((row.event['note'] as string | undefined) ?? row.row);
    if (!n.ok) out[note] = n.violations.map((v) => `${v.field} ${v.description}`).join('; ');
  }
  return out;
}

describe('the creator: a definition that accepts the next real batch', () => {
  it('the next batch after a two-event sample is accepted (400 before)', () => {
    const { d, fields, guesses } = draft();
    // What the sample alone suggests: one status, one plan (inferred as one-value lists), an
    // integer beyond 2^53, and one time in both rows.
    assert.deepEqual(fields.find((f) => f.name === 'status')?.enum, ['paid']);
    assert.equal(fields.find((f) => f.name === 'order_number')?.type, 'integer');
    const spec = d.definition.spec['fields'] as { name: string; type: string; enum?: unknown }[];
    for (const f of spec) assert.equal(f.enum, undefined, `${f.name}: no list of values from two events`);
    const id = d.translator.spec.fields.find((f) => 'source' in f && f.source === 'order_number');
    assert.deepEqual(id?.transforms, ['string']);
    assert.equal(spec.find((f) => f.name === id?.target)?.type, 'string');
    // The shared time is still the event's time, not "a constant".
    assert.equal(guesses.eventTime.column, 'created_at');
    assert.deepEqual(refused(d, SAMPLE), {});
    assert.deepEqual(refused(d, NEXT), {});
    // Before: the values seen written as the field's list, and the id as an integer: both refused.
    const before = {
      ...d,
      definition: {
        ...d.definition,
        spec: {
          ...d.definition.spec,
          fields: spec.map((f) =>
            f.name === 'status'
              ? { ...f, enum: ['paid'] }
              : f.type === 'string' && f.name === 'transaction_id'
                ? { ...f, type: 'integer' }
                : f,
          ),
        },
      },
    };
    assert.deepEqual(Object.keys(refused(before, NEXT)).sort(), ['fourth', 'third']);
  });

  it('a list of values the person chose is written, and holds', () => {
    const { d } = draft((c) => (c.column === 'plan' ? { ...c, enum: ['gold', 'silver'] } : c));
    const spec = d.definition.spec['fields'] as { name: string; enum?: unknown }[];
    assert.deepEqual(spec.find((f) => f.name === 'plan')?.enum, ['gold', 'silver']);
    assert.deepEqual(Object.keys(refused(d, NEXT)), ['third']);
  });

  it('a length the person chose is written and holds; none is drafted on its own', () => {
    const open = draft().d.definition.spec['fields'] as Record<string, unknown>[];
    for (const f of open)
      for (const k of ['minimum', 'maximum', 'minLength', 'maxLength'])
        assert.equal(f[k], undefined, `${String(f['name'])}.${k}: a sample proves no bound`);
    // A length for text; a number's bounds are no text field's.
    const note = draft((c) => (c.column === 'note' ? { ...c, maxLength: 5, minimum: 1 } : c)).d;
    const noteSpec = (note.definition.spec['fields'] as Record<string, unknown>[]).find(
      (f) => f['name'] === 'note',
    );
    assert.deepEqual(noteSpec, { name: 'note', type: 'string', maxLength: 5 });
    assert.deepEqual(Object.keys(refused(note, SAMPLE)), ['second']);
    assert.deepEqual(Object.keys(refused(note, NEXT)), ['fourth']);
  });
});
