/** scripts/count-assertions.ts: what counts as an assertion when a refactor's tests are counted. */
import assert from 'node:assert/strict';
import { countAssertions } from '../../../scripts/count-assertions.ts';

describe('scripts/count-assertions', () => {
  it('counts assert.<method>(, assert( and expect( calls', () => {
    const text = [
      'assert.equal(a, 1);',
      'assert.deepEqual(b, [1]); assert.ok(c);',
      'assert(d);',
      'expect (e).to.equal(1);',
      'await assert.rejects(f(), /x/);',
    ].join('\n');
    assert.equal(countAssertions(text), 6);
  });

  it('leaves out line comments and names that only start like one', () => {
    const text = ['// assert.equal(commented, 1);', 'assertion(x);', 'const asserted = assertLater(y);'].join(
      '\n',
    );
    assert.equal(countAssertions(text), 0);
  });
});
