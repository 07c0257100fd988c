/**
 * A record's own id is not an event's (issue #94, core/samples/record-object.ts): an `object`-like
 * column beside a plain id that names a record, not an event, says the id is the record's; rows of
 * a list that name no event and no time are records, their ids the records'. Either way the event
 * id is asked, nothing preselected. An object that names the event, an event that created the
 * record, an id named for the record beside its type, and a list of events keep their ids.
 * Payloads invented for these tests, in several shapes (top and wrapper, `object`, `object_type`,
 * `resourceType`, JSON, form and NDJSON bodies, a list at the top and under a batch wrapper).
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { recordList, recordObject } from '../../../core/samples/record-object.ts';
import { fieldsOf } from '../../support/page-steps.ts';
import { eventIdAsk, eventIdFilled } from './rule-fields.ts';

/** The page's guesses for a sample's text, with the rows read from `records` when given. */
function textGuess(text: string, records?: string) {
  const sample = parseSample(text, records ? { records } : {});
  return guessChoices(inferFields(sample), sample.rows);
}

/** The event id is asked of `g`, nothing preselected, `column` offered and none filled. */
function askedIn(g: ReturnType<typeof textGuess>, column: string): void {
  assert.deepEqual(
    g.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
    [],
    column,
  );
  const q = g.questions.find((x) => x.target === 'event_id');
  assert.ok(q?.noneGuessed, column);
  assert.ok(
    q.options.some((o) => o.column === column),
    column,
  );
}

const asked = (body: unknown, column: string) => askedIn(textGuess(JSON.stringify(body)), column);

/** An access a creator's platform grants: the body names the event, the object the access. */
const access = {
  event_type: 'product_access_granted',
  object: 'product_access',
  id: 1234,
  timestamp: 1754055687,
  user: { id: 5, email: 'ana@example.com' },
};

describe('the creator: a record’s object beside its id', () => {
  it('asks, none preselected, rather than fill the id of the record its object names', () => {
    asked(access, 'id');
    assert.match(recordObject(fieldsOf(access), 'id') ?? '', /object: product_access/);
  });

  it('reads the same of other names, values, ids and places of the object', () => {
    for (const [body, column] of [
      [
        { type: 'invoice.paid', object_type: 'invoice', id: 'in_7', created_at: '2026-04-01T10:00:00Z' },
        'id',
      ],
      [{ topic: 'membership.renewed', resourceType: 'Membership', uuid: 'b7c1' }, 'uuid'],
      [
        { event: 'subscription.updated', data: { object: 'subscription', id: 'sub_2', status: 'active' } },
        'data.id',
      ],
      [
        { event: 'refund.updated', resource: { entity_type: 'refund', _id: 'r-9', amount: 4 } },
        'resource._id',
      ],
    ] as const) {
      assert.notEqual(recordObject(fieldsOf(body), column), undefined, column);
      assert.deepEqual(eventIdFilled(body), [], column);
      assert.ok(eventIdAsk(body)?.noneGuessed, column);
    }
  });

  it('asks of a form body’s id beside its object', () => {
    askedIn(textGuess('event=refund.updated&object=refund&id=re_31&amount=12.00&currency=EUR'), 'id');
  });

  it('keeps the id where the object names the event, its notification or its webhook', () => {
    for (const object of ['event', 'Event', 'webhook_event', 'notification_event', 'notification']) {
      const body = { ...access, object, id: 'evt_1' };
      assert.equal(recordObject(fieldsOf(body), 'id'), undefined, object);
      assert.deepEqual(eventIdFilled(body), ['id'], object);
    }
    // Stripe's shape: the event's id beside `object: event`, the record's inside.
    const stripe = {
      id: 'evt_2',
      object: 'event',
      type: 'invoice.paid',
      data: { object: { id: 'in_1', object: 'invoice' } },
    };
    assert.deepEqual(eventIdFilled(stripe), ['id']);
  });

  it('keeps a created record’s id, its only event, as the truths take it', () => {
    for (const kind of ['created', 'order.created', 'new_order', 'customer_added']) {
      const body = { event_type: kind, object_type: 'order', id: 'o-8', event_time: '2026-04-01T10:00:00Z' };
      assert.equal(recordObject(fieldsOf(body), 'id'), undefined, kind);
      assert.deepEqual(eventIdFilled(body), ['id'], kind);
    }
  });

  it('keeps the plain id where an id named for the record stands beside its type', () => {
    const body = {
      id: 'e-1',
      type: 'promotion',
      entityType: 'contact',
      entityId: '41',
      timestamp: 1754055687,
    };
    assert.equal(recordObject(fieldsOf(body), 'id'), undefined);
    assert.deepEqual(eventIdFilled(body), ['id']);
    const resource = { id: 'e-2', type: 'plan.renewed', resource_type: 'plan', resource_id: 'p-1' };
    assert.equal(recordObject(fieldsOf(resource), 'id'), undefined);
  });

  it('reads no object two levels down, nor an id that is not the object’s own', () => {
    const deep = { event: 'x.updated', items: { thing: { object: 'invoice', id: 'in_5' } } };
    assert.equal(recordObject(fieldsOf(deep), 'items.thing.id'), undefined);
    assert.equal(recordObject(fieldsOf({ ...access, order_id: 9 }), 'order_id'), undefined);
  });
});

/** Records as a CRM sends them in a batch: the record's id and name, nothing else. */
const records = [
  { id: 'acc-1', name: 'Acme' },
  { id: 'acc-2', name: 'Globex' },
];

describe('the creator: a list of records', () => {
  it('asks, none preselected, rather than fill the ids of a bare list of records', () => {
    asked(records, 'id');
    assert.equal(recordList(fieldsOf(records), 'id'), true);
  });

  it('reads the same of a list under a batch wrapper, as NDJSON, and of other ids', () => {
    askedIn(textGuess(JSON.stringify({ records }), 'records'), 'id');
    askedIn(textGuess(records.map((r) => JSON.stringify(r)).join('\n')), 'id');
    const uuids = [
      { uuid: 'u1', title: 'Lead A', stage: 'open' },
      { uuid: 'u2', title: 'Lead B', stage: 'won' },
      { uuid: 'u3', title: 'Lead C', stage: 'lost' },
    ];
    asked(uuids, 'uuid');
  });

  it('keeps the ids of a list of events: each row names its event or its time', () => {
    const events = [
      { id: 'e1', event: 'open', email: 'a@example.com' },
      { id: 'e2', event: 'click', email: 'b@example.com' },
    ];
    assert.equal(recordList(fieldsOf(events), 'id'), false);
    assert.deepEqual(eventIdFilled(events), ['id']);
    const timed = records.map((r, i) => ({ ...r, updated_at: `2026-04-0${i + 1}T10:00:00Z` }));
    assert.equal(recordList(fieldsOf(timed), 'id'), false);
    // Timed records that name no event are still records: asked as the record the body is.
    asked(timed, 'id');
    assert.deepEqual(eventIdFilled(timed.map((r) => ({ ...r, event: 'account.updated' }))), ['id']);
  });

  it('reads no record in rows that name no thing: ids, amounts and statuses alone', () => {
    const rows = [
      { id: 'r-1', amount: 9, status: 'ok' },
      { id: 'r-2', amount: 4, status: 'ok' },
    ];
    assert.equal(recordList(fieldsOf(rows), 'id'), false);
    // Rows that name no event are asked as records all the same (record-status.ts).
    asked(rows, 'id');
    assert.deepEqual(eventIdFilled(rows.map((r) => ({ ...r, type: 'payment.settled' }))), ['id']);
    assert.equal(recordList(fieldsOf(rows.map((r, i) => ({ ...r, title: `Deal ${i}` }))), 'id'), true);
  });

  it('reads no list in one object alone, nor a nested id', () => {
    assert.equal(recordList(fieldsOf(records[0]), 'id'), false);
    assert.equal(recordList(fieldsOf(records.map((r) => ({ account: r }))), 'account.id'), false);
  });
});
