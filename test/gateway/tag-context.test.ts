/**
 * The tag's pure helpers, in Node (gateway/tag/storage.ts): the UUID a page without
 * `crypto.randomUUID` (plain http) gets. (The traits split is the gateway's now:
 * test/gateway/tag-form.test.ts.)
 */
import assert from 'node:assert/strict';
import { uuid } from '../../gateway/tag/storage.ts';

describe('tag: ids', () => {
  it('makes a version 4 UUID without crypto.randomUUID', () => {
    const c = globalThis.crypto as { randomUUID?: unknown };
    const own = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(c), 'randomUUID');
    Object.defineProperty(c, 'randomUUID', { value: undefined, configurable: true });
    try {
      const ids = new Set(Array.from({ length: 2000 }, uuid));
      assert.equal(ids.size, 2000);
      for (const id of ids)
        assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      delete (c as Record<string, unknown>)['randomUUID'];
      if (!own) assert.fail('randomUUID was not on the prototype');
    }
    assert.match(uuid(), /^[0-9a-f-]{36}$/, 'randomUUID back');
  });
});
