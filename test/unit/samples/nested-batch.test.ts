/**
 * A batch nested in the payload is offered as rows (issue #94, core/samples/batch-envelope.ts
 * `nestedBatchPath`, json.ts `recordsPath`): an identity provider's event hook carries its events
 * in `data.events` under an envelope with its own id and time; the page offers that list as the
 * rows as it offers a top-level `events`, so each element is one event with its own id, and the
 * drafted translator reads the same list (`format.records: data.events`). A redelivery of the
 * same batch under another envelope id is then the same events, and two events of one batch two.
 */
import assert from 'node:assert/strict';
import { draftResources } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { translate } from '../../../core/translate/index.ts';

/** An event hook's delivery: an envelope, and its events nested in `data.events`, each with its own `uuid`. */
const delivery = (envelopeId: string) => ({
  eventType: 'com.example.event_hook',
  eventId: envelopeId,
  eventTime: '2026-11-20T10:00:05Z',
  data: {
    events: [
      {
        uuid: 'a1b2c3d4-0000-4000-8000-000000000001',
        published: '2026-11-20T10:00:00Z',
        eventType: 'user.session.start',
        actor: { id: 'u_1', alternateId: 'ada@example.com' },
      },
      {
        uuid: 'a1b2c3d4-0000-4000-8000-000000000002',
        published: '2026-11-20T10:00:01Z',
        eventType: 'user.session.start',
        actor: { id: 'u_2', alternateId: 'bob@example.com' },
      },
    ],
  },
});

/** The page's walk with the offered list taken as the rows: the draft, and the ids its translator gives a body. */
function taken(body: unknown) {
  const text = JSON.stringify(body);
  const offer = parseSample(text).recordsOffer;
  assert.ok(offer, 'a list is offered as the rows');
  const sample = parseSample(text, { records: offer });
  const fields = inferFields(sample);
  const guesses = guessChoices(fields, sample.rows);
  const draft = draftResources({
    eventName: 'session_started',
    translatorName: 'hook-json',
    sample,
    fields,
    choices: guesses.columns,
  });
  const read = { translator: 'hook-json', spec: draft.translator.spec, eventName: 'session_started' };
  const ids = (again: unknown) => {
    const body = new TextEncoder().encode(JSON.stringify(again));
    const r = translate({ ...read, body, contentType: 'application/json' });
    assert.ok(r.ok);
    return r.rows.map((row) => (row.event as { event_id?: string }).event_id);
  };
  return { offer, sample, guesses, draft, ids };
}

describe('creator: a batch nested in the payload is offered as rows', () => {
  it('offers data.events as the rows, each element one event with its own id', () => {
    const { offer, sample, guesses, draft, ids } = taken(delivery('env_1'));
    assert.equal(offer, 'data.events');
    assert.equal(sample.records, 'data.events');
    assert.equal(sample.rows.length, 2);
    assert.deepEqual(
      guesses.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
      ['uuid'],
    );
    assert.deepEqual(draft.translator.spec.format, { type: 'json', records: 'data.events' });
    const first = ids(delivery('env_1'));
    assert.equal(first.length, 2);
    assert.notEqual(first[0], first[1], 'two events of one batch are two');
    // The same batch delivered again under another envelope id: the same events.
    assert.deepEqual(ids(delivery('env_2')), first);
  });

  it('offers a payload.items of events, each with its own id and type', () => {
    const body = {
      id: 'dlv_9',
      payload: {
        items: [
          { id: 'ev_1', type: 'ticket.created', ticket: { subject: 'Help' } },
          { id: 'ev_2', type: 'ticket.closed', ticket: { subject: 'Help' } },
        ],
      },
    };
    assert.equal(parseSample(JSON.stringify(body)).recordsOffer, 'payload.items');
  });

  it('offers no order’s line items, no list outside the envelopes, and none of two batches', () => {
    // Line items have their own ids, but none says which event it is.
    const items = ['Mug', 'Cap'].map((name, i) => ({ id: `li_${i}`, name, price: 10 * (i + 1) }));
    const order = { id: 'o_1', data: { total: 30, items } };
    assert.equal(parseSample(JSON.stringify(order)).recordsOffer, undefined);
    const deeper = { id: 'x', order: { events: [{ id: 'e_1' }] } };
    assert.equal(parseSample(JSON.stringify(deeper)).recordsOffer, undefined);
    const two = { data: { events: [{ id: 'e_1' }], records: [{ id: 'r_1' }] } };
    assert.equal(parseSample(JSON.stringify(two)).recordsOffer, undefined);
    // A list at the top is offered as before, over a nested one.
    assert.equal(
      parseSample(JSON.stringify({ events: [{ id: 'e_1' }], data: { events: [{ id: 'e_2' }] } }))
        .recordsOffer,
      'events',
    );
  });
});
