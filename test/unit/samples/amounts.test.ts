/**
 * The creator's money guesses (core/samples/amounts.ts): which amount is the event's value, and
 * when minor units are offered. The vendors' payloads are walked in guess.test.ts.
 */
import assert from 'node:assert/strict';
import { minorUnitsOffer, notTheValue, valueNameShift } from '../../../core/samples/amounts.ts';
import { guessChoices, inferFields, parseSample, suggestMappings } from '../../../core/samples/index.ts';

const guesses = (text: string) => {
  const sample = parseSample(text);
  return guessChoices(inferFields(sample), sample.rows);
};

describe('the creator’s money guesses', () => {
  it('rules out discount, refund, tax, shipping and fee amounts as the value, in several languages', () => {
    const names = [
      'discount_total',
      'amount_refunded',
      'total_tax',
      'shipping_total',
      'Versand_Kosten',
      'mwst_betrag',
      'fee',
    ];
    assert.deepEqual(names.map(notTheValue), [
      'discount',
      'refunded',
      'tax',
      'shipping',
      'versand',
      'mwst',
      'fee',
    ]);
    assert.equal(notTheValue('total'), undefined);
    assert.equal(notTheValue('grand_total'), undefined);
  });

  it('ranks the plain total over a subtotal, a nested amount and a longer name', () => {
    assert.ok(valueNameShift('total') > valueNameShift('subtotal_price'));
    assert.ok(valueNameShift('total_price') > valueNameShift('total_price_set.shop_money.amount'));
    assert.ok(valueNameShift('total') > valueNameShift('total_usd'));
    const s = suggestMappings([
      { name: 'discount_total', type: 'number' },
      { name: 'subtotal', type: 'number' },
      { name: 'order_total', type: 'number' },
    ]);
    assert.deepEqual(
      s.map((x) => x.field),
      ['discount_total', 'subtotal', 'value'],
    );
    assert.match(s[0]?.reason ?? '', /"discount" says it is not the value/);
  });

  it('names a money object’s leaf that says only how it is written by the object’s key', () => {
    assert.ok(valueNameShift('total_amount.value_in_cents') > valueNameShift('net_amount.value_in_cents'));
    assert.ok(valueNameShift('total.amount_minor') > valueNameShift('subtotal.amount_minor'));
    const g = guesses(
      JSON.stringify({
        id: 'pay_1',
        net_amount: { currency: 'EUR', value_in_cents: 950 },
        total_amount: { currency: 'EUR', value_in_cents: 1000 },
      }),
    );
    assert.equal(g.value?.column, 'total_amount.value_in_cents');
  });

  it('offers minor units for whole numbers beside a currency column, with why, and not without one', () => {
    const g = guesses('order,amount,currency\nA-1,1999,EUR\nA-2,500,JPY\n');
    assert.equal(g.value?.column, 'amount');
    assert.deepEqual(g.minorUnits?.majorUnits, { source: 'currency' });
    assert.match(g.minorUnits?.why ?? '', /whole numbers beside the currency column currency/);
    assert.equal(guesses('order,amount\nA-1,1999\n').minorUnits, undefined);
    // Decimals are major units already (Mollie's "10.00", WooCommerce's "29.35").
    assert.equal(guesses('{"amount":{"value":"10.00","currency":"EUR"}}').minorUnits, undefined);
    assert.equal(minorUnitsOffer([], undefined, undefined, []), undefined);
    // Cents by name with no currency column (Patreon's `amount_cents`): offered, the code asked for.
    const patreon = guesses(
      '{"data":{"attributes":{"pledge_amount_cents":500,"patron_status":"active_patron"}}}',
    );
    assert.equal(patreon.minorUnits?.column, 'data.attributes.pledge_amount_cents');
    assert.equal(patreon.minorUnits?.majorUnits, undefined);
    assert.match(patreon.minorUnits?.why ?? '', /name says cents, and no column holds a currency/);
  });

  it('leaves the currency unguessed when no column holds one: the page asks for a code', () => {
    const g = guesses('order,total\nA-1,19.99\n');
    assert.equal(g.value?.column, 'total');
    assert.equal(g.currency, undefined);
  });

  it('takes no count of days, nights, hours or guests as the value, even beside a currency', () => {
    assert.deepEqual(
      ['total_days', 'nights_count', 'number_of_guests', 'billableHours', 'stay.total_nights'].map(
        notTheValue,
      ),
      ['days', 'nights', 'number', 'hours', 'nights'],
    );
    // held-out-27's cancelled booking: its count of nights was filled as the value.
    const stay = guesses(
      JSON.stringify({
        event_type: 'reservation_updated',
        data: { id: 'r1', currency: 'EUR', total_days: 3, number_of_guests: 2 },
      }),
    );
    assert.equal(stay.value, undefined);
    assert.equal(stay.currency, undefined);
    const hours = guesses(JSON.stringify({ id: 's1', total_hours: 12, currency: 'USD' }));
    assert.equal(hours.value, undefined);
  });

  it('still takes the booking’s money beside its counts', () => {
    const g = guesses(
      JSON.stringify({
        type: 'booking.paid',
        booking: { id: 'b2', nights: 4, guests: 3, total: 480, currency: 'GBP' },
      }),
    );
    assert.equal(g.value?.column, 'booking.total');
    assert.equal(g.currency?.column, 'booking.currency');
    assert.equal(notTheValue('amount_per_day'), undefined);
  });
});
