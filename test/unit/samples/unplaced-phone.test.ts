/**
 * A phone no rule placed (issue #94, core/samples/unplaced-phone.ts and its use in guess.ts): with
 * no column taken or asked about as the person's phone, a column named as a phone whose values
 * read as numbers, kept as a field for where it sits, is asked about: preselected when it is the
 * only one, offered with no answer preselected when there are several or it is a sender's; never a business party's
 * or an actor's number, never a column of other values, never filled silently.
 */
import assert from 'node:assert/strict';
import type { Question } from '../../../core/samples/questions.ts';
import type { RuleGuess } from '../../../core/samples/rule-guess.ts';
import {
  messageNumbersQuestion,
  unplacedPhoneQuestion,
  whatsappIdQuestion,
} from '../../../core/samples/unplaced-phone.ts';
import { fieldsOf, guesses, keptAll, takenAs } from '../../support/page-steps.ts';

/** The phone question for one body, the columns taken as the person's phone, and the guesses. */
const read = (body: unknown) => {
  const g = guesses(body);
  return { g, ask: g.questions.find((q) => q.target === 'user.phone'), taken: takenAs(g, 'user.phone') };
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

/**
 * The rules called on their own, every column kept as an event field unless a case says otherwise:
 * what each checks is then not hidden by the rules that run before it in guessChoices.
 */
type Rule = typeof unplacedPhoneQuestion;
const call = (rule: Rule, body: unknown, base = keptAll(body), questions: readonly Question[] = []) =>
  rule(base, fieldsOf(body), questions);
/** A question the guesses already hold, about something else than the phone. */
const other: Question = { target: 'user.email', ask: 'Whose?', options: [{ column: 'x', why: 'x' }] };

describe('the creator: each phone rule on its own', () => {
  it('says where a lone number sits, asks of it by name and rewrites its guess', () => {
    const body = { form: { mobileNumber: '+15551234567', message: 'Hi' } };
    const base = keptAll(body);
    const q = call(unplacedPhoneQuestion, body, base);
    assert.equal(q?.options.length, 1);
    assert.equal(q?.options[0]?.column, 'form.mobileNumber');
    assert.match(q?.options[0]?.why ?? '', /^named as a phone .*\(form\) does not say whose$/);
    assert.match(q?.ask ?? '', /^Is form\.mobileNumber the person's phone number\?/);
    assert.equal(q?.noneGuessed, undefined);
    const taken = base.find((g) => g.column === 'form.mobileNumber');
    assert.equal(taken?.target, 'user.phone');
    assert.match(taken?.why ?? '', /^the one phone number that is not the business's.*preselected$/);
    const top = call(unplacedPhoneQuestion, { phone: '+15551234567', note: 'Hi' });
    assert.match(top?.options[0]?.why ?? '', /\(the top\)/);
  });

  it('offers several numbers, at most three, in the words of several', () => {
    const q = call(unplacedPhoneQuestion, {
      form: { phone: '+15551234567' },
      entry: { mobile: '+15557654321' },
      lead: { phone_number: '+15550001111' },
      booking: { cell: '+15552223333' },
    });
    assert.equal(q?.options.length, 3);
    assert.match(q?.ask ?? '', /^Is one of these the person's phone number\?/);
    assert.match(q?.noneGuessed?.why ?? '', /^nothing says which number/);
  });

  it('asks of no number not kept as a field, nor a vendor’s', () => {
    const body = { form: { phone: '+15551234567' }, note: 'Hi' };
    const skipped = keptAll(body).map((g) => (g.column === 'form.phone' ? { ...g, target: 'skip' } : g));
    assert.equal(call(unplacedPhoneQuestion, body, skipped), undefined);
    assert.equal(call(unplacedPhoneQuestion, { vendor: { phone: '+15551234567' }, note: 'Hi' }), undefined);
  });

  it('offers a message’s ends by any of their names, a content or a caption beside', () => {
    const q = call(messageNumbersQuestion, {
      sms: { source: '14165550100', destination: '12362320246', content: 'Hi' },
    });
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['sms.source', 'sms.destination'],
    );
    assert.match(q?.ask ?? '', /^Is one of sms\.source and sms\.destination the person's phone number\?/);
    assert.match(q?.options[0]?.why ?? '', /^the number the message came from/);
    assert.match(q?.options[1]?.why ?? '', /^the number the message went to/);
    assert.match(q?.noneGuessed?.why ?? '', /^nothing says which way the message went/);
    const caption = call(messageNumbersQuestion, {
      mms: { from: '14165550100', to: '12362320246', caption: 'A photo' },
    });
    assert.deepEqual(
      caption?.options.map((o) => o.column),
      ['mms.from', 'mms.to'],
    );
  });

  it('reads a number written with its separators at a message’s end', () => {
    const q = call(messageNumbersQuestion, { from: '+1 415-555-2671', to: '+1 844-555-0001', text: 'Hi' });
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['from', 'to'],
    );
  });

  it('needs numbers at both ends of one message, in every row, beside a text', () => {
    const rows = (from: unknown) => [
      { from: '14165550100', to: '12362320246', text: 'Hi' },
      { from, to: '12362320247', text: 'Ho' },
    ];
    assert.equal(call(messageNumbersQuestion, rows('alice')), undefined, 'a name in one row');
    assert.equal(call(messageNumbersQuestion, { from: 'alice', to: '12362320246', text: 'Hi' }), undefined);
    assert.equal(call(messageNumbersQuestion, [{ from: null, to: '12362320246', text: 'Hi' }]), undefined);
    // The other end in another object, a text that is no string, a text word only in the path.
    assert.equal(
      call(messageNumbersQuestion, { a: { from: '14165550100', text: 'Hi' }, b: { to: '12362320246' } }),
      undefined,
    );
    assert.equal(
      call(messageNumbersQuestion, { from: '14165550100', to: '12362320246', body_bytes: 512 }),
      undefined,
    );
    assert.equal(
      call(messageNumbersQuestion, { content: { from: '14165550100', to: '12362320246' } }),
      undefined,
    );
  });

  it('leaves a message’s ends alone when not kept as fields or the phone is placed', () => {
    const body = { from: '14165550100', to: '12362320246', text: 'Hi' };
    assert.ok(call(messageNumbersQuestion, body, keptAll(body), [other]), 'another question');
    const skipped = keptAll(body).map((g) => (g.column === 'text' ? g : { ...g, target: 'skip' }));
    assert.equal(call(messageNumbersQuestion, body, skipped), undefined);
    const phone: RuleGuess = { column: 'customer.phone', target: 'user.phone', why: 'the person’s' };
    assert.equal(call(messageNumbersQuestion, body, [...keptAll(body), phone]), undefined);
    const asked: Question = { ...other, target: 'user.phone' };
    assert.equal(call(messageNumbersQuestion, body, keptAll(body), [asked]), undefined);
  });

  it('offers at most three WhatsApp ids, each in every row, kept as a field', () => {
    const q = call(whatsappIdQuestion, [
      {
        payload: {
          empty: null,
          note: 'hi',
          from: '79111111111@c.us',
          to: '79222222222@c.us',
          a: '79333333333@c.us',
          b: '79444444444@c.us',
          c: '79555555555@c.us',
        },
      },
      {
        payload: {
          empty: null,
          note: 'ho',
          from: 'someone',
          to: '79222222223@c.us',
          a: '79333333334@c.us',
          b: '79444444445@c.us',
          c: '79555555556@c.us',
        },
      },
    ]);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['payload.to', 'payload.a', 'payload.b'],
    );
    assert.match(q?.ask ?? '', /^Is one of these the person's phone number\? Each is a WhatsApp id/);
    assert.match(q?.options[0]?.why ?? '', /^a WhatsApp id: the number of whoever it names/);
    assert.match(q?.noneGuessed?.why ?? '', /^nothing says which WhatsApp id/);
  });

  it('leaves WhatsApp ids alone when not kept as fields or the phone is placed', () => {
    const body = { payload: { from: '79111111111@c.us', text: 'hi' } };
    assert.ok(call(whatsappIdQuestion, body, keptAll(body), [other]), 'another question');
    const skipped = keptAll(body).map((g) => ({ ...g, target: 'skip' }));
    assert.equal(call(whatsappIdQuestion, body, skipped), undefined);
    const phone: RuleGuess = { column: 'customer.phone', target: 'user.phone', why: 'the person’s' };
    assert.equal(call(whatsappIdQuestion, body, [...keptAll(body), phone]), undefined);
    const asked: Question = { ...other, target: 'user.phone' };
    assert.equal(call(whatsappIdQuestion, body, keptAll(body), [asked]), undefined);
  });
});
