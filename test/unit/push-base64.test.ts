/**
 * core/push.ts isStandardBase64: the table loop that replaced a regular expression on every
 * push must accept exactly the language the expression did.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isStandardBase64 } from '../../core/push.ts';

/** The definition it replaced: standard alphabet, groups of 4, padding required. */
const DEFINITION = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

describe('isStandardBase64', () => {
  it('accepts padded standard base64 and refuses the rest', () => {
    for (const ok of ['', 'AAAA', 'AA==', 'AAA=', 'ab+/', Buffer.from('{"a":"é"}').toString('base64')])
      assert.equal(isStandardBase64(ok), true, ok);
    for (const bad of [
      'A',
      'AA',
      'AAA',
      'A===',
      '====',
      '=AAA',
      'AA=A',
      'AB-_',
      'AAAA\n',
      'AA==AAAA',
      'ÀAAA',
    ])
      assert.equal(isStandardBase64(bad), false, bad);
  });

  it('agrees with the regular expression it replaced on generated texts', () => {
    const char = fc.constantFrom(...'ABYZabyz0189+/=-_ \nÀ'.split(''));
    const near = fc
      .tuple(fc.uint8Array({ maxLength: 40 }), fc.array(fc.tuple(fc.nat(60), char), { maxLength: 3 }))
      .map(([bytes, edits]) => {
        const text = Buffer.from(bytes).toString('base64').split('');
        for (const [at, c] of edits) text.splice(at % (text.length + 1), text.length > 0 ? 1 : 0, c);
        return text.join('');
      });
    fc.assert(
      fc.property(fc.oneof(near, fc.string({ unit: char, maxLength: 12 })), (text) => {
        assert.equal(isStandardBase64(text), DEFINITION.test(text), JSON.stringify(text));
      }),
      { numRuns: 20_000 },
    );
  });
});
