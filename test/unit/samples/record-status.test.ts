/**
 * A record that reports its own status (issue #94, core/samples/record-status.ts): a vendor that
 * posts the record itself on every change of its status repeats the record's own id in each
 * callback, so that id is asked about as the event's, nothing preselected, where the body says the
 * record is called back about more than once (its callback address, its delivery time) and nothing
 * marks it as one event. The same record with an event's name, or an id of its own event, keeps its
 * id; a record with a status and no such sign keeps its id too.
 * Payloads invented for these tests, in several shapes (JSON and form bodies, at the top and in a
 * wrapper, `status`, `state` and `*_status`, plain and record-named ids).
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { recordStatus } from '../../../core/samples/record-status.ts';
import { sharedIdReason } from '../../../core/samples/shared-id.ts';
import { fieldsOf } from '../../support/page-steps.ts';
import { eventIdAsk, eventIdAskedOnly, eventIdFilled } from './rule-fields.ts';

/** The page's guesses for a form body. */
function formGuess(text: string) {
  const sample = parseSample(text);
  return guessChoices(inferFields(sample), sample.rows);
}

/** A payout's record as its vendor posts it on creation and on each status change. */
const payout = {
  id: 'po_81',
  status: 'claimed',
  amount: '40.00',
  currency: 'EUR',
  callback_url: 'https://shop.example/hooks/payouts',
  created_at: '2026-05-01T09:00:00Z',
  claimed_at: '2026-05-02T10:30:00Z',
};

/** The page asks about the event id of `body`, nothing preselected, offers `column`, fills none. */
const asked = eventIdAskedOnly;

describe('the creator: a record that reports its own status', () => {
  it('asks, none preselected, rather than fill a record’s own id beside its status and callback address', () => {
    asked(payout, 'id');
    asked({ data: payout }, 'data.id');
  });

  it('reads the same of other ids, statuses, places and signs of a callback', () => {
    for (const [body, column] of [
      [{ data: { uuid: 'a1b2', state: 'completed', notification_url: 'https://x.example/n' } }, 'data.uuid'],
      [{ _id: '64f0', payment_status: 'paid', notifyUrl: 'https://x.example/ipn', total: 9 }, '_id'],
      [{ guid: 'g-7', status: 'delivered', delivered_at: '2026-03-01T10:00:00Z', to: '+15550100' }, 'guid'],
      [
        { object: { transfer_id: 't-9', object: 'transfer', status: 2, webhook_url: 'https://x.example/w' } },
        'object.transfer_id',
      ],
      [
        { resource: { id: 'inv-2', invoice_status: 'overdue', ipn_url: 'https://x.example/i' } },
        'resource.id',
      ],
    ] as const)
      assert.match(sharedIdReason(fieldsOf(body), column) ?? '', /record whose status it reports/, column);
  });

  it('asks of a form body’s plain uuid beside its state and delivery time', () => {
    const g = formGuess(
      'uuid=0c9e-11aa&state=delivered&delivered_at=2026-04-02+08%3A00%3A00&recipient=%2B15550100',
    );
    assert.deepEqual(
      g.columns.filter((c) => c.target === 'event_id').map((c) => c.column),
      [],
    );
    const q = g.questions.find((x) => x.target === 'event_id');
    assert.ok(q?.noneGuessed);
    assert.ok(q.options.some((o) => o.column === 'uuid'));
  });

  it('keeps the record’s id where a column names the event, the same record without one asked', () => {
    for (const mark of [{ type: 'payout.claimed' }, { event: 'payout_claimed' }, { action: 'claimed' }]) {
      assert.deepEqual(eventIdFilled({ ...mark, ...payout }), ['id'], JSON.stringify(mark));
      assert.equal(recordStatus(fieldsOf({ ...mark, ...payout }), 'id'), undefined);
    }
    asked(payout, 'id');
  });

  it('keeps an event id of the record’s own event beside the record’s status', () => {
    const body = { event_id: 'evt_31', ...payout };
    assert.deepEqual(eventIdFilled(body), ['event_id']);
    assert.doesNotMatch(eventIdAsk(body)?.ask ?? '', /status/);
    assert.equal(recordStatus(fieldsOf(body), 'id'), undefined);
    const { event_id: _, ...same } = body;
    asked(same, 'id');
  });

  it('reads a status with no sign of a callback, or a region named state, as the record the body is', () => {
    // Nothing marks the body as one event: the record's id is asked whatever its status says
    // (docs, "A record as the body"), and only a callback's signs name the status report.
    const { callback_url: _, ...order } = payout;
    asked(order, 'id');
    assert.deepEqual(eventIdFilled({ ...order, event: 'order.created' }), ['id']);
    asked({ ...order, notification_url: 'https://shop.example/n' }, 'id');
    const placed = { id: 'c-4', state: 'CA', delivered_at: '2026-03-01T10:00:00Z' };
    assert.equal(recordStatus(fieldsOf(placed), 'id')?.thing, 'record the body is');
    assert.equal(
      recordStatus(fieldsOf({ ...placed, state: 'delivered' }), 'id')?.thing,
      'record whose status it reports',
    );
    // An id of another record beside the status (`order_id` in a refund) is not the record's own.
    assert.equal(
      recordStatus(
        fieldsOf({ order_id: 'o-1', status: 'done', callback_url: 'https://x.example' }),
        'order_id',
      ),
      undefined,
    );
  });
});
