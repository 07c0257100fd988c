/**
 * The rules of core/samples/party.ts one at a time (docs/testing.md, Survivors that matter): every
 * word that names the business's party or the person, every word that makes a name's owner the one
 * acting for the business, every detail word taken off a name's end before its head is read, which
 * column says a payload is about a person, and when a detail that names no party is asked about.
 * Paths are written as vendors send them (Stripe, PayPal, Calendly, HubSpot, Shopify, Zendesk…).
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { aboutAPerson, partyOf, unclaimedDetailQuestions } from '../../../core/samples/party.ts';
import type { QuestionColumn } from '../../../core/samples/questions.ts';

/** A column's reading as `<party> <word>`, `in <segment>` when an object above says it. */
function reading(column: string): string | undefined {
  const p = partyOf(column);
  return p ? `${p.party} ${p.word}${p.own ? '' : ` in ${p.segment}`}` : undefined;
}

function readsAll(cases: readonly (readonly [string, string | undefined])[]) {
  for (const [column, expected] of cases)
    it(`${column}: ${expected ?? 'no party'}`, () => assert.equal(reading(column), expected));
}

describe('creator: whose a detail is, rule by rule', () => {
  describe('each word of the business’s side names the business’s party', () => {
    readsAll([
      ['company.name', 'business company in company'],
      ['organization.billing_email', 'business organization in organization'],
      ['organisation_name', 'business organisation'],
      ['data.org.email', 'business org in org'],
      ['account.support_phone', 'business account in account'],
      ['business_phone', 'business business'],
      ['merchant.support_email', 'business merchant in merchant'],
      ['seller.address.city', 'business seller in seller'],
      ['vendor_email', 'business vendor'],
      ['shop.email', 'business shop in shop'],
      ['store.phone', 'business store in store'],
      ['host_email', 'business host'],
      ['organizer.email', 'business organizer in organizer'],
      ['organiser_email', 'business organiser'],
      ['deal.owner_id', 'business owner'],
      ['agent.phone', 'business agent in agent'],
      ['ticket.assignee.email', 'business assignee in assignee'],
      ['operator_id', 'business operator'],
      ['staff.email', 'business staff in staff'],
      ['admin.email', 'business admin in admin'],
      ['employee.work_email', 'business employee in employee'],
      ['tenant_id', 'business tenant'],
      ['workspace.billing_email', 'business workspace in workspace'],
      ['team.email', 'business team in team'],
      ['payee.email_address', 'business payee in payee'],
      // PayPal's IPN: `receiver_email` is the merchant who was paid.
      ['receiver_email', 'business receiver'],
      ['brand.name', 'business brand in brand'],
      ['partner_id', 'business partner'],
      ['affiliate.email', 'business affiliate in affiliate'],
      ['salesperson.email', 'business salesperson in salesperson'],
      ['campaign.creator.email', 'business creator in creator'],
    ]);
  });

  describe('each word of the person names the person', () => {
    readsAll([
      ['customer.email', 'person customer in customer'],
      ['buyer_email', 'person buyer'],
      ['data.person.phone', 'person person in person'],
      ['contact.email', 'person contact in contact'],
      ['recipient_email', 'person recipient'],
      ['attendee.email', 'person attendee in attendee'],
      // Calendly's `invitee.created`.
      ['payload.invitee.email', 'person invitee in invitee'],
      ['subscriber.email', 'person subscriber in subscriber'],
      ['user.email', 'person user in user'],
      ['member.email', 'person member in member'],
      ['client.email', 'person client in client'],
      ['lead.email', 'person lead in lead'],
      // PayPal's order: `payer.email_address` and `payer.name.given_name`.
      ['payer.email_address', 'person payer in payer'],
      ['visitor.email', 'person visitor in visitor'],
      ['guest.email', 'person guest in guest'],
      ['participant.email', 'person participant in participant'],
      ['respondent_email', 'person respondent'],
      ['patron.email', 'person patron in patron'],
      ['student.email', 'person student in student'],
      ['signer.email', 'person signer in signer'],
      ['donor.email', 'person donor in donor'],
      ['shopper_email', 'person shopper'],
      ['applicant.email', 'person applicant in applicant'],
      ['learner.email', 'person learner in learner'],
    ]);
  });

  describe('a name whose owner acts for the business is the business’s, whoever it names', () => {
    readsAll([
      ['assigned_user_id', 'business assigned'],
      ['responsible_user_id', 'business responsible'],
      ['handling_user_email', 'business handling'],
      ['ticket.handled_by.email', 'business handled in handled_by'],
      ['managed_by_user_id', 'business managed'],
      ['managing_user_email', 'business managing'],
      // Who made a change to a record, only when the name says `by`.
      ['ticket.created_by_email', 'business created'],
      ['ticket.updated_by.email', 'business updated in updated_by'],
      ['modified_by_user_id', 'business modified'],
      ['closed_by_user_id', 'business closed'],
      ['deleted_by_user_id', 'business deleted'],
      ['edited_by_user_email', 'business edited'],
      // A step's time is not its actor: the customer's `created_at` is the customer's.
      ['customer.created_at', 'person customer in customer'],
      ['customer.updated_user_count', 'person customer in customer'],
    ]);
  });

  describe('detail words come off a name’s end before its head is read', () => {
    readsAll([
      ['attendee_ids', 'person attendee'],
      ['customer_uuid', 'person customer'],
      ['contact_guid', 'person contact'],
      ['customer_key', 'person customer'],
      ['customer_code', 'person customer'],
      ['customer_no', 'person customer'],
      ['member_number', 'person member'],
      ['customer_num', 'person customer'],
      ['customer_mail', 'person customer'],
      ['buyer_addresses', 'person buyer'],
      ['customer_mobile', 'person customer'],
      ['guest_tel', 'person guest'],
      ['customer_first_name', 'person customer'],
      ['customer_last_name', 'person customer'],
      ['customer_full_name', 'person customer'],
      ['payer_given_name', 'person payer'],
      ['payer_family_name', 'person payer'],
      ['owner_display_name', 'business owner'],
      ['customer_detail.email', 'person customer in customer_detail'],
      ['buyer_info.phone', 'person buyer in buyer_info'],
      ['user_profile.email', 'person user in user_profile'],
      ['customer_city', 'person customer'],
      ['customer_region', 'person customer'],
      ['customer_state', 'person customer'],
      ['customer_zip', 'person customer'],
      ['customer_postal_code', 'person customer'],
      ['seller_country', 'business seller'],
      ['customer_ip', 'person customer'],
    ]);
  });

  describe('only `user agent` is a browser’s: the words around it still count', () => {
    readsAll([
      ['device.user_agent', undefined],
      // The workspace a user belongs to is the business's; an agent assigned is one acting for it.
      ['user_workspace_id', 'business workspace'],
      ['assigned_agent_id', 'business assigned'],
    ]);
  });
});

describe('creator: whether a payload says it is about a person', () => {
  const about = (body: unknown) => aboutAPerson(inferFields(parseSample(JSON.stringify(body))));

  it('reads each column that says what a payload is about', () => {
    assert.equal(about({ topic: 'contact.created', email: 'ada@example.com' }), true);
    assert.equal(about({ action: 'subscriber.added', email: 'ada@example.com' }), true);
    assert.equal(about({ kind: 'member.created', email: 'ada@example.com' }), true);
    // Stripe's customer object names itself: `data.object.object: customer`.
    assert.equal(about({ data: { object: { object: 'customer', email: 'ada@example.com' } } }), true);
    // HubSpot's CRM objects: `objectType: CONTACT`.
    assert.equal(about({ objectType: 'CONTACT', objectId: 901 }), true);
  });

  it('reads an envelope’s name in any spelling', () => {
    assert.equal(about({ PayLoad: { type: 'customer.created' } }), true);
  });

  it('needs every row’s kind to name a person’s object', () => {
    const rows = [
      { type: 'customer.created', id: 'evt_1' },
      { type: 'invoice.paid', id: 'evt_2' },
    ];
    assert.equal(about(rows), false);
    assert.equal(about(rows.slice(0, 1)), true);
  });

  it('reads only kinds written as text', () => {
    // A row whose kind is a code says nothing either way; a kind never written as text says none.
    const rows = [
      { type: 'customer.created', id: 'evt_1' },
      { type: 3, id: 'evt_2' },
    ];
    assert.equal(about(rows), true);
    assert.equal(about({ type: 4, id: 'evt_3' }), false);
  });
});

describe('creator: when a detail that names no party is asked about', () => {
  function guess(body: unknown) {
    const sample = parseSample(JSON.stringify(body));
    return guessChoices(inferFields(sample), sample.rows);
  }
  /** The columns a payload's "names no party" questions ask about, with the question's words. */
  const unclaimed = (body: unknown) =>
    guess(body)
      .questions.filter((q) => q.options.some((o) => o.why.startsWith('names no party')))
      .map((q) => `${q.options[0]?.column}: ${q.ask}`);
  const asking = (column: string, rival: string) =>
    `${column}: Is ${column} the person's? Its name and place name no party, and ${rival} beside it is the business's.`;

  it('asks in words that name the column and the business’s detail beside it', () => {
    assert.deepEqual(unclaimed({ status: 'confirmed', first_name: 'Ada', host_phone: '+14155550100' }), [
      asking('first_name', 'host_phone'),
    ]);
  });

  it('asks only about a person’s detail', () => {
    // `status` is an event field: whose it is changes nothing.
    const g = guess({ status: 'confirmed', first_name: 'Ada', host_phone: '+14155550100' });
    assert.equal(g.columns.find((c) => c.column === 'status')?.target, 'event_data');
    assert.equal(
      g.questions.some((q) => q.options.some((o) => o.column === 'status')),
      false,
    );
  });

  it('never asks about a detail whose name says whose it is', () => {
    assert.deepEqual(unclaimed({ customer_email: 'ada@example.com', host_phone: '+14155550100' }), []);
  });

  it('asks once about a column another question asks about already', () => {
    const g = guess({ phone: '+14155550199', host_phone: '+14155550100' });
    const mentions = g.questions.filter((q) => q.options.some((o) => o.column === 'phone'));
    assert.deepEqual(
      mentions.map((q) => q.ask),
      ["Whose phone number is the person's? Both columns hold one."],
    );
  });

  it('needs the business’s detail to hold a value', () => {
    const rows = [
      { first_name: 'Ada', host_phone: null },
      { first_name: 'Bo', host_phone: null },
    ];
    assert.deepEqual(unclaimed(rows), []);
    // The rule holds by itself, not only because an always-empty column takes no target alone:
    // each column given the target its name takes.
    const columns = (sample: readonly Record<string, unknown>[]): QuestionColumn[] =>
      inferFields(parseSample(JSON.stringify(sample))).map((field) => {
        const target = field.name === 'first_name' ? 'user.first_name' : 'event_data';
        const alone = field.name === 'first_name' ? 'user.first_name' : 'user.phone';
        return { field, target, alone, role: { role: 'other', why: '' } };
      });
    assert.deepEqual(unclaimedDetailQuestions(columns(rows), new Set()), []);
    const filled = rows.map((r, i) => ({ ...r, host_phone: `+1415555010${i}` }));
    assert.deepEqual(
      unclaimedDetailQuestions(columns(filled), new Set()).map((q) => q.options[0]?.column),
      ['first_name'],
    );
  });

  it('takes the business’s detail from the same object, or anywhere for a top-level detail', () => {
    const inData = { id: 'evt_1', data: { first_name: 'Ada', host_phone: '+14155550100' } };
    assert.deepEqual(unclaimed(inData), [asking('data.first_name', 'data.host_phone')]);
    // A merchant's phone at the top is not beside a detail inside `data`.
    const apart = { id: 'evt_1', merchant_phone: '+14155550100', data: { first_name: 'Ada' } };
    assert.deepEqual(unclaimed(apart), []);
    const shipping = { order_id: 'o_1', merchant_phone: '+14155550100', shipping: { first_name: 'Ada' } };
    assert.deepEqual(unclaimed(shipping), []);
    // A top-level detail has every column beside it.
    const top = { id: 'evt_1', first_name: 'Ada', data: { host_phone: '+14155550100' } };
    assert.deepEqual(unclaimed(top), [asking('first_name', 'data.host_phone')]);
  });
});
