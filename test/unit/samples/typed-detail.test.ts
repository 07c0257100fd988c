/**
 * A masked number, a stand-in named as a number, and a value its sibling types as a detail (issue
 * #94, core/samples/empty-detail.ts): each is offered as the person's phone or e-mail with no
 * answer preselected, as an empty column named for one is; never filled, never a business's, and
 * never where the detail is found already.
 */
import assert from 'node:assert/strict';
import { maskedNumber, typedValueTarget } from '../../../core/samples/empty-detail.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  return { fields, g: guessChoices(fields, sample.rows) };
}
const offered = (body: unknown, target: string) =>
  read(body)
    .g.questions.filter((q) => q.target === target && q.noneGuessed)
    .flatMap((q) => q.options.map((o) => o.column));
const field = (examples: string[]): InferredField => ({
  name: 'phone',
  type: 'string',
  nullable: false,
  examples,
  distinct: examples.length,
});

describe('the creator: a masked number, and a value typed as a detail', () => {
  it('offers a verification’s target.value its type names a phone number, where the phone was missed', () => {
    const body = {
      id: 'evt_1',
      type: 'verify.authentication',
      payload: { target: { type: 'phone_number', value: '+33xxxxxxxx' }, price: { amount: 0.009 } },
    };
    assert.deepEqual(offered(body, 'user.phone'), ['payload.target.value']);
    assert.ok(!read(body).g.columns.some((c) => c.target === 'user.phone'), 'nothing filled');
  });

  it('offers a form field’s value typed MOBILE, and one typed as an e-mail', () => {
    const mobile = {
      event: 'form.confirmed',
      data: { item: { fieldType: 'MOBILE', fieldName: 'Cel', value: '380737893456' } },
    };
    assert.deepEqual(offered(mobile, 'user.phone'), ['data.item.value']);
    const email = { event: 'form.confirmed', data: { answer: { kind: 'email', value: 'not-an-address' } } };
    assert.deepEqual(offered(email, 'user.email'), ['data.answer.value']);
  });

  it('offers a masked number and a stand-in naming a number under a phone’s name', () => {
    const sender = { type: 'message', payload: { sender: { phone: '91XXXXX4', name: 'Smit' }, text: 'hi' } };
    assert.deepEqual(offered(sender, 'user.phone'), ['payload.sender.phone']);
    assert.deepEqual(offered({ type: 'inbound', msisdn: 'FROM_NUMBER', text: 'hi' }, 'user.phone'), [
      'msisdn',
    ]);
  });

  it('reads a mask only over some digits, and a type only beside a value', () => {
    assert.equal(maskedNumber(field(['+90505702xxxx']), 'user.phone'), true);
    assert.equal(maskedNumber(field(['+90505702123']), 'user.phone'), false);
    assert.equal(maskedNumber(field(['xxxxxxxx']), 'user.phone'), false);
    assert.equal(maskedNumber(field(['+33xxxxxxxx']), 'user.email'), false);
    const { fields } = read({
      t: { type: 'phone_number', value: 'x', label: 'y' },
      u: { type: 'note', value: 'z' },
    });
    assert.equal(typedValueTarget(fields, 't.value'), 'user.phone');
    assert.equal(typedValueTarget(fields, 't.label'), undefined);
    assert.equal(typedValueTarget(fields, 'u.value'), undefined);
  });

  it('offers nothing where the phone is found already', () => {
    const body = {
      id: 'e-2',
      customer: { phone: '+14155550100' },
      target: { type: 'phone', value: '+1415xxxxxxx' },
    };
    assert.deepEqual(offered(body, 'user.phone'), []);
  });
});
