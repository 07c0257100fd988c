/**
 * The person record's own id (issue #94, core/samples/person-record.ts and its use in guess.ts):
 * where the record IS the person (their name beside their e-mails, phones or address, no money),
 * its own `id` is the person's id, and a sibling compound id that points at another record (the
 * customer organisation a contact belongs to) is never filled as the person's: kept as a field,
 * asked about with no answer preselected. A `customer_id` on an order, or on an address record,
 * is still the buyer's.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { isPersonRecord } from '../../../core/samples/person-record.ts';

function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return { fields, guesses: guessChoices(fields, sample.rows) };
}
const PERSON_ID = new Set(['user_id', 'user.external_id']);
const targetOf = (g: ReturnType<typeof read>['guesses'], column: string) =>
  g.columns.find((c) => c.column === column)?.target;
/** The person's id filled with no question offering it: what goes out unasked. */
const silentPersonIds = (g: ReturnType<typeof read>['guesses']) => {
  const asked = new Set(g.questions.flatMap((q) => q.options.map((o) => o.column)));
  return g.columns.filter((c) => PERSON_ID.has(c.target) && !asked.has(c.column)).map((c) => c.column);
};

/** A CRM webhook whose body is the contact: its own id, the buyer organisation's and the seller's. */
const contact = {
  id: 'CONT-7f1c2a90-1b2c-4d3e-8f90-a1b2c3d4e5f6',
  customerId: 'CUST-0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d',
  companyId: 'COMP-11223344-5566-4778-8899-aabbccddeeff',
  firstName: 'Ada',
  lastName: 'Lovelace',
  addressDetails: { address: '12 Analytical Row', city: 'London', zipCode: 'N1 9GU', country: 'GB' },
  phoneNumbers: [{ type: 'PRIVATE', number: '+44 20 7946 0958' }],
  emails: [{ type: 'WORK', mail: 'ada@example.com' }],
};

describe('the creator: the person record’s own id', () => {
  it('never fills a sibling customerId as the person’s id on a record that is the person', () => {
    const { guesses } = read(contact);
    assert.deepEqual(silentPersonIds(guesses), []);
    assert.equal(targetOf(guesses, 'customerId'), 'event_data');
    assert.notEqual(targetOf(guesses, 'companyId'), 'user_id');
  });

  it('asks with no answer preselected, offering the record’s own id first when it is the event’s id', () => {
    const { guesses } = read(contact);
    // The contact posted as the body, nothing naming an event: its own id is asked as the event's
    // too (record-status.ts), and offered first as the person's.
    assert.ok(guesses.questions.some((x) => x.target === 'event_id' && x.options[0]?.column === 'id'));
    const q = guesses.questions.find((x) => PERSON_ID.has(x.target));
    assert.ok(q?.noneGuessed, 'the question preselects no answer');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['id', 'customerId'],
    );
    assert.match(q.ask, /another record/);
  });

  it('takes the person record’s own id as the person’s id when the event has its own id', () => {
    const { guesses } = read({
      event_id: 'evt_5d41402abc4b2a76',
      type: 'subscriber.updated',
      subscriber: {
        id: 'sub_8f14e45fceea167a',
        customer_id: 'cus_c9f0f895fb98ab91',
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'grace@example.com',
      },
    });
    assert.equal(targetOf(guesses, 'subscriber.customer_id'), 'event_data');
    assert.ok(PERSON_ID.has(targetOf(guesses, 'subscriber.id') ?? ''), 'the record’s own id is the person’s');
    assert.ok(!guesses.questions.some((q) => q.options.some((o) => o.column === 'subscriber.customer_id')));
  });

  it('keeps a customer_id on an order as the buyer’s: an order carries money and is not the person', () => {
    const { guesses } = read({
      id: 'ord_45c48cce2e2d7fbd',
      customer_id: 'cus_6512bd43d9caa6e0',
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace@example.com',
      total: 4999,
      currency: 'EUR',
    });
    assert.ok(PERSON_ID.has(targetOf(guesses, 'customer_id') ?? ''));
  });

  it('keeps an address record’s customer_id as the person’s: an address is not the person', () => {
    const { guesses } = read({
      address: {
        id: 19248493,
        customer_id: 17191222,
        first_name: 'Grace',
        last_name: 'Hopper',
        phone: '+13103103101',
        address1: '1 Navy Way',
        city: 'Arlington',
      },
    });
    assert.ok(PERSON_ID.has(targetOf(guesses, 'address.customer_id') ?? ''));
    assert.notEqual(targetOf(guesses, 'address.id'), 'user_id');
  });

  it('reads a record as the person only with their name and a contact detail, no money, no business party', () => {
    const fields = (body: unknown) => read(body).fields;
    assert.equal(isPersonRecord(fields(contact), ''), true);
    assert.equal(isPersonRecord(fields({ id: 'c_1', firstName: 'Ada', status: 'ACTIVE' }), ''), false);
    assert.equal(
      isPersonRecord(fields({ id: 'c_1', firstName: 'Ada', email: 'a@example.com', amount: 10 }), ''),
      false,
    );
    assert.equal(
      isPersonRecord(
        fields({ company: { id: 'co_1', firstName: 'Ada', email: 'a@example.com' } }),
        'company',
      ),
      false,
    );
  });
});
