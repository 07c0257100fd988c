/**
 * A record as the body (issue #94, core/samples/record-status.ts, docs "A record as the body, an
 * account's user and a booked resource"): where nothing marks the body as one event (no column
 * names the event's kind, no id is named for the event, its notification or its delivery), the
 * body is the record itself and its own plain id is repeated by every later event about it, so it
 * is asked as the event's id, nothing preselected, never filled. A body with an event's name, an
 * id named for the event, or a ticket's own `type` beside an event's name, keeps its fill; a
 * record's one-word category or channel (`type: "email"`) beside its status and a webhook's
 * registration name (`webhookName`) name no event.
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

  it('reads a record’s one-word category or channel as no event: a type beside its status', () => {
    // A help desk's conversation as its webhooks post it (held-out-33's FreeScout, values ours).
    const conversation = {
      id: 17,
      number: 3,
      type: 'email',
      status: 'closed',
      subject: 'Refund',
      mailboxId: 2,
    };
    asked(conversation, 'id');
    asked({ ...conversation, type: 'Chat' }, 'id');
    asked({ uuid: 'm-1', kind: 'sms', state: 'queued', to: '+15550142' }, 'uuid');
    // A one-word kind that names something that happened is the event's: the id stays filled.
    for (const type of ['subscribe', 'click', 'signup', 'delivered', 'Payment'])
      assert.deepEqual(eventIdFilled({ ...conversation, type }), ['id'], type);
  });

  it('reads a webhook’s name as its registration’s, not the event’s kind', () => {
    // An order's notification whose top-level id is the webhook registration's (held-out-33's
    // Plug4Market, values ours): nothing names the event, so the id is asked.
    const notice = {
      webhookName: 'orders-to-erp',
      id: '6a21-7882',
      order: { orderId: '46a3-ebc9', status: 'CREATED' },
      resourceUrl: 'https://api.example.com/orders/46a3-ebc9',
    };
    asked(notice, 'id');
    // A webhook's type, an event's name or a notification's name still names the event.
    assert.deepEqual(eventIdFilled({ ...notice, webhookType: 'order.created' }), ['id']);
    assert.deepEqual(eventIdFilled({ ...notice, eventName: 'order.created' }), ['id']);
  });

  it('keeps the id where a column names the event or an id is named for it', () => {
    assert.deepEqual(eventIdFilled({ ...lead, event: 'lead.tag_updated' }), ['id']);
    assert.deepEqual(eventIdFilled({ ...lead, type: 'lead.updated' }), ['id']);
    assert.deepEqual(eventIdFilled({ id: 't-31', type: 'BUG', priority: 'HIGH' }), ['id']);
    assert.notDeepEqual(eventIdFilled({ ...lead, notification_id: 'n-77' }), []);
  });
});
