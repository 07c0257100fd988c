/**
 * The person's id needs its place as well as its name (issue #94, core/samples/person-id-evidence.ts
 * and its use in guess.ts): a `user_id` or `customer_id` is filled without asking only under the
 * person's object or beside the person's other details; alone among a payment's fields it is
 * asked about, the guess preselected.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { lonePersonId } from '../../../core/samples/person-id-evidence.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return { fields: inferFields(sample), ...guessChoices(inferFields(sample), sample.rows) };
}
const askedAbout = (g: ReturnType<typeof guess>, column: string) =>
  g.questions.filter((q) => q.options.some((o) => o.column === column)).map((q) => q.target);
const targetOf = (g: ReturnType<typeof guess>, column: string) =>
  g.columns.find((c) => c.column === column)?.target;

describe('creator: the person’s id needs its place', () => {
  it('asks about a top-level user id beside nothing of the person’s', () => {
    const invoice = { id: 'inv_1', amount: 8500, currency: 'IDR', merchant_name: 'a shop' };
    const g = guess({ ...invoice, user_id: '6279ce4495d10c9afc3171b8' });
    assert.equal(targetOf(g, 'user_id'), 'user_id');
    assert.deepEqual(askedAbout(g, 'user_id'), ['user_id']);
    const q = g.questions.find((x) => x.options.some((o) => o.column === 'user_id'));
    assert.match(q?.options[0]?.why ?? '', /nothing beside it .* says it is the person's/);
  });

  it('fills a user id beside the person’s e-mail or name without asking', () => {
    const g = guess({ id: 'evt_1', user_id: 'u_42', email: 'ada@example.com' });
    assert.equal(targetOf(g, 'user_id'), 'user_id');
    assert.deepEqual(askedAbout(g, 'user_id'), []);
    const named = guess({ id: 'evt_1', data: { customer_id: 'c_42', first_name: 'Ada' } });
    assert.deepEqual(askedAbout(named, 'data.customer_id'), []);
  });

  it('fills an id under the person’s object, and does not count the business’s details', () => {
    const fields = inferFields(
      parseSample(
        JSON.stringify({
          customer: { id: 'c_1' },
          user_id: 'u_1',
          merchant_email: 'shop@example.com',
          owner: { email: 'rep@example.com' },
        }),
      ),
    );
    assert.equal(lonePersonId('customer.id', fields), undefined);
    assert.match(lonePersonId('user_id', fields) ?? '', /nothing beside it/);
  });

  it('takes no always-empty column for the person’s detail beside it', () => {
    const fields = inferFields(
      parseSample(JSON.stringify({ UserId: 'u_1', Stage: 40, Extension: { Id: 'x_1', Name: null } })),
    );
    assert.match(lonePersonId('UserId', fields) ?? '', /nothing beside it/);
    const named = inferFields(parseSample(JSON.stringify({ UserId: 'u_1', Extension: { Name: 'Ada' } })));
    assert.equal(lonePersonId('UserId', named), undefined);
  });

  it('looks only inside the object the id sits in', () => {
    const fields = inferFields(
      parseSample(JSON.stringify({ data: { user_id: 'u_1' }, meta: { email: 'ops@example.com' } })),
    );
    assert.match(lonePersonId('data.user_id', fields) ?? '', /nothing beside it/);
  });
});
