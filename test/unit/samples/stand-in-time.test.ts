/**
 * A time written as a stand-in (issue #94, core/samples/stand-in-time.ts): where no column is
 * taken as the event's time, columns named for when it happened whose values are a type's word, a
 * made-up number or an unparsed time are offered with no answer preselected. Payloads invented for
 * these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { answerQuestion } from '../../../core/samples/draft.ts';
import { namedForWhen, standInTime } from '../../../core/samples/stand-in-time.ts';
import { guessOf } from './rule-fields.ts';

const timeAsk = (body: unknown) => guessOf(body).questions.find((q) => q.target === 'event_time');

describe('the creator: a time written as a stand-in', () => {
  it('offers, none preselected, a timestamp the page writes as "string"', () => {
    const body = {
      event: 'reply_received',
      timestamp: 'string',
      email_id: 'em_1',
      lead_email: 'a@example.com',
    };
    const q = timeAsk(body);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['timestamp'],
    );
    assert.equal(guessOf(body).eventTime.column, undefined);
    const answered = answerQuestion(q, 'timestamp', guessOf(body).columns);
    assert.equal(answered.find((c) => c.column === 'timestamp')?.target, 'event_time');
  });

  it('offers a made-up number, a type’s word and an unparsed time under names for when it happened', () => {
    for (const [body, column] of [
      [
        { eventId: 'e_1', eventType: 'order.created', eventCreated: 1234567, data: { orderId: 5 } },
        'eventCreated',
      ],
      [
        { id: 'm_2', type: 'queued', message: { created_at: 'time', to: 'b@example.com' } },
        'message.created_at',
      ],
      [{ message_id: 'x_3', event: 'click', datetime: 'T2020-01-02 10:00:00Z+2:00' }, 'datetime'],
    ] as const) {
      assert.ok(
        timeAsk(body)?.options.some((o) => o.column === column),
        column,
      );
    }
  });

  it('asks nothing where a real time is taken, or where only a later step’s time is a stand-in', () => {
    assert.equal(
      timeAsk({ id: 'e_4', type: 'x', created_at: '2026-01-02T03:04:05Z', timestamp: 'string' }),
      undefined,
    );
    assert.equal(timeAsk({ id: 'e_5', type: 'x', updated_at: 'string', expires_at: 'date' }), undefined);
    assert.equal(timeAsk({ id: 'e_6', type: 'x', timezone: 'Europe/Paris' }), undefined);
    // A real time set aside (a later step's) is no place for a stand-in beside it.
    assert.equal(
      timeAsk({ id: 'e_7', type: 'x', expires_at: '2026-01-02T03:04:05Z', time: 'string' }),
      undefined,
    );
  });

  it('reads names for when it happened and stand-in values', () => {
    assert.equal(namedForWhen('data.occurred_at'), true);
    assert.equal(namedForWhen('eventCreated'), true);
    assert.equal(namedForWhen('updated_at'), false);
    assert.equal(namedForWhen('time_zone'), false);
    assert.equal(namedForWhen('ticket.created_by_id'), false);
    assert.equal(namedForWhen('delivery.processingTimeMillis'), false);
    assert.equal(standInTime('<timestamp>'), true);
    assert.equal(standInTime('string'), true);
    assert.equal(standInTime('Europe/Paris'), false);
    assert.equal(standInTime(12.5), false);
  });
});
