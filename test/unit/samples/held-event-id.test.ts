/**
 * An event id the envelope keeps in its header object (issue #94, core/samples/held-event-id.ts):
 * `metadata.eventId` or `source.eventId` is preselected in the event id's question, the record ids
 * an earlier rule offered kept after it, never filled silently; never under a record's wrapper,
 * never beside an event id already taken.
 */
import assert from 'node:assert/strict';
import { heldEventId } from '../../../core/samples/held-event-id.ts';
import { eventIdAsk as idAsk, eventIdFilled as taken } from './rule-fields.ts';

/** A bill's envelope: its own fields in `metadata`, the invoice beside it. */
const invoice = {
  metadata: { eventId: 'e-5c1d', subscriptionId: 'sub-2', eventType: 'invoice.created', version: 1 },
  invoice: { id: 'inv-7', customerId: 'c-9', totalAmount: 120, createdTime: '2026-11-15T23:15:23Z' },
};

describe('the creator: an event id in the envelope’s header object', () => {
  it('preselects metadata.eventId where it used to offer only the records’ ids', () => {
    assert.deepEqual(taken(invoice), ['metadata.eventId']);
    const q = idAsk(invoice);
    assert.equal(q?.noneGuessed, undefined, 'preselected');
    assert.equal(q?.options[0]?.column, 'metadata.eventId');
    assert.ok(
      q?.options.some((o) => o.column === 'invoice.id'),
      JSON.stringify(q?.options),
    );
  });

  it('asks of an event_id in source or meta where nothing else was offered', () => {
    const shop = {
      data: { payload: [{ entity: 'product', operation: 'delete' }], event: 'product.written' },
      source: { url: 'http://localhost:8000', shopId: 'dgrH7', event_id: '7b04ebe4' },
      timestamp: 123123123,
    };
    assert.deepEqual(
      idAsk(shop)?.options.map((o) => o.column),
      ['source.event_id'],
    );
    assert.equal(idAsk(shop)?.noneGuessed, undefined);
  });

  it('leaves an event_id under the record’s wrapper, or beside an id already taken, alone', () => {
    const ticket = { event: 'ticket.created', payload: { event_id: 'ev_4', order_id: 'or_7' } };
    assert.ok(!taken(ticket).includes('payload.event_id'));
    const withId = { event_id: 'e-1', type: 'x.created', meta: { eventId: 'e-2' } };
    assert.deepEqual(taken(withId), ['event_id']);
  });

  it('reads only an event id directly under a header object', () => {
    for (const c of [
      'metadata.eventId',
      'meta.event_id',
      'source.eventId',
      'headers.EventId',
      'context.event_id',
    ])
      assert.equal(heldEventId(c), true, c);
    for (const c of [
      'payload.event_id',
      'data.eventId',
      'metadata.subscriptionId',
      'meta.x.event_id',
      'event_id',
    ])
      assert.equal(heldEventId(c), false, c);
  });
});
