/**
 * An envelope's id beside its subject's (issue #94, core/samples/subject-id.ts and its use in
 * guess.ts): a top-level id taken as the event's, beside the id of what the payload is about
 * below the top (`target.id`, `data.entity_id`, a `data.subject` with its kind beside it) or with
 * the same values, is asked about with the subject's id, nothing preselected, unless evidence
 * says the envelope's id is the event's.
 */
import assert from 'node:assert/strict';
import { guesses, takenAs } from '../../support/page-steps.ts';

/** The event id filled, and the options of the question about it with whether one is preselected. */
const read = (body: unknown) => {
  const g = guesses(body);
  const q = g.questions.find((x) => x.target === 'event_id');
  return {
    filled: takenAs(g, 'event_id'),
    offered: q?.options.map((o) => o.column) ?? [],
    open: q?.noneGuessed !== undefined,
  };
};

describe('the creator: an envelope’s id beside its subject’s', () => {
  it('no longer fills an id that repeats its target’s as the event’s: asks, none preselected', () => {
    const r = read({
      id: 4411,
      event: 'user_reset_password',
      target: { type: 'User', id: 4411 },
      body: { password: 'x' },
    });
    assert.deepEqual(r.filled, []);
    assert.deepEqual(r.offered, ['id', 'target.id']);
    assert.equal(r.open, true);
  });

  it('asks in other shapes: a wrapped subject with its kind, a wrapped entity id', () => {
    for (const [body, subject] of [
      [
        {
          id: '0190a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
          type: 'login.succeeded',
          occurredAt: '2026-01-02T03:04:05Z',
          data: { subject: 'c0ffee00-1111-4222-8333-944455556666', subjectType: 'USER', ip: '10.0.0.1' },
        },
        'data.subject',
      ],
      [
        { id: 'a7c1e2d4', event: 'record.updated', payload: { entity_id: 'rec_9', entity_type: 'deal' } },
        'payload.entity_id',
      ],
    ] as const) {
      const r = read(body);
      assert.deepEqual(r.filled, [], subject);
      assert.deepEqual(r.offered, ['id', subject], subject);
      assert.equal(r.open, true, subject);
    }
  });

  it('fills the envelope’s id where the evidence says it is the event’s', () => {
    const target = { type: 'User', id: 'u_77' };
    // Typed by a kind of its own, said to be an event, or counting its delivery attempts.
    assert.deepEqual(read({ id: 'evt_1a2b', type: 'user.reset', target }).filled, ['id']);
    assert.deepEqual(read({ id: '91', object: 'event', type: 'user.reset', target }).filled, ['id']);
    assert.deepEqual(read({ id: '91', type: 'user.reset', attempt_number: 1, target }).filled, ['id']);
  });

  it('asks nothing of an event record naming its subject at the top, a business’s id, a mail’s subject', () => {
    // Beside its own id at the top, a subject's id makes the envelope the event's record.
    assert.deepEqual(read({ id: '7f3c', topic: 'customer_created', resourceId: 'cus_9' }).filled, ['id']);
    assert.deepEqual(
      read({ id: 5512, event: 'orders/create', data: { merchant_business_entity_id: 'mbe_2' } }).filled,
      ['id'],
    );
    // A subject with no kind beside it may be a message's subject line, not an id.
    assert.deepEqual(read({ id: '301', type: 'mail.sent', data: { subject: 'Welcome' } }).filled, ['id']);
  });
});

describe('the creator: a subject whose kind names a person', () => {
  /** The person's-id question's options, whether one is preselected, and the columns taken. */
  const person = (body: unknown) => {
    const g = guesses(body);
    const q = g.questions.find((x) => x.target === 'user_id');
    return {
      offered: q?.options.map((o) => o.column) ?? [],
      preselected: q !== undefined && q.noneGuessed === undefined,
      taken: takenAs(g, 'user_id', 'user.external_id'),
    };
  };

  it('asks about the subject’s id as the person’s, preselected, in several shapes', () => {
    for (const [body, column] of [
      [{ id: 4411, event: 'user_reset_password', target: { type: 'User', id: 4411 } }, 'target.id'],
      [
        { id: 'd-1', type: 'login.succeeded', data: { subject: 'c0ffee00-1111', subjectType: 'USER' } },
        'data.subject',
      ],
      [
        { id: 'n-5', event: 'record.updated', data: { entity_id: 'ct_9', entity_type: 'contact' } },
        'data.entity_id',
      ],
    ] as const) {
      const r = person(body);
      assert.deepEqual(r.offered, [column], column);
      assert.equal(r.preselected, true, column);
      assert.deepEqual(r.taken, [column], column);
    }
  });

  it('reads the subject’s kind from the event’s type where no column beside names it', () => {
    for (const [body, column] of [
      [{ id: 'ev-1', topic: 'customer_created', resourceId: '9d1f-22' }, 'resourceId'],
      [{ id: 'ev-2', type: 'member.updated', data: { entity_id: 'm_7' } }, 'data.entity_id'],
      [
        { type: 'user_email_usages_created', payload: { userResourceGuid: 'b1-c2' } },
        'payload.userResourceGuid',
      ],
    ] as const) {
      const r = person(body);
      assert.deepEqual(r.offered, [column], column);
      assert.equal(r.preselected, true, column);
    }
    // A type whose record is another thing's, and a subject not named for a person: nothing asked.
    assert.deepEqual(
      person({ id: 'ev-3', topic: 'customer_invoice_created', resourceId: 'inv-1' }).offered,
      [],
    );
  });

  it('asks nothing of a subject of another kind, a person’s id already taken, a business’s subject', () => {
    assert.deepEqual(person({ id: 9, event: 'x', target: { type: 'Invoice', id: 'inv_1' } }).offered, []);
    assert.deepEqual(
      person({ id: 9, event: 'x', customer_id: 'cus_1', target: { type: 'User', id: 'u_1' } }).taken,
      ['customer_id'],
    );
    assert.deepEqual(
      person({ id: 'e', type: 'x', data: { account_entity_id: 'a1', account_entity_type: 'user' } }).offered,
      [],
    );
  });
});

describe('the creator: the wrapped record of an event about a person', () => {
  const read2 = (body: unknown) => {
    const g = guesses(body);
    const ev = g.questions.find((x) => x.target === 'event_id');
    const who = g.questions.find((x) => x.target === 'user_id');
    return {
      g,
      eventOpen: ev?.noneGuessed !== undefined,
      eventOffered: ev?.options.map((o) => o.column) ?? [],
      personOffered: who?.options.map((o) => o.column) ?? [],
      personPreselected: who !== undefined && who.noneGuessed === undefined,
    };
  };

  it('asks about `data.id` as the person’s, preselected, and offers it for the event with none preselected', () => {
    for (const body of [
      { type: 'user.created', data: { id: 'user_2aB', first_name: 'Ana' } },
      { type: 'users.created', data: { id: 'u-9', email: 'ana@example.com' } },
      { event: 'person.created', data: { object: { id: 301, name: 'Ana' } } },
    ]) {
      const r = read2(body);
      const column = r.personOffered[0];
      assert.ok(column?.endsWith('.id'), JSON.stringify(body));
      assert.equal(r.personPreselected, true, JSON.stringify(body));
      assert.deepEqual(r.eventOffered, [column], JSON.stringify(body));
      assert.equal(r.eventOpen, true, JSON.stringify(body));
      assert.deepEqual(takenAs(r.g, 'event_id'), [], JSON.stringify(body));
    }
  });

  it('keeps `data.id` the event’s, preselected, where the type’s record is no person’s', () => {
    for (const type of ['subscription.created', 'customer.subscription.created', 'invoice.paid']) {
      const r = read2({ type, data: { id: 'rec_1', status: 'active' } });
      assert.deepEqual(takenAs(r.g, 'event_id'), ['data.id'], type);
      assert.equal(r.eventOpen, false, type);
      assert.deepEqual(r.personOffered, [], type);
    }
  });
});
