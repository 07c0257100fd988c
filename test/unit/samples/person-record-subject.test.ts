/**
 * The person's record as what the event is about (issue #94, core/samples/person-record.ts's
 * personRecordEventIdQuestion and its use in guess.ts): a payload with no id of its own that
 * carries a person's record whole, whose own id is taken as the person's, offers that id as the
 * event's with no answer preselected; it stays the person's id. A payload with its own event id,
 * a record that is no person's, or a person's id at the payload's top are left as they were.
 */
import assert from 'node:assert/strict';
import { guesses, targetOf } from '../../support/page-steps.ts';

const eventIdAsk = (g: ReturnType<typeof guesses>) =>
  g.questions.find((q) => (q.field ?? q.target) === 'event_id');

describe('the creator: a person’s record as the event’s subject', () => {
  it('offers a subscriber’s own id as the event’s, none preselected, where the event id was missed', () => {
    const g = guesses({
      subscriber: { id: 88123, first_name: 'Lior', email_address: 'lior@example.com', state: 'active' },
    });
    assert.equal(targetOf(g, 'subscriber.id'), 'user.external_id', 'still the person’s id');
    const q = eventIdAsk(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['subscriber.id'],
    );
    assert.ok(q?.noneGuessed);
  });

  it('reads a nested contact with a phone the same way', () => {
    const g = guesses({
      action: 'created',
      payload: { contact: { _id: 'c_71', firstName: 'Maya', lastName: 'Cohen', phone: '+972541234567' } },
    });
    assert.equal(eventIdAsk(g)?.options[0]?.column, 'payload.contact._id');
  });

  it('leaves a payload with its own id, a record of no person, and a bare person id', () => {
    const own = guesses({
      event_id: 'evt_1',
      subscriber: { id: 5, first_name: 'Lior', email_address: 'lior@example.com' },
    });
    assert.equal(targetOf(own, 'event_id'), 'event_id');
    assert.ok(!eventIdAsk(own)?.options.some((o) => o.column === 'subscriber.id'));
    const thing = guesses({ device: { id: 'd_1', model: 'Pixel', os: 'android' } });
    assert.ok(!eventIdAsk(thing)?.options.some((o) => o.column === 'device.id'));
    const bare = guesses({ user_id: 4411, locations: [1, 2] });
    assert.ok(!eventIdAsk(bare)?.options.some((o) => o.column === 'user_id'));
  });
});
