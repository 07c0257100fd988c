/**
 * The tag's pure helpers, in Node (gateway/tag/context.ts, storage.ts): traits split into the
 * `user` group (Segment's camelCase or our names, each field's longest value, a birthday as a
 * date) and the rest; and the UUID a page without `crypto.randomUUID` (plain http) gets.
 */
import assert from 'node:assert/strict';
import { traitsOf } from '../../gateway/tag/context.ts';
import { uuid } from '../../gateway/tag/storage.ts';

describe('tag: traits and ids', () => {
  it('splits traits into the user group (camelCase or snake_case, aliases) and the rest', () => {
    const { user, rest } = traitsOf({
      email: 'ann@example.com',
      firstName: 'Ann',
      last_name: 'Lee',
      birthday: new Date('1990-04-02T10:00:00Z'),
      state: 'CA',
      postalCode: 94107,
      address: { city: 'San Francisco', country: 'US' },
      plan: 'gold',
      phone: 'x'.repeat(65),
      gender: '',
      constructor: 'not a field',
    });
    assert.deepEqual(user, {
      email: 'ann@example.com',
      first_name: 'Ann',
      last_name: 'Lee',
      date_of_birth: '1990-04-02',
      region: 'CA',
      postal_code: '94107',
      city: 'San Francisco',
      country: 'US',
    });
    // Too long for the group, or no field of it: kept as the identify event's data.
    assert.deepEqual(Object.keys(rest).sort(), ['constructor', 'phone', 'plan']);
    assert.deepEqual(traitsOf({ date_of_birth: 'April 2nd' }), {
      user: {},
      rest: { date_of_birth: 'April 2nd' },
    });
  });

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
