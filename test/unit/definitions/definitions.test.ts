/** core/definitions/definitions.ts: what an event definition's fields may say, and which changes make a new major. */
import assert from 'node:assert/strict';
import { breakingChanges, definitionViolations } from '../../../core/definitions/definitions.ts';

const spec = (...fields: unknown[]) => ({ fields });
const amount = { name: 'amount', type: 'number', required: true, minimum: 0 };
const note = { name: 'note', type: 'string', maxLength: 200 };

describe('event definitions', () => {
  it('accepts a typed field list, nested objects and arrays included', () => {
    const good = spec(
      amount,
      note,
      { name: 'email', type: 'string', format: 'email', pii: true },
      { name: 'tier', type: 'string', enum: ['gold', 'silver'] },
      { name: 'address', type: 'object', fields: [{ name: 'city', type: 'string' }] },
      { name: 'tags', type: 'array', items: 'string' },
      { name: 'lines', type: 'array', fields: [{ name: 'sku', type: 'string', required: true }] },
    );
    assert.deepEqual(definitionViolations(good, 'spec'), []);
  });

  it('names every problem with its path', () => {
    const bad = {
      fields: [
        { name: 'Amount', type: 'money' },
        { name: 'n', type: 'number', format: 'email', minimum: 5, maximum: 1 },
        { name: 'n', type: 'string', enum: [1, 2] },
        { name: 'o', type: 'object' },
        { name: 'x', type: 'string', color: 'red' },
      ],
      extra: true,
    };
    assert.deepEqual(
      definitionViolations(bad, 'documents[0].spec').map((v) => v.field),
      [
        'documents[0].spec.extra',
        'documents[0].spec.fields[0].name',
        'documents[0].spec.fields[0].type',
        'documents[0].spec.fields[1].format',
        'documents[0].spec.fields[1].minimum',
        'documents[0].spec.fields[2].enum',
        'documents[0].spec.fields[2].name',
        'documents[0].spec.fields[3].fields',
        'documents[0].spec.fields[4].color',
      ],
    );
    assert.deepEqual(definitionViolations({}, 's'), [
      { field: 's.fields', description: 'must be a non-empty list of fields' },
    ]);
    assert.equal(definitionViolations('nope', 's').length, 1);
  });

  it('bounds lengths, enums and field lists (issue 33)', () => {
    const one = (f: Record<string, unknown>) =>
      definitionViolations({ fields: [{ name: 'x', type: 'string', ...f }] }, 's').map((v) => v.field);
    assert.deepEqual(one({ minLength: -1 }), ['s.fields[0].minLength']);
    assert.deepEqual(one({ maxLength: 1.5 }), ['s.fields[0].maxLength']);
    assert.deepEqual(one({ minLength: 0, maxLength: 10 }), []);
    assert.deepEqual(one({ enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) }), ['s.fields[0].enum']);
    const many = Array.from({ length: 501 }, (_, i) => ({ name: `f${i}`, type: 'string' }));
    assert.deepEqual(definitionViolations({ fields: many }, 's'), [
      { field: 's.fields', description: 'must be a non-empty list of at most 500 fields' },
    ]);
  });

  it('makes a new major for what breaks readers, a minor for the rest', () => {
    const v1 = spec(amount, note, { name: 'tier', type: 'string', enum: ['gold', 'silver'] });
    assert.deepEqual(
      breakingChanges(
        v1,
        spec(
          amount,
          note,
          { name: 'tier', type: 'string', enum: ['gold', 'silver', 'bronze'] },
          { name: 'coupon', type: 'string' },
        ),
      ),
      [],
    );
    assert.deepEqual(
      breakingChanges(v1, spec({ ...amount, required: false }, note, { name: 'tier', type: 'string' })),
      [],
    );
    assert.deepEqual(breakingChanges(v1, spec(amount, { name: 'tier', type: 'string', enum: ['gold'] })), [
      'note removed',
      'tier allows fewer values',
    ]);
    assert.deepEqual(
      breakingChanges(
        v1,
        spec(
          { ...amount, type: 'integer', minimum: 1 },
          { ...note, required: true, maxLength: 100 },
          { name: 'tier', type: 'string', enum: ['gold', 'silver'] },
          { name: 'store', type: 'string', required: true },
        ),
      ),
      [
        'amount changed type number → integer',
        'amount.minimum raised',
        'note became required',
        'note.maxLength lowered',
        'store added as required',
      ],
    );
    const nested = (req: boolean) =>
      spec({ name: 'address', type: 'object', fields: [{ name: 'city', type: 'string', required: req }] });
    assert.deepEqual(breakingChanges(nested(false), nested(true)), ['address.city became required']);
  });
});
