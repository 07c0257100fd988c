/**
 * An event id beside the event's type (issue #94, core/samples/event-envelope.ts): an object that
 * holds both the event's type, written as a type is, and an id named for an event is the event's
 * envelope wrapped once more, so that id is offered as the event's, preselected, never filled
 * silently. An id named so elsewhere, or beside a show's name, stays that object's.
 */
import assert from 'node:assert/strict';
import { besideEventType, namedEventId } from '../../../core/samples/event-envelope.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const idAsk = (body: unknown) => guess(body).questions.find((q) => (q.field ?? q.target) === 'event_id');
const field = (name: string) => ({
  name,
  type: 'string' as const,
  nullable: false,
  examples: [],
  distinct: 1,
});

describe('the creator: an event id beside the event’s type', () => {
  it('asks a wrapped envelope’s event_id as the event’s id, preselected', () => {
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
    const q = idAsk(body);
    assert.equal(q?.options[0]?.column, 'payload.event_id', JSON.stringify(q));
    assert.equal(q?.noneGuessed, undefined, 'preselected');
  });

  it('keeps a ticket’s event_id beside the show’s name as the show’s', () => {
    const body = {
      id: 'tk-1',
      payload: { event_id: 'ev-88', event_name: 'Rock night at the Bowl', seat: 'A12' },
    };
    assert.notEqual(idAsk(body)?.options[0]?.column, 'payload.event_id');
  });

  it('reads only a leaf that says event and id, beside a type token in the same object', () => {
    assert.equal(namedEventId('payload.event_id'), true);
    assert.equal(namedEventId('meta.eventId'), true);
    assert.equal(namedEventId('data.id'), false);
    assert.equal(namedEventId('data.profile_event_id'), false);
    const fields = [field('payload.event_id'), field('payload.event_type'), field('event_type')];
    const rows = (type: string) => [
      { 'payload.event_id': 'e-1', 'payload.event_type': type, event_type: 'a.b' },
    ];
    assert.equal(besideEventType('payload.event_id', fields, rows('crm.activity.created')), true);
    assert.equal(besideEventType('payload.event_id', fields, rows('TICKET_STATE_CHANGE')), true);
    assert.equal(besideEventType('payload.event_id', fields, rows('Rock night')), false);
    assert.equal(
      besideEventType('payload.event_id', fields.slice(0, 1).concat(fields[2] ?? []), rows('x.y')),
      false,
    );
    assert.equal(besideEventType('event_id', fields, rows('crm.activity.created')), false);
  });

  it('reads the type beside it by its leaf and by a type token in every row, anchored', () => {
    const at = (leaf: string, ...values: unknown[]) =>
      besideEventType(
        'payload.event_id',
        [field('payload.event_id'), field(`payload.${leaf}`), field(`other.${leaf}`)],
        values.map((v) => ({ 'payload.event_id': 'e-1', [`payload.${leaf}`]: v, [`other.${leaf}`]: 'a.b' })),
      );
    for (const leaf of ['type', 'event', 'event_type', 'eventName', 'topic'])
      assert.equal(at(leaf, 'a.b'), true, leaf);
    assert.equal(at('status', 'a.b'), false);
    for (const v of ['user:login', 'orders/create', 'invoice_paid', 'TICKET_CLOSED'])
      assert.equal(at('type', v), true, v);
    for (const v of ['Rock night.created', 'a.b c', 'Big rock_night', 'rock_night live', 'created', 7, null])
      assert.equal(at('type', v), false, String(v));
    assert.equal(at('type', 'a.b', 'Rock night'), false, 'every row');
    assert.equal(at('type'), false, 'no rows');
    // The type must sit in the id's own object, not another one.
    assert.equal(
      besideEventType(
        'payload.event_id',
        [field('payload.event_id'), field('other.type')],
        [{ 'payload.event_id': 'e-1', 'other.type': 'a.b' }],
      ),
      false,
    );
    assert.equal(namedEventId('meta.event_uuid'), true);
    assert.equal(namedEventId('meta.uuid'), false);
  });
});
