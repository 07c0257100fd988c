/** The explorer's property search: a condition parsed and made into SQL (core/console/explorer.ts). */
import assert from 'node:assert/strict';
import { parsePropertyFilter, propertyCondition } from '../../../core/console/explorer.ts';

const parsed = (text: string) => {
  const f = parsePropertyFilter(text);
  assert.ok(!('problem' in f), JSON.stringify(f));
  return f;
};

describe('console: the explorer’s property search', () => {
  it('reads a path, an operator and a value; numbers for <, >, <=, >=; quotes make text', () => {
    assert.deepEqual(parsed('properties.value > 100'), { path: 'properties.value', op: '>', value: 100 });
    assert.deepEqual(parsed('user.email = "a b@example.com"'), {
      path: 'user.email',
      op: '=',
      value: 'a b@example.com',
    });
    assert.deepEqual(parsed("source != 'web'"), { path: 'source', op: '!=', value: 'web' });
    assert.deepEqual(parsed('attributes.translator contains shop'), {
      path: 'attributes.translator',
      op: 'contains',
      value: 'shop',
    });
  });

  it('makes SQL of checked names only: the value is always @property_value', () => {
    assert.equal(
      propertyCondition(parsed('properties.cart.total >= 10')),
      "SAFE_CAST(CAST(JSON_VALUE(event_data, '$.cart.total') AS STRING) AS FLOAT64) >= @property_value",
    );
    assert.equal(
      propertyCondition(parsed('user.email = x')),
      'CAST(`user`.`email` AS STRING) = @property_value',
    );
    const hostile = parsed(`properties.currency = "' OR 1=1 --"`);
    assert.ok(!propertyCondition(hostile).includes('OR 1=1'));
  });

  it('refuses an unknown path, a record or JSON column as a whole, and a word compared with >', () => {
    for (const [text, why] of [
      ['nope = 1', /unknown path "nope"/],
      ['user = 1', /unknown path "user"/],
      ['event_data = 1', /unknown path "event_data"/],
      ['properties = 1', /unknown path "properties"/],
      ["properties.a'b = 1", /must be a path, an operator/],
      ['properties.value > many', /compares with > only to a number/],
      ['properties.value =', /needs a value/],
    ] as const) {
      const f = parsePropertyFilter(text);
      assert.ok('problem' in f, text);
      assert.match(f.problem, why, text);
    }
  });
});
