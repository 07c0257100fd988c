/**
 * A list's count is not the event's value (issue #94, core/samples/list-count.ts and its use in
 * guess.ts): a bare `total` that counts the list beside it (its length, or the only other thing
 * in its object) is kept as a field, and with no other amount neither a value nor a currency is
 * filled. An order's total beside its items, a total named for money, and a count matching a
 * list of one by chance stay amounts.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { listCount } from '../../../core/samples/list-count.ts';

function read(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return { fields: inferFields(sample), rows: sample.rows };
}
function guess(body: unknown) {
  const { fields, rows } = read(body);
  return guessChoices(fields, rows);
}
const countOf = (body: unknown, column: string) => {
  const { fields, rows } = read(body);
  return listCount(fields, rows, column);
};

/** An affiliate network's partner record: its tags written as a count and the entries. */
const partner = {
  partner_id: 5512,
  name: 'Rio Media',
  payout_currency: 'EUR',
  created: '2026-10-01T09:00:00Z',
  tags: { total: 3, entries: ['video', 'retargeting', 'eu'] },
};

describe('the creator: a list’s count is not the value', () => {
  it('no longer fills a tag count as the value, nor an account’s currency beside it', () => {
    const g = guess(partner);
    assert.equal(g.value, undefined, 'the count of the tags is no sale’s value');
    assert.equal(g.currency, undefined, 'without a value, no currency');
    const c = g.columns.find((x) => x.column === 'tags.total');
    assert.equal(c?.target, 'event_data');
    assert.notEqual(c?.field, 'value');
    assert.match(c?.why ?? '', /length of the list tags\.entries/);
  });

  it('reads a count equal to the list beside it, in every row, under several names', () => {
    const rows = [
      { ticket: 'T-1', attachments: { total_count: 2, data: [{ n: 'a.png' }, { n: 'b.pdf' }] } },
      { ticket: 'T-2', attachments: { total_count: 3, data: [{ n: 'c' }, { n: 'd' }, { n: 'e' }] } },
    ];
    assert.match(countOf(rows, 'attachments.total_count') ?? '', /length of the list attachments\.data/);
    const top = { event: 'survey.closed', total: 2, answers: [{ q: 1 }, { q: 2 }] };
    assert.match(countOf(top, 'total') ?? '', /length of the list answers/);
  });

  it('reads a total alone beside its list as a collection’s count, whatever the page holds', () => {
    const paged = { page: { total: 57, results: [{ id: 'a' }, { id: 'b' }] } };
    assert.match(countOf(paged, 'page.total') ?? '', /holds only it and the list page\.results/);
  });

  it('leaves an order’s total beside its items an amount', () => {
    const order = {
      order_id: 'o-9',
      order: { total: 25, note: 'gift', items: [{ sku: 'mug' }, { sku: 'cap' }] },
    };
    assert.equal(countOf(order, 'order.total'), undefined, 'not the items’ number, and a note beside');
    const priced = { total: 3, currency: 'USD', items: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }] };
    assert.equal(countOf(priced, 'total'), undefined, 'a currency beside it makes it money');
    assert.equal(guess(priced).value?.column, 'total');
  });

  it('leaves a total named for money, or equal to a list of one, an amount', () => {
    const named = { totalPrice: 2, lines: [{ sku: 'a' }, { sku: 'b' }], buyer: 'b-1' };
    assert.equal(countOf(named, 'totalPrice'), undefined);
    const one = { order: 'o-2', total: 1, items: [{ sku: 'a' }], currency_code: 'EUR' };
    assert.equal(countOf(one, 'total'), undefined);
    const loose = { order: 'o-3', total: 1, items: [{ sku: 'a' }] };
    assert.equal(countOf(loose, 'total'), undefined, 'one item matches a count of one by chance');
  });
});
