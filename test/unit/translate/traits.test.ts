/**
 * core/translate/traits.ts: a page's traits (Segment's names) split into the event contract's
 * `user` group and the rest, as the gateway does for the tag's form (test/gateway/tag-form.test.ts).
 */
import assert from 'node:assert/strict';
import { traitsOf, withTraitsSplit } from '../../../core/translate/traits.ts';

describe('translate: traits split into the user group', () => {
  it('takes camelCase or snake_case and aliases, keeps what the group would refuse in the rest', () => {
    const { user, rest } = traitsOf({
      email: 'ann@example.com',
      firstName: 'Ann',
      last_name: 'Lee',
      birthday: '1990-04-02T10:00:00.000Z',
      state: 'CA',
      postalCode: 94107,
      address: { city: 'San Francisco', country: 'US' },
      plan: 'gold',
      phone: 'x'.repeat(65),
      gender: '',
      company: { name: 'Acme' },
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
    // Too long for the group, no field of it, or no text: kept as the identify event's data.
    assert.deepEqual(Object.keys(rest).sort(), ['company', 'constructor', 'phone', 'plan']);
    assert.deepEqual(traitsOf({ date_of_birth: 'April 2nd' }), {
      user: {},
      rest: { date_of_birth: 'April 2nd' },
    });
    assert.deepEqual(traitsOf({ first_name: { given: 'Ann' } }).user, {});
  });

  it('splits an event: traits to user, an identify’s data to the rest; no traits, or traits no object, left as they are', () => {
    const traits = { email: 'ann@example.com', plan: 'gold' };
    assert.deepEqual(withTraitsSplit({ event_name: 'identify', traits, event_data: { ...traits } }), {
      event_name: 'identify',
      user: { email: 'ann@example.com' },
      event_data: { plan: 'gold' },
    });
    assert.deepEqual(withTraitsSplit({ event_name: 'lead', traits, event_data: { plan: 'x' } }), {
      event_name: 'lead',
      user: { email: 'ann@example.com' },
      event_data: { plan: 'x' },
    });
    const odd = { event_name: 'lead', traits: 'gold' };
    assert.equal(withTraitsSplit(odd), odd);
    const list = [{ traits }];
    assert.equal(withTraitsSplit(list), list);
  });
});
