/**
 * The rules of core/samples/rival-parties.ts one at a time (docs/testing.md, its survivors): the
 * module's functions called directly on realistic payloads, each guess list written by hand as
 * guess.ts would hand it over, so that one rule decides each case.
 */
import assert from 'node:assert/strict';
import { personParty, rivalPartyQuestions } from '../../../core/samples/rival-parties.ts';
import { fieldsOf } from '../../support/page-steps.ts';

interface Guess {
  column: string;
  target: string;
  field?: string;
  why: string;
}
const guess = (column: string, target: string): Guess => ({ column, target, why: 'as guessed' });
const ask = (kind: string, parties: string) =>
  `Whose ${kind} is the person's? The payload names more than one party that could be the person: ${parties}.`;

describe('the creator: rival parties, rule by rule', () => {
  it('never reads a person party through a business word, above or below it', () => {
    // The customer's company and the company's contact are the business's side.
    assert.equal(personParty('customer.company_id'), undefined);
    assert.equal(personParty('company.contact_id'), undefined);
    assert.equal(personParty('contact_uuid'), 'contact');
  });

  it('words the id question, its options and the rewritten guesses, the likelier party first', () => {
    const fields = fieldsOf({ user_id: 'u_1', contact_id: 'ct_1', customer_uuid: 'cus_1' });
    const base = [
      guess('user_id', 'user_id'),
      guess('contact_id', 'event_data'),
      guess('customer_uuid', 'event_data'),
    ];
    const named = 'a contact (contact_id), a customer (customer_uuid)';
    assert.deepEqual(rivalPartyQuestions(fields, base, new Set()), [
      {
        target: 'user_id',
        ask: ask('id', 'user, contact, customer'),
        options: [
          {
            column: 'contact_id',
            why: "the contact's id: likelier the person's than the user's, a user being as often whoever works in the vendor's software",
          },
          { column: 'user_id', why: `the user's id; the payload also names ${named}` },
          { column: 'customer_uuid', why: "the customer's id" },
        ],
      },
    ]);
    assert.deepEqual(base, [
      {
        column: 'user_id',
        target: 'event_data',
        field: 'user_id_data',
        why: `the user's id, beside ${named}: kept as a field, asked above`,
      },
      {
        column: 'contact_id',
        target: 'user_id',
        why: "the contact's id, over the user's: asked above, preselected",
      },
      guess('customer_uuid', 'event_data'),
    ]);
  });

  it('words the e-mail and phone questions by their kind', () => {
    const fields = fieldsOf({
      user_email: 'sam@example.com',
      user_phone: '+14155550100',
      contact_email: 'ada@example.com',
      contact_phone: '+14155550199',
    });
    const base = [
      guess('user_email', 'user.email'),
      guess('user_phone', 'user.phone'),
      guess('contact_email', 'event_data'),
      guess('contact_phone', 'event_data'),
    ];
    const out = rivalPartyQuestions(fields, base, new Set());
    assert.deepEqual(
      out.map((q) => [q.target, q.ask, q.options.map((o) => o.column)]),
      [
        ['user.email', ask('e-mail address', 'user, contact'), ['contact_email', 'user_email']],
        ['user.phone', ask('phone number', 'user, contact'), ['contact_phone', 'user_phone']],
      ],
    );
    assert.deepEqual(
      base.map((g) => g.target),
      ['event_data', 'event_data', 'user.email', 'user.phone'],
    );
  });

  it('reads an e-mail or phone column by its values when its name does not say so', () => {
    const fields = fieldsOf({
      user_email: 'sam@example.com',
      user_mobile: '+14155550100',
      contact: { login: 'ada@example.com', mobile: '+14155550199' },
    });
    const base = [
      guess('user_email', 'user.email'),
      guess('user_mobile', 'user.phone'),
      guess('contact.login', 'event_data'),
      guess('contact.mobile', 'event_data'),
    ];
    const out = rivalPartyQuestions(fields, base, new Set());
    assert.deepEqual(
      out.map((q) => q.options.map((o) => o.column)),
      [
        ['contact.login', 'user_email'],
        ['contact.mobile', 'user_mobile'],
      ],
    );
  });

  it('reads a user_email column by its name when its values are hashed', () => {
    const fields = fieldsOf({ contact_id: 'ct_1', user_email: '3f2a9c0b7e' });
    const out = rivalPartyQuestions(
      fields,
      [guess('contact_id', 'user_id'), guess('user_email', 'user.email')],
      new Set(),
    );
    // The user's e-mail makes the user a party: the contact's id is asked about too.
    assert.deepEqual(
      out.map((q) => q.target),
      ['user_id', 'user.email'],
    );
  });

  it("reads a column's kind by its own name, not by the object above it", () => {
    // An e-mail sent: the user who sent it is named under `email`, and holds an id, not an e-mail.
    const fields = fieldsOf({ contact_id: 'ct_1', email: { user_id: 'u_9', subject: 'Hi' } });
    const [id] = rivalPartyQuestions(fields, [guess('contact_id', 'user_id')], new Set());
    assert.deepEqual(
      id?.options.map((o) => o.column),
      ['contact_id', 'email.user_id'],
    );
  });

  it('leaves out a party whose column is always empty', () => {
    const fields = fieldsOf({ user_id: 'u_1', contact_id: null });
    assert.deepEqual(rivalPartyQuestions(fields, [guess('user_id', 'user_id')], new Set()), []);
  });

  it('asks nothing where no user is among the parties', () => {
    const fields = fieldsOf({ customer_id: 'cus_1', contact_email: 'ada@example.com' });
    const base = [guess('customer_id', 'user_id'), guess('contact_email', 'user.email')];
    assert.deepEqual(rivalPartyQuestions(fields, base, new Set()), []);
    assert.deepEqual(base, [guess('customer_id', 'user_id'), guess('contact_email', 'user.email')]);
  });

  it('preselects nothing new between two parties that are neither a user', () => {
    const fields = fieldsOf({ customer_id: 'cus_1', contact_id: 'ct_1', user_id: 'u_1' });
    const base = [
      guess('customer_id', 'user_id'),
      guess('contact_id', 'event_data'),
      guess('user_id', 'event_data'),
    ];
    const [id] = rivalPartyQuestions(fields, base, new Set());
    assert.deepEqual(
      id?.options.map((o) => o.column),
      ['customer_id', 'contact_id', 'user_id'],
    );
    assert.equal(base[0]?.target, 'user_id');
    assert.equal(base[1]?.target, 'event_data');
  });

  it("offers only other parties' details of the question's kind", () => {
    // A CRM's contact with two ids of its own, beside a user's GUID and e-mail.
    const fields = fieldsOf({
      contact: { id: 'ct_1', uuid: '0b7e3f2a-9c1d-4e5f-8a6b-1c2d3e4f5a6b' },
      user_guid: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
      user_email: 'sam@example.com',
    });
    const base = [
      guess('contact.id', 'user_id'),
      guess('contact.uuid', 'event_data'),
      guess('user_guid', 'event_data'),
      guess('user_email', 'user.email'),
    ];
    const out = rivalPartyQuestions(fields, base, new Set());
    assert.deepEqual(
      out.map((q) => [q.target, q.options.map((o) => o.column)]),
      [
        ['user_id', ['contact.id', 'user_guid']],
        ['user.email', ['user_email']],
      ],
    );
  });

  it('asks nothing about a detail that names no party where the user is the only party', () => {
    const fields = fieldsOf({ id: 'c_1', email: 'ada@example.com', user_id: 'u_2' });
    assert.deepEqual(rivalPartyQuestions(fields, [guess('email', 'user.email')], new Set()), []);
  });

  it('invents no guess for a rival column the guesses do not hold', () => {
    const fields = fieldsOf({ user_id: 'u_1', contact_id: 'ct_1' });
    const base = [guess('user_id', 'user_id')];
    const [id] = rivalPartyQuestions(fields, base, new Set());
    assert.equal(id?.options[0]?.column, 'contact_id');
    assert.equal(base.length, 1);
    assert.equal(base[0]?.target, 'event_data');
  });

  it('names only the parties in the question of a detail that names none', () => {
    const fields = fieldsOf({ id: 'c_1', email: 'ada@example.com', contact_id: 'ct_1', user_id: 'u_2' });
    const [email] = rivalPartyQuestions(fields, [guess('email', 'user.email')], new Set());
    assert.equal(email?.ask, ask('e-mail address', 'contact, user'));
    assert.deepEqual(email?.options, [
      {
        column: 'email',
        why: 'its name and place name no party; the payload also names a contact (contact_id), a user (user_id)',
      },
    ]);
  });

  it("keeps a user's lone e-mail as the person's when no likelier party is preselected", () => {
    // The contact's id was asked about elsewhere and kept as a field.
    const fields = fieldsOf({ contact_id: 'ct_1', user_email: 'sam@example.com' });
    const base = [guess('contact_id', 'event_data'), guess('user_email', 'user.email')];
    const [email] = rivalPartyQuestions(fields, base, new Set(['contact_id']));
    assert.equal(email?.target, 'user.email');
    assert.equal(email?.noneGuessed, undefined);
    assert.equal(base[1]?.target, 'user.email');
  });

  it("says the likelier party holds no detail of the lone one's kind, in the question and the guess", () => {
    const fields = fieldsOf({ contact_id: 'ct_1', user_email: 'sam@example.com' });
    const base = [guess('contact_id', 'user_id'), guess('user_email', 'user.email')];
    const out = rivalPartyQuestions(fields, base, new Set());
    const why =
      "the contact (contact_id) is preselected as the person, and the payload holds no e-mail address of the contact's";
    assert.deepEqual(out[1]?.noneGuessed, { why: `not the person's: ${why}` });
    assert.equal(out[0]?.noneGuessed, undefined);
    assert.deepEqual(base[1], {
      column: 'user_email',
      target: 'event_data',
      field: 'user_email',
      why: `the user's e-mail address, while ${why}: kept as a field, asked above`,
    });
  });
});
