/**
 * The rules of core/samples/event-name.ts one by one (issue #99): which column names the event
 * (a column the suggestions named first, then the envelope's own name, type or topic by rank),
 * only with one text value and only at the payload's top; and the name made of its value, each
 * mend said in the why in the order it was made.
 */
import assert from 'node:assert/strict';
import { chooseEventName, eventNameGuess } from '../../../core/samples/event-name.ts';
import { field } from './rule-fields.ts';

describe('creator: the column that names the event, rule by rule', () => {
  it('ranks the envelope’s own name over its type, topic and kind, whatever their order', () => {
    const fields = [
      field('type', ['notification_event']),
      field('topic', ['orders/create']),
      field('event', ['order.paid']),
      field('eventType', ['order.shipped']),
      field('event_name', ['Order Refunded']),
    ];
    assert.equal(chooseEventName(fields, [])?.name, 'order_refunded');
    assert.equal(chooseEventName(fields.slice(0, 4), [])?.name, 'order_shipped');
    assert.equal(chooseEventName(fields.slice(0, 3), [])?.name, 'order_paid');
    assert.equal(chooseEventName(fields.slice(0, 2), [])?.name, 'orders_create');
    assert.equal(chooseEventName(fields.slice(0, 1), [])?.name, 'notification_event');
    assert.equal(chooseEventName([...fields].reverse().slice(3), [])?.name, 'orders_create');
  });

  it('takes a column the suggestions named before any ranked one, in the order named', () => {
    const fields = [
      field('event_name', ['order.paid']),
      field('action', ['refund.created']),
      field('kind', ['charge.failed']),
    ];
    assert.equal(chooseEventName(fields, ['kind', 'action'])?.name, 'charge_failed');
    assert.equal(chooseEventName(fields, ['action'])?.name, 'refund_created');
    assert.deepEqual(chooseEventName(fields, ['action']), {
      name: 'refund_created',
      why: 'from action = "refund.created"',
    });
  });

  it('passes over a column with more than one value, none, or a value that is no text', () => {
    const type = field('type', ['order.paid']);
    assert.equal(chooseEventName([field('event', ['a.b', 'c.d']), type], [])?.name, 'order_paid');
    assert.equal(chooseEventName([field('event', [], { distinct: 0 }), type], [])?.name, 'order_paid');
    assert.equal(chooseEventName([field('event', [7], { type: 'integer' }), type], [])?.name, 'order_paid');
    assert.equal(chooseEventName([field('kind', ['a.b', 'c.d'])], ['kind']), undefined);
    assert.equal(chooseEventName([field('type', [true], { type: 'boolean' })], []), undefined);
  });

  it('reads a ranked name only at the payload’s top, never inside an object', () => {
    assert.equal(chooseEventName([field('data.type', ['order.paid'])], []), undefined);
    assert.equal(chooseEventName([field('data.event.type', ['order.paid'])], []), undefined);
    // Its words are those of a ranked name (`eventtype`, `eventname`), but it sits one level down.
    assert.equal(chooseEventName([field('event.type', ['order.paid'])], []), undefined);
    assert.equal(chooseEventName([field('event.name', ['order.paid'])], []), undefined);
    assert.equal(chooseEventName([field('event.type', ['order.paid'])], ['event.type'])?.name, 'order_paid');
    assert.equal(chooseEventName([field('status', ['paid']), field('event_id', ['e1'])], []), undefined);
    assert.equal(chooseEventName([], ['type']), undefined, 'a named column the sample does not hold');
  });
});

describe('creator: the event name made of a value, rule by rule', () => {
  it('makes the value snake_case and says where it came from', () => {
    assert.deepEqual(eventNameGuess('Order.Paid', 'event_type'), {
      name: 'order_paid',
      why: 'from event_type = "Order.Paid"',
    });
    assert.equal(eventNameGuess('123', 'type')?.name, 'f_123');
  });

  it('cuts only a name longer than the longest, at exactly 40 characters', () => {
    const forty = `${'a'.repeat(38)}_b`.padEnd(40, 'c');
    assert.equal(forty.length, 40);
    assert.deepEqual(eventNameGuess(forty, 'type'), { name: forty, why: `from type = "${forty}"` });
    const g = eventNameGuess(`${forty}d`, 'type');
    assert.deepEqual(g, {
      name: forty,
      why: `from type = "${forty}d", cut at 40 characters, the longest a name may be`,
    });
  });

  it('says each mend in the order made: the cut, then each reserved prefix dropped', () => {
    const rest = 'x'.repeat(45);
    const g = eventNameGuess(`ga_google_${rest}`, 'type');
    assert.equal(g?.name, 'x'.repeat(30));
    assert.equal(
      g?.why,
      `from type = "ga_google_${rest}", cut at 40 characters, the longest a name may be, ` +
        '"ga_" dropped: the registry refuses names starting with it, a reserved prefix, ' +
        '"google_" dropped: the registry refuses names starting with it, a reserved prefix',
    );
  });

  it('makes what is left after a prefix snake_case again', () => {
    assert.equal(eventNameGuess('ga__order', 'type')?.name, 'order');
    assert.equal(eventNameGuess('firebase_2fa_sent', 'type')?.name, 'f_2fa_sent');
  });

  it('adds _webhook to a built-in event’s name, or one a typo away, naming the built-in', () => {
    for (const [value, column, name, builtIn] of [
      ['AddToCart', 'type', 'add_to_cart_webhook', 'add_to_cart'],
      ['purchse', 'topic', 'purchse_webhook', 'purchase'],
    ] as const)
      assert.deepEqual(eventNameGuess(value, column), {
        name,
        why: `from ${column} = "${value}", with "_webhook" added: ${builtIn} is a built-in event’s name`,
      });
    assert.equal(eventNameGuess('ga_lead', 'type')?.why.endsWith('lead is a built-in event’s name'), true);
    assert.equal(eventNameGuess('read', 'type')?.name, 'read', 'a short name is no typo of lead');
  });
});
