/**
 * The rules of core/samples/personal.ts one by one (issue #94): each word and value that makes a
 * column personal data, wherever it sits: names camelCase, separated or glued (`invoicezipcode`),
 * a detail kept whole as a list or object, a text holding an address, a message's number, a name
 * inside a `name`, `invoice` or `card` object; and what stays plain.
 */
import assert from 'node:assert/strict';
import { MAX_GLUED, splitGlued } from '../../../core/samples/names.ts';
import { detailWords } from '../../../core/samples/personal.ts';
import type { RoleReading } from '../../../core/samples/roles.ts';
import { inPerson, other, personal, top } from './rule-fields.ts';

const business: RoleReading = { role: 'business', why: 'inside merchant' };

describe('creator: personal data wherever it sits, rule by rule', () => {
  it('takes each word of a person’s detail as the leaf, its last word or its last two', () => {
    for (const name of 'email mail phone phonenumber mobile telephone firstname lastname fname lname fullname givenname familyname surname nickname realname address address1 address2 street line1 line2 city zip zipcode postcode postalcode ip ipaddress birthdate dob'.split(
      ' ',
    ))
      assert.ok(personal(name, top), name);
    for (const name of [
      'work_email',
      'billing_address_line_1',
      'billing_postal_code',
      'postal_code',
      'ip_address',
      'ip_v4',
      'first_name',
    ])
      assert.ok(personal(name, top), name);
    for (const name of ['email_count', 'template', 'zip_file_size', 'vip'])
      assert.ok(!personal(name, top), name);
  });

  it('takes a name after each word that makes it a person’s', () => {
    for (const w of 'first last full given family user real nick display visitor customer contact to from sender chat'.split(
      ' ',
    ))
      assert.ok(personal(`${w}_name`, top), w);
    assert.ok(!personal('product_name', top));
    assert.ok(!personal('name_first_word', top));
  });

  it('keeps a detail inside another thing’s object unless its own name is the business’s', () => {
    assert.ok(personal('invoice_data.city', other));
    assert.ok(personal('repository.customer_city', other));
    assert.ok(!personal('repository.owner_city', other));
    assert.ok(!personal('data.agent_email', other, ['support']));
    assert.ok(personal('merchant.city', { role: 'business', why: 'inside merchant' }));
  });

  it('takes a bare name only inside the person’s own object', () => {
    assert.ok(personal('customer.name', inPerson));
    assert.ok(!personal('name', top));
    assert.ok(!personal('repository.name', other));
    assert.ok(!personal('customer.title', inPerson));
  });

  it('takes an e-mail or a phone by its values, never a flag or an empty column', () => {
    assert.ok(personal('primary', other, ['a@b.co'], { format: 'email' }));
    assert.ok(personal('primary', other, ['+15551234567'], { format: 'phone' }));
    assert.ok(!personal('email', top, [], { distinct: 0 }));
    assert.ok(!personal('verified_email', top, [true], { type: 'boolean' }));
  });

  it('takes a list or object kept whole that holds an e-mail or an international phone', () => {
    const json = (v: unknown) => personal('to', other, [v], { type: 'json' });
    assert.ok(json([{ phone_number: '+15551234567' }]));
    assert.ok(json({ address: 'Ada.Lovelace+w@mail-host.example.org' }));
    assert.ok(!json([{ phone_number: '15551234567' }]));
    assert.ok(!json([{ phone_number: '+155512' }]));
    assert.ok(!json({ at: 'a@b' }));
    assert.ok(!json({ at: 'a@b.c1' }));
    assert.ok(json({ e: 'a@b.co' }));
    assert.ok(
      personal('to', other, [{ n: 1 }, { e: 'a@b.co' }], { type: 'json' }),
      'one value holding one is enough',
    );
  });
});

describe('creator: a glued name split on known words', () => {
  it('splits a lowercase name glued from known words into the fewest of them', () => {
    const known = new Set(['delivery', 'contact', 'name', 'zip', 'code', 'zipcode', 'invoice']);
    assert.deepEqual(splitGlued('deliverycontactname', known), ['delivery', 'contact', 'name']);
    assert.deepEqual(splitGlued('invoicezipcode', known), ['invoice', 'zipcode']);
    assert.deepEqual(splitGlued('zipcode', known), ['zipcode']);
  });

  it('leaves a word it cannot cover whole, or only with one-letter pieces, as it is', () => {
    const known = new Set(['name', 'na', 'me', 'zip']);
    assert.deepEqual(splitGlued('filename', known), ['filename']);
    assert.deepEqual(splitGlued('zips', known), ['zips']);
  });

  it('leaves a name longer than the longest glued one whole, however it is made', () => {
    const known = new Set(['name', 'phone']);
    const longest = 'name'.repeat(MAX_GLUED / 4);
    assert.equal(splitGlued(longest, known).length, MAX_GLUED / 4);
    // A key from outside may be megabytes long: it is not split, however many known words it holds.
    const huge = 'name'.repeat(250_000);
    assert.deepEqual(splitGlued(`${longest}e`, known), [`${longest}e`]);
    assert.deepEqual(splitGlued(huge, known), [huge]);
    assert.deepEqual(detailWords(`data.${huge}`), [huge]);
  });

  it('reads a leaf’s words with each glued word split', () => {
    assert.deepEqual(detailWords('data.deliverycontactname'), ['delivery', 'contact', 'name']);
    assert.deepEqual(detailWords('data.invoicezipcode'), ['invoice', 'zipcode']);
    assert.deepEqual(detailWords('customer.homePhone'), ['home', 'phone']);
    assert.deepEqual(detailWords('hostname'), ['hostname']);
  });
});

describe('creator: the person’s details marked personal wherever they sit', () => {
  it('marks an invoice’s or a delivery’s names and street address, glued or not', () => {
    for (const name of [
      'data.deliveryname',
      'data.deliverycontactname',
      'data.invoicename',
      'data.invoicecontactname',
      'data.deliveryaddress',
      'data.invoicezipcode',
      'data.deliverycity',
      'invoice_data.street',
      'invoice_data.street_number',
      'invoice_data.post_code',
      'invoice_data.first_name',
      'data.contact_info.address_number',
    ])
      assert.ok(personal(name), name);
    for (const name of ['data.invoicenumber', 'data.deliverydate', 'data.hostname', 'data.filename'])
      assert.ok(!personal(name), name);
  });

  it('marks a bare name inside an invoice, delivery or card, not inside another thing', () => {
    assert.ok(personal('invoice_data.name'));
    assert.ok(personal('data.card.name'));
    assert.ok(personal('shipping.name'));
    assert.ok(!personal('data.plan.name'));
    assert.ok(!personal('data.card.brand'));
  });

  it('marks the parts of a name object and a leaf of an address object', () => {
    for (const name of ['Name.first', 'fields.name.last', 'raw.name.givenName', 'raw.name.middleName'])
      assert.ok(personal(name), name);
    assert.ok(personal('data.address.main', inPerson));
    assert.ok(!personal('data.address.country', inPerson));
    assert.ok(!personal('data.address.customer_id', inPerson));
    assert.ok(!personal('data.plan.first'));
  });

  it('marks any phone by name: home, mobile, work, cell, tel, msisdn, kept whole or not', () => {
    for (const name of ['homePhone', 'mobilePhone', 'work_phone', 'cell', 'tel', 'msisdn', 'mobile_number'])
      assert.ok(personal(`customer.${name}`), name);
    assert.ok(personal('customer.homePhone', other, [{}], { type: 'json' }), 'an object named as a phone');
    assert.ok(personal('raw.addresses', other, [[{ locality: 'Steamboat Springs' }]], { type: 'json' }));
    assert.ok(!personal('customer.preferences', other, [{}], { type: 'json' }));
  });

  it('marks a message’s recipient lists and a list of addresses by name', () => {
    for (const name of ['payload.cc', 'payload.bcc', 'contact.email_list', 'user.phone_numbers'])
      assert.ok(personal(name), name);
  });

  it('marks a text holding an e-mail address: a list, or Name <addr>', () => {
    assert.ok(personal('payload.to', other, ['Ada Lovelace <ada@example.com>']));
    assert.ok(personal('payload.to', other, ['ada@example.com, bob@example.org']));
    assert.ok(!personal('repository.ssh_url', other, ['git@github.com:octo/hello.git']));
    assert.ok(!personal('message_id', top, ['<20130503.1866@mail.example.com>']), 'an id is a reference');
    assert.ok(!personal('payload.to', other, ['string']));
  });

  it('marks a message’s party whose values are numbers shaped as phones', () => {
    assert.ok(personal('from', top, ['14165550100']));
    assert.ok(personal('to', top, ['+385916242493']));
    assert.ok(!personal('from', top, ['1234']), 'too short for a phone');
    assert.ok(!personal('order_number', top, ['14165550100']), 'not a party of a message');
    assert.ok(!personal('to', top, ['paid']), 'a state it went to');
  });

  it('keeps a business’s detail as the party rules read it, and nobody’s plain', () => {
    assert.ok(personal('merchant.phone', business));
    assert.ok(!personal('repository.owner_email', other, ['octo']));
    assert.ok(!personal('data.plan.title', inPerson));
  });
});
