/**
 * The rules of core/samples/evidence.ts one by one (docs/testing.md, its mutation run): each word
 * that names the person's or the business's side in a leaf, the person's own object's id, what an
 * e-mail, a phone and a person's id need beyond their names (which columns are personal data:
 * personal-rules.test.ts).
 */
import assert from 'node:assert/strict';
import { identityEvidence, leafSide, personObjectId } from '../../../core/samples/evidence.ts';
import type { RoleReading } from '../../../core/samples/roles.ts';
import type { InferredField } from '../../../core/samples/sample.ts';
import { field, inPerson, other, top } from './rule-fields.ts';

describe('creator: whose a leaf’s words say it is, word by word', () => {
  it('names the person by each of the person’s words', () => {
    for (const w of 'customer user member buyer payer contact subscriber client patron attendee invitee participant visitor lead respondent guest student donor applicant recipient shopper person signer learner'.split(
      ' ',
    ))
      assert.deepEqual(leafSide(`data.${w}_id`), { side: 'person', word: w }, w);
  });

  it('names the business by each of the business’s words', () => {
    for (const w of 'account merchant shop store organizer organiser host owner tenant company organization organisation org workspace site app portal seller vendor payee receiver agent admin staff employee webhook location team business brand partner affiliate instance project domain campaign stats subscription messaging calendar'.split(
      ' ',
    ))
      assert.deepEqual(leafSide(`${w}_id`), { side: 'business', word: w }, w);
  });

  it('reads the leaf only, the first person’s word, and else the first business word', () => {
    assert.equal(leafSide('customer.id'), undefined);
    assert.deepEqual(leafSide('user_customer_id'), { side: 'person', word: 'user' });
    assert.deepEqual(leafSide('shop_app_id'), { side: 'business', word: 'shop' });
  });
});

describe('creator: the id of the person’s own object', () => {
  const ids = (...names: string[]) => names.map((n) => field(n, ['c_1']));

  it('takes the shallowest id or uuid whose object is named as a person', () => {
    assert.equal(
      personObjectId(ids('order.customer.id', 'customer.uuid'), () => inPerson),
      'customer.uuid',
    );
    assert.equal(
      personObjectId(ids('data.order.member.id', 'data.customer.id'), () => inPerson),
      'data.customer.id',
    );
  });

  it('takes no other leaf, no object of another name, no top-level id, and no id its place refuses', () => {
    assert.equal(
      personObjectId(ids('customer.key', 'customer.id_hash', 'customer.user_id'), () => inPerson),
      undefined,
    );
    assert.equal(
      personObjectId(ids('address.id', 'customer_profile.id', 'id'), () => inPerson),
      undefined,
    );
    assert.equal(
      personObjectId(ids('customer.id'), () => top),
      undefined,
    );
    assert.equal(
      personObjectId([field('customer.id', ['ada@example.com'], { format: 'email' })], () => inPerson),
      undefined,
    );
  });
});

describe('creator: an e-mail and a phone need their values, rule by rule', () => {
  it('takes an e-mail only from e-mail addresses, showing the first value', () => {
    assert.equal(
      identityEvidence('user.email', field('email', ['a@b.co'], { format: 'email' }), top),
      undefined,
    );
    assert.equal(
      identityEvidence('user.email', field('email', ['not an address at all, but a longer text']), top),
      'its values ("not an address at all, but a ) are not e-mail addresses',
    );
    assert.equal(
      identityEvidence('user.email', field('email', [], {}), top),
      'its values (undefined) are not e-mail addresses',
    );
  });

  it('takes a phone named as one by each word, or written with a country code', () => {
    for (const name of [
      'phone',
      'phone_number',
      'phonenumber',
      'mobile',
      'tel',
      'telephone',
      'cell',
      'cellphone',
      'msisdn',
      'home_tel',
    ])
      assert.equal(
        identityEvidence('user.phone', field(name, ['5551234567'], { format: 'phone' }), top),
        undefined,
        name,
      );
    assert.equal(
      identityEvidence(
        'user.phone',
        field('contact', ['+15551234567', ' +4930123456'], { format: 'phone' }),
        top,
      ),
      undefined,
    );
    assert.equal(
      identityEvidence(
        'user.phone',
        field('contact', ['+15551234567', '5551234567'], { format: 'phone' }),
        top,
      ),
      'nothing in its name says phone, and its values ("+15551234567") have no country code',
    );
  });

  it('takes a phone from integers of 7 to 15 digits, and from nothing else', () => {
    const ints = (examples: number[]) => field('phone', examples, { type: 'integer' });
    assert.equal(identityEvidence('user.phone', ints([1234567, 123456789012345]), top), undefined);
    assert.equal(
      identityEvidence('user.phone', ints([123456]), top),
      'its values (123456) do not read as phone numbers',
    );
    assert.equal(
      identityEvidence('user.phone', ints([1234567890123456]), top),
      'its values (1234567890123456) do not read as phone numbers',
    );
    assert.equal(
      identityEvidence('user.phone', field('phone', ['1234567']), top),
      'its values ("1234567") do not read as phone numbers',
    );
  });

  it('takes a phone from text of 8 to 15 digits under a phone’s name in any language, and nowhere else', () => {
    for (const [name, value] of [
      ['phone', '2222222222'],
      ['checkout_phone', '99999999900'],
      ['phoneNumber', '123456789'],
      ['mobile', '+5511999997777'],
      ['telefone', '11999999999'],
      ['celular', '380737893456'],
      ['msisdn', '447700900123'],
    ])
      assert.equal(identityEvidence('user.phone', field(name as string, [value]), inPerson), undefined, name);
    // An order number, a postcode, an account number: digits, but nothing says phone.
    for (const name of ['order_number', 'postcode', 'account', 'reference'])
      assert.equal(
        identityEvidence('user.phone', field(name, ['12345678']), inPerson),
        'its values ("12345678") do not read as phone numbers',
        name,
      );
    const refused = (examples: unknown[], extra: Partial<InferredField> = {}) =>
      identityEvidence('user.phone', field('phone', examples, extra), inPerson);
    assert.equal(refused(['1234567']), 'its values ("1234567") do not read as phone numbers', 'seven digits');
    assert.equal(
      refused(['1234567890123456']),
      'its values ("1234567890123456") do not read as phone numbers',
    );
    assert.equal(refused(['12.50']), 'its values ("12.50") do not read as phone numbers', 'an amount');
    assert.equal(refused(['555 CALL NOW']), 'its values ("555 CALL NOW") do not read as phone numbers');
    assert.equal(refused(['2222222222', 'n/a']), 'its values ("2222222222") do not read as phone numbers');
    assert.equal(refused([]), 'its values (undefined) do not read as phone numbers', 'nothing to read');
    assert.equal(
      refused(['1700000000'], { pattern: 'epoch_seconds' }),
      'its values ("1700000000") do not read as phone numbers',
      'a timestamp',
    );
    assert.equal(refused(['20260115']), 'its values ("20260115") do not read as phone numbers', 'a date');
  });
});

describe('creator: a person’s id needs its shape and whose it is, rule by rule', () => {
  const id = (name: string, examples: unknown[], extra: Partial<InferredField> = {}, r: RoleReading = top) =>
    identityEvidence('user_id', field(name, examples, extra), r);

  it('takes an id named as the person’s, of text or integers shaped as ids', () => {
    assert.equal(id('customer_id', ['cus_9s6XK', 'a-1:b.2$']), undefined);
    assert.equal(id('customer_id', [1234], { type: 'integer' }), undefined);
    assert.equal(id('customer_id', ['0b7e2c3a-1f4e-4c6b-9a57-3d2f1e0c9b8a'], { format: 'uuid' }), undefined);
    assert.equal(
      identityEvidence('user.external_id', field('customer_id', ['c_1']), top),
      undefined,
      'the external id the same',
    );
  });

  it('refuses values of a format, a type or a shape that is no id’s', () => {
    assert.equal(id('customer_id', ['a@b.co'], { format: 'email' }), 'its values are emails, not ids');
    assert.equal(id('customer_id', [true], { type: 'boolean' }), 'its values are boolean, not ids');
    assert.equal(id('customer_id', [12.5], { type: 'number' }), 'its values are number, not ids');
    assert.equal(id('customer_id', [12.5], { type: 'integer' }), 'its values (12.5) are not shaped as ids');
    assert.equal(id('customer_id', ['abc']), 'its values ("abc") are not shaped as ids');
    assert.equal(id('customer_id', ['c 1']), 'its values ("c 1") are not shaped as ids');
    assert.equal(id('customer_id', ['c_1', 'c/1']), 'its values ("c_1") are not shaped as ids');
    assert.equal(id('customer_id', ['#c1']), 'its values ("#c1") are not shaped as ids');
  });

  it('takes a bare id leaf only inside the person’s own object', () => {
    for (const leaf of ['id', 'uuid', 'guid', 'key', 'code', 'number', 'no'])
      assert.equal(id(`customer.${leaf}`, ['c_1'], {}, inPerson), undefined, leaf);
    const none = 'an id, but nothing in its name or place says it is the person’s';
    assert.equal(id('id', ['c_1'], {}, top), none);
    assert.equal(id('repository.id', ['c_1'], {}, other), none);
    assert.equal(id('customer.ref', ['c_1'], {}, inPerson), none);
    assert.equal(id('customer.order_id', ['c_1'], {}, inPerson), none);
    assert.equal(id('customer.id_hash', ['c_1'], {}, inPerson), none);
  });

  it('asks nothing of a target that is no identity', () => {
    assert.equal(identityEvidence('user.country', field('x', [true], { type: 'boolean' }), other), undefined);
  });
});
