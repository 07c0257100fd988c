/**
 * The rules of core/samples/person-id-evidence.ts one by one (docs/testing.md, its mutation run):
 * which of the person's details beside an id vouch for it (each leaf name, each contact word, an
 * e-mail's or phone's values), where "beside" ends, which objects above it are the person's, and
 * which columns are asked about.
 */
import assert from 'node:assert/strict';
import { lonePersonId, lonePersonIdQuestions } from '../../../core/samples/person-id-evidence.ts';
import type { QuestionColumn } from '../../../core/samples/questions.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

const field = (name: string, extra: Partial<InferredField> = {}): InferredField => ({
  name,
  type: 'string',
  examples: ['x_1'],
  distinct: 1,
  nullable: false,
  ...extra,
});
/** Whether a top-level `user_id` beside a column of this name (text, no format) is the person's. */
const vouches = (name: string, extra: Partial<InferredField> = {}) =>
  lonePersonId('user_id', [field('user_id'), field(name, extra)]) === undefined;

describe('creator: what vouches for a person’s id, rule by rule', () => {
  it('takes each leaf name of a person’s detail, written as one word or several', () => {
    for (const name of [
      'emailAddress',
      'emailaddress',
      'mail',
      'name',
      'full_name',
      'firstName',
      'last_name',
      'given_name',
      'familyName',
      'display_name',
      'phonenumber',
      'telephone',
    ])
      assert.ok(vouches(name), name);
    for (const name of ['nickname', 'company_name', 'mailbox', 'id', 'amount'])
      assert.ok(!vouches(name), name);
  });

  it('takes any leaf with a contact word in it', () => {
    for (const name of ['customer_email', 'contact_phone', 'work_mobile', 'sender_msisdn'])
      assert.ok(vouches(name), name);
  });

  it('takes values shaped as an e-mail or a phone under any name', () => {
    assert.ok(vouches('primary', { format: 'email', examples: ['ada@example.com'] }));
    assert.ok(vouches('primary', { format: 'phone', examples: ['+15551234567'] }));
    assert.ok(!vouches('primary', { format: 'url', examples: ['https://example.com'] }));
  });

  it('takes no detail of the business’s: under it or an actor, or named by its words or as its party', () => {
    // The merchant's contact, the account's user: a person, but the business's side.
    for (const name of ['merchant.contact.email', 'account.user.email', 'created_by.email'])
      assert.ok(!vouches(name), name);
    // A business word anywhere in the leaf, or a party acting for it (party.ts).
    for (const name of ['shop_support_email', 'merchant_support_phone', 'assignedUserPhone'])
      assert.ok(!vouches(name), name);
    assert.ok(vouches('company_contact_email'));
  });

  it('does not let the id vouch for itself', () => {
    const self = field('user_id', { format: 'email', examples: ['ada@example.com'] });
    assert.match(lonePersonId('user_id', [self, field('amount')]) ?? '', /nothing beside it/);
  });

  it('looks in the id’s own object however deep, and takes no other object as the person’s', () => {
    const deep = [field('data.object.user_id'), field('data.object.email')];
    assert.equal(lonePersonId('data.object.user_id', deep), undefined);
    assert.match(lonePersonId('data.object.user_id', [deep[0] as InferredField]) ?? '', /nothing beside it/);
    assert.match(lonePersonId('order.user_id', [field('order.user_id')]) ?? '', /nothing beside it/);
    assert.equal(lonePersonId('customer.user_id', [field('customer.user_id')]), undefined);
  });
});

describe('creator: which person’s ids are asked about', () => {
  const column = (name: string, target: string): QuestionColumn => ({
    field: field(name),
    target,
    role: { role: 'person', why: '' },
    alone: target,
  });

  it('asks about a lone id taken as the user id or the external id, and nothing else', () => {
    const questions = lonePersonIdQuestions(
      [column('user_id', 'user_id'), column('member_id', 'user.external_id'), column('total', 'event_data')],
      new Set(),
    );
    assert.deepEqual(
      questions.map((q) => [q.target, q.options.map((o) => o.column)]),
      [
        ['user_id', ['user_id']],
        ['user.external_id', ['member_id']],
      ],
    );
    assert.match(questions[0]?.ask ?? '', /^Is user_id the person's id\? Its name says so/);
  });

  it('asks nothing about a column another question already offers', () => {
    assert.deepEqual(lonePersonIdQuestions([column('user_id', 'user_id')], new Set(['user_id'])), []);
  });
});
