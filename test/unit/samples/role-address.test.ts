/**
 * An address named for the person's role beside a bare `email` (issue #94,
 * core/samples/role-address.ts): the bare address is asked, not filled; the role-named one is
 * preselected only where the event's name says the event happened to that person.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const targetOf = (body: unknown, column: string) =>
  guess(body).columns.find((c) => c.column === column)?.target;
const emailAsk = (body: unknown) => guess(body).questions.find((q) => q.target === 'user.email');

/** A sending API's unsubscribe: the sender's address bare, the person in a list of recipients. */
const unsubscribe = {
  email: 'news@shop.example.com',
  account: 'shop',
  timestamp: 1700000000,
  event: 'unsubscribed',
  recipients: ['reader@example.net'],
  message_id: '<m-1@shop.example.com>',
};

describe('the creator: a bare e-mail beside an address named for the person’s role', () => {
  it('asks rather than fills the bare address on an unsubscribe, the recipients preselected', () => {
    assert.notEqual(targetOf(unsubscribe, 'email'), 'user.email');
    const q = emailAsk(unsubscribe);
    assert.equal(q?.options[0]?.column, 'recipients');
    assert.equal(q?.noneGuessed, undefined, 'preselected');
    assert.ok(
      q?.options.some((o) => o.column === 'email'),
      'the bare address still offered',
    );
    assert.equal(targetOf(unsubscribe, 'recipients'), 'user.email');
  });

  it('preselects a single role-named address on a bounce', () => {
    const bounce = {
      type: 'bounced',
      email: 'billing@vendor.example.io',
      subscriber_email: 'ana@example.org',
      ts: '2026-05-01T10:00:00Z',
    };
    assert.equal(targetOf(bounce, 'subscriber_email'), 'user.email');
    assert.notEqual(targetOf(bounce, 'email'), 'user.email');
    assert.equal(emailAsk(bounce)?.options[0]?.column, 'subscriber_email');
  });

  it('preselects nothing where the event does not say it happened to that person', () => {
    const sent = {
      event: 'campaign.sent',
      email: 'owner@brand.example.com',
      to: 'bob@example.net',
      sent_at: '2026-05-01T10:00:00Z',
    };
    assert.notEqual(targetOf(sent, 'email'), 'user.email');
    assert.notEqual(targetOf(sent, 'to'), 'user.email');
    const q = emailAsk(sent);
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['to', 'email'],
    );
  });

  it('leaves a bare address alone where no address beside it names a role', () => {
    const signup = { event: 'unsubscribed', email: 'ana@example.org', list_id: 'l-1', at: 1700000000 };
    assert.equal(targetOf(signup, 'email'), 'user.email');
  });

  it('never reads a sender’s or a copy’s address as the person’s role', () => {
    const copied = {
      event: 'delivered',
      email: 'ana@example.org',
      reply_to: 'support@shop.example.com',
      cc_recipients: ['boss@shop.example.com'],
    };
    assert.equal(targetOf(copied, 'email'), 'user.email');
  });
});
