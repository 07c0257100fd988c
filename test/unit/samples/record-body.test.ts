/**
 * A record as the body (issue #94, core/samples/record-status.ts, docs "A record as the body, an
 * account's user and a booked resource"): where nothing marks the body as one event (no column
 * names the event's kind, no id is named for the event, its notification or its delivery), the
 * body is the record itself and its own plain id is repeated by every later event about it, so it
 * is asked as the event's id, nothing preselected, never filled. A body with an event's name, an
 * id named for the event, or a ticket's own `type` beside an event's name, keeps its fill.
 * Payloads invented for these tests, in several shapes (top and wrapper, `id`, `_id`, `uuid`).
 */
import assert from 'node:assert/strict';
import { eventIdAskedOnly, eventIdFilled } from './rule-fields.ts';

/** The page asks about the event id of `body`, nothing preselected, offers `column`, fills none. */
const asked = eventIdAskedOnly;

/** A lead as a calling tool posts it when one of its tags changes: the record, no event named. */
const lead = {
  id: 'ld_4410',
  first_name: 'Ana',
  email: 'ana@example.com',
  phone: '+15550142',
  tags: ['hot'],
  created_at: '2026-05-01T09:00:00Z',
  updated_at: '2026-05-03T11:00:00Z',
};

describe('the creator: a record as the body', () => {
  it('asks, none preselected, rather than fill a record’s own id where no event is named', () => {
    asked(lead, 'id');
  });

  it('reads the same of other ids and of the record in its wrapper', () => {
    const { id: _, ...rest } = lead;
    asked({ _id: '64f0a1', ...rest }, '_id');
    asked({ uuid: 'c1f2-77', ...rest }, 'uuid');
    asked({ data: lead }, 'data.id');
    asked({ id: 'or_9', status: 'paid', total: 49, currency: 'USD', email: 'b@example.com' }, 'id');
  });

  it('reads a ticket’s own category as no event: a capitals type beside its status', () => {
    asked({ id: 't-31', type: 'BUG', status: 'OPEN', priority: 'HIGH', updatedAt: lead.updated_at }, 'id');
  });

  it('keeps the id where a column names the event or an id is named for it', () => {
    assert.deepEqual(eventIdFilled({ ...lead, event: 'lead.tag_updated' }), ['id']);
    assert.deepEqual(eventIdFilled({ ...lead, type: 'lead.updated' }), ['id']);
    assert.deepEqual(eventIdFilled({ id: 't-31', type: 'BUG', priority: 'HIGH' }), ['id']);
    assert.notDeepEqual(eventIdFilled({ ...lead, notification_id: 'n-77' }), []);
  });
});
