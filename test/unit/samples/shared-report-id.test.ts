/**
 * An id each status report of one thing shares is not the event's own (issue #94,
 * core/samples/shared-id.ts): a message's id on its delivery reports (queued, sent, delivered,
 * failed), a job's on its progress reports, is asked about, nothing preselected, even where the
 * body has no more specific id. The report is told by its shape (a status, state or code beside
 * the id, a word or a numeric code), not by its status's words; an id with no status beside it,
 * or of no reported thing, is still filled.
 * Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { sharedIdReason } from '../../../core/samples/shared-id.ts';
import { fieldsOf } from '../../support/page-steps.ts';
import { eventIdAsk, eventIdFilled } from './rule-fields.ts';

describe('the creator: an id every status report of one thing shares', () => {
  it('asks, none preselected, rather than take a delivery report’s message_id as the event’s', () => {
    const body = {
      message_id: '9d0c-44aa',
      from: 'ShopCo',
      to: '+447700900123',
      status: 'delivered',
      sent: '2025-02-01T10:00:00Z',
      delivered: '2025-02-01T10:00:03Z',
    };
    assert.deepEqual(eventIdFilled(body), []);
    const q = eventIdAsk(body);
    assert.ok(q?.noneGuessed);
    assert.ok(q.options.some((o) => o.column === 'message_id'));
  });

  it('asks the same of a nested SMS id on a failure and a job’s id on its progress', () => {
    for (const [body, column] of [
      [{ data: { sms_id: 'S-77', state: 'failed', error_code: 30003 } }, 'data.sms_id'],
      [{ job: { id: 'job_5', status: 'processing', percent: 40 } }, 'job.id'],
      [{ messageId: 'm-1', deliveryStatus: 'queued', recipient: '+15550100' }, 'messageId'],
    ] as const)
      assert.match(sharedIdReason(fieldsOf(body), column) ?? '', /each of its status reports shares/, column);
  });

  it('asks, none preselected, of a delivery report whose status is a numeric code', () => {
    const body = {
      date: '2025-05-02T09:30:00+02:00',
      status: 3,
      destination: '41790000000',
      message_id: '88123',
      campaign_ref: 'c-9',
    };
    assert.deepEqual(eventIdFilled(body), []);
    const q = eventIdAsk(body);
    assert.ok(q?.noneGuessed);
    assert.ok(q.options.some((o) => o.column === 'message_id'));
  });

  it('reads a code or a state beside the id, a number or a word, in any object', () => {
    for (const [body, column] of [
      [{ report: { sms_id: 'S-1', code: 0, msisdn: '+4479000' } }, 'report.sms_id'],
      [{ messageId: 'm-9', statusCode: 200 }, 'messageId'],
      [{ data: { message_id: 'x', state: 'ACCEPTD' } }, 'data.message_id'],
      [{ job: { id: 'j-1', state: 7 } }, 'job.id'],
    ] as const)
      assert.match(sharedIdReason(fieldsOf(body), column) ?? '', /each of its status reports shares/, column);
  });

  it('still fills a message id with no status beside it, or an id of no reported thing', () => {
    for (const [body, column] of [
      [{ message_id: 'm-2', direction: 'inbound', text: 'Hi', from: '+15550101' }, 'message_id'],
      [{ message_id: 'm-5', data: { status: 2 } }, 'message_id'],
      [{ order_id: 'o-3', status: 'delivered', total: 10 }, 'order_id'],
      [{ message_id: 'm-4', body: 'Hello' }, 'message_id'],
    ] as const)
      assert.equal(sharedIdReason(fieldsOf(body), column), undefined, column);
  });

  it('asks of a report that is a list’s item, its id written as one word (held-out-27’s SMS gateway)', () => {
    const sample = parseSample(
      JSON.stringify({
        reports: [
          { kind: 'status', messageid: 'ab12cd', to: '447700900555', status: 'delivered', status_code: 4 },
        ],
      }),
      { records: 'reports' },
    );
    const g = guessChoices(inferFields(sample), sample.rows);
    assert.deepEqual(
      g.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
      [],
    );
    const q = g.questions.find((x) => x.target === 'event_id');
    assert.ok(q?.noneGuessed);
    assert.ok(q.options.some((o) => o.column === 'messageid'));
    for (const [body, column] of [
      [{ smsid: 'S-2', state: 'failed' }, 'smsid'],
      [{ data: { msgId: 'm-3', code: 0 } }, 'data.msgId'],
    ] as const)
      assert.match(sharedIdReason(fieldsOf(body), column) ?? '', /each of its status reports shares/, column);
  });

  it('asks of an object’s plain id beside an old and a new status, where no column names the event', () => {
    // held-out-27's mailing: the message's own id beside its status change, no event id.
    const body = {
      id: '5f1c-aa90',
      bulkId: 'b-1',
      oldStatus: 'QUEUED',
      newStatus: 'SENT',
      oldStatusCode: 1,
      newStatusCode: 3,
    };
    assert.deepEqual(eventIdFilled(body), []);
    assert.ok(eventIdAsk(body)?.noneGuessed);
    for (const [other, column] of [
      [{ ticket: { id: 't-1', previous_state: 'open', current_state: 'closed' } }, 'ticket.id'],
      [{ id: 'p-1', from_status: 'pending', to_status: 'shipped' }, 'id'],
    ] as const)
      assert.match(sharedIdReason(fieldsOf(other), column) ?? '', /whose status changed/, column);
  });

  it('keeps an id beside a status change where a column names the event, or with one side only', () => {
    assert.equal(
      sharedIdReason(
        fieldsOf({ type: 'order.status_changed', id: 'e-1', old_status: 'paid', new_status: 'shipped' }),
        'id',
      ),
      undefined,
    );
    assert.equal(sharedIdReason(fieldsOf({ userid: 'u-4', status: 'active' }), 'userid'), undefined);
    // One side only is no status change; a bare record's id is still asked, as the record's.
    for (const body of [
      { id: 'x-2', new_status: 'active', plan: 'pro' },
      { id: 'x-3', old_name: 'A', new_name: 'B' },
    ]) {
      const why = sharedIdReason(fieldsOf(body), 'id') ?? '';
      assert.doesNotMatch(why, /whose status changed/, body.id);
      assert.match(why, /the record the body is, which every later event about it repeats/, body.id);
    }
  });
});
