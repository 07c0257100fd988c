/**
 * The ledger's reason column (core/delivery/ledger.ts): a platform's error text may echo what it
 * was sent; the row keeps the identifier's kind, never its value, so erasure has nothing to find.
 */
import assert from 'node:assert/strict';
import { attemptEntry, MAX_REASON_CHARS } from '../../../core/delivery/ledger.ts';

const attempt = (reason: string) =>
  attemptEntry({
    event_id: 'e1',
    event_name: 'lead',
    destination: 'crm',
    status: 'rejected',
    reason,
    attempt: 1,
    httpStatus: 409,
    replay: false,
    messageId: 'm1',
    now: new Date('2026-11-25T12:00:00Z'),
  }).row.reason;

describe('ledger: the reason of an attempt', () => {
  it('keeps an echoed e-mail, phone number and token as their kinds', () => {
    const reason = attempt(
      'HTTP 409: {"detail":"profile ana@example.com exists","phone":"+33 6 12 34 56 78","key":"EAAGm0PX4ZCpsBAKZAZ"}',
    );
    assert.equal(reason, 'HTTP 409: {"detail":"profile [email] exists","phone":"[phone]","key":"[token]"}');
  });

  it('leaves a reason of our own as it is, bounded as before', () => {
    assert.equal(
      attempt('secret access_token is missing for destination crm'),
      'secret access_token is missing for destination crm',
    );
    assert.equal(attempt('x'.repeat(2000))?.length, MAX_REASON_CHARS);
  });
});
