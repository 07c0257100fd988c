/**
 * A typo of a catalogue event name is answered with "did you mean" instead of being stored as a
 * new custom event that no platform ever receives; real custom names are left alone.
 */
import assert from 'node:assert/strict';
import { normalizeEvent, normalizeOptions } from '../../../core/event.ts';
import { nearCatalogueName } from '../../../schemas/catalogue.ts';

const ctx = {
  options: normalizeOptions({ name: 'test', project: 'test-project', region: 'europe-west1' }),
  now: Date.parse('2026-01-01T00:00:00.000Z'),
  newId: () => '0190b6a4-0000-7000-8000-000000000000',
};
const violations = (raw: unknown) => {
  const r = normalizeEvent(raw, ctx);
  return r.ok ? [] : r.violations;
};

describe('contract: names close to the catalogue', () => {
  it('finds the catalogue event meant by another case, separators or a typo', () => {
    const cases: [string, string | undefined][] = [
      ['AddToCart', 'add_to_cart'],
      ['page-view', 'page_view'],
      ['Purchase', 'purchase'],
      ['purchse', 'purchase'],
      ['purcahse', 'purchase'],
      ['add_to_chart', 'add_to_cart'],
      ['begin_chekout', 'begin_checkout'],
      ['subscibe', 'subscribe'],
      ['purchase', undefined],
      ['read', undefined],
      ['leads', undefined],
      ['quote_requested', undefined],
      ['checkout', undefined],
      ['refund', undefined],
    ];
    for (const [name, expected] of cases) assert.equal(nearCatalogueName(name), expected, name);
  });

  it('refuses the event with the suggestion where the producer sees it, and stores real custom names', () => {
    assert.deepEqual(violations({ event_name: 'purchse', anonymous_id: 'a1', value: 10, currency: 'EUR' }), [
      {
        field: 'event_name',
        description:
          '"purchse" is not a known event; did you mean "purchase"? (a custom event\'s name must not be this close to a catalogue or defined event\'s; define it to use it)',
      },
    ]);
    const camel = violations({ event_name: 'AddToCart', anonymous_id: 'a1' });
    assert.match(String(camel[0]?.description), /did you mean "add_to_cart"\?$/);
    assert.deepEqual(violations({ event_name: 'quote_requested', anonymous_id: 'a1', amount: 3 }), []);
  });
});
