/**
 * Epoch seconds with a fraction are a time (issue #94, core/samples/infer.ts `epochPattern`): a
 * message's `timestamp: 1710481111.853` was read as a plain number, so the event had no time.
 * JSON numbers in a time-named column that are all epoch seconds, fraction or not, are now read
 * as `epoch_seconds`, as whole ones were; the translator reads them as they are.
 */
import assert from 'node:assert/strict';
import { applyTransforms } from '../../../core/translate/transforms.ts';
import { fieldsOf, read } from '../../support/page-steps.ts';

describe('the creator: epoch seconds with a fraction', () => {
  it('reads a message’s fractional timestamp as the event time', () => {
    const { guesses } = read({
      event: 'message.reaction',
      payload: { id: 'm_1', timestamp: 1710481111.853 },
    });
    assert.equal(guesses.eventTime.column, 'payload.timestamp');
  });

  it('infers epoch_seconds for every row’s fractional seconds under a time’s name', () => {
    const [f] = fieldsOf({ sent_at: 1477945177.12994 });
    assert.equal(f?.type, 'timestamp');
    assert.equal(f?.pattern, 'epoch_seconds');
  });

  it('leaves a fraction under a name that is no time’s, or outside the epoch range, a number', () => {
    assert.equal(fieldsOf({ score: 1710481111.5 })[0]?.type, 'number');
    assert.equal(fieldsOf({ response_time: 3.25 })[0]?.type, 'number');
  });

  it('is what the translator reads: the instant to the millisecond', () => {
    const r = applyTransforms(1710481111.853, [{ epoch: 'seconds' }], {});
    assert.deepEqual(r, { ok: true, value: '2024-03-15T05:38:31.853Z' });
  });
});
