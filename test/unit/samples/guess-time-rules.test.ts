/**
 * The event time and the event name core/samples/guess.ts guesses, rule by rule (docs/testing.md,
 * its mutation run): which time column is when it happened and why, the times that are not (a
 * version, a planned time, a constant), the window's question with its counts and values, and
 * which column names the event, with the name the registry takes.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample, type TimeWindow } from '../../../core/samples/index.ts';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const DAY = 86_400_000;
const WEEK: TimeWindow = { now: NOW, pastMs: 7 * DAY, futureMs: 3_600_000 };
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();

/** The guesses for JSON rows, as the page makes them with the gateway's window. */
function guess(rows: readonly object[], window: TimeWindow | null = WEEK) {
  const sample = parseSample(JSON.stringify(rows));
  return guessChoices(inferFields(sample), sample.rows, window ? { window } : {});
}
const column = (g: ReturnType<typeof guess>, name: string) => g.columns.find((c) => c.column === name);
/** Two rows of recent times under each name, with an id. */
const times = (...names: string[]) =>
  [1, 2].map((n) => Object.fromEntries([['id', `o_${n}`], ...names.map((x, i) => [x, ago(n + i / 10)])]));

/** A row with its dotted keys as nested objects (`data.delivery_eta` → `{ data: { delivery_eta } }`). */
function nest(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, Record<string, unknown> | unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const [head, ...rest] = key.split('.');
    if (rest.length === 0) out[key] = value;
    else out[head as string] = { ...(out[head as string] as object), [rest.join('.')]: value };
  }
  return out;
}
/** An event time's name and the reason its words give. */
const REASONS = [
  'occurred_at names when it happened',
  'data.timestamp names when it happened',
  'created_at names when it was created',
  'updated_at names a later step',
  'signup_time names a date',
  'seen_at names a date',
  'seen holds times',
  'seen_at_local holds times',
];
/** A time named with a planned word, anywhere in the name, and the word. */
const PLANNED = [
  ['start_date', 'start'],
  ['trial_begin', 'begin'],
  ['begins_at', 'begins'],
  ['end_date', 'end'],
  ['valid_until', 'until'],
  ['due_date', 'due'],
  ['expire_at', 'expire'],
  ['token_expires', 'expires'],
  ['card_expiry', 'expiry'],
  ['expiration_date', 'expiration'],
  ['billing_next_at', 'next'],
  ['webinar_upcoming_at', 'upcoming'],
  ['call_scheduled_at', 'scheduled'],
  ['visit_planned_at', 'planned'],
  ['license_renews_at', 'renews'],
  ['trial_renewal_date', 'renewal'],
  ['nextbilling', 'next'],
  ['estimated_delivery_date', 'estimated'],
  ['arrival_expected_at', 'expected'],
  ['projected_close_date', 'projected'],
  ['delivery_eta', 'eta'],
] as const;

describe('samples: the event time, rule by rule', () => {
  it('says which words of its name made a column the event time', () => {
    for (const why of REASONS) assert.equal(guess(times(why.slice(0, why.indexOf(' ')))).eventTime.why, why);
  });

  it('takes when it happened over when it was created, over a date, over a later step', () => {
    assert.equal(guess(times('created_at', 'occurred_at')).eventTime.column, 'occurred_at');
    assert.equal(guess(times('order_date', 'seen_at')).eventTime.column, 'order_date');
    assert.equal(guess(times('paid_at', 'seen_at')).eventTime.column, 'seen_at');
    assert.equal(guess(times('updated_at', 'seen')).eventTime.column, 'seen');
  });

  it('names the two runners-up it was taken over, and no more', () => {
    const g = guess(times('seen', 'created_at', 'updated_at', 'occurred_at'));
    assert.equal(g.eventTime.why, 'occurred_at names when it happened (over created_at, seen)');
    assert.equal(guess(times('created_at')).eventTime.why, 'created_at names when it was created');
  });

  it('takes the time written in GMT or UTC over the same name in the site’s zone, only at the name’s end', () => {
    assert.equal(guess(times('date_created', 'date_created_gmt')).eventTime.column, 'date_created_gmt');
    assert.equal(guess(times('date_created', 'date_created_utc')).eventTime.column, 'date_created_utc');
    assert.equal(guess(times('date_created', 'gmt_date_created')).eventTime.column, 'date_created');
  });

  it('lowers a nested time by half a rank per level: the payload’s own time over an object’s', () => {
    assert.equal(guess(times('issue.milestone.created_at', 'created_at')).eventTime.column, 'created_at');
    // Two levels down, a creation time (8 − 1) still beats a bare date at the top (5).
    assert.equal(guess(times('data.object.created_at', 'date')).eventTime.column, 'data.object.created_at');
    // A step's own time, nested, is lowered too: a GMT creation time at the top (9) beats it (8.5).
    const rows = [1, 2].map((n) => ({
      order: { status: 'paid', paid_at: ago(n) },
      date_created_gmt: ago(n + 1),
    }));
    assert.equal(guess(rows).eventTime.column, 'date_created_gmt');
  });

  it('never takes a planned time, for each word of one anywhere in the name, and says which word', () => {
    for (const [name, word] of PLANNED) {
      const g = guess(times(name));
      assert.equal(g.eventTime.column, undefined, name);
      assert.equal(
        g.eventTime.why,
        `no column holds when it happened: the event time is when it arrives; ${name} is not when it happened: "${word}" names a time planned for the thing (a start, an end, a due date)`,
      );
    }
    // A meeting rescheduled happened: only a name that begins with a planned word is one.
    assert.equal(guess(times('rescheduled_at')).eventTime.column, 'rescheduled_at');
  });

  it('passes over a parcel’s estimated or expected time for the time its step happened', () => {
    for (const planned of ['estimatedDeliveryDate', 'expected_arrival_until', 'data.delivery_eta']) {
      const rows = [1, 2].map((n) => ({
        tracking_number: `1Z${n}`,
        status_code: 'IT',
        data: { carrier_status: 'in transit', updated: ago(n) },
        [planned]: ago(n - 2),
      }));
      // Once the event time, as the latest time in a tracking update: it has not happened yet.
      const sample = parseSample(JSON.stringify(rows.map((r) => nest(r))));
      const g = guessChoices(inferFields(sample), sample.rows);
      assert.equal(g.eventTime.column, 'data.updated', planned);
    }
    // An estimate sent, or a time named for what was expected and then happened, still happened.
    for (const name of ['estimate_sent_at', 'unexpected_error_at'])
      assert.equal(guess(times(name)).eventTime.column, name, name);
  });

  it('takes a camel-case epoch `sentAt` over the record’s `updatedAt`', () => {
    const epoch = Math.round((NOW - DAY) / 1000);
    const g = guess([
      { trigger: 'message_sent', data: { message: { id: '1', sentAt: epoch, updatedAt: epoch } } },
    ]);
    // Once `sentAt` was a plain integer, and the record's later step the event time.
    assert.equal(g.eventTime.column, 'data.message.sentAt');
  });

  it('takes when the vendor sent the delivery only where no other time is left', () => {
    const at = (n: number) => ago(n);
    for (const [row, want] of [
      [
        {
          event: 'message.received',
          deliveredAt: at(1),
          attempt: 1,
          data: { id: 'm1', status: 'delivered', createdAt: at(1.1) },
        },
        'data.createdAt',
      ],
      [{ webhook_sent_at: at(1), data: { order: { id: 'o1', updated_at: at(2) } } }, 'data.order.updated_at'],
      [{ delivery: { timestamp: at(1) }, mail: { id: 'm1', sent: at(1.2) } }, 'mail.sent'],
    ] as const) {
      const g = guess([row]);
      assert.equal(g.eventTime.column, want, JSON.stringify(row));
    }
    // Alone, it is still the nearest to when it happened, and says what it is.
    const alone = guess([{ event: 'opened', deliveredAt: at(1), attempt: 2, data: { id: 'm1' } }]);
    assert.equal(alone.eventTime.column, 'deliveredAt');
    assert.equal(
      alone.eventTime.why,
      'deliveredAt holds times, but is when this delivery was sent: a retry changes it, the event does not',
    );
    // A flat record's send time is its own, not a delivery's.
    assert.equal(guess(times('sent_at', 'updated_at')).eventTime.column, 'sent_at');
  });

  it('adds why each other time was passed over to the chosen one’s reason, and nothing when none was', () => {
    const g = guess(times('created_at', 'due_date', 'start_date'));
    const planned = (name: string, word: string) =>
      `${name} is not when it happened: "${word}" names a time planned for the thing (a start, an end, a due date)`;
    assert.equal(
      g.eventTime.why,
      `created_at names when it was created; ${planned('due_date', 'due')}; ${planned('start_date', 'start')}`,
    );
    assert.equal(guess(times('created_at')).eventTime.why, 'created_at names when it was created');
  });

  it('keeps a time named as the event time that is not when it happened as a field, saying why', () => {
    // `timestamp` names the event time, but one value in three rows is a constant.
    const rows = [1, 2, 3].map((n) => ({ timestamp: ago(9), created_at: ago(n) }));
    const g = guess(rows);
    assert.equal(g.eventTime.column, 'created_at');
    const kept = column(g, 'timestamp');
    assert.deepEqual(
      [kept?.target, kept?.field, kept?.why],
      ['event_data', 'timestamp', `a time, but not the event time (${g.eventTime.why})`],
    );
  });

  it('takes a time of one value in three rows or more as a constant, counting only filled rows', () => {
    const same = ago(1);
    const three = [1, 2, 3].map((n) => ({ id: `o_${n}`, created_at: same }));
    assert.equal(guess(three).eventTime.column, undefined);
    assert.match(guess(three).eventTime.why, /created_at is not a time: the same value in all 3 rows/);
    for (const empty of [{}, { created_at: null }, { created_at: '' }]) {
      const two = [
        { id: 'a', created_at: same },
        { id: 'b', created_at: same },
        { id: 'c', ...empty },
      ];
      assert.equal(guess(two).eventTime.column, 'created_at', JSON.stringify(empty));
    }
    const differ = [1, 2, 3].map((n) => ({ id: `o_${n}`, created_at: ago(n) }));
    assert.equal(guess(differ).eventTime.column, 'created_at');
  });
});

describe('samples: a time outside the accepted window', () => {
  it('counts only the rows it could read, and keeps up to three different values outside', () => {
    const rows = [30, 30, 1, 40, 50, 60].map((d, n) => ({ id: `o_${n}`, created_at: ago(d) }));
    rows.push({ id: 'o_none' } as never);
    const g = guess(rows);
    assert.deepEqual(g.eventTime.outside, {
      column: 'created_at',
      values: [ago(30), ago(40), ago(50)],
      outside: 5,
      read: 6,
      from: ago(7),
      to: new Date(NOW + 3_600_000).toISOString(),
      blocking: true,
    });
    assert.equal(
      g.eventTime.why,
      `created_at names when it was created, but 5 of its 6 values are outside the accepted window (7 days back to now, ${ago(30)}): the gateway would refuse every such row. Choose: the time each row arrives as the event time, or another column; until then created_at is kept as a field`,
    );
    const kept = column(g, 'created_at');
    assert.equal(
      `${kept?.target} ${kept?.field}: ${kept?.why}`,
      'event_data created_at: would be the event time, but its times are outside the accepted window: a question above',
    );
  });

  it('says the sample’s times are all outside when every one read is, and the window in whole days', () => {
    const g = guess(
      [40, 41].map((d) => ({ created_at: ago(d) })),
      { now: NOW, pastMs: 6.6 * DAY, futureMs: 0 },
    );
    assert.match(
      g.eventTime.why,
      /but the sample’s times are outside the accepted window \(7 days back to now,/,
    );
  });

  it('takes both ends of the window as inside, a second beyond either as outside', () => {
    const edges = (past: number, future: number) =>
      guess([
        { id: 'a', created_at: new Date(NOW - WEEK.pastMs - past).toISOString() },
        { id: 'b', created_at: new Date(NOW + WEEK.futureMs + future).toISOString() },
      ]).eventTime;
    assert.equal(edges(0, 0).column, 'created_at');
    assert.equal(edges(1000, 0).outside?.outside, 1);
    assert.equal(edges(0, 1000).outside?.outside, 1);
  });

  it('reads epoch seconds, epoch milliseconds, written patterns with blanks around and ISO 8601 times', () => {
    const old = NOW - 30 * DAY;
    for (const [rows, value] of [
      [[{ created: old / 1000 }, { created: (NOW - DAY) / 1000 }], old / 1000],
      [[{ created: old }, { created: NOW - DAY }], old],
      [[{ created: ' 24.10.2026 12:00 ' }, { created: '22.11.2026 12:00' }], ' 24.10.2026 12:00 '],
      [[{ created: '2026-10-24T12:00Z' }, { created: '2026-11-22T12:00:00+01:00' }], '2026-10-24T12:00Z'],
    ] as const) {
      const out = guess(rows).eventTime.outside;
      assert.deepEqual([out?.values, out?.outside, out?.read], [[value], 1, 2], JSON.stringify(rows));
    }
    // A row without a value is not read, in a written pattern too.
    const gap = guess([{ created: '24.10.2026 12:00' }, { id: 'x' }, { created: '22.11.2026 12:00' }]);
    assert.deepEqual([gap.eventTime.outside?.outside, gap.eventTime.outside?.read], [1, 2]);
  });

  it('asks nothing without a window: the time is the event time', () => {
    const g = guess(
      [40, 41].map((d) => ({ created_at: ago(d) })),
      null,
    );
    assert.deepEqual([g.eventTime.column, g.eventTime.outside], ['created_at', undefined]);
  });
});

describe('samples: the event’s name', () => {
  const nameOf = (row: object, more: object[] = []) => guess([row, ...more]).eventName;

  it('takes the event’s own name over its type, over `event`, over a topic, over the message’s type', () => {
    assert.equal(nameOf({ type: 'order.paid', event: 'order_created' })?.name, 'order_created');
    assert.equal(nameOf({ type: 'notification_event', topic: 'orders/create' })?.name, 'orders_create');
    assert.equal(nameOf({ event: 'x_y', topic: 'orders/create' })?.name, 'x_y');
    assert.deepEqual(nameOf({ event_type: 'invoice.paid', event: 'x' }), {
      name: 'invoice_paid',
      why: 'from event_type = "invoice.paid"',
    });
  });

  it('passes over a column of several values for the next one that names the event once', () => {
    const rows = [
      { event_name: 'a', event_type: 'order.paid' },
      { event_name: 'b', event_type: 'order.paid' },
    ];
    assert.deepEqual(guess(rows).eventName, { name: 'order_paid', why: 'from event_type = "order.paid"' });
    assert.equal(guess([{ type: 'a' }, { type: 'b' }]).eventName, undefined);
    assert.equal(nameOf({ type: 5 }), undefined);
    // An event name always empty takes nothing from the event type, which then names the event.
    const empty = guess([{ event_name: null, event_type: 'order.paid' }]);
    assert.equal(
      column(empty, 'event_type')?.why,
      'names the event per row: one event is made here, named above; kept as a field',
    );
  });

  it('reads a name nested in an object only where the column is named as the event’s name', () => {
    assert.deepEqual(nameOf({ data: { event_name: 'Lead Submitted' } }), {
      name: 'lead_submitted',
      why: 'from data.event_name = "Lead Submitted"',
    });
    assert.equal(
      column(guess([{ data: { event_name: 'Lead Submitted' } }]), 'data.event_name')?.why,
      'names the event per row: one event is made here, named above; kept as a field',
    );
    assert.equal(nameOf({ data: { type: 'invoice.paid' } }), undefined);
  });

  it('cuts a name at 40 characters, and adds `_webhook` to a built-in event’s name', () => {
    assert.equal(nameOf({ type: 'x'.repeat(60) })?.name, 'x'.repeat(40));
    assert.deepEqual(nameOf({ type: 'sign_up' }), {
      name: 'sign_up_webhook',
      why: 'from type = "sign_up", with "_webhook" added: sign_up is a built-in event’s name',
    });
    assert.equal(nameOf({ type: 'login' })?.name, 'login');
  });
});
