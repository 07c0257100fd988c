/**
 * The record the event's type names as a person's (issue #94, core/samples/person-type-id.ts):
 * its own id, taken or asked as the event's, or of a top-level object named for it, is offered as
 * the person's id with no answer preselected; a type naming no person's record, or a person's id
 * already taken, leaves it alone.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const personAsk = (body: unknown) =>
  guess(body).questions.find((q) => q.target === 'user_id' && q.ask.includes("The event's type names"));

describe('the creator: a person’s record the event’s type names', () => {
  it('offers the id of a top-level object named for the contact, none preselected, where it was missed', () => {
    const body = {
      id: 'evt_77',
      type: 'contact.created',
      createTime: '2026-11-02T09:00:00Z',
      contactCreated: { id: 'ct_901', nickname: 'Ada', countryCode: 'GB' },
    };
    const q = personAsk(body);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['contactCreated.id'],
    );
    assert.ok(q?.noneGuessed);
  });

  it('leaves a record the type names as no person’s alone', () => {
    const body = {
      id: 'evt_78',
      type: 'invoice.created',
      created: '2026-11-02T09:00:00Z',
      data: { id: 'in_1', total: 10, currency: 'EUR' },
    };
    assert.equal(personAsk(body), undefined);
  });

  it('reads the record as the last noun of the type: a customer’s subscription is no person’s', () => {
    const body = {
      id: 'evt_80',
      type: 'customer.subscription.created',
      created: '2026-11-02T09:00:00Z',
      data: { id: 'sub_1', status: 'active' },
    };
    assert.equal(personAsk(body), undefined);
  });

  it('asks nothing when the person’s id is already taken', () => {
    const body = {
      id: 'evt_79',
      type: 'contact.updated',
      created: '2026-11-02T09:00:00Z',
      data: { id: 'ct_2', user_id: 'u_9', email: 'ada@example.org' },
    };
    assert.equal(personAsk(body), undefined);
  });
});
