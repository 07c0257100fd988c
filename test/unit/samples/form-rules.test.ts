/**
 * Form posts as samples (core/samples/form.ts), rule by rule: what counts as one form body (every
 * part a whole `key=value` pair, so text with a stray pair or a pair inside other text stays CSV),
 * the nested keys and repeated fields of a body, blank lines around it, a body nested too deep
 * given as a problem, and a field holding a JSON object, blanks before it included.
 */
import assert from 'node:assert/strict';
import { DEFAULT_FORM_DEPTH } from '../../../core/formats/form.ts';
import { formRows, looksLikeForm } from '../../../core/samples/form.ts';

describe('a form post as a sample', () => {
  it('is a body whose every part is a whole key=value pair', () => {
    assert.equal(looksLikeForm('a=1&b=2'), true);
    assert.equal(looksLikeForm('\n a=1&b=2 \n'), true, 'blank lines around it');
    assert.equal(looksLikeForm('a=1&b'), false, 'a part without =');
    assert.equal(looksLikeForm('b&a=1'), false, 'the first part without =');
    assert.equal(looksLikeForm('a!b=1&c=2'), false, 'a pair after other text');
    assert.equal(looksLikeForm('a=1&b=2=3'), false, 'a pair with more after it');
    assert.equal(looksLikeForm('a=1&b=2 c=3'), false, 'a blank inside');
    assert.equal(looksLikeForm('   '), false);
  });

  it('reads nested keys as dotted columns and a repeated field as a list', () => {
    const read = formRows('type=subscribe&data[merges][FNAME]=Ann&tag=a&tag=b');
    assert.deepEqual(read.columns, ['type', 'data.merges.FNAME', 'tag']);
    assert.deepEqual(read.rows, [{ type: 'subscribe', 'data.merges.FNAME': 'Ann', tag: ['a', 'b'] }]);
    assert.deepEqual(read.problems, []);
    assert.equal(read.embedded, undefined);
  });

  it('reads a body with blank lines before and after it', () => {
    const read = formRows('\n\n a=1&b=2\n');
    assert.deepEqual(read.columns, ['a', 'b']);
    assert.deepEqual(read.rows, [{ a: '1', b: '2' }]);
  });

  it('gives a body nested deeper than the translator reads as a problem, not a row', () => {
    const key = `a${'[b]'.repeat(DEFAULT_FORM_DEPTH + 1)}`;
    const read = formRows(`${key}=1&c=2`);
    assert.deepEqual(read.columns, []);
    assert.deepEqual(read.rows, []);
    assert.equal(read.problems.length, 1);
    assert.match(read.problems[0]?.message ?? '', /nests 6 levels deep; at most 5/);
  });

  it('reads a field holding a JSON object, blanks before it included, and only an object', () => {
    const json = encodeURIComponent(' {"plan":"gold"}');
    const read = formRows(
      `a=1&j=${json}&list=${encodeURIComponent('[1]')}&bad=${encodeURIComponent('{oops')}`,
    );
    assert.deepEqual(read.embedded, ['j']);
    assert.deepEqual(read.columns, ['a', 'j.plan', 'list', 'bad']);
    assert.deepEqual(read.rows, [{ a: '1', 'j.plan': 'gold', list: '[1]', bad: '{oops' }]);
  });
});
