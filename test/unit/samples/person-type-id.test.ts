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

  describe('a column saying the record’s kind, and an id named for the object it is about', () => {
    const options = (body: unknown) => personAsk(body)?.options.map((o) => o.column);

    it('offers an objectId beside a subscription type naming a contact’s creation', () => {
      const body = [
        {
          eventId: 4,
          subscriptionType: 'contact.creation',
          occurredAt: 1564113600000,
          objectId: 123,
          portalId: 9,
        },
      ];
      assert.deepEqual(options(body), ['objectId']);
      assert.ok(personAsk(body)?.noneGuessed);
    });

    it('offers a resourceId beside an event category naming a contact, the type saying only UPDATE', () => {
      const body = {
        resourceId: '717f2bfc-c6d4-41fd-b238-3f2f0c0cf777',
        eventDateUtc: '2026-06-21T01:15:39.902',
        eventType: 'UPDATE',
        eventCategory: 'CONTACT',
        tenantId: 'c2cc9b6e-9458-4c7d-93cc-f02b81b0594f',
      };
      assert.deepEqual(options(body), ['resourceId']);
    });

    it('offers a resource’s id beside its typeId naming a customer', () => {
      const body = {
        id: 'msg-1',
        type: 'CustomerEmailChanged',
        createdAt: '2026-10-25T13:30:09.760Z',
        resource: { typeId: 'customer', id: 'c-42' },
      };
      assert.deepEqual(options(body), ['resource.id']);
    });

    it('leaves a kind naming no person’s record, or an objectId under another party, alone', () => {
      assert.equal(personAsk([{ eventId: 5, subscriptionType: 'deal.creation', objectId: 7 }]), undefined);
      assert.equal(
        personAsk({ resourceId: 'r-1', eventType: 'UPDATE', eventCategory: 'INVOICE', tenantId: 't-1' }),
        undefined,
      );
      assert.equal(
        personAsk({ eventType: 'contact.created', eventId: 'e-3', owner: { objectId: 'o-9' } }),
        undefined,
      );
    });
  });
});
