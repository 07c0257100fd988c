/**
 * A destination's conditions (core/decision/decision.ts, docs/settings.md "conditions"): each
 * operator at its edges — the bound itself, a null or blank value, a number sent as text, a value
 * of another type, which is never true — and the paths they read, which stop at anything that is
 * not an object of the event's own fields.
 */
import assert from 'node:assert/strict';
import { evaluateCondition, readPath } from '../../../core/decision/decision.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { Condition } from '../../../schemas/settings.ts';

const event: StoredEvent = {
  event_name: 'purchase',
  event_id: 'e-cond',
  event_time: '2026-03-01T10:00:00.000Z',
  user: { country: 'fr' },
  event_data: {
    value: 20,
    zero: 0,
    price_text: '20',
    blank: '',
    spaces: '  ',
    nothing: null,
    paid: true,
    word: 'abc',
    list: [1, 2],
  },
};

/** Each row: the condition, and whether it holds for the event above. */
const holds = (rows: readonly [Condition, boolean][]) => {
  for (const [condition, want] of rows)
    assert.equal(evaluateCondition(condition, event), want, JSON.stringify(condition));
};

describe('decision: conditions at their edges', () => {
  it('exists and not_exists: null is absent, a present value of any kind exists', () => {
    holds([
      [{ field: 'value', op: 'exists' }, true],
      [{ field: 'blank', op: 'exists' }, true],
      [{ field: 'nothing', op: 'exists' }, false],
      [{ field: 'missing', op: 'exists' }, false],
      [{ field: 'value', op: 'not_exists' }, false],
      [{ field: 'nothing', op: 'not_exists' }, true],
      [{ field: 'missing', op: 'not_exists' }, true],
    ]);
  });

  it('eq and ne compare a number with its text both ways, never a blank text with 0', () => {
    holds([
      [{ field: 'value', op: 'eq', value: 20 }, true],
      [{ field: 'value', op: 'eq', value: '20' }, true],
      [{ field: 'price_text', op: 'eq', value: 20 }, true],
      [{ field: 'price_text', op: 'eq', value: 21 }, false],
      [{ field: 'value', op: 'eq', value: '21' }, false],
      [{ field: 'blank', op: 'eq', value: 0 }, false],
      [{ field: 'spaces', op: 'eq', value: 0 }, false],
      [{ field: 'zero', op: 'eq', value: '' }, false],
      [{ field: 'zero', op: 'eq', value: ' ' }, false],
      [{ field: 'zero', op: 'eq', value: '0' }, true],
      [{ field: 'paid', op: 'eq', value: 'true' }, false],
      [{ field: 'word', op: 'eq', value: 'abc' }, true],
      [{ field: 'value', op: 'ne', value: 21 }, true],
      [{ field: 'price_text', op: 'ne', value: 20 }, false],
      [{ field: 'blank', op: 'ne', value: 0 }, true],
    ]);
  });

  it('in and not_in need a list; not_in is false when any member matches', () => {
    holds([
      [{ field: 'value', op: 'in', value: [1, '20'] }, true],
      [{ field: 'value', op: 'in', value: [1, 2] }, false],
      [{ field: 'value', op: 'not_in', value: [1, 20] }, false],
      [{ field: 'value', op: 'not_in', value: [1, 2] }, true],
      [{ field: 'value', op: 'not_in', value: 21 }, false],
    ]);
  });

  it('gt, gte, lt and lte at the bound, and a number sent as text', () => {
    holds([
      [{ field: 'value', op: 'gt', value: 20 }, false],
      [{ field: 'value', op: 'gt', value: 21 }, false],
      [{ field: 'value', op: 'gte', value: 20 }, true],
      [{ field: 'value', op: 'gte', value: 21 }, false],
      [{ field: 'value', op: 'lt', value: 20 }, false],
      [{ field: 'value', op: 'lt', value: 21 }, true],
      [{ field: 'value', op: 'lte', value: 20 }, true],
      [{ field: 'value', op: 'lte', value: 19 }, false],
      [{ field: 'price_text', op: 'gt', value: 19 }, true],
      [{ field: 'price_text', op: 'lt', value: 19 }, false],
    ]);
  });

  it('an ordered comparison of anything but a number (or text with text) is false', () => {
    holds([
      [{ field: 'blank', op: 'gt', value: -1 }, false],
      [{ field: 'spaces', op: 'gte', value: 0 }, false],
      [{ field: 'nothing', op: 'gt', value: -1 }, false],
      [{ field: 'paid', op: 'gte', value: 0 }, false],
      [{ field: 'missing', op: 'lte', value: 0 }, false],
      [{ field: 'value', op: 'gte', value: '10' }, false],
      [{ field: 'word', op: 'lt', value: ['b'] as never }, false],
    ]);
  });

  it('text compares with text lexically, as RFC 3339 times do', () => {
    holds([
      [{ field: 'event_time', op: 'gt', value: '2026-03-01' }, true],
      [{ field: 'event_time', op: 'lt', value: '2026-03-01T10:00:00.001Z' }, true],
      [{ field: 'event_time', op: 'lte', value: '2026-03-01T10:00:00.000Z' }, true],
      [{ field: 'event_time', op: 'gte', value: '2026-03-02' }, false],
    ]);
  });

  it('between holds both bounds and needs a list', () => {
    holds([
      [{ field: 'value', op: 'between', value: [20, 30] }, true],
      [{ field: 'value', op: 'between', value: [10, 20] }, true],
      [{ field: 'value', op: 'between', value: [21, 30] }, false],
      [{ field: 'value', op: 'between', value: [10, 19] }, false],
      [{ field: 'value', op: 'between', value: 20 }, false],
    ]);
  });
});

describe('decision: the paths a condition reads', () => {
  it("stops at null and at text, reads a list's members and length, and only own fields", () => {
    assert.equal(readPath(event, 'nothing.deeper'), undefined);
    assert.equal(readPath(event, 'user.country.length'), undefined);
    assert.equal(readPath(event, 'word.length'), undefined);
    assert.equal(readPath(event, 'list.length'), 2);
    assert.equal(readPath(event, 'user.constructor'), undefined);
    assert.equal(readPath(event, 'list.0'), 1);
  });

  it('reads event_data. paths and the same path again from what it split', () => {
    assert.equal(readPath(event, 'event_data.price_text'), '20');
    assert.equal(readPath(event, 'event_data.price_text'), '20');
    assert.equal(readPath(event, 'event_data.missing'), undefined);
  });
});
