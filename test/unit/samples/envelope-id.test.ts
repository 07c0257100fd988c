/**
 * An envelope's id beside its record's (issue #94, core/samples/envelope-id.ts and its use in
 * guess.ts): a top-level `id` beside the own id of the record the envelope wraps (`data.id`,
 * `payload.id`, `data.object.id`) is the event's only with evidence (the envelope says it is an
 * event, its id is typed by a word of its own kind, or it counts its delivery attempts); without
 * any, the page asks which is the event's, with no answer preselected, and never fills the
 * envelope's id silently.
 */
import assert from 'node:assert/strict';
import { envelopeIdEvidence } from '../../../core/samples/envelope-id.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

/** The page's steps on one body: the columns taken as the event's id, and the event-id questions. */
function guess(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  const fields = inferFields(sample);
  const g = guessChoices(fields, sample.rows);
  return {
    g,
    fields,
    rows: sample.rows,
    ids: g.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
    asks: g.questions.filter((q) => q.target === 'event_id'),
  };
}

const UUID_A = '550e8400-e29b-41d4-a716-446655440000';
const UUID_B = '019a5a3c-f1ce-7066-86ae-1ed35540a7ce';

describe('the creator: an envelope’s id beside its record’s', () => {
  it('asks, nothing preselected, about a UUID envelope id beside data.id and the event’s type', () => {
    // The shape a support webhook filled wrong: its top-level id is the delivery's.
    const { g, ids, asks } = guess({
      event: 'conversation.created',
      id: UUID_A,
      organization_id: 'org-1',
      data: { id: UUID_B, title: 'Help', created_at: '2025-11-06T17:35:34+00:00' },
    });
    assert.deepEqual(ids, []);
    assert.equal(asks.length, 1);
    assert.ok(asks[0]?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      asks[0]?.options.map((o) => o.column),
      ['id', 'data.id'],
    );
    assert.match(asks[0]?.ask ?? '', /each retry becomes a second row/);
    const id = g.columns.find((c) => c.column === 'id');
    assert.equal(id?.target, 'event_data');
    assert.match(id?.why ?? '', /not one delivery's/);
    assert.equal(id?.confidence, 0.5);
  });

  it('asks the same of a number beside payload.id, and of a UUID beside data.object.id', () => {
    const number = guess({ id: 20190131191810, action: 'created', payload: { id: 3, course_id: 68 } });
    assert.deepEqual(number.ids, []);
    assert.deepEqual(
      number.asks[0]?.options.map((o) => o.column),
      ['id', 'payload.id'],
    );
    const deep = guess({ uuid: UUID_A, kind: 'invoice.paid', data: { object: { id: 'in_42', total: 5 } } });
    assert.deepEqual(deep.ids, []);
    assert.deepEqual(
      deep.asks[0]?.options.map((o) => o.column),
      ['uuid', 'data.object.id'],
    );
  });

  it('fills a Stripe-like event id: typed evt_, the envelope saying it is an event', () => {
    const { ids, asks } = guess({
      id: 'evt_1NqLw2',
      object: 'event',
      type: 'charge.succeeded',
      created: 1648320032,
      data: { object: { id: 'ch_3MmlLr', amount: 2000, currency: 'usd' } },
    });
    assert.deepEqual(ids, ['id']);
    assert.deepEqual(asks, []);
  });

  it('fills an id typed by a word of its own kind, with no declaration beside it', () => {
    for (const id of ['EVT-9UG43882HX', 'msg_2xWq', 'notif_78c1', 'ntf_3'])
      assert.deepEqual(
        guess({ id, event: 'user.created', data: { id: 'user_01FAEA', email: 'a@example.com' } }).ids,
        ['id'],
      );
  });

  it('asks, nothing preselected, of an id typed by the webhook’s word: the event’s or its subscription’s', () => {
    // The shape a ticketing webhook filled wrong: `wh_15` is the same on every event it sends.
    const ticket = guess({
      id: 'wh_15',
      created_at: '2025-01-01 10:00:00',
      event: 'ISSUED_TICKET.CREATED',
      payload: { object: 'issued_ticket', id: 'it_50198', email: 'jo@example.com', order_id: 'or_7' },
    });
    assert.deepEqual(ticket.ids, []);
    assert.ok(ticket.asks[0]?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      ticket.asks[0]?.options.map((o) => o.column),
      ['id', 'payload.id'],
    );
    for (const id of ['WH-9UG43882HX', 'hook_RyEKQO789', 'webhook-7731', 'whk_0a1b'])
      assert.deepEqual(
        guess({ id, type: 'payment.captured', data: { id: 'pay_91', amount: 12 } }).asks[0]?.options.map(
          (o) => o.column,
        ),
        ['id', 'data.id'],
        id,
      );
  });

  it('still fills a webhook-typed id the envelope itself says is an event, or one beside nothing wrapped', () => {
    assert.deepEqual(guess({ id: 'wh_15', object: 'event', data: { id: 'it_50198' } }).ids, ['id']);
    const bare = guess({ id: 'wh_15', event: 'ticket.created', email: 'jo@example.com' });
    assert.deepEqual(bare.ids, ['id']);
    assert.deepEqual(bare.asks, []);
  });

  it('fills an envelope that names itself an event, whatever its ids look like', () => {
    for (const object of ['webhook_event', 'notification_event', 'event'])
      assert.deepEqual(guess({ id: UUID_A, object, data: { id: UUID_B } }).ids, ['id'], object);
  });

  it('fills an envelope that counts its delivery attempts: its id stays the same on a retry', () => {
    const { ids, asks } = guess({
      id: UUID_A,
      name: 'sms.delivery',
      attempt_number: 1,
      data: { id: UUID_B },
    });
    assert.deepEqual(ids, ['id']);
    assert.deepEqual(asks, []);
  });

  it('asks where the prefix says a delivery or a request, or is the record’s own', () => {
    for (const body of [
      { id: 'del_8f2k', type: 'invoice.paid', data: { id: 'in_9' } },
      { id: 'req_77aa', type: 'invoice.paid', data: { id: 'in_9' } },
      { id: 'in_1', type: 'invoice.paid', data: { id: 'in_9' } },
    ]) {
      const { ids, asks } = guess(body);
      assert.deepEqual(ids, [], body.id);
      assert.ok(asks[0]?.noneGuessed, body.id);
    }
  });

  it('reads a type naming a calendar event as no declaration of the envelope', () => {
    const calendar = guess({ id: UUID_A, type: 'event.created', payload: { id: UUID_B } });
    assert.equal(envelopeIdEvidence(calendar.fields, calendar.rows, 'id', 'payload.id'), undefined);
    assert.deepEqual(calendar.ids, []);
    const declared = guess({ id: UUID_A, type: 'notification_event', payload: { id: UUID_B } });
    assert.match(
      envelopeIdEvidence(declared.fields, declared.rows, 'id', 'payload.id') ?? '',
      /says it is an event/,
    );
  });

  it('leaves a batch’s envelope to the batch’s own question', () => {
    const { asks } = guess({
      id: 'b-77',
      type: 'payment.captured',
      data: { id: 'pay_1', status: 'captured', events: [{ type: 'opened' }] },
    });
    assert.equal(asks.length, 1);
    assert.deepEqual(
      asks[0]?.options.map((o) => o.column),
      ['id'],
    );
    assert.equal(asks[0]?.noneGuessed, undefined);
  });

  it('asks nothing where no wrapped record has an id of its own', () => {
    for (const body of [
      { id: UUID_A, event: 'order.paid', customer: { id: UUID_B, email: 'a@example.com' } },
      { id: UUID_A, event: 'order.paid', data: { total: 5, currency: 'EUR' } },
      { id: UUID_A, event: 'order.paid', data: { id: UUID_A, total: 5 } },
    ]) {
      const { ids, asks } = guess(body);
      assert.deepEqual(ids, ['id']);
      assert.deepEqual(asks, []);
    }
  });

  describe('case by case (the rule’s every clause)', () => {
    /** The evidence the rule reads for the top-level `id` beside `data.id`, on the page's columns. */
    const evidence = (body: unknown, record = 'data.id') => {
      const { fields, rows } = guess(body);
      return envelopeIdEvidence(fields, rows, 'id', record);
    };

    it('reads every name an envelope says its kind in, and only at its top', () => {
      for (const kind of ['kind', 'objectType', 'object_type'])
        assert.match(
          evidence({ id: UUID_A, [kind]: 'event', data: { id: UUID_B } }) ?? '',
          /says it is an event/,
          kind,
        );
      // A nested record calling itself an event is the record's word, not the envelope's.
      assert.equal(
        evidence({ id: UUID_A, type: 'x.created', data: { id: UUID_B, object: 'event' } }),
        undefined,
      );
      // Nor does a column of another name holding the word `event` declare anything.
      assert.equal(evidence({ id: UUID_A, category: 'event', data: { id: UUID_B } }), undefined);
      // An envelope of another kind declares nothing either.
      assert.equal(evidence({ id: UUID_A, object: 'charge', data: { id: UUID_B } }), undefined);
      assert.equal(evidence({ id: UUID_A, object: null, data: { id: UUID_B } }), undefined);
    });

    it('takes `notif` as a word of the envelope, and a declaration only when every row makes it', () => {
      assert.match(
        evidence({ id: UUID_A, object: 'notif_event', data: { id: UUID_B } }) ?? '',
        /notif_event/,
      );
      const mixed = [
        { id: UUID_A, object: 'event', data: { id: 'c_1' } },
        { id: UUID_B, object: 'charge', data: { id: 'c_2' } },
      ];
      assert.equal(evidence(mixed), undefined);
    });

    it('names the word the ids are typed by, as written, in its evidence', () => {
      assert.equal(
        evidence({ id: 'EVT-9UG43882HX', event: 'user.created', data: { id: UUID_B } }),
        'its values are typed "evt", a kind of their own beside the record\'s id',
      );
    });

    it('reads a type word only at the id’s start, and never in a UUID', () => {
      // A date-stamped id whose word comes after its digits is typed by nothing.
      assert.equal(evidence({ id: '20240105-ab_9', type: 'x.created', data: { id: UUID_B } }), undefined);
      // A UUID whose first groups are all letters is a UUID, not a word before a dash.
      const lettered = 'deadbeef-beef-4000-8000-000000000001';
      assert.equal(evidence({ id: lettered, type: 'x.created', data: { id: UUID_B } }), undefined);
      assert.deepEqual(guess({ id: lettered, type: 'x.created', data: { id: UUID_B } }).ids, []);
      // A typed id carrying a UUID after its word is typed all the same.
      assert.match(
        evidence({ id: `evt_${UUID_A}`, type: 'x.created', data: { id: UUID_B } }) ?? '',
        /typed "evt"/,
      );
    });

    it('takes a delivery word only as the whole prefix', () => {
      for (const id of ['entry_12', 'delta_5'])
        assert.match(evidence({ id, type: 'x.created', data: { id: 'in_9' } }) ?? '', /typed/, id);
    });

    it('takes a type word only when every row’s id has the same one', () => {
      const rows = [
        { id: 'evt_1', type: 'x.created', data: { id: 'c_1' } },
        { id: 'msg_2', type: 'x.created', data: { id: 'c_2' } },
      ];
      assert.equal(evidence(rows), undefined);
      const same = rows.map((r, i) => ({ ...r, id: `evt_${i}` }));
      assert.match(evidence(same) ?? '', /typed "evt"/);
    });

    it('counts only an attempt counter as a delivery’s evidence, and says so', () => {
      assert.equal(
        evidence({ id: UUID_A, type: 'x.created', attempt_number: 2, data: { id: UUID_B } }),
        'the envelope counts its delivery attempts (attempt_number), so its id stays the same on a retry',
      );
      // A signature in the body is the delivery's too, but says nothing of the id beside it.
      const signed = { id: UUID_A, type: 'x.created', signature: 'a3f9c2e1b7d4', data: { id: UUID_B } };
      assert.equal(evidence(signed), undefined);
      assert.deepEqual(guess(signed).ids, []);
    });

    it('takes a record’s id only one or two wrappers deep, every one a wrapper', () => {
      // A second plain id beside the envelope's, at its top, wraps no record.
      assert.deepEqual(guess({ id: UUID_A, uuid: UUID_B, type: 'x.created', total: 5 }).asks, []);
      for (const data of [{ object: { data: { id: UUID_B } } }, { customer: { id: UUID_B } }]) {
        const { ids, asks } = guess({ id: UUID_A, type: 'x.created', data });
        assert.deepEqual(ids, ['id'], JSON.stringify(data));
        assert.deepEqual(asks, [], JSON.stringify(data));
      }
    });

    it('takes a record’s id when it differs from the envelope’s in some row, not every row', () => {
      const rows = [
        { id: UUID_A, type: 'x.created', data: { id: UUID_A } },
        { id: UUID_B, type: 'x.created', data: { id: 'c_2' } },
      ];
      assert.deepEqual(
        guess(rows).asks[0]?.options.map((o) => o.column),
        ['id', 'data.id'],
      );
    });

    it('says in the question whose each id is, and why nothing is preselected', () => {
      const [ask] = guess({ id: UUID_A, type: 'x.created', data: { object: { id: 'in_42' } } }).asks;
      assert.match(ask?.ask ?? '', /data\.object\.id the id of the record it wraps \(data\.object\)/);
      assert.deepEqual(
        ask?.options.map((o) => o.why),
        [
          "the envelope's id: the event's, or one delivery's",
          'the own id of data.object, the record the envelope wraps',
        ],
      );
      assert.equal(
        ask?.noneGuessed?.why,
        "nothing says whether the envelope's id is the event's or one delivery's",
      );
    });
  });
});
