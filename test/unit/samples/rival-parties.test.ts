/**
 * Rival candidates for the person are a question (issue #94, core/samples/rival-parties.ts and its
 * use in guess.ts): where a payload names a `user` beside another person's party (a contact, a
 * customer, a member), the person's id, e-mail and phone are never filled without asking; the id
 * question preselects the other party's over the user's, and a detail only the user then has
 * preselects no (kept as a field, still offered). One party, two parties of which one is
 * already the business's, or two person's parties with no user among them, ask nothing new.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { personParty, rivalPartyQuestions } from '../../../core/samples/rival-parties.ts';

function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return guessChoices(fields, sample.rows);
}
type Guesses = ReturnType<typeof read>;
const PERSON = new Set(['user_id', 'user.external_id', 'user.email', 'user.phone']);
/** The person's details filled with no question offering them: what goes out unasked. */
const silent = (g: Guesses) => {
  const asked = new Set(g.questions.flatMap((q) => q.options.map((o) => o.column)));
  return g.columns.filter((c) => PERSON.has(c.target) && !asked.has(c.column)).map((c) => c.column);
};
const rivalQuestions = (g: Guesses) =>
  g.questions.filter((q) => q.ask.startsWith('Whose') && /party/.test(q.ask));
const targetOf = (g: Guesses, column: string) => g.columns.find((c) => c.column === column)?.target;

/** A support call, flat: the customer's id beside the id, name and e-mail of the user who took it. */
const call = {
  ticket_id: 67890,
  contact_id: 11111,
  direction: 'INBOUND',
  user_id: 22222,
  user_name: 'Sam Agent',
  user_email: 'sam.agent@example.com',
  duration: 180,
};

describe('the creator: rival candidates for the person', () => {
  it('reads the person party a column belongs to, the outermost one, never a business or actor one', () => {
    assert.equal(personParty('user_email'), 'user');
    assert.equal(personParty('contact_id'), 'contact');
    assert.equal(personParty('member.discord_user_id'), 'member');
    assert.equal(personParty('data.customer.email'), 'customer');
    for (const none of ['owner.user.id', 'owner_email', 'actor.user_id', 'ticket_id', 'email'])
      assert.equal(personParty(none), undefined, none);
  });

  it('asks whose id and e-mail a user beside a contact holds, the contact preselected', () => {
    const g = read(call);
    assert.deepEqual(silent(g), []);
    const [id, email] = rivalQuestions(g);
    assert.equal(id?.target, 'user_id');
    assert.deepEqual(
      id?.options.map((o) => o.column),
      ['contact_id', 'user_id'],
    );
    assert.equal(targetOf(g, 'contact_id'), 'user_id');
    assert.equal(targetOf(g, 'user_id'), 'event_data');
    assert.equal(email?.target, 'user.email');
    assert.deepEqual(
      email?.options.map((o) => o.column),
      ['user_email'],
    );
    assert.match(email?.options[0]?.why ?? '', /contact \(contact_id\)/);
    // The contact is preselected as the person: the user's e-mail, the only one, is not the
    // person's by default, kept as a plain field and still offered.
    assert.match(
      email?.noneGuessed?.why ?? '',
      /^not the person's: the contact \(contact_id\) is preselected/,
    );
    assert.equal(targetOf(g, 'user_email'), 'event_data');
    assert.equal(g.columns.find((c) => c.column === 'user_email')?.field, 'user_email');
    assert.equal(id?.noneGuessed, undefined, 'the id question preselects the contact');
  });

  it('preselects no for every detail only the less likely party has, whatever its kind', () => {
    const g = read({
      id: 'evt_1',
      customer: { id: 'cus_1' },
      user: { id: 'usr_9', email: 'staff@example.com', phone: '+14155550100' },
    });
    assert.deepEqual(silent(g), []);
    const open = rivalQuestions(g).filter((q) => q.noneGuessed);
    assert.deepEqual(open.map((q) => q.target).sort(), ['user.email', 'user.phone']);
    assert.deepEqual(open.map((q) => q.options.map((o) => o.column)).sort(), [
      ['user.email'],
      ['user.phone'],
    ]);
    assert.equal(targetOf(g, 'user.email'), 'event_data');
    assert.equal(targetOf(g, 'user.phone'), 'event_data');
    assert.equal(targetOf(g, 'customer.id'), 'user.external_id');
  });

  it('preselects no for the user’s id when the contact’s e-mail is the one preselected', () => {
    const g = read({ user_id: 'u_2', user_email: 'sam@example.com', contact_email: 'a@example.com' });
    const id = rivalQuestions(g).find((q) => q.target === 'user_id');
    assert.deepEqual(
      id?.options.map((o) => o.column),
      ['user_id'],
    );
    assert.ok(id?.noneGuessed);
    assert.equal(targetOf(g, 'user_id'), 'event_data');
    assert.equal(targetOf(g, 'contact_email'), 'user.email');
  });

  it('says the likelier party has no such detail only when it has none', () => {
    // The contact's e-mail is asked about by another question: the user's is alone in its own.
    const fields = inferFields(
      parseSample(
        JSON.stringify({ contact_id: 'ct_1', contact_email: 'a@example.com', user_email: 's@example.com' }),
      ),
    );
    const base = [
      { column: 'contact_id', target: 'user_id', why: '' },
      { column: 'contact_email', target: 'event_data', field: 'contact_email', why: '' },
      { column: 'user_email', target: 'user.email', why: '' },
    ];
    const email = rivalPartyQuestions(fields, base, new Set(['contact_email'])).find(
      (q) => q.target === 'user.email',
    );
    assert.equal(
      email?.noneGuessed?.why,
      "not the person's: the contact (contact_id) is preselected as the person",
    );
    assert.equal(base[2]?.target, 'event_data');
  });

  it('asks about a detail that names no party, beside a user and a contact', () => {
    const g = read({ id: 'c_1', email: 'ada@example.com', contact_id: 'ct_1', user_id: 'u_2' });
    assert.deepEqual(silent(g), []);
    const email = rivalQuestions(g).find((q) => q.target === 'user.email');
    assert.deepEqual(
      email?.options.map((o) => o.column),
      ['email'],
    );
    assert.match(email?.options[0]?.why ?? '', /^its name and place name no party/);
    // Whose it is nothing says: the column itself stays the guess.
    assert.equal(email?.noneGuessed, undefined);
    assert.equal(targetOf(g, 'email'), 'user.email');
  });

  it('asks at any depth: a customer object beside a user object', () => {
    const g = read({
      id: 'evt_1',
      customer: { id: 'cus_1', email: 'ada@example.com' },
      user: { id: 'usr_9', email: 'staff@example.com' },
    });
    assert.deepEqual(silent(g), []);
    const email = rivalQuestions(g).find((q) => q.target === 'user.email');
    assert.deepEqual(email?.options.map((o) => o.column).sort(), ['customer.email', 'user.email']);
  });

  it('fills without asking where one party could be the person', () => {
    const g = read({
      id: 'evt_1',
      customer: { id: 'cus_1', email: 'ada@example.com', phone: '+14155550100' },
    });
    assert.deepEqual(rivalQuestions(g), []);
    assert.deepEqual(silent(g).sort(), ['customer.email', 'customer.id', 'customer.phone']);
  });

  it('leaves two person parties with no user among them, and a user list, to the other rules', () => {
    const order = read({
      id: 'ord_1',
      contact_email: 'ada@example.com',
      customer: { id: 'cus_1', email: 'ada@example.com' },
      group: { user_ids: [3, 4] },
    });
    assert.deepEqual(rivalQuestions(order), []);
    assert.ok(silent(order).includes('customer.id'));
  });

  it('asks nothing new where a business word already rules the other out', () => {
    const g = read({
      id: 't_1',
      customer: { id: 'cus_1', email: 'ada@example.com' },
      owner: { id: 'u_1', email: 'sam@example.com' },
    });
    assert.deepEqual(rivalQuestions(g), []);
    assert.ok(silent(g).includes('customer.id'));
  });

  it('asks about a user its name calls assigned beside the customer, the customer preselected', () => {
    const g = read({
      id: 't_1',
      customer_id: 'cus_1',
      customer_email: 'ada@example.com',
      assignee_user_id: 'u_1',
    });
    assert.deepEqual(silent(g), []);
    const id = rivalQuestions(g).find((q) => q.options.some((o) => o.column === 'assignee_user_id'));
    assert.equal(id?.options[0]?.column, 'customer_id');
  });
});
