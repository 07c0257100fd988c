/**
 * A phone number's country is not the person's (issue #94, core/samples/transaction-country.ts
 * `phoneCountry` and its use in guess.ts): a country named for a phone (`phone_country`,
 * `mobileCountryCode`, `phone.country`) is the region the number was issued in, not where the
 * person lives, even inside the person's contact object: never filled as the person's country,
 * kept as a field and asked with no answer preselected. A country beside the phone but named for
 * nothing else (`contact.country`, `address.country`) still is the person's.
 */
import assert from 'node:assert/strict';
import { phoneCountry } from '../../../core/samples/transaction-country.ts';
import { guesses, targetOf } from '../../support/page-steps.ts';

/** A booking whose head of party has a phone and the phone's country, and no address. */
const booking = {
  booking_id: 'bk_7d1e',
  contact: {
    name: 'Ada Wave',
    email: 'ada@example.org',
    phone: '+44 20 7946 0321',
    phone_country: 'GB',
  },
};

describe('the creator: a phone number’s country is not the person’s', () => {
  it('never fills a contact’s phone_country as the person’s country: it asks, none preselected', () => {
    const g = guesses(booking);
    assert.equal(targetOf(g, 'contact.phone_country'), 'event_data');
    assert.ok(!g.columns.some((c) => c.target === 'user.country'));
    const q = g.questions.find((x) => x.target === 'user.country');
    assert.ok(q?.noneGuessed, 'the question preselects no answer');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['contact.phone_country'],
    );
    assert.match(q.ask, /country of the number/);
  });

  it('reads the phone in the name or in the object above, under several spellings', () => {
    for (const column of [
      'phone_country',
      'mobileCountryCode',
      'customer.msisdn_country',
      'user.phone.country',
      'sender.telCountry',
      'contact.cell_country',
      'recipient.whatsapp_country_code',
    ])
      assert.match(phoneCountry(column) ?? '', /named for a phone number/, column);
  });

  it('asks likewise for a flat form’s mobile number country', () => {
    const g = guesses({
      submission_id: 'sub_33',
      email: 'lin@example.net',
      mobile: '+33 6 12 34 56 78',
      mobile_country: 'FR',
    });
    assert.equal(targetOf(g, 'mobile_country'), 'event_data');
    assert.ok(g.questions.some((q) => q.target === 'user.country' && q.noneGuessed));
  });

  it('still fills a country beside the phone that is named for nothing else', () => {
    const g = guesses({
      ...booking,
      contact: { ...booking.contact, phone_country: undefined, country: 'GB' },
    });
    assert.equal(targetOf(g, 'contact.country'), 'user.country');
    const a = guesses({
      id: 'cus_1',
      phone: '+14155550100',
      address: { line1: '1 Main St', city: 'Oakland', country: 'US' },
    });
    assert.equal(targetOf(a, 'address.country'), 'user.country');
    for (const column of ['country', 'contact.country', 'billing_address.country_code', 'telemetry_region'])
      assert.equal(phoneCountry(column), undefined, column);
  });
});
