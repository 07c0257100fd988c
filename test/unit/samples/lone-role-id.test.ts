/**
 * An id named for the event's person where nothing else is the person's id (issue #94,
 * core/samples/role-id.ts `loneRoleIdQuestion`): a `patient_id`, `attendeeId` or `contact_id` is
 * offered with nothing preselected when no column is taken or asked as the person's id; never
 * beside one, never a business party's or an actor's, never filled.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const personAsks = (body: unknown) => guess(body).questions.filter((q) => q.target === 'user_id');
const filledPerson = (body: unknown) =>
  guess(body)
    .columns.filter((c) => c.target === 'user_id' || c.target === 'user.external_id')
    .map((c) => c.column);

/** A clinic's booking: the patient's, doctor's and clinic's ids side by side. */
const booking = {
  event: 'appointment.created',
  event_id: 'e-9f1',
  data: { appointment_id: 'ap-1', patient_id: '1746789', doctor_id: '1741590', clinic_id: 'cl-4' },
};

describe('the creator: a role-named id offered where nothing else is the person’s', () => {
  it('offers the patient’s id, nothing preselected, where the person’s id was missed', () => {
    assert.deepEqual(filledPerson(booking), []);
    const asks = personAsks(booking);
    assert.equal(asks.length, 1);
    assert.ok(asks[0]?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      asks[0]?.options.map((o) => o.column),
      ['data.patient_id'],
    );
  });

  it('offers camel-case and flat role ids, several at once', () => {
    const camel = {
      eventType: 'booking.created',
      identifiers: { bookingId: 'b1', attendeeId: 'a7', roomId: 'r2' },
    };
    assert.deepEqual(
      personAsks(camel)[0]?.options.map((o) => o.column),
      ['identifiers.attendeeId'],
    );
    const flat = { type: 'survey.answered', respondent_id: 'r-1', invitee_uuid: 'i-2', survey_id: 's-3' };
    assert.deepEqual(
      personAsks(flat)[0]?.options.map((o) => o.column),
      ['respondent_id', 'invitee_uuid'],
    );
  });

  it('asks nothing more where a person’s id is taken already', () => {
    const body = { ...booking, data: { ...booking.data, customer: { id: 'c-1', email: 'ada@example.org' } } };
    assert.ok(!personAsks(body).some((q) => q.options.some((o) => o.column === 'data.patient_id')));
  });

  it('never offers an id under a business party, nor an id named for no role', () => {
    const merchant = { type: 'payout.sent', merchant: { contact_id: 'm-1' }, payout_id: 'p-1' };
    assert.ok(!personAsks(merchant).some((q) => q.options.some((o) => o.column === 'merchant.contact_id')));
    const none = { type: 'room.booked', room_id: 'r-1', doctor_id: 'd-1', client_id: 'app-1' };
    assert.deepEqual(personAsks(none), []);
  });
});
