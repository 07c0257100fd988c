/**
 * A record's region and an organisation's place are not the person's (issue #94,
 * core/samples/transaction-country.ts): a region (`state`, `sub_state`) that is a field of an
 * invoice, a charge or a payment is that record's, as its country is, and a country or region
 * beside a kind column saying its record is a company is a business's premises. Neither is filled
 * as the person's: kept as a field, asked about with no answer preselected. A region in the
 * person's address, or of a customer whose kind is a person, still is.
 */
import assert from 'node:assert/strict';
import { organisationPlace } from '../../../core/samples/transaction-country.ts';
import { read, targetOf } from '../../support/page-steps.ts';

const question = (body: unknown, target: string) =>
  read(body).guesses.questions.find((q) => q.target === target);

describe('the creator: a record’s region is not the person’s', () => {
  const invoice = {
    event: 'invoice.created',
    data: {
      id: 'inv_41',
      total: '120.00',
      currency: 'EUR',
      country: 'ES',
      state: 'outstanding',
      contact: { first_name: 'Ana', email: 'ana@example.com' },
    },
  };

  it('asks about an invoice’s state beside its money, none preselected, rather than fill it', () => {
    const { guesses } = read(invoice);
    assert.equal(targetOf(guesses, 'data.state'), 'event_data');
    const q = question(invoice, 'user.region');
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['data.state'],
    );
    assert.match(q.ask, /region or state/);
  });

  it('reads a charge’s sub-state beside its country the same way', () => {
    const charge = {
      id: 'evt_7',
      type: 'charge:complete',
      data: {
        amount: 599,
        currency: 'CNY',
        sub_state: 'NONE',
        country: 'CN',
      },
    };
    assert.equal(targetOf(read(charge).guesses, 'data.sub_state'), 'event_data');
    assert.ok(question(charge, 'user.region')?.noneGuessed);
  });

  it('still fills the state of the billing address beside the same money', () => {
    const order = {
      id: 'ord_1',
      total: 40,
      currency: 'USD',
      billing_address: { line1: '1 Main St', city: 'Austin', state: 'TX', country: 'US' },
    };
    const { guesses } = read(order);
    assert.equal(targetOf(guesses, 'billing_address.state'), 'user.region');
    assert.equal(question(order, 'user.region'), undefined);
  });
});

describe('the creator: an organisation’s place is not a person’s', () => {
  const paid = (type: string) => ({
    id: 'evt_3',
    type: 'invoice.paid',
    data: {
      object: {
        id: 'in_5',
        total: 51,
        currency: 'usd',
        customer: {
          id: 8765,
          name: 'Acme',
          email: 'billing@acme.example',
          type,
          city: 'Scranton',
          country: 'US',
        },
      },
    },
  });

  it('asks about a company customer’s country, none preselected, where it was filled before', () => {
    const body = paid('company');
    const { guesses } = read(body);
    assert.notEqual(targetOf(guesses, 'data.object.customer.country'), 'user.country');
    const q = question(body, 'user.country');
    assert.ok(q?.noneGuessed);
    assert.match(q.ask, /organisation/);
  });

  it('reads business and organisation kinds under other kind columns alike', () => {
    for (const [leaf, kind] of [
      ['entity_type', 'Business'],
      ['kind', 'organization'],
      ['customer_type', 'organisation'],
    ] as const) {
      const { fields } = read({ account: { id: 'a_1', [leaf]: kind, region: 'Ontario', country: 'CA' } });
      assert.match(organisationPlace(fields, 'account.country') ?? '', /organisation's address/, leaf);
    }
  });

  it('still fills the country of a customer whose kind is a person', () => {
    for (const kind of ['person', 'individual']) {
      const { guesses } = read(paid(kind));
      assert.equal(targetOf(guesses, 'data.object.customer.country'), 'user.country', kind);
    }
  });

  it('needs the kind column at the place’s own level, not above it', () => {
    const { fields } = read({ customer: { type: 'company', address: { country: 'US' } } });
    assert.equal(organisationPlace(fields, 'customer.address.country'), undefined);
  });
});
