/**
 * A party's own times are not the event's (issue #94, core/samples/party-time.ts and its use in
 * guess.ts): a time inside an object a party's name names (`invoice.customer.created_at`,
 * `merchant.updatedAt`) ranks below every other time, so the event's own time is taken; where
 * nothing else holds a time, the party's is still taken. A time whose own name says a party
 * (`customer_created_at`) is ranked as any other.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample, type TimeWindow } from '../../../core/samples/index.ts';
import { partyTime } from '../../../core/samples/party-time.ts';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const WINDOW: TimeWindow = { now: NOW, pastMs: 365 * 86_400_000, futureMs: 3_600_000 };
const ago = (days: number) => new Date(NOW - days * 86_400_000).toISOString();

function time(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows, { window: WINDOW }).eventTime;
}

describe('the creator: a party’s own time is not the event’s', () => {
  it('no longer dates an invoice by its customer’s creation: the invoice’s own date is taken', () => {
    const t = time({
      invoice: {
        number: 'INV-204',
        issuing_date: ago(1),
        customer: { external_id: 'c-9', name: 'Ada', created_at: ago(200) },
      },
    });
    assert.equal(t.column, 'invoice.issuing_date');
  });

  it('reads a merchant’s, a user’s and a signer’s creation the same way, beside the event’s own time', () => {
    const paid = time({ merchant: { id: 'm_1', created_at: ago(3) }, payment: { id: 'p_1', date: ago(1) } });
    assert.equal(paid.column, 'payment.date');
    const hook = time({
      user: { id: 'u_1', created_at: ago(90) },
      email_data: { token: 'x', sent_on: ago(1) },
    });
    assert.equal(hook.column, 'email_data.sent_on');
    const signed = time({
      signer: { key: 'k1', created_at: ago(30) },
      document: { key: 'd1', signed_on: ago(1) },
    });
    assert.equal(signed.column, 'document.signed_on');
    assert.match(partyTime('user.last_sign_in_at') ?? '', /of user, the person's own record/);
    assert.match(partyTime('data.merchant.created') ?? '', /the business's own record/);
  });

  it('still takes a party’s time when nothing else holds one, and one named for a party itself', () => {
    const alone = time({ subscriber: { id: 7, email: 'kim@example.com', created_at: ago(1) } });
    assert.equal(alone.column, 'subscriber.created_at');
    assert.equal(partyTime('customer_created_at'), undefined, 'its own name says whose: ranked as any');
    assert.equal(partyTime('order.created_at'), undefined, 'an order names no party');
  });
});
