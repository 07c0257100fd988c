/**
 * Evidence beyond the name (issue #94, core/samples/evidence.ts and its use in guess.ts): an
 * identity, personal or money field is filled only when the values back the name, the business's
 * side is never the person's, personal data is found by value and name wherever it sits, and the
 * confidence shown is one of the calibrated levels.
 */
import assert from 'node:assert/strict';
import { collectionNamed, leafSide } from '../../../core/samples/evidence.ts';
import { CONFIDENCE_LEVELS } from '../../../core/samples/guess.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { directionOf } from '../../../core/samples/roles.ts';

/** The page's steps on one JSON body. */
function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const at = (g: ReturnType<typeof guess>, column: string) => {
  const c = g.columns.find((x) => x.column === column);
  assert.ok(c, column);
  return c;
};

describe('creator: evidence beyond the name', () => {
  it('reads whose a leaf is from its own words: the person’s word over the business’s', () => {
    assert.deepEqual(leafSide('account_id'), { side: 'business', word: 'account' });
    assert.deepEqual(leafSide('data.webhook_owner_id'), { side: 'business', word: 'webhook' });
    assert.deepEqual(leafSide('merchant_customer_id'), { side: 'person', word: 'customer' });
    assert.deepEqual(leafSide('event.app_user_id'), { side: 'person', word: 'user' });
    assert.equal(leafSide('amount'), undefined);
  });

  it('never takes a merchant’s account id as the person’s, and says why', () => {
    const g = guess({ account_id: 'acc_BFQ7uQEaa7j2z7', event: 'payment.captured', customer_id: 'cust_42' });
    const account = at(g, 'account_id');
    assert.equal(account.target, 'event_data');
    assert.ok(!g.columns.some((c) => c.target === 'user_id' && c.column === 'account_id'));
    assert.equal(at(g, 'customer_id').target, 'user.external_id');
    assert.ok(account.why.length > 0);
  });

  it('takes no e-mail from values that are not addresses, whatever the name', () => {
    const g = guess({ user: { email: 'idn_8g2kd0s', phone: '+14155552671' } });
    assert.equal(at(g, 'user.email').target, 'event_data');
    assert.match(at(g, 'user.email').why, /not e-mail addresses/);
    assert.equal(at(g, 'user.phone').target, 'user.phone');
  });

  it('takes no person’s id from a booking’s uid, nor from a name alone', () => {
    const g = guess({ triggerEvent: 'BOOKING_CREATED', payload: { uid: 'bk_8Hs2kKd', title: 'Call' } });
    assert.equal(at(g, 'payload.uid').target, 'event_data');
    assert.match(at(g, 'payload.uid').why, /nothing in its name or place says it is the person’s/);
  });

  it('takes a phone without a phone’s name only in international form', () => {
    const local = guess({ data: { document: '09006068709', name: 'x' } });
    assert.notEqual(at(local, 'data.document').target, 'user.phone');
    const e164 = guess({ sender: { contact: { identifierValue: '+31612345678' } } });
    assert.equal(at(e164, 'sender.contact.identifierValue').target, 'user.phone');
  });

  it('takes the id of the person’s own object when no column names the person’s id', () => {
    const g = guess({
      sender: { contact: { id: '32cf5eee-f940-422c-ab8c-5f753aad5efd' } },
      receiver: { id: 'r_1' },
    });
    assert.equal(at(g, 'sender.contact.id').target, 'user.external_id');
    assert.match(at(g, 'sender.contact.id').why, /the id of sender\.contact/);
    const named = guess({ customer_id: 'cus_1', customer: { id: 'cus_1b' } });
    assert.equal(at(named, 'customer_id').target, 'user.external_id');
    assert.equal(
      at(named, 'customer.id').target,
      'event_data',
      'a column named as the person’s id comes first',
    );
  });

  it('asks before taking a person’s id named as one inside another object', () => {
    const g = guess({
      form_response: { hidden: { user_id: 'abc123456' }, submitted_at: '2026-01-18T18:17:02Z' },
    });
    const q = g.questions.find((x) => x.target === 'user_id');
    assert.ok(q, 'a question');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['form_response.hidden.user_id'],
    );
    assert.equal(at(g, 'form_response.hidden.user_id').confidence, 0.5);
  });

  it('takes a currency only from codes, and only beside a value', () => {
    const card = guess({ data: { amount: 1, payment_currency: 'Credit Card' } });
    assert.equal(card.currency, undefined);
    const cost = guess({ payload: { text: 'Hello', cost: { amount: '0.0051', currency: 'USD' } } });
    assert.equal(cost.value, undefined, 'a cost is not the event’s value');
    assert.equal(cost.currency, undefined, 'no value, no currency');
    const order = guess({
      amounts: { subtotal: { value: 5, currency: 'EUR' }, total: { value: 7, currency: 'USD' } },
    });
    assert.equal(order.value?.column, 'amounts.total.value');
    assert.equal(order.currency?.column, 'amounts.total.currency');
  });

  it('asks which amount is the value when only names tell several apart', () => {
    const g = guess({ invoice: { amount_due: 0, amount_paid: 3500, amount_remaining: 10 } });
    const q = g.questions.find((x) => x.field === 'value');
    assert.ok(q, 'a question');
    assert.equal(q.options.length, 3);
    const exact = guess({ total: 20, amount_due: 0, currency: 'EUR' });
    assert.equal(exact.value?.column, 'total');
    assert.equal(
      exact.questions.find((x) => x.field === 'value'),
      undefined,
    );
  });

  it('asks before taking an amount as the value when no currency stands in the payload', () => {
    const lead = guess({ data: { Email: 'jo@example.com', Annual_Revenue: 250000, Company: 'Acme' } });
    assert.equal(lead.value?.column, 'data.Annual_Revenue', 'the guess stays, preselected');
    const q = lead.questions.find((x) => x.field === 'value');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['data.Annual_Revenue'],
    );
    assert.match(q?.ask ?? '', /no currency/);
    assert.equal(at(lead, 'data.Annual_Revenue').confidence, 0.5);
    const sale = guess({ amount: 12.5, currency: 'EUR' });
    assert.equal(
      sale.questions.find((x) => x.field === 'value'),
      undefined,
      'a currency beside it is the evidence',
    );
  });

  it('marks personal data by value and name wherever it sits, a list included, never a flag', () => {
    const g = guess({
      contactCreated: { ownerEmail: 'agent@example.com', email: 'jo@example.com' },
      shipping_address: { first_name: 'Jo', address1: '1 Main St', city: 'Lyon' },
      payload: { to: [{ phone_number: '+18445550001', status: 'delivered' }] },
      customer: { verified_email: true },
    });
    for (const column of [
      'contactCreated.ownerEmail',
      'contactCreated.email',
      'shipping_address.first_name',
      'shipping_address.address1',
      'shipping_address.city',
      'payload.to',
    ])
      assert.equal(at(g, column).personal, true, column);
    assert.equal(at(g, 'customer.verified_email').personal, undefined);
    assert.notEqual(
      at(g, 'contactCreated.ownerEmail').target,
      'user.email',
      'an owner’s e-mail is not the person’s',
    );
  });

  it('asks before taking an e-mail known by its values alone', () => {
    const g = guess({
      id: 'ev_1',
      source: 'admin_console',
      user: 'admin@shop.example',
      content: { id: 'x' },
    });
    assert.equal(at(g, 'user').target, 'user.email', 'the guess stays, preselected');
    const q = g.questions.find((x) => x.target === 'user.email');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['user'],
    );
    assert.equal(at(g, 'user').confidence, 0.5);
    const named = guess({ contact: { email: 'jo@example.com' }, correo: 'ana@example.com' });
    assert.equal(
      named.questions.find((x) => x.target === 'user.email'),
      undefined,
      'a name that says e-mail needs no question',
    );
  });

  it('never takes a time planned for the thing as when the event happened', () => {
    const g = guess({
      type: 'booking.created',
      data: { booking: { id: 'bkg_1', startsAt: '2026-11-30T14:00:00Z', endsAt: '2026-11-30T14:30:00Z' } },
    });
    assert.equal(g.eventTime.column, undefined, 'the time it arrives, not the booking’s start');
    assert.match(g.eventTime.why, /"starts" names a time planned/);
    const sub = guess({ started_at: '2026-11-01T10:00:00Z', current_term_end: '2026-12-01T10:00:00Z' });
    assert.equal(sub.eventTime.column, 'started_at', 'a start that happened stays a candidate');
  });

  it('reads from and to by the way the message went: out from the business, in from the person', () => {
    const sent = guess({
      type: 'activity.sent',
      data: { email: { from: 'news@shop.example', to: 'jo@example.com', subject: 'Hi' } },
    });
    assert.notEqual(
      at(sent, 'data.email.from').target,
      'user.email',
      'the sender of a sent e-mail is the business',
    );
    assert.match(at(sent, 'data.email.from').why, /went out/);
    assert.equal(at(sent, 'data.email.to').target, 'user.email');
    const inbound = guess({ direction: 'inbound', from: '+14155552671', to: '+18445550001' });
    assert.equal(at(inbound, 'from').target, 'user.phone');
    assert.notEqual(at(inbound, 'to').target, 'user.phone');
    // Both ways named (Green API's `outgoingMessageReceived`): the word of direction settles it.
    assert.equal(directionOf(inferFields(parseSample('{"typeWebhook":"outgoingMessageReceived"}'))), 'out');
    assert.equal(directionOf(inferFields(parseSample('{"type":"ticket.updated"}'))), undefined);
  });

  it('never takes an owner’s or an agent’s details as the person’s; a sender only when the message came in', () => {
    const ticket = guess({
      ticket: { customer: { email: 'jo@example.com' }, owner: { email: 'agent@shop.example' } },
    });
    assert.equal(at(ticket, 'ticket.customer.email').target, 'user.email');
    assert.notEqual(at(ticket, 'ticket.owner.email').target, 'user.email');
    const unknown = guess({ sender: { phone: '+31612345678' }, text: 'hi' });
    assert.notEqual(at(unknown, 'sender.phone').target, 'user.phone', 'nothing says which way it went');
    const inbound = guess({ type: 'message.received', sender: { phone: '+31612345678' } });
    assert.equal(at(inbound, 'sender.phone').target, 'user.phone');
  });

  it('reads the collection an id names by its head noun, not by a person’s word in front', () => {
    assert.equal(collectionNamed('customerList'), 'list');
    assert.equal(collectionNamed('contact_list_id'), 'list');
    assert.equal(collectionNamed('data.customer_group_id'), 'group');
    assert.equal(collectionNamed('subscriber_segments'), 'segment');
    assert.equal(collectionNamed('audienceId'), 'audience');
    assert.equal(collectionNamed('lead.form_id'), 'form');
    assert.equal(collectionNamed('member_categories'), 'category');
    // A person's word last: the id of someone in the list or group.
    assert.equal(collectionNamed('list_customer_id'), undefined);
    assert.equal(collectionNamed('group_member_id'), undefined);
    assert.equal(collectionNamed('customer_id'), undefined);
  });

  it('never takes a list’s or a group’s id as the person’s beside their e-mail', () => {
    // An unsubscribe form's list number: filled as the person's id before.
    const form = parseSample(
      'unsubscribeDate=2012-12-10T17%3a41%3a03.695%2b01&customerEmail=jo%40example.com&customerList=2',
    );
    const g = guessChoices(inferFields(form), form.rows);
    assert.equal(at(g, 'customerEmail').target, 'user.email');
    assert.equal(at(g, 'customerList').target, 'event_data');
    assert.match(at(g, 'customerList').why, /"list" is what its name is the id of/);
    assert.ok(!g.columns.some((c) => c.target === 'user_id' || c.target === 'user.external_id'));
    for (const body of [
      { event: 'subscribed', email: 'jo@example.com', customer_group_id: 7 },
      { type: 'contact.added', contact: { email: 'jo@example.com' }, subscriber_list_id: 'lst_9' },
      { email: 'jo@example.com', member_segment_uuid: '4f1c2b7e-1d2a-4e0b-9c3f-2a7d9b1e6c55' },
    ]) {
      const ids = guess(body).columns.filter(
        (c) => c.target === 'user_id' || c.target === 'user.external_id',
      );
      assert.deepEqual(ids, [], JSON.stringify(body));
    }
  });

  it('still takes the person’s own id beside the list’s', () => {
    const g = guess({ email: 'jo@example.com', customer_id: 'cus_42', customer_list_id: 'lst_9' });
    assert.equal(at(g, 'customer_id').target, 'user.external_id');
    assert.equal(at(g, 'customer_list_id').target, 'event_data');
    const member = guess({ email: 'jo@example.com', group_member_id: 'mem_8812' });
    assert.equal(at(member, 'group_member_id').target, 'user_id');
  });

  it('shows only the calibrated confidence levels', () => {
    const g = guess({
      email: 'jo@example.com',
      amount: 12.5,
      currency: 'EUR',
      note: 'x',
      created_at: '2026-11-01T10:00:00Z',
    });
    for (const c of g.columns)
      assert.ok(
        (CONFIDENCE_LEVELS as readonly number[]).includes(c.confidence),
        `${c.column} ${c.confidence}`,
      );
  });
});
