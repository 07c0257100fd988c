/**
 * A date and time written with the word `UTC` after it is a time (issue #94,
 * core/samples/values.ts): `2023-02-10 13:56:35 UTC`, as Rails and Ruby write one, was read as
 * text, so an order's `created_at` was no time and the event had none. It now reads as the pattern
 * `YYYY-MM-DD HH:mm:ss UTC`, the word a literal, the time in UTC; one with an offset of its own
 * before the word, or the word alone, does not.
 */
import assert from 'node:assert/strict';
import { instant, readPattern } from '../../../core/formats/patterns.ts';
import { valueVotes } from '../../../core/samples/values.ts';
import { fieldsOf, read } from '../../support/page-steps.ts';

const votes = (v: string) => {
  const out: string[] = [];
  valueVotes(v, out);
  return out;
};

describe('the creator: a time written with UTC after it', () => {
  it('reads an order’s created_at so written as the event time', () => {
    const { guesses } = read({
      id: 9,
      order: { id: 41, created_at: '2026-02-10 13:56:35 UTC', total: 10, currency: 'EUR' },
    });
    assert.equal(guesses.eventTime.column, 'order.created_at');
  });

  it('infers the pattern with the word as a literal, and reads the instant in UTC', () => {
    const [f] = fieldsOf({ created_at: '2020-03-03 13:05:57 UTC' });
    assert.equal(f?.type, 'timestamp');
    assert.equal(f?.pattern, 'YYYY-MM-DD HH:mm:ss UTC');
    const parts = readPattern('2020-03-03 13:05:57 UTC', f?.pattern ?? '');
    assert.equal(parts && new Date(instant(parts)).toISOString(), '2020-03-03T13:05:57.000Z');
  });

  it('reads minutes without seconds, and a login’s event_timestamp so written', () => {
    assert.deepEqual(votes('2024-05-01 08:30 UTC'), ['ts:YYYY-MM-DD HH:mm UTC']);
    const { guesses } = read({ event: 'login', event_timestamp: '2017-12-05 19:13:06 UTC' });
    assert.equal(guesses.eventTime.column, 'event_timestamp');
  });

  it('reads no offset before the word, no date alone, and no word alone as a time', () => {
    assert.deepEqual(votes('2024-05-01 08:30:00+02:00 UTC'), []);
    assert.deepEqual(votes('2024-05-01 UTC'), []);
    assert.deepEqual(votes('UTC'), []);
  });
});
