/**
 * A person record's own id no rule took (issue #94, core/samples/person-record.ts's
 * personRecordOwnIdQuestion and its use in guess.ts): with no column taken or asked about as the
 * person's id, the plain id of a record holding a person's name beside their contact details, and
 * no money, is asked about as the person's: preselected when it is the only one, offered with no
 * answer preselected when there are several; never an order's, an address's, a business party's
 * or an actor's, never filled silently.
 */
import assert from 'node:assert/strict';
import { guesses, takenAs } from '../../support/page-steps.ts';

/** The question about a person record's id, and the columns taken as the person's id (either kind). */
const read = (body: unknown) => {
  const g = guesses(body);
  return {
    ask: g.questions.find(
      (q) => q.target === 'user_id' && /record of a person/.test(q.options[0]?.why ?? ''),
    ),
    taken: takenAs(g, 'user_id', 'user.external_id'),
  };
};

describe('the creator: a person record’s own id', () => {
  it('asks about a created customer’s own id, preselected', () => {
    const { ask, taken } = read({
      event_id: 'f7eb1338-0934-4cda-8128-d6a77761a368',
      event_type: 'customer.created',
      data: { id: 32234664, first_name: 'Ana', last_name: 'Lima', email: 'ana@example.com' },
    });
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['data.id'],
    );
    assert.equal(ask?.noneGuessed, undefined);
    assert.deepEqual(taken, ['data.id']);
  });

  it('asks in other shapes: a profile with a phone, a nested record with an address', () => {
    for (const [body, column] of [
      [
        {
          event_id: 'evt_9',
          event: 'profile.created',
          profile: { _id: 'c_81', fullName: 'Ana Lima', phone: '+15551234567' },
        },
        'profile._id',
      ],
      [
        { id: 'evt_1', payload: { record: { uuid: 'u-1', firstName: 'Ana', address: 'Rua 1' } } },
        'payload.record.uuid',
      ],
    ] as const) {
      const { ask, taken } = read(body);
      assert.deepEqual(
        ask?.options.map((o) => o.column),
        [column],
        column,
      );
      assert.deepEqual(taken, [column], column);
    }
  });

  it('offers several records of people with no answer preselected', () => {
    const { ask, taken } = read({
      id: 'evt_1',
      from: { id: 'p1', first_name: 'Ana', email: 'ana@example.com' },
      into: { id: 'p2', first_name: 'Bea', email: 'bea@example.com' },
    });
    assert.ok(ask?.noneGuessed);
    assert.equal(ask.options.length, 2);
    assert.deepEqual(taken, []);
  });

  it('never asks about an order’s, an address’s, a business party’s or an actor’s record', () => {
    const person = { first_name: 'Ana', email: 'ana@example.com' };
    assert.equal(
      read({ id: 'e1', order: { id: 'o1', ...person, total: 1200, currency: 'EUR' } }).ask,
      undefined,
    );
    assert.equal(read({ id: 'e1', shipping_address: { id: 'a1', ...person, city: 'Porto' } }).ask, undefined);
    assert.equal(read({ id: 'e1', merchant: { id: 'm1', ...person } }).ask, undefined);
    assert.equal(read({ id: 'e1', changer: { id: 'u1', ...person } }).ask, undefined);
  });

  it('never asks about a record without a name and a contact detail', () => {
    assert.equal(read({ id: 'e1', data: { id: 'x1', first_name: 'Ana', plan: 'pro' } }).ask, undefined);
    assert.equal(
      read({ id: 'e1', data: { id: 'x1', email: 'ana@example.com', plan: 'pro' } }).ask,
      undefined,
    );
  });

  it('asks nothing when the person’s id is already taken', () => {
    const { ask, taken } = read({
      id: 'e1',
      customer: { id: 'cus_1' },
      data: { id: 'x1', first_name: 'Ana', email: 'ana@example.com' },
    });
    assert.deepEqual(taken, ['customer.id']);
    assert.equal(ask, undefined);
  });
});
