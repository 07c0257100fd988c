/**
 * A record's last change as the event's time (issue #94, core/samples/last-change-time.ts): where
 * the time chosen is a record's creation and the same object says it changed later, the change is
 * when the event happened, unless the event is the record's creation; equal times, an update
 * earlier than the creation or one a moment after it change nothing.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { lastChange } from '../../../core/samples/last-change-time.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

function timeOf(body: unknown) {
  const sample = parseSample(JSON.stringify(body));
  return guessChoices(inferFields(sample), sample.rows).eventTime;
}
const ticket = (created: string, updated: string) => ({
  ticket: { id: 't-1', subject: 'Printer jam', createdAt: created, updatedAt: updated, status: 'open' },
});

describe('creator: a record’s last change is the event’s time', () => {
  it('takes the update time of the record whose creation was chosen, saying why', () => {
    const t = timeOf(ticket('2025-03-01T09:00:00Z', '2025-03-04T16:20:00Z'));
    assert.equal(t.column, 'ticket.updatedAt');
    assert.match(t.why, /last changed, later than its ticket\.createdAt/);
    // Other names for the same two times, at the top and with a date first.
    assert.equal(
      timeOf({ id: 7, date_created: '2025-03-01 09:00:00', date_modified: '2025-03-02 10:00:00' }).column,
      'date_modified',
    );
    assert.equal(
      timeOf({ id: 7, created_at: '2025-03-01T09:00:00Z', last_updated: '2025-03-02T10:00:00Z' }).column,
      'last_updated',
    );
  });

  it('keeps the creation where the event is the creation, or nothing changed after it', () => {
    const body = ticket('2025-03-01T09:00:00Z', '2025-03-04T16:20:00Z');
    assert.equal(timeOf({ type: 'ticket.created', ...body }).column, 'ticket.createdAt');
    assert.equal(timeOf({ action: 'created', ...body }).column, 'ticket.createdAt');
    assert.equal(timeOf(ticket('2025-03-01T09:00:00Z', '2025-03-01T09:00:00Z')).column, 'ticket.createdAt');
    // Saved twice as it was made: 12 ms apart is the creation's own write.
    assert.equal(
      timeOf(ticket('2025-03-01T09:00:00.375Z', '2025-03-01T09:00:00.387Z')).column,
      'ticket.createdAt',
    );
    // An update time before the creation is not a later change.
    assert.equal(timeOf(ticket('2025-03-04T16:20:00Z', '2025-03-01T09:00:00Z')).column, 'ticket.createdAt');
  });

  it('reads only the chosen creation’s own object, and leaves a chosen step time alone', () => {
    // The customer's record changed later; the order's creation is still the order's time.
    const order = {
      order: {
        id: 'o-1',
        created_at: '2025-03-01T09:00:00Z',
        customer: { id: 'c-1', created_at: '2024-01-01T00:00:00Z', updated_at: '2025-02-01T00:00:00Z' },
      },
    };
    assert.equal(timeOf(order).column, 'order.created_at');
    // A paid time named by the payload's status wins over both.
    const paid = {
      status: 'paid',
      created_at: '2025-03-01T09:00:00Z',
      paid_at: '2025-03-01T09:05:00Z',
      updated_at: '2025-03-02T00:00:00Z',
    };
    assert.equal(timeOf(paid).column, 'paid_at');
  });

  describe('read directly (lastChange), on columns as the inference gives them', () => {
    const T = (day: number, extra = '') => `2025-03-0${day}T09:00:00${extra}Z`;
    const time = (name: string, extra: Partial<InferredField> = {}): InferredField => ({
      name,
      type: 'timestamp',
      examples: [],
      distinct: 1,
      nullable: false,
      ...extra,
    });
    /** The column taken, the ranked choice being `created` beside `updated`, over these rows. */
    const taken = (
      created: string,
      updated: string,
      rows: Record<string, unknown>[],
      extra: Partial<InferredField> = {},
    ) =>
      lastChange({ f: time(created), why: 'ranked first' }, [time(created), time(updated, extra)], rows)?.f
        .name;

    it('reads only names that say a creation and an update, whole', () => {
      const row = (c: string, u: string) => [{ [c]: T(1), [u]: T(4) }];
      assert.equal(taken('created_at', 'updated_at', row('created_at', 'updated_at')), 'updated_at');
      // Not a creation's name: a re-creation, a local copy of the time.
      assert.equal(taken('recreated_at', 'updated_at', row('recreated_at', 'updated_at')), 'recreated_at');
      assert.equal(
        taken('created_at_local', 'updated_at', row('created_at_local', 'updated_at')),
        'created_at_local',
      );
      // Not the last change: the first update, a local copy.
      assert.equal(
        taken('created_at', 'first_updated_at', row('created_at', 'first_updated_at')),
        'created_at',
      );
      assert.equal(
        taken('created_at', 'updated_at_local', row('created_at', 'updated_at_local')),
        'created_at',
      );
    });

    it('takes an update column only with values and a time’s type (a date too)', () => {
      const rows = [{ created_at: T(1), updated_at: T(4) }];
      assert.equal(taken('created_at', 'updated_at', rows, { distinct: 0 }), 'created_at');
      assert.equal(taken('created_at', 'updated_at', rows, { type: 'string' }), 'created_at');
      const dates = [{ date_created: '2025-03-01', date_modified: '2025-03-05' }];
      assert.equal(taken('date_created', 'date_modified', dates, { type: 'date' }), 'date_modified');
    });

    it('needs every row with both times to have the update no earlier, one more than a second later', () => {
      const both = (c: string, u: string) => ({ created_at: c, updated_at: u });
      assert.equal(taken('created_at', 'updated_at', [both(T(1), T(4)), both(T(3), T(2))]), 'created_at');
      assert.equal(taken('created_at', 'updated_at', [both(T(1), T(4)), { created_at: T(2) }]), 'updated_at');
      assert.equal(taken('created_at', 'updated_at', [both(T(1), '2025-03-01T09:00:01Z')]), 'created_at');
      assert.equal(taken('created_at', 'updated_at', [both(T(1), '2025-03-01T09:00:01.001Z')]), 'updated_at');
      assert.equal(taken('created_at', 'updated_at', []), 'created_at');
      // A row whose two times are equal says nothing either way: a later row still decides.
      assert.equal(taken('created_at', 'updated_at', [both(T(1), T(1)), both(T(1), T(4))]), 'updated_at');
    });

    it('reads an update of the same object only', () => {
      const chosen = time('order.created_at');
      const other = time('order.customer.updated_at');
      const rows = [{ 'order.created_at': T(1), 'order.customer.updated_at': T(4) }];
      assert.equal(lastChange({ f: chosen, why: '' }, [chosen, other], rows)?.f.name, 'order.created_at');
    });
  });
});
