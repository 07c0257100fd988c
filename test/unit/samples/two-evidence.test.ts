/**
 * Two kinds of evidence (issue #94, core/samples/two-evidence.ts and its use in guess.ts): an
 * amount is a number that is not a time, a country is an ISO code under a name that says
 * country, and a person's id is neither under the business's side nor a record's `user` filled
 * without asking. Where only one kind of evidence is there, the page asks.
 */
import assert from 'node:assert/strict';
import { timeShapedAmount } from '../../../core/samples/amounts.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { actorAbove, countryEvidence, recordsUser } from '../../../core/samples/two-evidence.ts';

/** The page's guesses on one JSON body, with `col` to reach one column's. */
function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  return Object.assign(g, {
    col: (name: string) => g.columns.find((x) => x.column === name) ?? assert.fail(`no column ${name}`),
  });
}
const askedAbout = (g: ReturnType<typeof guess>, column: string) =>
  g.questions.filter((q) => q.options.some((o) => o.column === column)).map((q) => q.target);
const field = (name: string, examples: unknown[], extra: Record<string, unknown> = {}) =>
  ({ name, type: 'integer', examples, distinct: examples.length, nullable: false, ...extra }) as never;

describe('creator: two kinds of evidence', () => {
  it('takes no time as the value, and then no currency, saying why', () => {
    const g = guess({ id: 'sub_1', changed_value: 1751328000000, currency: 'USD' });
    assert.equal(g.value, undefined);
    assert.equal(g.currency, undefined);
    const c = g.col('changed_value');
    assert.equal(c.target, 'event_data');
    assert.match(c.why, /epoch milliseconds, not an amount: kept as a field/);
  });

  it('keeps a large amount in a currency as the value when its numbers are no instants', () => {
    const g = guess({ id: 'o_1', amount: 250000000, currency: 'IDR' });
    assert.equal(g.value?.column, 'amount');
    assert.equal(g.currency?.column, 'currency');
    assert.equal(timeShapedAmount(field('amount', [250000000])), undefined);
    // Within 2001–2099 as epoch seconds, under any name, it is read as a time: chosen by hand.
    assert.match(timeShapedAmount(field('amount', [1700000000])) ?? '', /epoch seconds/);
    assert.match(timeShapedAmount(field('amount_changed_at', [1700000000])) ?? '', /epoch seconds/);
    assert.match(timeShapedAmount(field('total', [1751328000000])) ?? '', /epoch milliseconds/);
    assert.equal(timeShapedAmount(field('total', [1751328000000, 2500])), undefined);
  });

  it('fills a country only from an ISO code under a country’s name, and asks otherwise', () => {
    const both = guess({ id: 'o_1', customer: { country: 'DE', email: 'a@example.com' } });
    assert.equal(both.col('customer.country').target, 'user.country');
    assert.deepEqual(askedAbout(both, 'customer.country'), []);
    const codeOnly = guess({ id: 'o_1', flagged_by: 'ai' });
    assert.equal(codeOnly.col('flagged_by').target, 'user.country');
    assert.deepEqual(askedAbout(codeOnly, 'flagged_by'), ['user.country']);
    assert.equal(codeOnly.col('flagged_by').confidence, 0.5);
    const nameOnly = guess({ id: 'o_1', customer: { country_iso: 'DEU' } });
    assert.equal(nameOnly.col('customer.country_iso').target, 'user.country');
    assert.deepEqual(askedAbout(nameOnly, 'customer.country_iso'), ['user.country']);
    assert.match(
      countryEvidence(field('mark', ['ai'], { type: 'string', format: 'country' })) ?? '',
      /nothing in its name says country/,
    );
    assert.equal(
      countryEvidence(field('country_code', ['DE'], { type: 'string', format: 'country' })),
      undefined,
    );
  });

  it('asks whether a record’s user is the person, and fills the payload’s own user', () => {
    const deal = guess({ event: 'deal.created', deal: { id: 'd_1', user: { id: 'u_123', name: 'Ana' } } });
    assert.equal(deal.col('deal.user.id').target, 'user_id');
    assert.deepEqual(askedAbout(deal, 'deal.user.id'), ['user_id']);
    assert.equal(deal.col('deal.user.id').confidence, 0.5);
    const own = guess({ event: 'signup', data: { user: { id: 'u_123', email: 'ana@example.com' } } });
    assert.equal(own.col('data.user.id').target, 'user_id');
    assert.deepEqual(askedAbout(own, 'data.user.id'), []);
    assert.match(recordsUser('document.user.id') ?? '', /inside document/);
    assert.equal(recordsUser('data.object.user.id'), undefined);
    assert.equal(recordsUser('order.customer.id'), undefined);
  });

  it('takes nothing of the person’s from under the business’s side or an actor, however deep', () => {
    const g = guess({
      event: 'ticket.created',
      ticket: { owner: { user: { id: 'u_9', email: 'agent@example.com' } } },
      customer: { email: 'c@example.com' },
    });
    assert.equal(g.col('ticket.owner.user.id').target, 'event_data');
    assert.equal(g.col('ticket.owner.user.email').target, 'event_data');
    assert.match(g.col('ticket.owner.user.email').why, /inside owner/);
    assert.equal(g.col('customer.email').target, 'user.email');
    assert.match(actorAbove('deal.created_by.email') ?? '', /inside created_by/);
    assert.equal(actorAbove('data.customer.email'), undefined);
  });
});
