/**
 * The other side of a transfer is not the person (issue #94, core/samples/party.ts `otherSide`):
 * in a body where money moves, a party under or named with a destination word, or a recipient
 * beside a payer, is the side the money goes to; its e-mail, phone and id are never filled as the
 * person's, and stay personal. Where the body says the money goes to the person (a payout, a
 * refund, a credit), the receiving side is the person and is read as before; a body where no money
 * moves, and a person's own details beside no side word, are read as before too.
 * Payloads invented for these tests, in several shapes (nested and flat, JSON and form bodies).
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { otherSide } from '../../../core/samples/party.ts';
import { fieldsOf } from '../../support/page-steps.ts';
import { guessOf } from './rule-fields.ts';

type Guesses = ReturnType<typeof guessOf>;

/** The columns filled as the person's id, e-mail or phone without a question. */
function personFilled(g: Guesses): string[] {
  const asked = new Set(g.questions.flatMap((q) => q.options.map((o) => o.column)));
  return g.columns
    .filter(
      (c) => /^(user_id|user\.external_id|user\.email|user\.phone)$/.test(c.target) && !asked.has(c.column),
    )
    .map((c) => `${c.column} as ${c.target}`);
}
/** Whether any question offers `column` as the person's detail. */
const offered = (g: Guesses, column: string) =>
  g.questions.some((q) => q.target.startsWith('user') && q.options.some((o) => o.column === column));

/** A wallet's debit of the paying customer, the merchant who is paid on the other side. */
const debit = {
  event: 'transaction.execute',
  data: {
    id: 'tx-1',
    tx_type: 'debit',
    amount: -500,
    account: 'ACC-1',
    currency: { code: 'ZAR' },
    destination_transaction: {
      id: 'tx-2',
      user: { id: 'u-9', email: 'merchant@shop.example', mobile: '+27821234567' },
    },
    created: 1476691969394,
  },
};
const side = 'data.destination_transaction.user';

describe('the creator: the other side of a transfer', () => {
  it('fills nothing of the destination’s user as the person’s, and keeps it personal', () => {
    const g = guessOf(debit);
    assert.deepEqual(personFilled(g), []);
    for (const leaf of ['id', 'email', 'mobile']) assert.equal(offered(g, `${side}.${leaf}`), false, leaf);
    assert.equal(g.columns.find((c) => c.column === `${side}.email`)?.personal, true);
    assert.match(otherSide(fieldsOf(debit))(`${side}.email`) ?? '', /other side of the money movement/);
  });

  it('reads the same of a flat destination, another destination object and a form body', () => {
    const flat = {
      type: 'transfer.completed',
      amount: 12,
      currency: 'EUR',
      destination_email: 'shop@x.example',
    };
    assert.deepEqual(personFilled(guessOf(flat)), []);
    const account = {
      amount: 3,
      destination_account: { holder: { email: 'shop@x.example', phone: '+4915112345678' } },
    };
    assert.deepEqual(personFilled(guessOf(account)), []);
    const sample = parseSample('amount=5.00&currency=USD&destination_account_email=shop%40x.example');
    const form = guessChoices(inferFields(sample), sample.rows);
    assert.deepEqual(personFilled(form), []);
  });

  it('reads a recipient as the other side only beside a payer', () => {
    const paid = { amount: 9, payer: { email: 'ana@x.example' }, recipient: { email: 'shop@x.example' } };
    assert.match(otherSide(fieldsOf(paid))('recipient.email') ?? '', /"recipient" names the other side/);
    assert.equal(otherSide(fieldsOf(paid))('payer.email'), undefined);
    const g = guessOf(paid);
    assert.equal(offered(g, 'recipient.email'), false);
    assert.ok(!personFilled(g).some((c) => c.startsWith('recipient')));
    assert.deepEqual(personFilled(g), ['payer.email as user.email']);
    const alone = { amount: 9, recipient: { email: 'ana@x.example' } };
    assert.equal(otherSide(fieldsOf(alone))('recipient.email'), undefined);
  });

  it('keeps the receiving side the person’s where the money goes to them', () => {
    for (const body of [
      { type: 'payout.paid', amount: 40, recipient_email: 'ana@x.example', payer_id: 'biz-1' },
      { event: 'withdrawal.completed', amount: 40, destination: { user: { email: 'ana@x.example' } } },
      { object: 'refund', amount: 4, destination_account: { email: 'ana@x.example' } },
      { tx_type: 'credit', amount: 4, destination_transaction: { user: { email: 'ana@x.example' } } },
    ]) {
      const fields = fieldsOf(body);
      for (const f of fields) assert.equal(otherSide(fields)(f.name), undefined, f.name);
    }
    const payout = guessOf({
      type: 'payout.paid',
      amount: 40,
      currency: 'EUR',
      recipient_email: 'ana@x.example',
    });
    assert.deepEqual(personFilled(payout), ['recipient_email as user.email']);
  });

  it('reads no side where no money moves, nor a destination that is no side of a transfer', () => {
    const routed = { type: 'message.routed', destination: { user: { email: 'ana@x.example' } } };
    assert.equal(otherSide(fieldsOf(routed))('destination.user.email'), undefined);
    const booking = { price: 10, destinationCalendar: { userId: 7 }, payment_destination: 'VA-1' };
    assert.equal(otherSide(fieldsOf(booking))('destinationCalendar.userId'), undefined);
    assert.equal(otherSide(fieldsOf(booking))('payment_destination'), undefined);
  });

  it('still fills the person’s own phone and e-mail beside no side word', () => {
    const g = guessOf({ ...debit, data: { ...debit.data, customer: { phone: '+27829876543' } } });
    assert.deepEqual(personFilled(g), ['data.customer.phone as user.phone']);
    const own = guessOf({ amount: 5, currency: 'EUR', email: 'ana@x.example', phone: '+4915112345678' });
    assert.deepEqual(personFilled(own).sort(), ['email as user.email', 'phone as user.phone']);
  });
});
