/**
 * A party that earns from, refers, sells to or acts for the person (issue #94, core/samples/party.ts,
 * docs/creator-inference.md#a-referring-party-a-request-for-money-and-an-object-named-event): a promoter, referrer, reseller, ambassador or
 * advocate beside the person is the business's side, so its names, country and contacts are never
 * filled as the person's, and stay personal data (the business's).
 */
import assert from 'node:assert/strict';
import { businessParty } from '../../../core/samples/party.ts';
import { guesses, targetOf } from '../../support/page-steps.ts';

const PERSON = /^(user_id|user\.)/;

describe('the creator: a party that refers or sells to the person', () => {
  it('no longer fills a referring promoter’s names and country as the lead’s', () => {
    const body = {
      event: { id: 501, type: 'lead_signup', created_at: '2025-02-01T10:00:00Z' },
      data: {
        id: 77,
        email: 'lead@example.com',
        promoter: {
          id: 9,
          email: 'partner@example.com',
          profile: { first_name: 'Ana', last_name: 'Reyes', country: 'MX' },
        },
      },
    };
    const g = guesses(body);
    for (const column of [
      'data.promoter.profile.first_name',
      'data.promoter.profile.last_name',
      'data.promoter.profile.country',
      'data.promoter.email',
    ])
      assert.doesNotMatch(targetOf(g, column) ?? '', PERSON, column);
    assert.equal(targetOf(g, 'data.email'), 'user.email');
    const first = g.columns.find((c) => c.column === 'data.promoter.profile.first_name');
    assert.equal(first?.personal, true, 'a business party’s name is still personal data');
  });

  it('reads each such party word, in an object’s name or the column’s own', () => {
    for (const column of [
      'referrer.first_name',
      'data.reseller.email',
      'ambassador.phone',
      'advocate.country',
      'order.promoter_email',
    ])
      assert.match(businessParty(column) ?? '', /business's party/, column);
  });

  it('refuses them in other shapes: a referrer beside the customer, an ambassador beside the member', () => {
    const referred = guesses({
      id: 'evt_1',
      type: 'referral.converted',
      customer: { email: 'buyer@example.com', first_name: 'Kim' },
      referrer: { email: 'friend@example.com', first_name: 'Lee', last_name: 'Park' },
    });
    assert.equal(targetOf(referred, 'customer.email'), 'user.email');
    for (const column of ['referrer.first_name', 'referrer.last_name'])
      assert.doesNotMatch(targetOf(referred, column) ?? '', PERSON, column);
    const member = guesses({
      event_id: 'e2',
      member: { id: 'm1', name: 'Sam' },
      ambassador: { first_name: 'Ola', country: 'NG' },
    });
    for (const column of ['ambassador.first_name', 'ambassador.country'])
      assert.doesNotMatch(targetOf(member, column) ?? '', PERSON, column);
  });

  it('fills the same shape’s details as the person’s where the object names the person', () => {
    const shaped = (party: string) =>
      guesses({
        id: 'evt_2',
        type: 'referral.created',
        [party]: { id: 'c1', email: 'jo@example.com', last_name: 'Doe', country: 'US' },
      });
    const customer = shaped('customer');
    assert.equal(targetOf(customer, 'customer.email'), 'user.email');
    assert.equal(targetOf(customer, 'customer.last_name'), 'user.last_name');
    assert.equal(targetOf(customer, 'customer.country'), 'user.country');
    const promoter = shaped('promoter');
    for (const column of ['promoter.email', 'promoter.last_name', 'promoter.country', 'promoter.id'])
      assert.doesNotMatch(targetOf(promoter, column) ?? '', PERSON, column);
  });
});
