/**
 * The rules of core/samples/batch-envelope.ts one by one (docs/testing.md, its mutation run):
 * each name of a carried list and of its items' ids, when the items have ids of their own, which
 * ids at the envelope's level name the delivery, and what the question says.
 */
import assert from 'node:assert/strict';
import {
  batchDeliveryIds,
  batchIdQuestion,
  carriedList,
  nestedBatchPath,
} from '../../../core/samples/batch-envelope.ts';
import { inferFields, parseSample } from '../../../core/samples/index.ts';

/** The fields of one delivery, or of several (an array of bodies, one row each). */
const fieldsOf = (body: unknown) => inferFields(parseSample(JSON.stringify(body)));
const sessions = [
  { id: 'evt_1', type: 'session.start' },
  { id: 'evt_2', type: 'session.end' },
];
/** The columns of an envelope that batchDeliveryIds names the delivery's. */
const deliveryIdsOf = (envelope: Record<string, unknown>) =>
  batchDeliveryIds(fieldsOf(envelope)).map((d) => d.column);

describe('creator: a batch’s envelope, rule by rule', () => {
  it('reads each name of a carried list, at the envelope’s level only', () => {
    for (const name of ['events', 'records', 'notifications', 'notificationItems', 'eventList', 'Records'])
      assert.deepEqual(
        carriedList(fieldsOf({ hook_id: 'h_1', [name]: sessions })),
        { column: name, idKey: 'id' },
        name,
      );
    for (const path of ['data', 'payload', 'body']) {
      const column = `${path}.events`;
      assert.equal(carriedList(fieldsOf({ [path]: { events: sessions } }))?.column, column, column);
    }
    for (const other of [{ line_items: sessions }, { order: { events: sessions } }, { events: 'none' }])
      assert.equal(carriedList(fieldsOf(other)), undefined, JSON.stringify(other));
  });

  it('takes a list only when every row holds a non-empty list of objects there', () => {
    const rows = (second: unknown) => [{ events: sessions }, { events: second }];
    assert.equal(carriedList(fieldsOf(rows(sessions)))?.idKey, 'id');
    for (const [what, second] of [
      ['an empty list', []],
      ['a list of texts', ['evt_1', 'evt_2']],
      ['a list with one text', [{ id: 'evt_3' }, 'evt_4']],
      ['a list of lists', [[{ id: 'evt_3' }]]],
      ['a text', 'none'],
      ['an empty object', {}],
      ['a list written as JSON text', '[{"id":"evt_3"}]'],
      ['a list with a null', [{ id: 'evt_3' }, null]],
    ] as const)
      assert.equal(carriedList(fieldsOf(rows(second))), undefined, what);
  });

  it('takes each name of an item’s own id holding text or a number, one key for every item', () => {
    for (const key of ['id', 'uuid', 'event_id', 'eventUuid', 'record_id', 'notificationId'])
      assert.equal(carriedList(fieldsOf({ records: [{ [key]: 'r_1' }, { [key]: 'r_2' }] }))?.idKey, key, key);
    assert.equal(carriedList(fieldsOf({ records: [{ id: 1 }, { id: 2 }] }))?.idKey, 'id');
    for (const [what, records] of [
      ['another id', [{ order_id: 'o_1' }, { order_id: 'o_2' }]],
      ['a blank id', [{ id: 'r_1' }, { id: ' ' }]],
      ['an id that is no scalar', [{ id: { value: 'r_1' } }, { id: { value: 'r_2' } }]],
      ['a yes/no', [{ id: true }, { id: false }]],
      ['a second item without', [{ id: 'r_1' }, { type: 'b' }]],
      ['two keys', [{ id: 'r_1' }, { uuid: 'r_2' }]],
      ['two alike', [{ id: 'r_1' }, { id: 'r_1' }]],
      ['one item without', [{ type: 'a' }]],
    ] as const)
      assert.deepEqual(carriedList(fieldsOf({ records })), { column: 'records' }, what);
    // Two deliveries may carry the same event again: ids are compared within a list.
    const again = [{ records: sessions }, { records: sessions }];
    assert.equal(carriedList(fieldsOf(again))?.idKey, 'id');
    // Two alike in one delivery's list: not the items' own, whatever the other lists hold.
    const twice = [{ records: sessions }, { records: [sessions[0], sessions[0]] }];
    assert.deepEqual(carriedList(fieldsOf(twice)), { column: 'records' });
  });

  it('names every id at the envelope’s level the delivery’s, saying why, where the items have ids', () => {
    const names = [
      'id',
      'uuid',
      'eventId',
      'eventUuid',
      'record_id',
      'notification_id',
      'webhook_id',
      'webhookEventId',
    ];
    const more = ['hook_id', 'message_id', 'batch_id', 'payload_id', 'delivery_id'];
    const envelope = Object.fromEntries([...names, ...more].map((n, i) => [n, `x_${i}`]));
    assert.deepEqual(deliveryIdsOf({ ...envelope, events: sessions }), [...names, ...more]);
    assert.deepEqual(deliveryIdsOf({ data: { batch_id: 7, events: sessions } }), ['data.batch_id']);
    assert.deepEqual(batchDeliveryIds(fieldsOf({ batch_id: 'b_1', events: sessions })), [
      {
        column: 'batch_id',
        why: "batch_id names the delivery of the events in events, each with its own id: not one event's id (take that list as the rows for each event's own)",
      },
    ]);
    for (const [what, envelope] of [
      ['inside another object', { hook: { id: 'h_1' } }],
      ['another id', { account_id: 'acc_1' }],
      ['always empty', { batch_id: null }],
      ['a yes/no', { id: true }],
      ['a time', { id: '2026-11-22T10:00:00Z' }],
    ] as const)
      assert.deepEqual(deliveryIdsOf({ ...envelope, events: sessions }), [], what);
    assert.deepEqual(deliveryIdsOf({ batch_id: 'b_1', events: [{ type: 'a' }, { type: 'b' }] }), []);
  });

  it('asks about the id taken as the event’s only above a list whose items have no id of their own', () => {
    const untold = [{ type: 'a' }, { type: 'b' }];
    const question = (body: Record<string, unknown>, taken: string | undefined) => {
      const fields = fieldsOf(body);
      const base = fields.map((f) => ({
        column: f.name,
        target: f.name === taken ? 'event_id' : 'event_data',
      }));
      return batchIdQuestion(fields, base);
    };
    assert.deepEqual(question({ batch_id: 'b_77', events: untold }, 'batch_id'), {
      target: 'event_id',
      ask: "Is batch_id the event's own id? The payload carries its events in events, and an id above them may name the delivery: a wrong one folds different events into one.",
      options: [
        {
          column: 'batch_id',
          why: "at the top of a payload that carries a list of events (events) without ids of their own: the delivery's id, or the only one its events have",
        },
      ],
    });
    assert.equal(question({ batch_id: 'b_77', events: sessions }, 'batch_id'), undefined);
    // One of several ids at the envelope's level.
    assert.equal(
      question({ id: 'h_1', batch_id: 'b_77', events: untold }, 'batch_id')?.options[0]?.column,
      'batch_id',
    );
    assert.equal(question({ batch_id: 'b_77', events: untold }, undefined), undefined);
    assert.equal(question({ batch_id: 'b_77', line_items: untold }, 'batch_id'), undefined);
    // The id taken is one no envelope's id: not asked about here.
    assert.equal(question({ batch_id: 'b_77', order: { id: 'o_1' }, events: untold }, 'order.id'), undefined);
  });

  describe('a batch nested under envelopes', () => {
    const events = [
      { id: 'evt_1', type: 'session.start' },
      { id: 'evt_2', type: 'session.end' },
    ];

    it('finds a list of events under one to three envelopes, beside other columns', () => {
      assert.equal(nestedBatchPath({ data: { count: 2, events } }), 'data.events');
      assert.equal(nestedBatchPath({ data: { payload: { events } } }), 'data.payload.events');
      for (const [what, body] of [
        ['four envelopes deep', { data: { payload: { body: { events } } } }],
        ['inside another object', { data: { order: { events } } }],
        ['an empty list', { data: { events: [] } }],
        ['a list with a text', { data: { events: [events[0], 'evt_2'] } }],
        ['two lists', { data: { events }, payload: { records: events } }],
        ['no object', null],
      ] as const)
        assert.equal(nestedBatchPath(body), undefined, what);
    });

    it('takes a key only as a path the translator can read', () => {
      for (const key of ['events!', '#events'])
        assert.equal(nestedBatchPath({ data: { [key]: events } }), undefined, key);
    });

    it('takes a generic list only when every item has its own id and a key naming its event', () => {
      for (const name of ['items', 'entries', 'batch'])
        for (const key of ['type', 'event', 'eventType', 'event_name', 'topic', 'action'])
          assert.equal(
            nestedBatchPath({
              payload: {
                [name]: [
                  { id: 'e_1', [key]: 'a' },
                  { id: 'e_2', [key]: 'b' },
                ],
              },
            }),
            `payload.${name}`,
            `${name} ${key}`,
          );
      for (const [what, items] of [
        [
          'an order’s lines',
          [
            { id: 'li_1', sku: 'A' },
            { id: 'li_2', sku: 'B' },
          ],
        ],
        ['an item without an id', [{ id: 'e_1', type: 'a' }, { type: 'b' }]],
        ['an item without a type', [{ id: 'e_1', type: 'a' }, { id: 'e_2' }]],
      ] as const)
        assert.equal(nestedBatchPath({ payload: { items } }), undefined, what);
    });
  });
});
