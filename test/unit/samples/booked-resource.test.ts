/**
 * A booked resource and the account's user who booked it (issue #94,
 * core/samples/booked-resource.ts): in a body that books, the `resource` object (a staff member,
 * a room) and the envelope's `user` beside the wrapped booking are the business's side, never
 * filled as the person's id or e-mail. A `resource` in a body that books nothing keeps its reading.
 * Payloads invented for these tests, in several shapes (wrapper, kind value, booking-named column).
 */
import assert from 'node:assert/strict';
import { bookedResource } from '../../../core/samples/booked-resource.ts';
import { fieldsOf } from '../../support/page-steps.ts';
import { guessOf } from './rule-fields.ts';

/** The columns filled without asking as the person's id or e-mail. */
const filled = (body: unknown) =>
  guessOf(body)
    .columns.filter((c) => ['user_id', 'user.external_id', 'user.email'].includes(c.target))
    .map((c) => c.column);

/** A staff tool's booking: the room booked, the account's user who changed it. */
const booking = {
  id: 901,
  timestamp: 1734681600,
  payload: {
    type: 'booking',
    id: 77,
    start_date: '2026-06-01',
    resource: { id: 12, name: 'Dana Staff', email: 'dana@studio.example' },
    action: 'update',
  },
  user: { id: 5, name: 'Owner', email: 'owner@studio.example' },
};

describe('the creator: a booked resource and the account’s user', () => {
  it('fills neither the resource’s nor the acting user’s details as the person’s', () => {
    const got = filled(booking);
    for (const c of ['payload.resource.email', 'payload.resource.id', 'user.id', 'user.email'])
      assert.ok(!got.includes(c), `${c} in ${got.join()}`);
  });

  it('reads the same of a booking named by a column, and of a resource at the top', () => {
    const read = bookedResource(
      fieldsOf({ reservation_id: 'r-1', resources: { id: 3, email: 'room@x.example' }, guest_count: 2 }),
    );
    assert.match(read('resources.email') ?? '', /booking reserves/);
    const data = { data: { ...booking.payload, type: 'appointment' }, user: booking.user };
    assert.match(bookedResource(fieldsOf(data))('user.email') ?? '', /account's user/);
  });

  it('reads nothing where the body books nothing, nor an unwrapped user', () => {
    const paid = { id: 'p-1', type: 'payment', resource: { id: 'r-2', email: 'c@example.com' } };
    assert.equal(bookedResource(fieldsOf(paid))('resource.email'), undefined);
    const flat = { type: 'booking', resource: { id: 1 }, user: { id: 2, email: 'u@example.com' } };
    assert.equal(bookedResource(fieldsOf(flat))('user.email'), undefined);
  });
});
