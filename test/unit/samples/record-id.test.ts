/**
 * A record's own id as the event's (issue #94, core/samples/record-id.ts and its use in
 * guess.ts): with no id at the payload's top and none named as the event's, the own id of the
 * record the payload holds (`payment.txn_id`, `payload.message_id`, `email.id`) is asked about,
 * preselected where its record is the payload's wrapped object, a kind of record an event is
 * about, or the one the event's type names; several with nothing to choose between them are
 * offered with no answer preselected. Never a party's or an actor's id, never filled silently.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

/** The guesses for one body, with the columns taken as the event's id and the event-id question. */
function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  return Object.assign(g, {
    ids: g.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
    ask: g.questions.find((q) => q.target === 'event_id'),
  });
}
const idQuestion = (g: ReturnType<typeof guess>) => g.ask;
const eventIds = (g: ReturnType<typeof guess>) => g.ids;

describe('the creator: a record’s own id as the event’s', () => {
  it('asks about a payment’s txn_id, preselected, when the payload has no id at its top', () => {
    const g = guess({
      payment: { txn_id: 'TX-5521', price: 9.5, currency: 'USD', status: 'complete' },
      customer: { uuid: 'c-77', email: 'joe@example.com' },
    });
    assert.deepEqual(eventIds(g), ['payment.txn_id']);
    const q = idQuestion(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['payment.txn_id'],
    );
    assert.equal(q?.noneGuessed, undefined);
    assert.match(q?.ask ?? '', /folded into the first/);
    assert.equal(g.columns.find((c) => c.column === 'payment.txn_id')?.confidence, 0.5);
  });

  it('preselects a message_id under the payload’s wrapper, never the sender’s user id', () => {
    const g = guess({
      category: 'channel:message_send',
      sender: { user_id: 'u-1', nickname: 'Jo' },
      payload: { message_id: 238303376, message: 'hi' },
    });
    assert.deepEqual(eventIds(g), ['payload.message_id']);
    assert.ok(!idQuestion(g)?.options.some((o) => o.column === 'sender.user_id'));
  });

  it('preselects the record the event’s type names among several', () => {
    const g = guess({
      eventName: 'campaign.email.sent',
      contactIdentity: { id: 'cm-contact', email: 'a@example.com' },
      email: { id: 'cm-email', subject: 'Hello' },
    });
    assert.deepEqual(eventIds(g), ['email.id']);
    assert.equal(idQuestion(g)?.options[0]?.column, 'email.id');
  });

  it('offers several records’ ids with no answer preselected when nothing says which', () => {
    const g = guess({ invoice: { id: 'in_1', total: 5 }, plan: { id: 'pl_1', name: 'Pro' } });
    const q = idQuestion(g);
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['invoice.id', 'plan.id'],
    );
    assert.deepEqual(eventIds(g), []);
  });

  it('offers a lone id of a thing the event may only mention with no answer preselected', () => {
    const g = guess({ name: 'Ana', gender: { id: 2, name: 'f' } });
    assert.ok(idQuestion(g)?.noneGuessed);
    assert.deepEqual(eventIds(g), []);
  });

  it('takes a compound id named for a kind of record only where its record has no plain id', () => {
    const g = guess({ appointment: { bookingId: 1294, longId: 'FXy8', status: 'Booking' } });
    assert.deepEqual(eventIds(g), ['appointment.bookingId']);
    const beside = guess({ message: { id: 'm-1', conversationId: 'c-1', orderId: 'o-9', text: 'hi' } });
    assert.deepEqual(eventIds(beside), ['message.id']);
    assert.deepEqual(
      idQuestion(beside)?.options.map((o) => o.column),
      ['message.id'],
    );
  });

  it('never offers a party’s or an actor’s id', () => {
    const g = guess({ customer: { id: 'c1', email: 'a@example.com' }, actor: { id: 'u9', name: 'Admin' } });
    assert.equal(idQuestion(g), undefined);
  });

  it('asks nothing when the payload has an id at its top, or an id is already taken', () => {
    const top = guess({ id: 'evt_1', payment: { id: 'p1', amount: 3 } });
    assert.deepEqual(eventIds(top), ['id']);
    assert.ok(!top.questions.some((q) => q.options.some((o) => o.column === 'payment.id')));
    const g = guess({ event_id: 'e1', payment: { id: 'p1', amount: 3 } });
    assert.deepEqual(eventIds(g), ['event_id']);
    assert.ok(!idQuestion(g)?.options.some((o) => o.column === 'payment.id'));
  });

  it('asks about an id at the top named for the record the payload is, preselected', () => {
    for (const [body, column] of [
      [{ submissionId: '5ff9da9aeb0d450', submission: [{ question: 'Q1', answer: 5 }] }, 'submissionId'],
      [{ responseId: 'r_81', formId: 'f_1', answers: { name: 'Ana' } }, 'responseId'],
      [{ order_id: '250130JQHFZG', status: 'created', total: 120 }, 'order_id'],
      [{ EntryId: '42', Field1: 'Ana', DateCreated: '2026-01-01 10:00:00' }, 'EntryId'],
    ] as const) {
      const g = guess(body);
      assert.deepEqual(eventIds(g), [column], column);
      assert.deepEqual(
        idQuestion(g)?.options.map((o) => o.column),
        [column],
        column,
      );
      assert.equal(idQuestion(g)?.noneGuessed, undefined, column);
    }
  });

  it('never takes a top-level id named for a party, a collection or no record', () => {
    for (const body of [
      { customer_id: 'cus_1', email: 'a@example.com' },
      { form_id: 'f_1', answers: { name: 'Ana' } },
      { product_id: 'p_1', title: 'Hat' },
      { workflowEntryId: 'w_1', text: 'Hi' },
    ]) {
      const g = guess(body);
      assert.ok(!idQuestion(g)?.options.some((o) => !o.column.includes('.')), JSON.stringify(body));
      assert.deepEqual(eventIds(g), [], JSON.stringify(body));
    }
  });

  it('offers several top-level record ids with no answer preselected', () => {
    const g = guess({ order_id: 'o_1', transaction_id: 't_1', amount: 3 });
    assert.deepEqual(eventIds(g), []);
    assert.ok(idQuestion(g)?.noneGuessed);
    assert.equal(idQuestion(g)?.options.length, 2);
  });

  it('needs an id in every row, no two alike', () => {
    const g = guess([{ payment: { id: 'p1', amount: 3 } }, { payment: { id: 'p1', amount: 4 } }]);
    assert.equal(idQuestion(g), undefined);
    assert.deepEqual(eventIds(g), []);
  });
});
