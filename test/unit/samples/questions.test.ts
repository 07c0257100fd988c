/**
 * What a guess rests on and the questions the creator asks (core/samples/questions.ts), rule by
 * rule: each part of a column's evidence in its words, the question of whose phone or e-mail a
 * column holds when the business's would take it too, an e-mail known by its values alone, a
 * person's id inside an object that is not the person's, and which amount is the value.
 */
import assert from 'node:assert/strict';
import { evidenceOf, type QuestionColumn, questionsFor } from '../../../core/samples/questions.ts';
import type { Role } from '../../../core/samples/roles.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

const field = (name: string, more: Partial<InferredField> = {}): InferredField => ({
  name,
  type: 'string',
  nullable: false,
  examples: ['x'],
  distinct: 1,
  ...more,
});
const column = (
  name: string,
  target: string,
  role: Role = 'person',
  more: { why?: string; alone?: string; guessed?: string; field?: Partial<InferredField> } = {},
): QuestionColumn => ({
  field: field(name, more.field),
  target,
  role: { role, why: more.why ?? '' },
  alone: more.alone ?? target,
  ...(more.guessed ? { guessed: more.guessed } : {}),
});

describe('the evidence of a guess', () => {
  it('gives the name’s reason, or that the leaf names nothing known', () => {
    assert.equal(evidenceOf(field('a.mail'), 'its name says e-mail', '').name, 'its name says e-mail');
    assert.equal(evidenceOf(field('a.x'), 'the names match', '').name, 'the names match');
    assert.equal(
      evidenceOf(field('a.b.mobil'), 'values are phones', '').name,
      '"mobil" names no field the creator knows',
    );
    assert.equal(evidenceOf(field('mobil'), '', '').name, '"mobil" names no field the creator knows');
  });

  it('gives the type with its format, looseness and pattern', () => {
    assert.equal(evidenceOf(field('a'), '', '').type, 'string');
    assert.equal(evidenceOf(field('a', { format: 'phone' }), '', '').type, 'string (phone)');
    assert.equal(
      evidenceOf(field('a', { format: 'phone', loose: true }), '', '').type,
      'string (phone, loosely written)',
    );
    assert.equal(
      evidenceOf(field('a', { format: 'phone', loose: true, pattern: 'national' }), '', '').type,
      'string (phone, loosely written), national',
    );
    assert.equal(
      evidenceOf(field('a', { type: 'number', pattern: 'decimal_comma' }), '', '').type,
      'number, decimal_comma',
    );
  });

  it('gives the first value, quoted and cut at 40 characters, and how many differ', () => {
    const shape = (more: Partial<InferredField>) => evidenceOf(field('a', more), '', '').shape;
    assert.equal(shape({ distinct: 0, examples: [] }), 'always empty');
    assert.equal(shape({ examples: ['x'] }), '"x", one value in the sample');
    assert.equal(shape({ examples: [12], distinct: 2 }), '12, 2 different values');
    assert.equal(shape({ examples: [undefined] }), 'undefined, one value in the sample');
    assert.equal(shape({ examples: ['y'.repeat(38)] }), `"${'y'.repeat(38)}", one value in the sample`);
    assert.equal(shape({ examples: ['y'.repeat(39)] }), `"${'y'.repeat(38)}…, one value in the sample`);
  });

  it('gives where it sits and whose it is there', () => {
    const names = ['a', 'amount', 'a', 'shop.a.b', 'shop.a'];
    const whose = ['', '', 'the payload’s own', '', 'the business’s'];
    const top = 'at the top of the payload';
    assert.deepEqual(
      names.map((name, i) => evidenceOf(field(name), '', whose[i] ?? '').position),
      [top, top, `${top}; the payload’s own`, 'inside shop.a', 'the business’s'],
    );
  });
});

describe('the questions of a payload', () => {
  it('asks whose phone it is when the business’s would take it too, the guess first', () => {
    const shop = column('shop.phone', 'event_data', 'business', { why: 'the shop’s', alone: 'user.phone' });
    assert.deepEqual(questionsFor([column('customer.phone', 'user.phone'), shop]), [
      {
        target: 'user.phone',
        ask: "Whose phone number is the person's? Both columns hold one.",
        options: [
          { column: 'customer.phone', why: 'the payload’s own: the person’s' },
          { column: 'shop.phone', why: 'the shop’s' },
        ],
      },
    ]);
    const chosen = column('customer.email', 'user.email', 'person', { why: 'the customer’s' });
    const rival = column('shop.email', 'event_data', 'business', { why: 'the shop’s', alone: 'user.email' });
    assert.deepEqual(questionsFor([chosen, rival])[0]?.options, [
      { column: 'customer.email', why: 'the customer’s' },
      { column: 'shop.email', why: 'the shop’s' },
    ]);
    assert.equal(
      questionsFor([chosen, rival])[0]?.ask,
      "Whose e-mail address is the person's? Both columns hold one.",
    );
  });

  it('asks nothing of a rival that is not the business’s, would not take it, or already does', () => {
    const chosen = column('customer.phone', 'user.phone');
    for (const rival of [
      column('other.phone', 'event_data', 'other', { alone: 'user.phone' }),
      column('shop.fax', 'event_data', 'business', { alone: 'user.email' }),
      column('shop.phone', 'user.phone', 'business'),
    ])
      assert.deepEqual(questionsFor([chosen, rival]), [], rival.field.name);
    assert.deepEqual(
      questionsFor([column('shop.phone', 'event_data', 'business', { alone: 'user.phone' })]),
      [],
    );
  });

  it('asks about an e-mail known by its values alone, not one its name or object names', () => {
    const asked = questionsFor([column('actor', 'user.email')]);
    assert.deepEqual(asked, [
      {
        target: 'user.email',
        ask: "Is actor the person's e-mail address? Its values are addresses, but nothing in its name says whose.",
        options: [{ column: 'actor', why: 'e-mail addresses, under a name that says nothing of an e-mail' }],
      },
    ]);
    for (const name of ['data.email.from', 'mail', 'emails', 'Email', 'Correo electrónico', 'send_date_mail'])
      assert.deepEqual(questionsFor([column(name, 'user.email')]), [], name);
    // A word that only holds or starts with one names no e-mail.
    for (const name of ['gmail', 'mailer'])
      assert.equal(questionsFor([column(name, 'user.email')]).length, 1, name);
    assert.equal(questionsFor([column('actor', 'event_data')]).length, 0);
  });

  it('does not ask twice of an e-mail already in a whose-is-it question', () => {
    const chosen = column('actor', 'user.email');
    const rival = column('shop.contact', 'event_data', 'business', { alone: 'user.email' });
    assert.deepEqual(
      questionsFor([chosen, rival]).map((q) => q.ask.split('?')[0]),
      ["Whose e-mail address is the person's"],
    );
  });

  it('asks about a person’s id inside an object that is not the person’s', () => {
    for (const target of ['user_id', 'user.external_id'])
      assert.deepEqual(questionsFor([column('hidden.user_id', target, 'other', { why: 'inside hidden' })]), [
        {
          target,
          ask: "Is hidden.user_id the person's id? Its name says so, but it sits in an object that is not the person's.",
          options: [{ column: 'hidden.user_id', why: "named as the person's id; inside hidden" }],
        },
      ]);
    assert.deepEqual(questionsFor([column('customer.user_id', 'user_id', 'person')]), []);
    assert.deepEqual(questionsFor([column('hidden.user_id', 'event_data', 'other')]), []);
  });

  it('asks which amount is the value when a fee ends in a value’s name', () => {
    const value = column('amount', 'event_data', 'person', { guessed: 'value' });
    const fees = [
      column('transaction_fee.value', 'event_data'),
      column('shipping.amount', 'event_data'),
      column('tax.total', 'event_data'),
    ];
    assert.deepEqual(questionsFor([value, ...fees]), [
      {
        target: 'event_data',
        field: 'value',
        ask: 'Which amount is the event’s value? The others end in a value’s name but are named as something else.',
        options: [
          { column: 'amount', why: 'the total: named as the amount, no fee, tax or shipping in its name' },
          {
            column: 'transaction_fee.value',
            why: '"fee" in its name: a part of the total or a charge, not the value',
          },
          {
            column: 'shipping.amount',
            why: '"shipping" in its name: a part of the total or a charge, not the value',
          },
          { column: 'tax.total', why: '"tax" in its name: a part of the total or a charge, not the value' },
        ],
      },
    ]);
  });

  it('never offers the value itself as a fee, though its name has one', () => {
    const value = column('tax_included.total', 'event_data', 'person', { guessed: 'value' });
    assert.deepEqual(
      questionsFor([value, column('fee.value', 'event_data')])[0]?.options.map((o) => o.column),
      ['tax_included.total', 'fee.value'],
    );
  });

  it('asks nothing of an empty fee, a fee not ending in a value’s name, or without a value', () => {
    const value = column('amount', 'event_data', 'person', { guessed: 'value' });
    for (const other of [
      column('fee.value', 'event_data', 'person', { field: { distinct: 0, examples: [] } }),
      column('fee_value', 'event_data'),
      column('fee.price', 'event_data'),
      column('order.value', 'event_data'),
      column('order.total_tax', 'event_data'),
    ])
      assert.deepEqual(questionsFor([value, other]), [], other.field.name);
    assert.deepEqual(questionsFor([column('fee.value', 'event_data')]), []);
    const notData = column('amount', 'user.external_id', 'person', { guessed: 'value' });
    assert.deepEqual(questionsFor([notData, column('fee.value', 'event_data')]), []);
    assert.deepEqual(
      questionsFor([
        column('amount', 'event_data', 'person', { guessed: 'currency' }),
        column('fee.value', 'event_data'),
      ]),
      [],
    );
  });
});
