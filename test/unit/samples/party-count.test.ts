/**
 * A count of a party is not the person's id (issue #94, core/samples/suggest.ts `countOfParty`): a
 * name that matched the person's id by one of its words (`customer`) but also says it counts
 * (`customer_count`, `customerQty`, `total_customer`) names a number of people, never one person,
 * so it takes no id target, wherever it sits. A name that is the id itself (`customer_number`,
 * `customer`) still does.
 */
import assert from 'node:assert/strict';
import { countOfParty, suggestMappings } from '../../../core/samples/suggest.ts';
import { guesses, targetOf } from '../../support/page-steps.ts';

describe('the creator: a count of a party is not the person’s id', () => {
  it('never fills a booking’s customer_count as the person’s id beside its contact', () => {
    const g = guesses({
      pk: 5512,
      uuid: '0c1f7a8e-3d4b-4e29-9a51-7be2f0c4d913',
      contact: { name: 'Ada Wave', email: 'ada@example.org', phone: '+14155550100' },
      customer_count: 2,
    });
    assert.equal(targetOf(g, 'customer_count'), 'event_data');
    assert.ok(!g.columns.some((c) => c.target === 'user.external_id' || c.target === 'user_id'));
    assert.ok(!g.questions.some((q) => q.options.some((o) => o.column === 'customer_count')));
  });

  it('reads a count under any spelling, nested or flat', () => {
    const g = guesses({
      event: 'tour.updated',
      tour: { id: 't_81', stats: { customerQty: 4, total_customer: 9, clientCounter: 3 } },
    });
    for (const c of ['tour.stats.customerQty', 'tour.stats.total_customer', 'tour.stats.clientCounter'])
      assert.equal(targetOf(g, c), 'event_data', c);
  });

  it('says why, and nothing for a name that does not count', () => {
    assert.match(countOfParty('customer_count') ?? '', /"count" in the name/);
    assert.match(countOfParty('totalCustomer') ?? '', /"total"/);
    assert.equal(countOfParty('customer_number'), undefined);
    assert.equal(countOfParty('customer_ref'), undefined);
  });

  it('still takes a customer’s number or a bare customer as the person’s id', () => {
    const [number] = suggestMappings([{ name: 'customer_number', type: 'string' }]);
    assert.equal(number?.target, 'user.external_id');
    const [bare] = suggestMappings([{ name: 'customer', type: 'string' }]);
    assert.equal(bare?.target, 'user.external_id');
    const g = guesses({ id: 'evt_1', customer: { id: 'cus_44', email: 'b@example.org' }, customer_count: 1 });
    assert.notEqual(targetOf(g, 'customer.id'), 'event_data');
  });
});
