/**
 * A resource's reference as the event's id (issue #94, core/samples/resource-ref.ts and its use in
 * guess.ts): with nothing taken or asked as the event's id, a generic reference at the payload's
 * top (`resource_id`, `resource_url`, `objectId`) is asked as the event's, preselected when it is
 * the only one, offered with none preselected beside another; never below the top, never beside an
 * event's own id, never a value with blanks.
 */
import assert from 'node:assert/strict';
import { resourceReference } from '../../../core/samples/resource-ref.ts';
import { guesses, targetOf } from '../../support/page-steps.ts';

const eventIdAsk = (g: ReturnType<typeof guesses>) =>
  g.questions.find((q) => (q.field ?? q.target) === 'event_id');

describe('the creator: a resource’s reference as the event’s id', () => {
  it('asks a bare notice’s resource_id as the event’s id, preselected, where it was missed', () => {
    const g = guesses({ resource_id: '55120', resource_id_type: 'Visit', event_type: 'visit.updated' });
    assert.equal(targetOf(g, 'resource_id'), 'event_id');
    const q = eventIdAsk(g);
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['resource_id'],
    );
    assert.equal(q?.noneGuessed, undefined);
  });

  it('reads a resource’s URL and a camel-case objectId the same way', () => {
    const url = guesses({
      resource_url: 'https://api.example.com/v2/parcels?batch=88',
      resource_type: 'PARCEL_SHIPPED',
    });
    assert.equal(targetOf(url, 'resource_url'), 'event_id');
    const camel = guesses({ objectId: 99182, subscriptionType: 'deal.creation', portal: 4 });
    assert.equal(eventIdAsk(camel)?.options[0]?.column, 'objectId');
  });

  it('offers two references with none preselected', () => {
    const g = guesses({ object_id: 'o_1', record_id: 'r_9', action: 'merged' });
    const q = eventIdAsk(g);
    assert.ok(q?.noneGuessed);
    assert.deepEqual(q.options.map((o) => o.column).sort(), ['object_id', 'record_id']);
    assert.notEqual(targetOf(g, 'object_id'), 'event_id');
  });

  it('leaves a reference below the top, beside the event’s own id, or one that is not a reference', () => {
    assert.equal(resourceReference('data.resource_id'), false);
    assert.equal(resourceReference('resource_type'), false);
    assert.equal(resourceReference('object'), false);
    const person = guesses({ entity_id: 'cus_1', entity_type: 'customer', action: 'updated' });
    assert.notEqual(targetOf(person, 'entity_id'), 'event_id', 'a person’s record: subject-id.ts asks it');
    const own = guesses({ event_id: 'evt_1', resource_id: 'r_1', type: 'x.updated' });
    assert.equal(targetOf(own, 'event_id'), 'event_id');
    assert.notEqual(targetOf(own, 'resource_id'), 'event_id');
  });
});
