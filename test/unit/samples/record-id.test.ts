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
import { recordIdQuestion } from '../../../core/samples/record-id.ts';
import type { RuleGuess } from '../../../core/samples/rule-guess.ts';

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

  it('asks about a chat’s, a conversation’s or a document’s id at the top, preselected', () => {
    for (const [body, column] of [
      [{ chatId: 'chat_abc', assignedUserId: 'u_1', message: { text: 'Assigned to self' } }, 'chatId'],
      [{ conversation_id: 'cv_81', channel: 'web', text: 'Hi' }, 'conversation_id'],
      [{ documentId: 'd_9', employeeId: 'e_1', signedBy: 'e_1', title: 'Contract' }, 'documentId'],
    ] as const) {
      // Once no question: the chat, conversation or document named no record an event is about.
      const g = guess(body);
      assert.deepEqual(eventIds(g), [column], column);
      assert.deepEqual(
        idQuestion(g)?.options.map((o) => o.column),
        [column],
        column,
      );
    }
    // Nothing of the kind: a channel, a widget.
    for (const body of [
      { channel_id: 'c_1', text: 'Hi' },
      { widget_id: 'w_1', text: 'Hi' },
    ])
      assert.equal(idQuestion(guess(body)), undefined, JSON.stringify(body));
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

/**
 * The rule called on its own, every column kept as an event field unless a case says otherwise,
 * so that what it checks is not hidden by the rules that run before it in guessChoices.
 */
function ask(body: unknown, keep: (g: RuleGuess) => RuleGuess = (g) => g) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  const base = fields.map((f) => keep({ column: f.name, target: 'event_data', why: 'kept' }));
  const q = recordIdQuestion(base, fields, sample.rows);
  return { q, base, offered: q?.options.map((o) => o.column), preselected: q && !q.noneGuessed };
}

describe('the creator: a record’s own id, the rule on its own', () => {
  it('says whose id each option is, and rewrites the one it preselects', () => {
    const one = ask({ invoice: { id: 'in_1', total: 5 } });
    assert.deepEqual(one.offered, ['invoice.id']);
    assert.equal(one.q?.options[0]?.why, 'the own id of invoice, a record the payload holds');
    const taken = one.base.find((g) => g.column === 'invoice.id');
    assert.equal(taken?.target, 'event_id');
    assert.match(taken?.why ?? '', /^the own id of invoice, the record the event is about; /);
    const two = ask({ invoice: { id: 'in_1' }, plan: { id: 'pl_1' } });
    assert.match(two.q?.ask ?? '', /^Which column is the event's own id\?/);
    assert.equal(two.q?.noneGuessed?.why, 'nothing says which record, if any, the event is about');
  });

  it('preselects the record named by any of the type’s column names, by its every word', () => {
    for (const name of ['type', 'event', 'event_type', 'topic', 'trigger', 'category']) {
      const { offered, preselected } = ask({
        [name]: 'invoice.paid',
        description: 'Pro plan',
        invoice: { id: 'in_1' },
        plan: { id: 'pl_1' },
      });
      assert.equal(offered?.[0], 'invoice.id', name);
      assert.ok(preselected, name);
    }
    // The type names a payment, not its method: a record is named by every word of its name.
    const paid = ask({ type: 'payment.succeeded', payment: { id: 'py_1' }, payment_method: { id: 'pm_1' } });
    assert.deepEqual(paid.offered, ['payment.id', 'payment_method.id']);
    assert.ok(paid.preselected);
    // Both records named by the type: nothing says which.
    assert.ok(
      !ask({ type: 'invoice plan changed', invoice: { id: 'in_1' }, plan: { id: 'pl_1' } }).preselected,
    );
  });

  it('reads a record’s name of several words, and an id named for it', () => {
    // `card_payment` is a kind of record by its last word; `sms_message_id` is named for its record.
    const card = ask({ card_payment: { id: 'cp_1', amount: 3 } });
    assert.deepEqual(card.offered, ['card_payment.id']);
    assert.ok(card.preselected);
    assert.deepEqual(ask({ sms_message: { sms_message_id: 'sm_1', text: 'hi' } }).offered, [
      'sms_message.sms_message_id',
    ]);
    assert.deepEqual(ask({ message: { message_uuid: 'm-1', text: 'hi' } }).offered, ['message.message_uuid']);
    // An id whose first word only is a kind of record is another thing's.
    assert.equal(ask({ item: { order_line_id: 'ol_1', qty: 2 } }).q, undefined);
  });

  it('takes ids at most three levels down, none of a party, an actor, a request, nor one not kept', () => {
    assert.deepEqual(ask({ a: { b: { invoice: { id: 'in_1' } } } }).offered, ['a.b.invoice.id']);
    assert.equal(ask({ a: { b: { c: { invoice: { id: 'in_1' } } } } }).q, undefined, 'four down');
    assert.equal(ask({ customer: { id: 'c1', email: 'a@example.com' } }).q, undefined, 'a party');
    assert.equal(ask({ data: { author: { id: 'u1', name: 'Jo' } } }).q, undefined, 'an actor');
    assert.equal(ask({ request: { request_id: 'req_1', status: 'ok' } }).q, undefined, 'a request');
    const skipped = ask({ invoice: { id: 'in_1' }, note: 'hi' }, (g) =>
      g.column === 'invoice.id' ? { ...g, target: 'skip' } : g,
    );
    assert.equal(skipped.q, undefined, 'not kept');
  });

  it('keeps a named id beside no plain id of its own record, the shallowest first, at most four', () => {
    assert.deepEqual(ask({ payment: { txn_id: 't_1' }, booking: { booking_id: 'b_1' } }).offered, [
      'payment.txn_id',
      'booking.booking_id',
    ]);
    assert.deepEqual(ask({ invoice: { id: 'in_1' }, payment: { txn_id: 't_1' } }).offered, [
      'invoice.id',
      'payment.txn_id',
    ]);
    assert.deepEqual(ask({ a: { b: { id: 'b_1' } }, invoice: { id: 'in_1' } }).offered, [
      'invoice.id',
      'a.b.id',
    ]);
    const five = ask({
      invoice: { id: 'in_1' },
      plan: { id: 'pl_1' },
      ticket: { id: 'tk_1' },
      order: { id: 'o_1' },
      charge: { id: 'ch_1' },
    });
    assert.equal(five.offered?.length, 4);
  });

  it('asks beside an id at the top that is always empty', () => {
    assert.deepEqual(ask([{ id: null, invoice: { id: 'in_1' } }]).offered, ['invoice.id']);
  });
});

describe('the creator: an id named for the record the event’s type names', () => {
  it('asks about a wrapped record’s id named for it, preselected: `data.conversation_id`, `data.envelopeId`', () => {
    for (const [body, column] of [
      [
        { event: 'conversation.started', data: { conversation_id: 'cv_81', channel: 'web', text: 'Hi' } },
        'data.conversation_id',
      ],
      [
        { event: 'envelope-sent', data: { envelopeId: 'e7c1-99', accountId: 'acc_1', status: 'sent' } },
        'data.envelopeId',
      ],
    ] as const) {
      const g = guess(body);
      assert.deepEqual(eventIds(g), [column], column);
      assert.equal(idQuestion(g)?.options[0]?.column, column, column);
      assert.equal(idQuestion(g)?.noneGuessed, undefined, column);
    }
  });

  it('offers a person’s record’s id with none preselected, and asks it as the person’s instead', () => {
    const g = guess({
      event: 'lead.created',
      data: { leadId: '5071-df73', firstName: 'Ana', email: 'ana@example.com', source: 'inbound' },
    });
    assert.deepEqual(eventIds(g), []);
    assert.deepEqual(
      idQuestion(g)?.options.map((o) => o.column),
      ['data.leadId'],
    );
    assert.ok(idQuestion(g)?.noneGuessed);
    assert.equal(g.columns.find((c) => c.column === 'data.leadId')?.target, 'user_id');
  });

  it('takes only the record the type names before its step, not a word of it', () => {
    // `app_subscription_cancelled` names an app subscription, not the app.
    const app = guess({ event: 'app_subscription_cancelled', data: { app_id: 5, plan: 'pro' } });
    assert.deepEqual(eventIds(app), []);
    // An id named for another thing than the type's record is no record's own.
    const shop = guess({ event: 'order.paid', data: { shopId: 's_1', total: 12 } });
    assert.equal(
      shop.questions.some(
        (q) => q.target === 'event_id' && q.options.some((o) => o.column === 'data.shopId'),
      ),
      false,
    );
  });
});

describe('the creator: a person’s object the event’s type names', () => {
  it('offers `data.user.id` beside `user.created` for the event, none preselected, still the person’s', () => {
    for (const [body, column] of [
      [{ type: 'user.created', data: { user: { id: 'kp_1a2b', email: 'ana@example.com' } } }, 'data.user.id'],
      [
        { event: 'member.signup', member: { id: 88, email: 'ana@example.com', full_name: 'Ana' } },
        'member.id',
      ],
    ] as const) {
      const g = guess(body);
      assert.deepEqual(eventIds(g), [], column);
      assert.deepEqual(
        idQuestion(g)?.options.map((o) => o.column),
        [column],
        column,
      );
      assert.ok(idQuestion(g)?.noneGuessed, column);
      assert.ok(
        g.columns.some(
          (c) => c.column === column && (c.target === 'user_id' || c.target === 'user.external_id'),
        ),
        column,
      );
    }
  });

  it('offers no person’s object the type does not name', () => {
    // An order's customer is a party beside the order, not what the event is about.
    const g = guess({ type: 'order.created', customer: { id: 'c_1', email: 'ana@example.com' } });
    assert.equal(
      g.questions.some((q) => q.target === 'event_id' && q.options.some((o) => o.column === 'customer.id')),
      false,
    );
  });
});
