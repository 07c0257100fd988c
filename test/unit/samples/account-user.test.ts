/**
 * An account's user beside a message's sender (issue #94, core/samples/account-user.ts): in a
 * message whose person is its sender, a top-level user's id beside the account's own id is the
 * account's user, the business's side, never filled as the person's id. Without the account's id,
 * the sender or the message, or nested under an object, the rule reads nothing.
 * Payloads invented for these tests, in several shapes (names of the id, sender and account).
 */
import assert from 'node:assert/strict';
import { accountUser } from '../../../core/samples/account-user.ts';
import { fieldsOf } from '../../support/page-steps.ts';
import { guessOf } from './rule-fields.ts';

/** The columns filled as the person's id without asking. */
const personIds = (body: unknown) =>
  guessOf(body)
    .columns.filter((c) => c.target === 'user_id' || c.target === 'user.external_id')
    .map((c) => c.column);

/** An SMS reply as a messaging vendor posts it: the sender, the text, the account's ids. */
const reply = {
  from: '+15550142',
  to: '+15550100',
  body: 'Yes, see you then',
  user_id: 48211,
  subaccount_id: 5521,
  message_id: 'm-91',
  timestamp: '1710886316',
};

describe('the creator: an account’s user beside a message’s sender', () => {
  it('never fills the account user’s id as the person’s', () => {
    assert.ok(!personIds(reply).includes('user_id'));
    assert.match(accountUser(fieldsOf(reply))('user_id') ?? '', /account's user/);
  });

  it('reads the same of other names of the id, the sender, the text and the account', () => {
    const { from: _f, body: _b, user_id: _u, subaccount_id: _s, ...rest } = reply;
    const body = { ...rest, sender: '+15550142', text: 'ok', userId: 7, accountId: 'acc-1' };
    assert.ok(!personIds(body).includes('userId'));
    assert.notEqual(accountUser(fieldsOf(body))('userId'), undefined);
  });

  it('reads nothing without the account’s id, the sender or the message, nor nested', () => {
    const { subaccount_id: _, ...noAccount } = reply;
    assert.equal(accountUser(fieldsOf(noAccount))('user_id'), undefined);
    const { from: _f, ...noSender } = reply;
    assert.equal(accountUser(fieldsOf(noSender))('user_id'), undefined);
    const { body: _b, ...noMessage } = reply;
    assert.equal(accountUser(fieldsOf(noMessage))('user_id'), undefined);
    assert.equal(accountUser(fieldsOf({ ...reply, data: { user_id: 3 } }))('data.user_id'), undefined);
  });
});
