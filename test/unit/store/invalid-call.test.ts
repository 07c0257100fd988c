/**
 * core/store/invalid-call.ts: a Segment call the gateway could not translate carries its own
 * violations, and the store keeps them as the row's errors.
 */
import assert from 'node:assert/strict';
import {
  INVALID_ERRORS_ATTRIBUTE,
  invalidAttribute,
  invalidCallErrors,
  invalidErrorsAttribute,
} from '../../../core/store/invalid-call.ts';

describe('store: an invalid call’s own reasons', () => {
  it('round-trips a call’s violations without their rows[n] prefix', () => {
    const text = invalidErrorsAttribute([
      { field: 'rows[3].event_time', description: 'does not match any allowed form' },
      { field: 'rows[3].event_data.currency', description: 'is required' },
      { field: 'rows[3]', description: 'the event is 2000000 bytes, over the limit' },
    ]);
    assert.deepEqual(invalidCallErrors({ invalid_call: {} }, { [INVALID_ERRORS_ATTRIBUTE]: text }), [
      { field: 'event_time', description: 'does not match any allowed form' },
      { field: 'event_data.currency', description: 'is required' },
      { field: '(call)', description: 'the event is 2000000 bytes, over the limit' },
    ]);
  });

  it('fits Pub/Sub’s 1024-byte attribute, saying how many were left out', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      field: `rows[0].f${i}`,
      description: 'is required',
    }));
    const text = invalidErrorsAttribute(many);
    assert.ok(new TextEncoder().encode(text).length <= 1024);
    const back = invalidCallErrors({ invalid_call: null }, { [INVALID_ERRORS_ATTRIBUTE]: text }) ?? [];
    assert.match(back.at(-1)?.description ?? '', /^and \d+ more$/);
  });

  it('leaves other payloads and malformed attributes to the store’s own validation', () => {
    const attrs = { [INVALID_ERRORS_ATTRIBUTE]: '[{"field":"x","description":"y"}]' };
    assert.equal(invalidCallErrors({ event_name: 'purchase' }, attrs), undefined);
    assert.equal(invalidCallErrors({ invalid_call: {} }, {}), undefined);
    assert.equal(
      invalidCallErrors({ invalid_call: {} }, { [INVALID_ERRORS_ATTRIBUTE]: 'not json' }),
      undefined,
    );
    assert.equal(invalidCallErrors({ invalid_call: {} }, { [INVALID_ERRORS_ATTRIBUTE]: '[1]' }), undefined);
  });

  it('cuts the `invalid` attribute to 1024 UTF-8 bytes, never inside a character', () => {
    // Field names in another script: 1024 characters of them are about three times the bytes.
    const many = Array.from({ length: 40 }, (_, i) => ({
      field: `event_data.名前${'ü'.repeat(10)}${i}`,
      description: 'is too long',
    }));
    // Every offset of the cut against the text's characters.
    for (const pad of Array.from({ length: 48 }, (_, n) => 'a'.repeat(n))) {
      const text = invalidAttribute([{ field: pad, description: 'x' }, ...many]);
      const bytes = Buffer.byteLength(text);
      assert.ok(bytes <= 1024 && bytes > 1021, `${bytes} bytes`);
      assert.ok(text.isWellFormed() && !text.includes('\uFFFD'), 'no character split');
      assert.ok(text.startsWith(`${pad}: x; event_data.名前`));
    }
    assert.equal(invalidAttribute([{ field: 'a', description: 'b' }]), 'a: b');
  });
});
