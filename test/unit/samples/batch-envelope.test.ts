/**
 * A batch's envelope (issue #94, core/samples/batch-envelope.ts, and its use in delivery.ts and
 * guess.ts): an id at the top of a payload that carries a list of events, each with its own id,
 * names the delivery, not an event: never taken as the event's id, and left out of the drafted
 * event like any delivery id. Taken as the rows, the events give their own ids; where they have
 * none, the page asks.
 */
import assert from 'node:assert/strict';
import { batchDeliveryIds, carriedList } from '../../../core/samples/batch-envelope.ts';
import { deliveryColumns, envelopeEventId } from '../../../core/samples/delivery.ts';
import { draftResources } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { CREATOR_WINDOW } from '../../support/creator-clock.ts';

function read(body: unknown, records?: string) {
  const sample = parseSample(JSON.stringify(body), records ? { records } : {});
  const fields = inferFields(sample);
  return { sample, fields, guesses: guessChoices(fields, sample.rows, { window: CREATOR_WINDOW }) };
}
type Read = ReturnType<typeof read>;
const eventIds = (r: Read) => r.guesses.columns.filter((c) => c.target === 'event_id').map((c) => c.column);
const guessOf = (r: Read, column: string) => r.guesses.columns.find((c) => c.column === column);

/** A hook that delivers sign-in events in a batch, each event with its own uuid. */
const batch = (deliveryId: string) => ({
  eventType: 'vendor.event_hook',
  eventId: deliveryId,
  eventTime: '2026-11-22T10:00:00Z',
  data: {
    events: [
      { uuid: 'f790999f-1', eventType: 'user.session.start', published: '2026-11-22T09:59:58Z' },
      { uuid: 'f790999f-2', eventType: 'user.session.end', published: '2026-11-22T09:59:59Z' },
    ],
  },
});

describe('the creator: a batch’s envelope id is not the event’s', () => {
  it('keeps the envelope’s id out of the event id when the events carry their own ids', () => {
    const r = read(batch('dlv-b5a188b9'));
    assert.deepEqual(carriedList(r.fields), { column: 'data.events', idKey: 'uuid' });
    assert.deepEqual(eventIds(r), []);
    const id = guessOf(r, 'eventId');
    assert.equal(id?.target, 'event_data');
    assert.match(id?.why ?? '', /names the delivery of the events in data\.events, each with its own uuid/);
    assert.deepEqual(
      deliveryColumns(r.fields).map((d) => `${d.column}:${d.kind}`),
      ['eventId:delivery_id'],
    );
    // Nor is it the vendor's own id for the draft's key.
    assert.equal(envelopeEventId(r.sample.rows, r.fields), undefined);
    assert.ok(!r.guesses.questions.some((q) => q.target === 'event_id'));
  });

  it('a plain id above events with their own ids is the delivery’s too; a list of line items is no batch', () => {
    const delivery = read({ id: 'whd_1', events: [{ id: 'evt_1' }, { id: 'evt_2' }], sent: true });
    assert.deepEqual(
      batchDeliveryIds(delivery.fields).map((d) => d.column),
      ['id'],
    );
    assert.deepEqual(eventIds(delivery), []);
    // An order's own id beside its line items (each with an id): the order's, no delivery's; the
    // order posted as the body, nothing naming an event, its id is asked as the event's
    // (record-status.ts).
    const order = read({ id: 'ord_1', total: 12, line_items: [{ id: 'li_1' }, { id: 'li_2' }] });
    assert.equal(carriedList(order.fields), undefined);
    assert.deepEqual(batchDeliveryIds(order.fields), []);
    assert.deepEqual(eventIds(order), []);
    assert.ok(order.guesses.questions.some((q) => q.target === 'event_id' && q.options[0]?.column === 'id'));
  });

  it('takes each event’s own id from its record when the list is taken as the rows', () => {
    const body = {
      id: 'whd_1',
      events: [
        { id: 'evt_1', type: 'a' },
        { id: 'evt_2', type: 'b' },
      ],
    };
    const r = read(body, 'events');
    assert.deepEqual(
      r.sample.rows.map((row) => row.id),
      ['evt_1', 'evt_2'],
    );
    assert.deepEqual(eventIds(r), ['id']);
    assert.deepEqual(deliveryColumns(r.fields), []);
  });

  it('asks, the envelope’s id preselected, when the events have no id of their own', () => {
    for (const events of [
      [{ type: 'a' }, { type: 'b' }],
      // Two items sharing one id: none of them is the event's own.
      [
        { id: 'same', type: 'a' },
        { id: 'same', type: 'b' },
      ],
    ]) {
      const r = read({ id: 'b-77', events, received: 2 });
      assert.equal(carriedList(r.fields)?.idKey, undefined);
      assert.deepEqual(batchDeliveryIds(r.fields), []);
      assert.deepEqual(eventIds(r), ['id']);
      const q = r.guesses.questions.find((x) => x.target === 'event_id');
      assert.deepEqual(
        q?.options.map((o) => o.column),
        ['id'],
      );
      assert.match(q?.ask ?? '', /Is id the event's own id\? .* in events/);
      assert.equal(guessOf(r, 'id')?.confidence, 0.5);
    }
  });

  it('the draft leaves the envelope’s id out of the event, and never keys the event on it', () => {
    const r = read(batch('dlv-1'));
    const draft = draftResources({
      eventName: 'sign_in_batch',
      translatorName: 'vendor-json',
      sample: r.sample,
      fields: r.fields,
      choices: r.guesses.columns,
    });
    assert.deepEqual(
      draft.identity.left.map((d) => `${d.column}:${d.kind}`),
      ['eventId:delivery_id'],
    );
    const sources = draft.translator.spec.fields.map((f) => ('source' in f ? f.source : undefined));
    assert.ok(!sources.includes('eventId'), JSON.stringify(sources));
    assert.equal(draft.translator.spec.key, undefined);
    assert.equal(draft.identity.key, undefined);
  });
});
