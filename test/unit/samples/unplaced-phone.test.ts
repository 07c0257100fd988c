/**
 * A phone no rule placed (issue #94, core/samples/unplaced-phone.ts and its use in guess.ts): with
 * no column taken or asked about as the person's phone, a column named as a phone whose values
 * read as numbers, kept as a field for where it sits, is asked about: preselected when it is the
 * only one, offered with no answer preselected when there are several or it is a sender's; never a business party's
 * or an actor's number, never a column of other values, never filled silently.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import type { RuleGuess } from '../../../core/samples/rule-guess.ts';
import { unplacedPhoneQuestion } from '../../../core/samples/unplaced-phone.ts';

/** The phone question for one body, the columns taken as the person's phone, and the guesses. */
const read = (body: unknown) => {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  return {
    g,
    ask: g.questions.find((q) => q.target === 'user.phone'),
    taken: g.columns.flatMap((c) => (c.target === 'user.phone' ? [c.column] : [])),
  };
};

describe('the creator: a phone no rule placed', () => {
  it('asks about a form’s phone, preselected, marked personal', () => {
    const { g, ask, taken } = read({ form: { id: 'f1', mobileNumber: '07123 987654', message: 'Hi' } });
    assert.deepEqual(taken, ['form.mobileNumber']);
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['form.mobileNumber'],
    );
    assert.equal(ask?.noneGuessed, undefined);
    const c = g.columns.find((x) => x.column === 'form.mobileNumber');
    assert.equal(c?.confidence, 0.5);
    assert.equal(c?.personal, true);
  });

  it('asks in several shapes: a booking’s submission, a patient, digits alone', () => {
    for (const [body, column] of [
      [
        { booking_id: 'b1', form_submission: { mobile_phone: '1-2025550195' } },
        'form_submission.mobile_phone',
      ],
      [{ data: { booking_id: 9, patient: { mobile_phone: '0412345678' } } }, 'data.patient.mobile_phone'],
      [{ entry: { id: 3, phone_number: '4915112345678' } }, 'entry.phone_number'],
    ] as const) {
      const { ask, taken } = read(body);
      assert.deepEqual(
        ask?.options.map((o) => o.column),
        [column],
        column,
      );
      assert.deepEqual(taken, [column], column);
    }
  });

  it('offers a sender’s number with no answer preselected', () => {
    const { ask, taken } = read({ sender: { phone: '+31612345678' }, text: 'hi' });
    assert.ok(ask?.noneGuessed);
    assert.deepEqual(
      ask.options.map((o) => o.column),
      ['sender.phone'],
    );
    assert.deepEqual(taken, []);
  });

  it('offers several numbers with no answer preselected', () => {
    const { ask, taken } = read({
      form: { id: 1, phone: '+15551234567' },
      entry: { mobile: '+15557654321' },
    });
    assert.ok(ask?.noneGuessed);
    assert.equal(ask.options.length, 2);
    assert.deepEqual(taken, []);
  });

  it('never offers a business party’s or an actor’s number', () => {
    assert.equal(read({ ticket: { id: 1 }, merchant: { phone: '+15551234567' } }).ask, undefined);
    assert.equal(read({ id: 'e1', changer: { mobile_phone: '+15551234567' } }).ask, undefined);
    assert.equal(read({ form: { id: 1, company_phone: '+15551234567' } }).ask, undefined);
  });

  it('never offers digits that are no phone, or a number not named as one', () => {
    // An order number, a postcode, a date and an amount under a form: none is a phone.
    for (const [name, value] of [
      ['order_number', '100234567'],
      ['postcode', '01067'],
      ['phone_since', '2026-01-15'],
      ['total', '1234567.50'],
      ['phone', '1234567'],
    ] as const)
      assert.equal(read({ form: { id: 1, [name]: value } }).ask, undefined, name);
  });

  it('asks nothing when the person’s phone is already taken', () => {
    const { ask, taken } = read({ customer: { phone: '+15551234567' }, form: { mobile: '+15557654321' } });
    assert.deepEqual(taken, ['customer.phone']);
    assert.ok(!ask?.options.some((o) => o.column === 'form.mobile'));
  });

  it('asks nothing of a column not kept as a field, nor one always empty', () => {
    const base: RuleGuess[] = [{ column: 'form.phone', target: 'skip', why: 'always empty' }];
    const f = { name: 'form.phone', type: 'string' as const, examples: [], distinct: 0, nullable: true };
    assert.equal(unplacedPhoneQuestion(base, [f], []), undefined);
  });
});

describe('the creator: a message’s two numbers', () => {
  it('offers both ends of a text message, none preselected, nothing filled', () => {
    for (const [body, from, to] of [
      [{ id: 'm1', from: '14165550100', to: '12362320246', body: 'Call me back' }, 'from', 'to'],
      [
        { results: { From: '19195551212', To: '15055551212', MessageText: 'Hi' } },
        'results.From',
        'results.To',
      ],
      [
        { sms: { sender: '385916242493', recipient: '385921004026', text: 'QUIZ' } },
        'sms.sender',
        'sms.recipient',
      ],
    ] as const) {
      const { ask, taken } = read(body);
      assert.deepEqual(
        ask?.options.map((o) => o.column),
        [from, to],
        from,
      );
      assert.ok(ask?.noneGuessed, from);
      assert.deepEqual(taken, [], from);
    }
  });

  it('offers nothing without a message’s text, a second end, or digits of a phone’s length', () => {
    // A transfer between two account numbers: digits at both ends, but no message.
    assert.equal(read({ id: 't1', from: '12345678901', to: '10987654321', amount: 12 }).ask, undefined);
    assert.equal(read({ id: 'm1', from: '14165550100', body: 'Hi' }).ask, undefined, 'no other end');
    assert.equal(read({ id: 'm1', from: 'alice', to: 'bob', text: 'Hi' }).ask, undefined, 'names');
    assert.equal(
      read({ id: 'm1', from: '1234567', to: '7654321', text: 'Hi' }).ask,
      undefined,
      'seven digits',
    );
    assert.equal(
      read({ id: 'm1', from: '1234567890123456', to: '6543210987654321', text: 'Hi' }).ask,
      undefined,
      'sixteen digits',
    );
  });

  it('leaves a message whose numbers already read as phones to the rules that read them', () => {
    const { ask, taken } = read({
      direction: 'inbound',
      from: '+14155552671',
      to: '+18445550001',
      text: 'Hi',
    });
    assert.deepEqual(taken, ['from']);
    assert.doesNotMatch(ask?.ask ?? '', /message's numbers/);
  });
});

describe('the creator: WhatsApp ids', () => {
  it('offers the columns holding WhatsApp users’ ids, none preselected, each marked personal', () => {
    const { g, ask, taken } = read({
      event: 'message.reaction',
      payload: { from: '79111111111@c.us', to: '79222222222@c.us', reaction: { text: 'ok' } },
    });
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['payload.from', 'payload.to'],
    );
    assert.ok(ask?.noneGuessed);
    assert.deepEqual(taken, []);
    const chat = read({ senderData: { chatId: '71231234567@s.whatsapp.net', chatName: 'Ana' } });
    assert.deepEqual(
      chat.ask?.options.map((o) => o.column),
      ['senderData.chatId'],
    );
    assert.equal(chat.g.columns.find((c) => c.column === 'senderData.chatId')?.personal, true);
    assert.equal(g.columns.find((c) => c.column === 'payload.to')?.personal, true);
  });

  it('never offers a group’s id, a message id holding a number, or the business’s own instance', () => {
    assert.equal(read({ payload: { chatId: '120363040000000000@g.us', text: 'hi' } }).ask, undefined);
    assert.equal(read({ payload: { id: 'false_79111111111@c.us_3EB0', text: 'hi' } }).ask, undefined);
    assert.equal(read({ instanceData: { wid: '71234567890@c.us' }, text: 'hi' }).ask, undefined);
  });
});
