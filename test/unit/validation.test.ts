import assert from 'node:assert/strict';
import Type from 'typebox';
import { compileValidator, pointerToField } from '../../core/validation.ts';

describe('validation: typebox errors as field paths', () => {
  it('turns JSON pointers into field paths', () => {
    assert.equal(pointerToField('/1/event_name'), '[1].event_name');
    assert.equal(pointerToField('/destinations/0/type'), 'destinations[0].type');
    assert.equal(pointerToField('/user/email', '[2]'), '[2].user.email');
    assert.equal(pointerToField('/odd key/x'), '["odd key"].x');
    assert.equal(pointerToField(''), '');
  });

  const Schema = Type.Object(
    {
      name: Type.String({ pattern: '^[a-z]+$' }),
      kind: Type.Union([Type.Literal('a'), Type.Literal('b')]),
      nested: Type.Object({ count: Type.Integer() }),
      list: Type.Optional(Type.Array(Type.Object({ id: Type.String() }, { additionalProperties: false }))),
    },
    { additionalProperties: false },
  );
  const validator = compileValidator(Schema);

  it('reports each bad field once, with a readable message', () => {
    const v = validator.violations({ name: 'X', kind: 'c', nested: {}, list: [{ id: 1 }], junk: 1 });
    const byField = Object.fromEntries(v.map((x) => [x.field, x.description]));
    assert.deepEqual(Object.keys(byField).sort(), ['junk', 'kind', 'list[0].id', 'name', 'nested.count']);
    assert.equal(byField['kind'], 'expected one of "a", "b"');
    assert.equal(byField['nested.count'], 'is required');
    assert.equal(byField['junk'], 'is not a known field');
    assert.equal(new Set(v.map((x) => x.field)).size, v.length, 'no duplicates');
  });

  it('prefixes paths for items of a batch', () => {
    const v = validator.violations({ name: 'ok', kind: 'a' }, '[3]');
    assert.deepEqual(v, [{ field: '[3].nested', description: 'is required' }]);
  });

  it('accepts valid values', () => {
    assert.deepEqual(validator.violations({ name: 'ok', kind: 'b', nested: { count: 2 } }), []);
    assert.equal(validator.check({ name: 'ok', kind: 'b', nested: { count: 2 } }), true);
  });
});
