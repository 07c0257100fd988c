/**
 * An empty column named for the person's id (issue #94, core/samples/empty-person-id.ts): where no
 * column is taken or asked about as the person's id, an always-empty `contact_id`, `userId` or
 * `uid` is offered with nothing preselected; never a business party's, an actor's, an API
 * client's, nor where a person's id is already taken. Payloads invented for these tests, in
 * several shapes.
 */
import assert from 'node:assert/strict';
import { namedPersonId } from '../../../core/samples/empty-person-id.ts';
import { guesses, isPersonId } from '../../support/page-steps.ts';

/** The page's question on the person's id for `body`, if it asks one. */
const idAsk = (body: unknown) =>
  guesses(body).questions.find((q) => isPersonId(q.field ?? q.target) && q.noneGuessed);

describe('the creator: an empty person id', () => {
  it('offers, none preselected, a form response’s empty contact id', () => {
    const body = {
      type: 'form.submitted',
      data: {
        id: 'r_1',
        contact_id: null,
        answers: [{ q: 'Size', a: 'M' }],
        submitted_at: '2025-06-01T10:00:00Z',
      },
    };
    const q = idAsk(body);
    assert.ok(q, 'asked');
    assert.deepEqual(
      q.options.map((o) => o.column),
      ['data.contact_id'],
    );
    assert.ok(!guesses(body).columns.some((c) => isPersonId(c.target)), 'nothing filled');
  });

  it('reads a user id under a person’s object and a bare uid, empty as text or null', () => {
    for (const [body, column] of [
      [{ recipient: { email: 'x@example.com', userId: '' }, campaign: 'spring' }, 'recipient.userId'],
      [{ event: 'lead.signup', lead: { uid: null, state: 'new' } }, 'lead.uid'],
    ] as const)
      assert.deepEqual(
        idAsk(body)?.options.map((o) => o.column),
        [column],
        column,
      );
  });

  it('offers nothing for a merchant’s or an API client’s empty id, or beside a person’s id taken', () => {
    for (const body of [
      { merchant: { customer_id: null }, order: { total: 5 } },
      { signature: { client_id: null, title: 'NDA' } },
      { customer: { id: 'c_9', email: 'y@example.com' }, user_id: null },
    ])
      assert.equal(idAsk(body), undefined, JSON.stringify(body));
    assert.ok(namedPersonId('member_uuid') && !namedPersonId('order_id') && !namedPersonId('client_id'));
  });
});
