/**
 * The creator never proposes an event name the registry will refuse (issue #94, core/samples/guess.ts
 * `eventNameGuess`): a value that names the event is made snake_case, cut at the longest a name
 * may be, and a reserved prefix the registry refuses (schemas/catalogue.ts, read from its own
 * list, never copied here) is dropped; the why says each mend, for the page's "Name guessed …"
 * line. The proposal is checked by the registry itself: a drafted definition under it applies.
 */
import assert from 'node:assert/strict';
import { applyViolations } from '../../../core/registry/resources.ts';
import { draftResources } from '../../../core/samples/draft.ts';
import { eventNameGuess, guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { eventNameProblem, lookupEvent } from '../../../schemas/catalogue.ts';
import { RESERVED_EVENT_PREFIXES } from '../../../schemas/context.ts';

/** The page's walk on one body: its guessed name, and the registry's violations of the draft under it. */
function walk(body: unknown) {
  const text = JSON.stringify(body);
  const sample = parseSample(text);
  const fields = inferFields(sample);
  const guesses = guessChoices(fields, sample.rows);
  const name = guesses.eventName?.name;
  const draft = name
    ? draftResources({
        eventName: name,
        translatorName: 'sample-json',
        sample,
        fields,
        choices: guesses.columns,
      })
    : undefined;
  const violations = draft
    ? applyViolations([draft.definition, draft.translator] as never, { connections: [] })
    : [];
  return { eventName: guesses.eventName, violations };
}

describe('creator: it never proposes an event name the registry will refuse', () => {
  it('drops each reserved prefix the registry refuses, and says so', () => {
    assert.ok(RESERVED_EVENT_PREFIXES.length > 0);
    for (const prefix of RESERVED_EVENT_PREFIXES) {
      const { eventName, violations } = walk({ id: 'e_1', type: `${prefix}order_shipped`, total: 5 });
      assert.equal(eventName?.name, 'order_shipped', prefix);
      assert.match(
        eventName?.why ?? '',
        new RegExp(
          `^from type = "${prefix}order_shipped", "${prefix}" dropped: the registry refuses names starting with it`,
        ),
      );
      assert.deepEqual(violations, [], prefix);
    }
  });

  it('drops prefixes one after another, and a built-in name left gets its own suffix', () => {
    const [first, second] = RESERVED_EVENT_PREFIXES;
    assert.equal(eventNameGuess(`${first}${second}refund`, 'event')?.name, 'refund');
    const built = eventNameGuess(`${first}purchase`, 'event');
    assert.equal(built?.name, 'purchase_webhook');
    assert.match(built?.why ?? '', /dropped: .*, with "_webhook" added: purchase is a built-in event’s name/);
    // Written in capitals or with other separators, the prefix is still found once snake_case.
    assert.equal(eventNameGuess(`${(first ?? '').toUpperCase()}Lead-Created`, 'event')?.name, 'lead_created');
  });

  it('cuts a long value at the longest name, saying so', () => {
    const g = eventNameGuess(`${'checkout_step_completed_'.repeat(3)}x`, 'event_type');
    assert.equal(g?.name.length, 40);
    assert.match(g?.why ?? '', /cut at 40 characters, the longest a name may be/);
  });

  it('passes the registry’s own check for whatever a vendor writes', () => {
    const values = [
      '',
      '123',
      '__proto__',
      'Bestellung erstellt',
      'ga_',
      'firebase_123',
      `${'x'.repeat(39)}_y`,
      'sign_up',
      'Purchase',
      'orders/create',
      'google_analytics_page_view',
    ];
    for (const value of values) {
      const g = eventNameGuess(value, 'type');
      if (!g) continue;
      assert.equal(eventNameProblem(g.name), undefined, `${value} → ${g.name}`);
      assert.equal(lookupEvent(g.name), undefined, `${value} → ${g.name}`);
    }
  });
});
