/** Pub/Sub's filter language, unit by unit (the real client's end-to-end case is in client.test.ts). */
import assert from 'node:assert/strict';
import { compileFilter } from '../filter.ts';

const matches = (filter: string, attributes: Record<string, string>): boolean => {
  const compiled = compileFilter(filter);
  if (!compiled.ok) throw new Error(`${filter}: ${compiled.error}`);
  return compiled.fn(attributes);
};

describe('Pub/Sub emulator: filters', () => {
  it('compares, tests presence and prefixes', () => {
    assert.equal(matches('attributes.kind = "a"', { kind: 'a' }), true);
    assert.equal(matches('attributes.kind = "a"', { kind: 'b' }), false);
    assert.equal(matches('attributes.kind != "a"', { kind: 'b' }), true);
    assert.equal(matches('attributes.kind != "a"', {}), true);
    assert.equal(matches('attributes:kind', { kind: '' }), true);
    assert.equal(matches('attributes:kind', {}), false);
    assert.equal(matches('hasPrefix(attributes.kind, "x-")', { kind: 'x-1' }), true);
    assert.equal(matches('hasPrefix(attributes.kind, "x-")', { kind: 'y' }), false);
    assert.equal(matches('hasPrefix(attributes.kind, "x-")', {}), false);
  });

  it('combines with AND, OR, NOT, a leading minus and parentheses', () => {
    const f = '(attributes.a = "1" OR attributes.b = "2") AND NOT attributes:c';
    assert.equal(matches(f, { a: '1' }), true);
    assert.equal(matches(f, { b: '2', c: 'x' }), false);
    assert.equal(matches('-attributes:c', {}), true);
    assert.equal(matches('-attributes:c', { c: '' }), false);
  });

  it('takes hyphens inside names without quotes, and quoted names', () => {
    assert.equal(matches('attributes.ce-type = "x"', { 'ce-type': 'x' }), true);
    assert.equal(matches('attributes:ce-type', { 'ce-type': 'x' }), true);
    assert.equal(matches('hasPrefix(attributes.ce-source, "a")', { 'ce-source': 'abc' }), true);
    assert.equal(matches('attributes."a b" = "x"', { 'a b': 'x' }), true);
    // A minus before a name still negates.
    assert.equal(matches('-attributes:ce-type', { 'ce-type': 'x' }), false);
  });

  it('never matches inherited names of the attributes object', () => {
    assert.equal(matches('hasPrefix(attributes.constructor, "f")', {}), false);
    assert.equal(matches('attributes.toString = "x"', {}), false);
    assert.equal(matches('attributes:constructor', {}), false);
  });

  it('explains syntax errors', () => {
    for (const bad of [
      'attributes.k = ',
      'attributes.k == "a"',
      '(attributes:k',
      'foo',
      'attributes.k = "a" AND',
    ]) {
      const compiled = compileFilter(bad);
      assert.equal(compiled.ok, false, bad);
    }
  });
});
