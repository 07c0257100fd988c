/**
 * Whose a field is, read as a party (issue #94, core/samples/party.ts and its use in guess.ts): a
 * party word in the column's own name counts like a parent object, an address or a billing block
 * says what a detail is and not whose, a business party's details are never the person's, and a
 * detail that names no party beside a business party's details is asked about.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { aboutAPerson, businessParty, partyOf } from '../../../core/samples/party.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
type G = ReturnType<typeof guess>;
const targetOf = (g: G, column: string) => g.columns.find((c) => c.column === column)?.target;
const askedAbout = (g: G, column: string) =>
  g.questions.filter((q) => q.options.some((o) => o.column === column)).map((q) => q.target);
const party = (column: string) => {
  const p = partyOf(column);
  return p ? `${p.party} ${p.word}${p.own ? '' : ` in ${p.segment}`}` : undefined;
};

describe('creator: whose a field is, read as a party', () => {
  // Each column and the party its path names (undefined: none), with where the word stands.
  const readings: readonly (readonly [string, string | undefined])[] = [
    // A party word in the column's own name counts like a parent object.
    ['assignedUserId', 'business assigned'],
    ['agent_phone', 'business agent'],
    ['ownerEmail', 'business owner'],
    ['merchantName', 'business merchant'],
    ['sellerAddress', 'business seller'],
    ['ticket.created_by_email', 'business created'],
    // A name's head is its last word once detail words are off its end.
    ['merchant_customer_id', 'person customer'],
    ['app_user_id', 'person user'],
    ['customer_merchant_id', 'business merchant'],
    // A party word that qualifies something else names no party.
    ['admin_graphql_api_id', undefined],
    ['context.user_agent', undefined],
    // Addresses, billing blocks and other things are passed over to the nearest party above.
    ['company.address.city', 'business company in company'],
    ['data.customer_details.address.zip', 'person customer in customer_details'],
    ['order.billing_address.city', undefined],
    ['account.settings.email', 'business account in account'],
  ];
  for (const [column, expected] of readings)
    it(`reads ${column} as ${expected ?? 'no party'}`, () => assert.equal(party(column), expected));

  it('says why a business party’s detail is not the person’s', () => {
    assert.match(businessParty('company.address.city') ?? '', /inside company: the business's party/);
    assert.match(businessParty('assignedUserPhone') ?? '', /"assigned" in its name/);
    assert.equal(businessParty('customer.address.city'), undefined);
  });

  it('never fills an assigned agent’s id or phone as the person’s', () => {
    const agent = { assigned_user_id: 'u_17', assigned_user_phone: '+14155550100' };
    const g = guess({
      conversation_id: 'cv_81',
      ...agent,
      customer_phone: '+14155550199',
      customer_id: 'c_9',
    });
    assert.equal(targetOf(g, 'assigned_user_id'), 'event_data');
    assert.equal(targetOf(g, 'assigned_user_phone'), 'event_data');
    assert.equal(targetOf(g, 'customer_phone'), 'user.phone');
    assert.ok(['user_id', 'user.external_id'].includes(targetOf(g, 'customer_id') ?? ''));
    // Two parties hold a phone: the page asks whose is the person's, the customer's preselected.
    const q = g.questions.find((x) => x.target === 'user.phone');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['customer_phone', 'assigned_user_phone'],
    );
  });

  it('never takes a business party’s address as the person’s', () => {
    const g = guess({
      event: 'contact.updated',
      email: 'ada@example.com',
      first_name: 'Ada',
      company: { name: 'Example Ltd', address: { city: 'Leeds', postcode: 'LS1 4AP', country: 'GB' } },
    });
    for (const c of ['company.address.city', 'company.address.postcode', 'company.address.country'])
      assert.equal(targetOf(g, c), 'event_data', c);
    const city = g.columns.find((c) => c.column === 'company.address.city');
    assert.match(city?.why ?? '', /inside company: the business's party/);
    // The payload says it is about a contact: its own e-mail is the person's, not asked.
    assert.equal(targetOf(g, 'email'), 'user.email');
    assert.deepEqual(askedAbout(g, 'email'), []);
  });

  it('asks about a detail that names no party beside a business party’s details', () => {
    const body = { booking: 'bk_3', first_name: 'Ada', host_phone: '+14155550100' };
    const g = guess(body);
    assert.equal(targetOf(g, 'first_name'), 'user.first_name');
    assert.deepEqual(askedAbout(g, 'first_name'), ['user.first_name']);
    const q = g.questions.find((x) => x.options.some((o) => o.column === 'first_name'));
    assert.match(q?.options[0]?.why ?? '', /names no party, beside host_phone/);
    // Once the payload says it is about a person, its own detail is filled.
    const about = guess({ ...body, type: 'subscriber.created' });
    assert.deepEqual(askedAbout(about, 'first_name'), []);
    // With no business party beside it, a detail is the payload's own, as before.
    assert.deepEqual(askedAbout(guess({ booking: 'bk_3', first_name: 'Ada' }), 'first_name'), []);
  });

  it('reads whether a payload is about a person from its kind at the top only', () => {
    const fields = (body: unknown) => inferFields(parseSample(JSON.stringify(body)));
    assert.equal(aboutAPerson(fields({ event_type: 'person.created' })), true);
    assert.equal(aboutAPerson(fields({ data: { type: 'customer.updated' } })), true);
    assert.equal(aboutAPerson(fields({ event_type: 'invoice.paid' })), false);
    assert.equal(aboutAPerson(fields({ item: { type: 'user' }, note: 'x' })), false);
  });
});
