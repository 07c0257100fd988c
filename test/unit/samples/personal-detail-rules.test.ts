/**
 * The rules of core/samples/personal.ts that its first Stryker run (issue #99) found held by no
 * test, one by one: every word of a person's detail, every word that makes a `name` a person's,
 * every part of a `name` object and every holder of a bare `name`, the words that end a detail's
 * name and say nothing of whose, the leaves of an address object that name no one, the leaves of
 * a message's parties, and the exact shapes of an e-mail address and of a phone number in values.
 */
import assert from 'node:assert/strict';
import type { RoleReading } from '../../../core/samples/roles.ts';
import { inPerson, other, personal, top } from './rule-fields.ts';

/** Every name given is personal (`yes`) or none is, each said by name when it fails. */
const each = (
  names: readonly string[],
  yes: boolean,
  r: RoleReading = other,
  examples: unknown[] = ['x'],
) => {
  for (const name of names) assert.equal(personal(name, r, examples), yes, name);
};

describe('creator: personal data, every word of its lists', () => {
  it('takes every word of a person’s detail as a leaf inside any object', () => {
    each(
      'email emails mail emailaddress phone phones phonenumber phonenumbers mobile telephone tel cell cellphone msisdn firstname lastname middlename fname lname fullname givenname familyname surname nickname realname address addresses addressline address1 address2 street line1 line2 city suburb zip zipcode postcode postalcode ip ipaddress birthdate dob cc bcc'
        .split(' ')
        .map((w) => `data.${w}`),
      true,
    );
    each(['data.emailing', 'data.cells', 'data.streets', 'data.zips', 'data.cities', 'data.tip'], false);
    each(['data._', 'data.-', 'data.$', '_'], false, top);
  });

  it('splits a glued name on every word a detail may be glued with', () => {
    each(
      [
        'homeaddress',
        'workemail',
        'officeemail',
        'primaryemail',
        'secondaryemail',
        'postaddress',
        'postaladdress',
        'personalemail',
      ].map((w) => `data.${w}`),
      true,
    );
  });

  it('takes any word holding `phone` as a phone’s detail, wherever it stands in the name', () => {
    each(['data.phone_ext', 'data.phoneExtension', 'data.phone_country_code'], true);
  });

  it('takes a name after every word that makes it a person’s, and no other', () => {
    each(
      'first last middle full given family legal user real nick display visitor customer contact to from sender recipient chat holder cardholder invoice delivery billing shipping'
        .split(' ')
        .map((w) => `data.${w}_name`),
      true,
    );
    each(['data.product_name', 'data.file_name', 'data.host_name', 'data.name_first', 'data.name'], false);
  });

  it('takes every part of a `name` object as a leaf of one word, and nothing else inside it', () => {
    each(
      ['first', 'last', 'middle', 'given', 'family', 'full'].map((w) => `data.name.${w}`),
      true,
    );
    each(['data.full_name.first', 'data.Name.family'], true);
    each(['data.name.first_seen', 'data.name.title', 'data.name_info.first', 'data.first'], false);
  });

  it('takes a bare name inside every holder’s object, and a person’s own, not a top-level one', () => {
    each(
      ['invoice', 'delivery', 'billing', 'shipping', 'card', 'cardholder', 'recipient'].map(
        (w) => `data.${w}.name`,
      ),
      true,
    );
    each(['data.invoice_info.name', 'data.card_details.name'], true);
    each(['data.product.name', 'data.brand.name', 'name'], false);
    assert.ok(personal('customer.name', inPerson));
    assert.ok(!personal('name', top), 'the person’s role read at the top, with no object to say so');
    assert.ok(!personal('customer.display', inPerson));
  });

  it('reads a detail before every word that says nothing of whose, and never that word alone', () => {
    each(
      ['number', 'no', 'nr', 'num', 'list', 'value', 'values'].map((w) => `data.street_${w}`),
      true,
    );
    each(['data.email_value_list', 'data.city_list'], true);
    each(['data.number', 'data.no', 'data.list', 'data.values', 'data.list_number'], false);
    each(['data.street_count', 'data.city_code_total'], false);
  });

  it('reads every leaf of an address object as the person’s, except those that name no one', () => {
    each(['data.address.main', 'data.addresses.locality', 'data.address.care_of'], true, inPerson);
    each(
      [
        'country',
        'country_code',
        'state',
        'province',
        'region',
        'type',
        'kind',
        'primary',
        'label',
        'verified',
        'id',
        'uuid',
        'guid',
        'key',
        'token',
        'hash',
        'ids',
      ].map((w) => `data.address.${w}`),
      false,
      inPerson,
    );
    each(['data.address.paid', 'data.address.fluid', 'data.address.uuids'], true, inPerson);
    each(['data.home.main', 'data.address_book.main'], false, inPerson);
  });
});

describe('creator: personal data read from values, each shape exactly', () => {
  it('takes a message’s party of every name whose values are all numbers shaped as phones', () => {
    each(['from', 'to', 'sender', 'recipient', 'source', 'destination', 'originator'], true, top, [
      '14165550100',
    ]);
    each(['via', 'caller', 'data.from_number', 'to_from'], false, top, ['14165550100']);
    each(['from'], false, top, ['14165550100', 'shop']);
    assert.ok(!personal('from', top, [], { distinct: 1 }), 'no value to read');
  });

  it('reads a phone as 8 to 15 digits, with or without its plus, and nothing around them', () => {
    for (const [value, yes] of [
      ['12345678', true],
      ['+12345678', true],
      ['123456789012345', true],
      ['1234567', false],
      ['1234567890123456', false],
      ['++12345678', false],
      ['12345678+', false],
      ['x12345678', false],
      ['12345678x', false],
      ['1234 5678', false],
    ] as const)
      assert.equal(personal('to', top, [value]), yes, value);
  });

  it('reads an e-mail address standing alone in a text, after and before any separator', () => {
    for (const value of [
      'ada@example.com',
      'Ada <ada@example.com>',
      'x,ada@example.com',
      'x;ada@example.com;y',
      '"ada@example.com"',
      "'ada@example.com'",
      '(ada@example.com)',
      'To:\tada@example.com\n',
      'ADA@EXAMPLE.COM',
      'a.b+c-d@mail-host.example.co.uk',
    ])
      assert.ok(personal('payload.note', other, [value]), value);
    for (const value of [
      'x:ada@example.com',
      'ada@example.com:22',
      'ada@example.c',
      'ada@example',
      'ada@.com',
      '@example.com',
      'ada@example.com1',
      'see ada@example.com.',
    ])
      assert.ok(!personal('payload.note', other, [value]), value);
    assert.ok(personal('payload.note', other, [5, 'ada@example.com']), 'one value holding one is enough');
  });

  it('takes a column whose values were read as e-mail addresses or phone numbers, whatever its name', () => {
    assert.ok(personal('login_key', other, ['ada@example.com'], { format: 'email' }));
    assert.ok(personal('caller_id', other, ['+15551234567'], { format: 'phone' }));
    assert.ok(!personal('caller_id', other, ['+15551234567'], { format: 'url' }));
  });

  it('never reads a detail from the values of a column named as an id, key, token or hash', () => {
    each(
      ['ref_id', 'ids', 'uuid', 'guid', 'dedupe_key', 'token', 'hash'].map((w) => `data.${w}`),
      false,
      other,
      ['ada@example.com'],
    );
    each(
      ['id', 'key'].map((w) => `to_${w}`),
      false,
      top,
      ['14165550100'],
    );
  });

  it('reads an international phone inside a list or object written as JSON, 7 to 15 digits', () => {
    const json = (v: unknown, name = 'payload.to') => personal(name, other, [v], { type: 'json' });
    assert.ok(json({ n: '+1234567' }));
    assert.ok(json({ n: '+123456789012345' }));
    assert.ok(!json({ n: '+123456' }));
    assert.ok(!json({ n: '+1234567890123456' }));
    assert.ok(!json({ n: 'x+12345678' }));
    assert.ok(json({ e: 'ADA@EXAMPLE.COM' }), 'in capitals');
    assert.ok(json({ e: 'ada@mail.s3.example.org' }), 'a digit in a label after the first dot');
    assert.ok(!json(undefined), 'a value JSON cannot write');
    assert.ok(!json({}, 'repository.owner_email'), 'a business’s detail named, kept whole');
    assert.ok(json({}, 'repository.customer_email'));
  });

  it('keeps a detail named inside another thing’s object only when its leaf names no business', () => {
    each(['repository.owner_email', 'repository.owner_phone', 'data.merchant_city'], false, other, ['octo']);
    assert.ok(
      personal('repository.owner.email_address', other, ['octo']),
      'only the leaf is read for the side',
    );
    assert.ok(!personal('repository.owner_email', other, ['octo@example.com']), 'nor by its values');
    assert.ok(personal('repository.owner_email', inPerson, ['octo']), 'in a person’s object it is theirs');
    assert.ok(personal('repository.owner_email', top, ['octo']));
  });
});
