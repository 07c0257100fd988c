/**
 * The person's id offered as an id-less event's (issue #94, core/samples/person-event-id.ts): a
 * payload with no event id taken or asked, whose one id at the top is the person's, offers it as
 * the event's with no answer preselected; it stays the person's until the person picks. Beside
 * another id at the top, inside another object, or as a name, it is not offered.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows);
}
const eventIdAsk = (body: unknown) =>
  guess(body).questions.find((q) => q.target === 'event_id' && q.ask.includes('Nothing else in the payload'));

describe('the creator: the person’s id offered as an id-less event’s', () => {
  it('offers a new staff member’s user_id, nothing preselected, where no event id was asked', () => {
    const body = { user_id: 90412, team_ids: [3, 4], role_ids: [12] };
    const g = guess(body);
    const q = eventIdAsk(body);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['user_id'],
    );
    assert.ok(q?.noneGuessed);
    assert.deepEqual(
      g.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
      [],
      'nothing filled as the event’s id',
    );
    assert.equal(g.columns.find((c) => c.column === 'user_id')?.target, 'user_id', 'still the person’s');
  });

  it('offers a payer’s reference under an envelope', () => {
    const body = {
      status: 'success',
      data: { customer_reference: 'cus-8812-ab', msisdn: '+256700000001', amount: 5000, currency: 'UGX' },
    };
    assert.deepEqual(
      eventIdAsk(body)?.options.map((o) => o.column),
      ['data.customer_reference'],
    );
  });

  it('offers nothing beside another id at the payload’s top', () => {
    assert.equal(eventIdAsk({ user_id: 90412, shift_id: 77, team_ids: [3] }), undefined);
  });

  it('offers nothing when an event id is already taken', () => {
    assert.equal(eventIdAsk({ event_id: 'e-1', event_type: 'user.created', user_id: 90412 }), undefined);
  });

  it('offers no person’s id inside another object', () => {
    assert.equal(
      eventIdAsk({ status: 'ok', order: { customer: { customer_id: 'c-9', email: 'a@b.co' } } }),
      undefined,
    );
  });
});
