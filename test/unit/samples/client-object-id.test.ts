/**
 * The plain id of a client's or visitor's own object (issue #94, guess.ts's personIdFromObject):
 * `client.id` glues into `clientid`, the name of an analytics client's (a browser's) anonymous
 * id, but the id of a person's own object is that person's id; a compound `client_id` leaf, a
 * business's client, or an id beside a person's id already taken, keeps its own reading.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

const targetOf = (body: unknown, column: string) => {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows).columns.find((c) => c.column === column)?.target;
};

describe('the creator: a client’s own object’s id', () => {
  it('takes the plain id of a client or visitor object as the person’s, in several shapes', () => {
    assert.equal(
      targetOf(
        { order: { id: 9, total: 12, client: { id: '731068', email: 'a@example.com' } } },
        'order.client.id',
      ),
      'user.external_id',
    );
    assert.equal(
      targetOf(
        { appointment: { id: 'ap1', client: { id: 'nmgGHJrt6RTG', firstName: 'Ana' } } },
        'appointment.client.id',
      ),
      'user.external_id',
    );
    assert.equal(
      targetOf({ _id: 's1', visitor: { _id: '63db8d4990fe', name: 'Ana' } }, 'visitor._id'),
      'user.external_id',
    );
  });

  it('keeps an analytics client id and a business’s client id as they were', () => {
    assert.equal(
      targetOf({ id: 'e1', context: { client_id: 'bfb2e0e0e7f3cfa2' } }, 'context.client_id'),
      'anonymous_id',
    );
    assert.notEqual(
      targetOf(
        { id: 'e1', business: { client: { id: 'b-1' } }, customer: { id: 'c-1' } },
        'business.client.id',
      ),
      'user.external_id',
    );
  });

  it('leaves the client object’s id alone when the person’s id is already taken', () => {
    assert.notEqual(
      targetOf(
        { id: 'e1', customer_id: 'cus_1', client: { id: 'c-9', email: 'a@example.com' } },
        'client.id',
      ),
      'user.external_id',
    );
  });
});
