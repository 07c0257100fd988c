/**
 * Where core/samples/guess.ts sends each column, rule by rule (docs/testing.md, its mutation run):
 * the page's URL and Meta's action source, consent, the targets refused a column and the words of
 * why, the event's id and the person's, how sure each guess is shown, the value and its currency,
 * and the questions asked where two readings compete.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';

/** The guesses for JSON rows, as the page makes them. */
function guess(rows: readonly object[]) {
  const sample = parseSample(JSON.stringify(rows));
  return guessChoices(inferFields(sample), sample.rows);
}
const column = (g: ReturnType<typeof guess>, name: string) => g.columns.find((c) => c.column === name);
/** A one-row payload holding `value` at a dotted path. */
function at(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

describe('samples: the page’s URL and Meta’s action source', () => {
  const URL_TEXT = 'https://shop.example/p/1';
  const NOT_PAGE =
    'a URL, but not named as the page’s: kept as a field (a page URL makes it a website event)';

  it('takes a URL as the page’s under each name of a page, at the top, under page, context or properties', () => {
    for (const leaf of ['url', 'pageUrl', 'page_location', 'landing_page', 'pagelink', 'href', 'current_url'])
      for (const parent of ['', 'page.', 'context.page.', 'properties.', 'context.']) {
        const g = guess([at(`${parent}${leaf}`, URL_TEXT)]);
        assert.equal(g.columns[0]?.target, 'page.url', `${parent}${leaf}`);
      }
  });

  it('keeps a URL under another object or another name as a field, and says why', () => {
    for (const name of ['data.url', 'data.page_location', 'avatar_url', 'context.cancel_url', 'link']) {
      const [c] = guess([at(name, URL_TEXT)]).columns;
      assert.deepEqual([c?.target, c?.why], ['event_data', NOT_PAGE], name);
    }
  });

  it('calls the event a website one only with a page URL and a browser’s user agent, and says why', () => {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64)';
    assert.deepEqual(guess([{ page_url: URL_TEXT, user_agent: ua }]).actionSource, {
      value: 'website',
      why: 'a page URL and the browser’s user agent are mapped: it happened on a website',
    });
    assert.deepEqual(guess([{ page_url: URL_TEXT }]).actionSource, {
      value: 'other',
      why: 'a page URL is mapped, but no browser’s user agent: a server sends it (Meta refuses a website event without one)',
    });
    assert.deepEqual(guess([{ user_agent: ua, order_id: 'o_1' }]).actionSource, {
      value: 'other',
      why: 'no page URL: it did not happen on a page (a shop system, a backend)',
    });
  });
});

describe('samples: consent and the targets refused a column', () => {
  it('offers a yes/no column named like consent per purpose, and no text column of such a name', () => {
    for (const name of ['accepts_marketing', 'allow_cookie', 'newsletter']) {
      const g = guess([{ [name]: true }, { [name]: false }]);
      assert.deepEqual(g.consent, [{ column: name, why: `${name} reads like consent` }]);
      assert.deepEqual(
        [g.columns[0]?.target, g.columns[0]?.field, g.columns[0]?.why],
        [
          'event_data',
          name,
          `reads like consent (${name}): choose the purposes it covers below; kept as a field`,
        ],
      );
    }
    const text = guess([{ marketing_channel: 'email' }, { marketing_channel: 'ads' }]);
    assert.deepEqual(text.consent, []);
    assert.equal(text.columns[0]?.why, 'event field: no context field matches');
  });

  it('says why a column keeps no target it takes alone: whose it is, or what its values are', () => {
    const why = (rows: object[], name: string) => column(guess(rows), name)?.why;
    assert.equal(
      why([{ issue: { title: 't' }, agent: { locale: 'en-US' } }], 'agent.locale'),
      '"locale" in the name (device.locale), but inside agent: the business\'s side, or who acted for it, not the person\'s: kept as a field',
    );
    assert.equal(
      why(
        [{ customer: { merchant_email: 'shop@example.com', email: 'a@example.com' } }],
        'customer.merchant_email',
      ),
      '"email" in the name and email values (user.email), but "merchant" in its name: the business\'s party, not the person\'s: kept as a field',
    );
    // A business's word in the leaf, under the person's own object, where no party heads the name.
    assert.equal(
      why(
        [{ customer: { app_support_email: 'help@example.com', email: 'a@example.com' } }],
        'customer.app_support_email',
      ),
      '"email" in the name and email values (user.email), but "app" in its name: the business\'s side, not the person\'s: kept as a field',
    );
    assert.equal(
      why([{ payment_currency: 'Credit Card' }, { payment_currency: 'PayPal' }], 'payment_currency'),
      '"currency" in the name (currency), but its values are not currency codes: kept as a field',
    );
    assert.equal(
      why([{ changedValue: 1751328000000 }, { changedValue: 1751328001000 }], 'changedValue'),
      '"value" in the name and integer values (value), but its values (1751328000000) are instants in epoch milliseconds, not an amount: kept as a field',
    );
  });

  it('says "event field:" before the reason of an event field only, never a context target’s', () => {
    const g = guess([{ email: 'a@example.com', total: 12.5, currency: 'EUR' }]);
    assert.equal(column(g, 'email')?.why, '"email" names user.email and email values');
    assert.equal(column(g, 'total')?.why, 'event field: "total" names value and number values');
  });
});

describe('samples: the event’s id and the person’s', () => {
  const ids = (n: number) => ({ id: `evt_${n}`, type: 'charge.succeeded' });

  it('takes the vendor’s own id at the top for the event id when no column is named as one, saying why', () => {
    const g = guess([
      { order: { number: '7' }, ...ids(1) },
      { order: { number: '8' }, ...ids(2) },
    ]);
    assert.deepEqual(
      [column(g, 'id')?.target, column(g, 'id')?.why, column(g, 'id')?.confidence],
      [
        'event_id',
        "the vendor's own id for the event: at the top of the payload, named as an id, one value per row, no two alike",
        0.7,
      ],
    );
    assert.equal(column(g, 'order.number')?.target, 'event_data');
    // One row cannot show two alike.
    assert.equal(
      column(guess([ids(1)]), 'id')?.why,
      "the vendor's own id for the event: at the top of the payload, named as an id, one value per row",
    );
    // A column named as the event's id keeps it, and the vendor's id before it stays a field.
    const named = guess([{ ...ids(1), event_id: 'e1' }]);
    assert.deepEqual(
      [column(named, 'event_id')?.target, column(named, 'id')?.target],
      ['event_id', 'event_data'],
    );
  });

  it('keeps an id named like an event’s inside another object as that object’s, saying whose', () => {
    const g = guess([
      { ...ids(1), headers: { message_id: 'm1' } },
      { ...ids(2), headers: { message_id: 'm2' } },
    ]);
    const key = column(g, 'headers.message_id');
    assert.deepEqual(
      [key?.target, key?.field, key?.why],
      [
        'event_data',
        'headers_message_id',
        "named like an event id, but inside headers: that object's id, not the event's; kept as a field",
      ],
    );
  });

  it('keeps a delivery’s message id as a field, and another delivery column’s own guess', () => {
    const rows = [1, 2].map((n) => ({ attempt: n, message_id: `m${n}`, event: { name: 'x', total: n } }));
    const g = guess(rows);
    assert.equal(
      column(g, 'message_id')?.why,
      "named like an event id, but message_id names the message delivered, beside its attempt counter attempt: the delivery's, not the event's; kept as a field",
    );
    assert.equal(column(g, 'attempt')?.why, 'event field: no context field matches');
  });

  it('takes the id of the person’s own object when no column is named as the person’s id, saying whose', () => {
    const rows = [
      { message: { text: 'hi', sent: 'yes' }, sender: { contact: { id: 'c_1', email: 'a@example.com' } } },
    ];
    const g = guess(rows);
    const id = column(g, 'sender.contact.id');
    assert.deepEqual(
      [id?.target, id?.why],
      ['user.external_id', 'the id of sender.contact: the person’s own object'],
    );
    assert.equal(column(g, 'message.text')?.target, 'event_data');
    // An actor on a record is no person: its id stays a field.
    const ticket = guess([{ ticket: { owner: { user: { id: 'u1', email: 'agent@example.com' } } } }]);
    assert.equal(column(ticket, 'ticket.owner.user.id')?.target, 'event_data');
    // A column named as the person's external id is one already: no object's id is taken over it.
    // Its only details being another record's (sender.contact has its own id), it is asked about,
    // no answer preselected (person-id-evidence.ts), and kept as a field meanwhile.
    const named = guess([{ sender: { contact: { id: 'c_1', email: 'a@example.com' } }, customer_id: 'u9' }]);
    assert.deepEqual(
      [column(named, 'customer_id')?.target, column(named, 'sender.contact.id')?.target],
      ['event_data', 'event_data'],
    );
    const asked = named.questions.find((q) => q.options.some((o) => o.column === 'customer_id'));
    assert.equal(asked?.target, 'user.external_id');
    assert.ok(asked?.noneGuessed);
  });
});

describe('samples: the questions', () => {
  it('asks about a column once: whose e-mail it is, not again whether a party-less one is the person’s', () => {
    for (const [rows, detail, rival] of [
      [[{ email: 'a@example.com', merchant: { email: 'shop@example.com' } }], 'email', 'merchant.email'],
      [[{ phone: '+14155552671', seller: { phone: '+14155550000' } }], 'phone', 'seller.phone'],
    ] as const) {
      const g = guess(rows);
      assert.deepEqual(
        g.questions.map((q) => q.options.map((o) => o.column)),
        [[detail, rival]],
      );
      assert.match(g.questions[0]?.ask ?? '', /^Whose .* is the person's\? Both columns hold one\.$/);
    }
  });
});

describe('samples: how sure each guess is shown', () => {
  it('shows a confirmed name 0.9, a partial or an e-mail by its values 0.7, a guess asked about 0.5', () => {
    const g = guess([
      { email: 'a@example.com', customer: { first_name: 'Ann' }, order: { total: 12.5, currency: 'EUR' } },
    ]);
    assert.equal(column(g, 'email')?.confidence, 0.9);
    assert.equal(column(g, 'customer.first_name')?.confidence, 0.7);
    const alone = guess([{ contact: 'a@example.com' }]);
    assert.deepEqual([alone.columns[0]?.target, alone.columns[0]?.confidence], ['user.email', 0.5]);
    assert.equal(alone.questions.length, 1);
    const plain = guess([{ reply: 'a@example.com', ticket: { id: 1 } }]);
    assert.equal(column(plain, 'reply')?.confidence, 0.5);
    // A field kept by its own name is 0.5; the event time 0.7, however well its name matches.
    assert.equal(column(plain, 'ticket.id')?.confidence, 0.5);
    const time = guess([{ timestamp: '2026-11-23T11:00:00Z', id: 'x1' }]);
    assert.deepEqual([time.columns[0]?.target, time.columns[0]?.confidence], ['event_time', 0.7]);
  });

  it('is sure of a column always empty (skipped), and never calls it personal', () => {
    const g = guess([
      { email: null, note: null, id: 'a' },
      { email: null, note: null, id: 'b' },
    ]);
    assert.deepEqual(
      [column(g, 'note')?.target, column(g, 'note')?.confidence, column(g, 'note')?.personal],
      ['skip', 0.9, undefined],
    );
    // One named for the person's e-mail is still left out, but asked about (empty-detail.ts).
    assert.deepEqual(
      [column(g, 'email')?.target, column(g, 'email')?.confidence, column(g, 'email')?.personal],
      ['skip', 0.5, undefined],
    );
  });

  it('lets no always-empty column take a target from a filled one', () => {
    const rows = [12.5, 13].map((amount) => ({ total: null, amount, currency: 'EUR' }));
    const g = guess(rows);
    assert.equal(g.value?.column, 'amount');
  });

  it('shows the place of a column that is not a person’s detail without whose it is', () => {
    const g = guess([{ email: 'a@example.com', order: { total: 12.5, currency: 'EUR' } }]);
    assert.equal(column(g, 'order.total')?.evidence.position, 'inside order');
  });
});

describe('samples: the value and its currency', () => {
  it('takes digits written as text beside a currency as the value, said so and as sure as its name match', () => {
    const g = guess([{ currency: 'EUR', order: { number: '1001', total: '1250', currency: 'EUR' } }]);
    const total = column(g, 'order.total');
    assert.equal(g.value?.column, 'order.total');
    assert.deepEqual(
      [total?.why, total?.confidence, total?.evidence.name],
      [
        'event field: "order.total" names value and integer values, its digits written as text (an amount, not an id)',
        0.9,
        '"order.total" names value and integer values',
      ],
    );
    assert.equal(column(g, 'order.number')?.field, 'transaction_id');
    // The currency may be the payload's first column; other digits beside it are no amount.
    assert.equal(guess([{ currency: 'EUR', total: '1250' }]).value?.column, 'total');
    assert.equal(
      guess([{ order: { items: '3', total: '1250', currency: 'EUR' } }]).value?.column,
      'order.total',
    );
  });

  it('leaves digits written as text alone when a number column is the value already', () => {
    const g = guess([{ amount: 20, currency: 'EUR', totals: { total: '2000', currency: 'EUR' } }]);
    assert.equal(g.value?.column, 'amount');
    assert.notEqual(column(g, 'totals.total')?.field, 'value');
  });

  it('asks whether a value with no currency anywhere is the event’s value, once', () => {
    const g = guess([{ lead: { id: 'l1', Annual_Revenue: 50000 } }]);
    assert.deepEqual(g.questions, [
      {
        target: 'event_data',
        field: 'value',
        ask: "Is lead.Annual_Revenue the event's value? It is a number named like an amount, but no currency stands anywhere in the payload.",
        options: [
          {
            column: 'lead.Annual_Revenue',
            why: 'named like an amount; no currency code beside it or elsewhere',
          },
        ],
      },
    ]);
    assert.equal(column(g, 'lead.Annual_Revenue')?.confidence, 0.5);
    // Asked beside a question about another column all the same.
    const whose = guess([
      { email: 'a@example.com', merchant: { email: 's@example.com' }, lead: { Annual_Revenue: 5000 } },
    ]);
    assert.equal(whose.questions.length, 2);
    assert.equal(whose.questions[1]?.options[0]?.column, 'lead.Annual_Revenue');
    // Asked already as one of several amounts: not asked again.
    const rivals = guess([{ invoice: { id: 'i1', amount_paid: 1200, amount_due: 0 } }]);
    const valueAsks = rivals.questions.filter((q) => q.field === 'value');
    assert.equal(valueAsks.length, 1);
    assert.match(valueAsks[0]?.ask ?? '', /^Which amount/);
  });

  it('asks which amount is the value when the name only partly names it, listing each rival once', () => {
    const rows = [
      {
        id: 'i1',
        invoice: { amount_paid: 900, amount_due: 900, amount_remaining: null, amount_refunded: 0 },
      },
      { id: 'i2', invoice: { amount_paid: 1200, amount_due: 0, amount_remaining: null, amount_refunded: 0 } },
    ];
    // The rows are invoices posted as the body, nothing naming an event: their ids are asked too
    // (record-status.ts); this test is about the amounts.
    const [which, ...more] = guess(rows).questions.filter((q) => q.target !== 'event_id');
    assert.deepEqual(more, []);
    assert.equal(
      `${which?.target} ${which?.field}: ${which?.ask}`,
      'event_data value: Which amount is the event’s value? Several are named like one.',
    );
    assert.deepEqual(which?.options, [
      { column: 'invoice.amount_paid', why: 'the guess: "amount" in the name and integer values' },
      { column: 'invoice.amount_due', why: 'also named like an amount' },
    ]);
    // A copy of the value in every row is no rival; an exact name asks nothing.
    const copy = [900, 1200].map((n) => ({ invoice: { amount_paid: n, paid: { amount: n } } }));
    assert.equal(guess(copy).questions.filter((q) => q.field === 'value' && q.options.length > 1).length, 0);
    assert.deepEqual(guess([{ total: 12, total_due: 3, currency: 'EUR' }]).questions, []);
  });

  it('swaps the currency to the one beside the value when their codes differ, else keeps the payload’s own', () => {
    const rows = (second: string) => [
      { id: 'o1', amounts: { total: { value: 12.5, currency: 'USD' } }, shop: { currency: 'USD' } },
      { id: 'o2', amounts: { total: { value: 13.5, currency: second } }, shop: { currency: 'USD' } },
    ];
    // One row of other codes is enough.
    const g = guess(rows('GBP'));
    assert.equal(g.currency?.column, 'amounts.total.currency');
    assert.equal(
      column(g, 'amounts.total.currency')?.why,
      'event field: "currency" in the name and currency values; the currency beside the value amounts.total.value',
    );
    // The shop's currency is kept under its own name, never under the name of the one beside the value.
    const shop = column(g, 'shop.currency');
    assert.equal(
      `${shop?.field}: ${shop?.why}`,
      'shop_currency: event field: currency went to amounts.total.currency, the currency beside the value amounts.total.value',
    );
    const same = guess(rows('usd'));
    assert.equal(same.currency?.column, 'shop.currency');
    // No currency beside the value: the one elsewhere stays.
    const apart = guess([12.5, 13.5].map((total) => ({ total, meta: { currency: 'EUR' } })));
    assert.deepEqual([apart.value?.column, apart.currency?.column], ['total', 'meta.currency']);
  });
});
