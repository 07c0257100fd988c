/**
 * A plain id offered where no event id is (issue #94, core/samples/plain-id-offer.ts): where no
 * column is taken or asked as the event's id, a plain id at the payload's top or directly in the
 * object it wraps its record in is offered with no answer preselected; nothing is filled.
 * Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { plainIdPlace } from '../../../core/samples/plain-id-offer.ts';
import { guesses, takenAs } from '../../support/page-steps.ts';

/** The event id question's options, whether it preselects none, and the columns filled as the event id. */
function offered(body: unknown) {
  const g = guesses(body);
  const q = g.questions.find((x) => (x.field ?? x.target) === 'event_id');
  return {
    columns: q?.options.map((o) => o.column) ?? [],
    none: q?.noneGuessed !== undefined,
    filled: takenAs(g, 'event_id'),
  };
}

describe('the creator: a plain id is offered where no event id is', () => {
  it('offers a top-level uid that is not the person’s, none preselected, and fills nothing', () => {
    const body = { uid: 'a1b2c3', time: 1588363619462, type: 'access.LOGIN', details: { username: 'ann' } };
    assert.deepEqual(offered(body), { columns: ['uid'], none: true, filled: [] });
  });

  it('offers the uid of the object a payload wraps its record in, whatever its values look like', () => {
    const body = {
      event: 'booking.created',
      object: { uid: 'ABCDEFGH', startAt: '2026-01-01T10:00:00Z', guest: 'x' },
    };
    assert.deepEqual(offered(body), { columns: ['object.uid'], none: true, filled: [] });
  });

  it('offers nothing where an event id is taken or asked, or the id is another object’s', () => {
    assert.deepEqual(
      offered({ event: 'order.created', order: { id: 'o_1', total: 5, currency: 'EUR' } }).columns,
      ['order.id'],
    );
    assert.deepEqual(offered({ event: 'user.login', ip: '1.2.3.4', session: { uid: 's_1' } }).columns, []);
  });

  it('reads a plain id at the top or in a record’s wrapper, and nowhere else', () => {
    assert.match(plainIdPlace('id') ?? '', /top/);
    assert.match(plainIdPlace('data._id') ?? '', /data, the object/);
    assert.equal(plainIdPlace('session.uid'), undefined);
    assert.equal(plainIdPlace('data.customer.id'), undefined);
    assert.equal(plainIdPlace('user_id'), undefined);
  });
});
