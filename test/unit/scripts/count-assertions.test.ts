/** scripts/count-assertions.ts: what counts as an assertion when a refactor's tests are counted. */
import assert from 'node:assert/strict';
import { compareCounts, countAssertions } from '../../../scripts/count-assertions.ts';

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

  it('compares a moved file with its old self, and names a file that lost one or went', () => {
    const then: Record<string, string> = {
      'test/unit/a.test.ts': 'assert(1); assert(2);',
      'test/unit/b.test.ts': 'assert(1);',
      'test/unit/c.test.ts': 'assert(1);',
    };
    const now: Record<string, string> = {
      'test/unit/x/a.test.ts': 'assert(1); assert(2);',
      'test/unit/b.test.ts': '',
    };
    const diff = [
      'R091\ttest/unit/a.test.ts\ttest/unit/x/a.test.ts',
      'M\ttest/unit/b.test.ts',
      'D\ttest/unit/c.test.ts',
    ].join('\n');
    const changes = compareCounts(
      Object.keys(then),
      diff,
      (p) => then[p] ?? '',
      (p) => now[p],
    );
    assert.deepEqual(changes, [
      { before: 'test/unit/a.test.ts', after: 'test/unit/x/a.test.ts', was: 2, now: 2 },
      { before: 'test/unit/b.test.ts', after: 'test/unit/b.test.ts', was: 1, now: 0 },
      { before: 'test/unit/c.test.ts', after: undefined, was: 1, now: undefined },
    ]);
  });
});
