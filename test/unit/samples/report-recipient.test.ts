/**
 * A status report's recipient (issue #94, core/samples/report-recipient.ts): where no phone is
 * taken or asked, the number a delivery report is about (`to`, `destination`, `msisdn`), beside a
 * status, state or code, is offered as the person's phone with nothing preselected; not without a
 * status beside it, not an inbound message's, not a column of no number. Payloads invented for
 * these tests, in several shapes.
 */
import assert from 'node:assert/strict';
import { guesses, takenAs } from '../../support/page-steps.ts';

/** The page's question on the person's phone for `body`, if it asks one. */
const phoneAsk = (body: unknown) => guesses(body).questions.find((q) => q.target === 'user.phone');

describe('the creator: a status report’s recipient', () => {
  it('offers, none preselected, the number a delivery report with a numeric status is about', () => {
    const body = {
      date: '2025-07-01T09:00:00+02:00',
      status: 3,
      destination: '41790001122',
      message_id: '55',
    };
    const q = phoneAsk(body);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['destination'],
    );
    assert.deepEqual(takenAs(guesses(body), 'user.phone'), [], 'nothing filled');
  });

  it('reads a destination beside a word status, a masked msisdn in a report object', () => {
    for (const [body, column] of [
      [{ sms: { id: 'a-1', destination: '+447700900321', delivery_status: 'delivered' } }, 'sms.destination'],
      [{ report: { id: 7, state: 'failed', msisdn: '+3161234xxxx' } }, 'report.msisdn'],
    ] as const)
      assert.deepEqual(
        phoneAsk(body)?.options.map((o) => o.column),
        [column],
        column,
      );
  });

  it('offers nothing without a status, for an inbound message, or for a `to` of no number', () => {
    for (const body of [
      { message_id: 'b-2', to: '+447700900322', body: 'Hi' },
      { message_id: 'b-3', direction: 'inbound', status: 'received', to: '+447700900323' },
      { ticket: { id: 4, status: 'open', to: 'support-team' } },
    ])
      assert.ok(!phoneAsk(body)?.options.some((o) => /(^|\.)to$/.test(o.column)), JSON.stringify(body));
  });
});
