/**
 * An id each status report of one thing shares is not the event's own (issue #94,
 * core/samples/shared-id.ts): a message's id on its delivery reports (queued, sent, delivered,
 * failed), a job's on its progress reports, is asked about, nothing preselected, even where the
 * body has no more specific id; an id beside a status that names no such step is still filled.
 * Payloads invented for these tests, in several shapes.
 */
import assert from 'node:assert/strict';
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

  it('still fills a message id beside a status that names no report step, or an id of no such thing', () => {
    for (const [body, column] of [
      [{ message_id: 'm-2', status: 'received', text: 'Hi', from: '+15550101' }, 'message_id'],
      [{ order_id: 'o-3', status: 'delivered', total: 10 }, 'order_id'],
      [{ message_id: 'm-4', body: 'Hello' }, 'message_id'],
    ] as const)
      assert.equal(sharedIdReason(fieldsOf(body), column), undefined, column);
  });
});
