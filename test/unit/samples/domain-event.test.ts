/**
 * An object named `event` that describes a domain thing (issue #94, core/samples/domain-event.ts):
 * a class, a meeting or a calendar entry's id is not the webhook event's id, so the page asks
 * which column is, nothing preselected, offering the other records' ids; an `event` object that
 * carries the event's type or name stays the envelope and its id is filled. Payloads invented for
 * these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { domainEventReason } from '../../../core/samples/domain-event.ts';
import { fieldsOf, guesses, takenAs } from '../../support/page-steps.ts';

const eventIdQuestion = (body: unknown) => guesses(body).questions.find((q) => q.target === 'event_id');

describe('the creator: an object named event that is a domain thing', () => {
  it('asks, none preselected, about a booked class’s event.id, offering the slot’s id', () => {
    const body = {
      event: { id: '5f1c-class', title: 'Pilates', plan_code: 'GOLD' },
      user: { name: 'Ana', email: 'ana@example.com' },
      slot: { id: 'slot-91', status: 'active', date: '2025-04-01T00:00:00Z' },
    };
    const g = guesses(body);
    assert.deepEqual(takenAs(g, 'event_id'), []);
    const q = eventIdQuestion(body);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['slot.id', 'event.id'],
    );
  });

  it('asks the same of a meeting and a calendar entry nested under data', () => {
    for (const [body, column] of [
      [
        {
          data: {
            event: { uuid: 'ev-7', summary: 'Quarterly review', start: '2025-05-02T09:00:00Z' },
            booking: { id: 'bk-3', email: 'jo@example.com' },
          },
        },
        'data.event.uuid',
      ],
      [
        { payload: { event: { id: 88, location: 'Room 4', starts_at: '2025-06-01T18:00:00Z' } } },
        'payload.event.id',
      ],
    ] as const) {
      assert.deepEqual(takenAs(guesses(body), 'event_id'), [], column);
      assert.ok(
        eventIdQuestion(body)?.options.some((o) => o.column === column),
        column,
      );
      assert.match(domainEventReason(fieldsOf(body), column) ?? '', /a thing called an event/, column);
    }
  });

  it('keeps an event object that names the event’s type as the envelope', () => {
    for (const body of [
      { event: { id: 'evt_1', type: 'booking.created', title: 'Yoga' }, booking: { id: 'b1' } },
      { data: { event: { id: 'evt_2', name: 'meeting.started', start: '2025-05-02T09:00:00Z' } } },
    ])
      assert.equal(domainEventReason(fieldsOf(body), takenAs(guesses(body), 'event_id')[0] ?? ''), undefined);
    assert.deepEqual(
      takenAs(guesses({ event: { id: 'evt_1', type: 'booking.created', title: 'Yoga' } }), 'event_id'),
      ['event.id'],
    );
  });

  it('reads nothing into an event object that describes no thing, or an id at the top', () => {
    assert.equal(
      domainEventReason(fieldsOf({ event: { id: 'e1', created_at: '2025-01-01' } }), 'event.id'),
      undefined,
    );
    assert.equal(domainEventReason(fieldsOf({ id: 'e1', title: 'Yoga' }), 'id'), undefined);
  });
});
