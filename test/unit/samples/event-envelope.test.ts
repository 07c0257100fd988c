/**
 * An event id beside the event's name (issue #94, core/samples/event-envelope.ts): an object that
 * holds both the column naming the event and an id named for an event is the event's envelope,
 * wrapped once more, so that id is the event's. An id named so elsewhere stays that object's.
 */
import assert from 'node:assert/strict';
import { besideEventName, namedEventId } from '../../../core/samples/event-envelope.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const targetOf = (body: unknown, column: string) =>
  guess(body).columns.find((c) => c.column === column)?.target;

describe('the creator: an event id beside the event’s name', () => {
  it('takes a wrapped envelope’s event_id as the event’s id', () => {
    const body = {
      payload: {
        event_type: 'crm.activity.created',
        service_id: 'hubspot',
        event_id: 'd290f1ee-6c54-4b01-90e6-d701748f0851',
        entity_id: '123456ASDF',
        entity_type: 'activity',
        occurred_at: '2020-01-01T00:00:00.000Z',
      },
    };
    assert.equal(targetOf(body, 'payload.event_id'), 'event_id');
  });

  it('keeps an event id in an object without the event’s name as that object’s', () => {
    const body = {
      event_type: 'message.sent',
      id: 'evt_1',
      message: { event_id: '4b0c6d2e-58a1-4f7a-9a43-0c6c1b9e2f11', subject: 'Hi' },
    };
    assert.notEqual(targetOf(body, 'message.event_id'), 'event_id');
  });

  it('reads only a leaf that says event and id, never a plain id beside a type', () => {
    assert.equal(namedEventId('payload.event_id'), true);
    assert.equal(namedEventId('meta.eventId'), true);
    assert.equal(namedEventId('meta.event_uuid'), true);
    assert.equal(namedEventId('data.id'), false);
    assert.equal(namedEventId('data.profile_event_id'), false);
    assert.equal(besideEventName('data.id', ['data.type']), false);
    assert.equal(besideEventName('payload.event_id', ['payload.event_type']), true);
    assert.equal(besideEventName('payload.event_id', ['event_type']), false);
    assert.equal(besideEventName('event_id', ['event_type']), false);
  });
});
