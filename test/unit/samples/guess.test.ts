/**
 * The creator on real payloads (issue #38), pure: vendors' own samples (test/fixtures/sources/,
 * see SOURCES.md there) read, inferred, guessed and drafted as the page does, then applied,
 * translated and normalized by the same core the registry and the gateway use. Every guess comes
 * with why; always-empty fields never make an invalid definition; every inferred type carries its
 * conversion.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { definedEvent, definedEvents } from '../../../core/definitions/defined-events.ts';
import { normalizeEvent, normalizeOptions } from '../../../core/event.ts';
import { applyViolations } from '../../../core/registry/resources.ts';
import { draftResources, type PlatformChoice } from '../../../core/samples/draft.ts';
import {
  guessChoices,
  inferFields,
  parseSample,
  type TimeWindow,
  toFieldSpecs,
} from '../../../core/samples/index.ts';
import { TRANSLATOR_MEDIA, translate } from '../../../core/translate/index.ts';

const source = (path: string) =>
  readFileSync(new URL(`../../fixtures/sources/${path}`, import.meta.url), 'utf8');
const options = normalizeOptions({ name: 't', project: 't', region: 'europe-west1' } as never);
const NOW = Date.parse('2026-11-23T12:00:00Z');
const window: TimeWindow = { now: NOW, pastMs: options.eventTimePastMs, futureMs: options.eventTimeFutureMs };

/** The page's walk without a person: paste, read, take every guess, draft; then apply, translate, normalize. */
function walk(text: string, platforms?: PlatformChoice, records?: string) {
  const sample = parseSample(text, records ? { records } : {});
  const fields = inferFields(sample);
  const guesses = guessChoices(fields, sample.rows, { window });
  const name = guesses.eventName?.name ?? 'sample_received';
  const draft = draftResources({
    eventName: name,
    translatorName: 'sample-json',
    sample,
    fields,
    choices: guesses.columns,
    ...(platforms ? { platforms } : {}),
  });
  const applied = applyViolations([draft.definition, draft.translator] as never, { connections: [] });
  const r = translate({
    translator: 'sample-json',
    spec: draft.translator.spec,
    eventName: name,
    body: new TextEncoder().encode(text),
    // Sent as the vendor sends it: a form post as application/x-www-form-urlencoded.
    contentType: TRANSLATOR_MEDIA[draft.translator.spec.format.type],
  });
  assert.ok(r.ok, 'the translator reads its own sample');
  const defined = definedEvents([definedEvent(name, '0.0', draft.definition.spec as never)]);
  const events = r.rows.map((row) =>
    normalizeEvent(row.event as never, { options, now: NOW, newId: () => 'id', defined }),
  );
  return { sample, fields, guesses, draft, applied, problems: r.problems, events };
}

/** A draft's translator run on a text, as the endpoint would. */
const run = (
  draft: { translator: { spec: Parameters<typeof translate>[0]['spec'] } },
  text: string,
  type: string,
) =>
  translate({
    translator: 't',
    spec: draft.translator.spec,
    eventName: draft.translator.spec.event,
    body: new TextEncoder().encode(text),
    contentType: type,
  });

const guessOf = (g: ReturnType<typeof guessChoices>, column: string) =>
  g.columns.find((c) => c.column === column);

describe('the creator on vendors’ samples', () => {
  for (const [vendor, path] of [
    ['Stripe', 'stripe/checkout-session-completed.json'],
    ['WooCommerce', 'woocommerce/order.json'],
    ['GitHub', 'github/issues-opened.json'],
    ['Mailchimp', 'mailchimp/subscribe.form'],
    ['Shopify', 'shopify/order-created-with-customer.json'],
    ['Stripe charge', 'stripe/charge-succeeded.json'],
    ['Paddle', 'paddle/transaction-completed.json'],
    ['Lemon Squeezy', '../samples/lemonsqueezy/order-created.json'],
    ['GetSiteControl', '../samples/getsitecontrol/form-response.json'],
    ['HVAC Biz Pro CSV', '../samples/hvacbizpro/customer-list.csv'],
  ] as const)
    it(`drafts a definition the registry takes and the gateway accepts from a ${vendor} sample, with no edit`, () => {
      const w = walk(source(path));
      assert.deepEqual(w.applied, []);
      assert.deepEqual(w.problems, []);
      for (const e of w.events) assert.ok(e.ok, JSON.stringify(!e.ok && e.violations));
    });

  it('leaves out a field that is always null or "" and says so, never an empty enum', () => {
    const w = walk(source('stripe/checkout-session-completed.json'));
    const empty = guessOf(w.guesses, 'data.object.customer_email');
    assert.equal(empty?.target, 'skip');
    assert.match(empty?.why ?? '', /always empty/);
    const f = w.fields.find((x) => x.name === 'data.object.customer_email');
    assert.equal(f?.enum, undefined);
  });

  it('converts WooCommerce’s amounts written as text, and the definition types them', () => {
    const w = walk(source('woocommerce/order.json'));
    // `total` is the catalogue's `value`.
    const total = w.draft.translator.spec.fields.find((f) => f.source === 'total');
    assert.deepEqual(total?.transforms, ['number']);
    assert.equal(total?.target, 'value');
    const spec = w.draft.definition.spec['fields'] as { name: string; type: string }[];
    assert.equal(spec.find((f) => f.name === 'value')?.type, 'number');
    const event = w.events[0];
    assert.ok(event?.ok);
    assert.equal((event.event.event_data as Record<string, unknown>)['value'], 29.35);
    assert.equal((event.event.event_data as Record<string, unknown>)['shipping_total'], 10);
    // An integer written as text is an id or a code: it stays text.
    assert.equal(w.fields.find((f) => f.name === 'number')?.type, 'string');
  });

  it('reads Stripe’s lower-case `usd` as a currency and stores it as USD, as every currency column', () => {
    const w = walk(source('stripe/checkout-session-completed.json'));
    const f = w.fields.find((x) => x.name === 'data.object.currency');
    assert.deepEqual([f?.format, f?.loose], ['currency', undefined]);
    assert.equal(w.guesses.currency?.column, 'data.object.currency');
    assert.match(w.guesses.currency?.why ?? '', /currency values/);
    const stored = w.draft.translator.spec.fields.find((x) => x.target === 'currency');
    assert.deepEqual(stored?.transforms, ['trim', 'uppercase']);
    const spec = w.draft.definition.spec['fields'] as { name: string; format?: string }[];
    assert.equal(spec.find((x) => x.name === 'currency')?.format, 'currency');
    const event = w.events[0];
    assert.ok(event?.ok);
    assert.equal((event.event.event_data as Record<string, unknown>)['currency'], 'USD');
    // Codes already in capitals (WooCommerce's `USD`) take the same step: it changes nothing.
    const woo = walk(source('woocommerce/order.json'));
    const wooCurrency = woo.draft.translator.spec.fields.find((x) => x.target === 'currency');
    assert.deepEqual(wooCurrency?.transforms, ['trim', 'uppercase']);
  });

  it('names the event from Stripe’s type and says why', () => {
    const w = walk(source('stripe/checkout-session-completed.json'));
    assert.deepEqual(w.guesses.eventName, {
      name: 'checkout_session_completed',
      why: 'from type = "checkout.session.completed"',
    });
    assert.equal(guessOf(w.guesses, 'type')?.target, 'event_data');
  });

  it('never takes Stripe’s cancel_url or an avatar URL for the page URL, so the event stays a backend one', () => {
    const stripe = walk(source('stripe/checkout-session-completed.json'));
    const cancel = guessOf(stripe.guesses, 'data.object.cancel_url');
    assert.equal(cancel?.target, 'event_data');
    assert.match(cancel?.why ?? '', /not named as the page/);
    assert.equal(stripe.guesses.actionSource.value, 'other');
    // Chosen for Meta, it is written into the definition's mapping, which the registry takes.
    const meta = walk(source('stripe/checkout-session-completed.json'), {
      events: { meta_capi: 'Purchase' },
      actionSource: stripe.guesses.actionSource.value,
    });
    assert.deepEqual(meta.applied, []);
    assert.deepEqual(
      (meta.draft.definition.spec['mappings'] as Record<string, { fields: unknown }>)['meta_capi'],
      {
        event: 'Purchase',
        fields: { action_source: { const: 'other' } },
      },
    );
    const gh = walk(source('github/issues-opened.json'));
    assert.ok(!gh.guesses.columns.some((c) => c.target === 'page.url'));
    // A page URL makes a website event only with a browser's user agent to send (issue #63).
    const browser = '{"page_url":"https://shop.example/p/1","user_agent":"Mozilla/5.0 (X11; Linux x86_64)"}';
    const page = guessChoices(inferFields(parseSample(browser)), []);
    assert.equal(page.columns[0]?.target, 'page.url');
    assert.equal(page.actionSource.value, 'website');
  });

  it('reads Mailchimp’s form post as nested fields and saves a translator in the form format', () => {
    const w = walk(source('mailchimp/subscribe.form'));
    assert.equal(w.sample.format, 'form');
    assert.deepEqual(w.sample.columns.slice(0, 5), [
      'type',
      'fired_at',
      'data.id',
      'data.list_id',
      'data.email',
    ]);
    assert.ok(w.sample.columns.includes('data.merges.FNAME'));
    assert.deepEqual(w.draft.translator.spec.format, { type: 'form' });
    // `subscribe` is a built-in event: the guess is a name the registry takes, saying why.
    assert.deepEqual(w.guesses.eventName, {
      name: 'subscribe_webhook',
      why: 'from type = "subscribe", with "_webhook" added: subscribe is a built-in event’s name',
    });
    // Its 2009 fired_at is outside the accepted window: kept as a typed field, the event time arrival.
    assert.equal(w.guesses.eventTime.column, undefined);
    const firedAt = w.draft.translator.spec.fields.find((f) => f.source === 'fired_at');
    assert.deepEqual(firedAt?.transforms, [{ timestamp: 'YYYY-MM-DD HH:mm:ss', zone: 'UTC' }]);
    const spec = w.draft.definition.spec['fields'] as { name: string; type: string; fields?: unknown[] }[];
    assert.equal(spec.find((f) => f.name === 'fired_at')?.type, 'timestamp');
    const event = w.events[0];
    assert.ok(event?.ok);
    const data = event.event.event_data as Record<string, unknown>;
    assert.equal(data['fired_at'], '2009-03-26T21:35:57.000Z');
    assert.equal(data['data_merges_interests'], 'Group1,Group2');
    assert.equal(event.event.device?.ip, '10.20.10.30');
  });

  it('keeps a time outside the accepted window as a field, the event time then being arrival, and says why', () => {
    const w = walk(source('github/issues-opened.json'));
    assert.equal(w.guesses.eventTime.column, undefined);
    assert.match(w.guesses.eventTime.why, /issue\.created_at .* outside the accepted window/);
    assert.equal(guessOf(w.guesses, 'issue.created_at')?.target, 'event_data');
  });
});

describe('the creator’s guesses', () => {
  const recent = (days: number) => new Date(NOW - days * 86_400_000).toISOString();
  it('takes Created At over Cancelled At for the event time', () => {
    const text = JSON.stringify([
      { 'Cancelled At': recent(1), 'Created At': recent(3), id: 'a' },
      { 'Cancelled At': recent(1), 'Created At': recent(2), id: 'b' },
    ]);
    const sample = parseSample(text);
    const g = guessChoices(inferFields(sample), sample.rows, { window });
    assert.equal(g.eventTime.column, 'Created At');
    assert.equal(guessOf(g, 'Created At')?.target, 'event_time');
    assert.equal(guessOf(g, 'Cancelled At')?.target, 'event_data');
    assert.match(guessOf(g, 'Created At')?.why ?? '', /created/);
  });

  it('never takes a time still to come (a next billing date) for when it happened', () => {
    const sample = parseSample(
      JSON.stringify({ id: 7, next_billing_date_at: recent(-8), event: { succeeded_at: recent(1) } }),
    );
    const g = guessChoices(inferFields(sample), sample.rows, { window });
    assert.equal(g.eventTime.column, 'event.succeeded_at');
    assert.equal(guessOf(g, 'next_billing_date_at')?.target, 'event_data');
  });

  it('takes digits written as text for the value only beside a currency: a survey score is no amount', () => {
    const read = (body: object) => {
      const sample = parseSample(JSON.stringify(body));
      return guessChoices(inferFields(sample), sample.rows, { window });
    };
    const survey = read({ response: { value: '9', category: 'passive' } });
    assert.equal(survey.value, undefined);
    const order = read({ order: { value: '1250', currency: 'EUR' } });
    assert.equal(order.value?.column, 'order.value');
    assert.equal(order.currency?.column, 'order.currency');
  });

  it('does not make a boolean marketing_consent consent to ads out of sight: it is offered per purpose', () => {
    const sample = parseSample('email,marketing_consent\na@example.com,true\nb@example.com,false');
    const g = guessChoices(inferFields(sample), sample.rows);
    assert.equal(guessOf(g, 'marketing_consent')?.target, 'event_data');
    assert.deepEqual(
      g.consent.map((c) => c.column),
      ['marketing_consent'],
    );
    const draft = draftResources({
      eventName: 'signed_up',
      translatorName: 'signed-up-csv',
      sample,
      fields: inferFields(sample),
      choices: g.columns,
      platforms: { events: {}, consent: { analytics: 'granted', ads: { column: 'marketing_consent' } } },
    });
    const targets = draft.translator.spec.fields.map((f) => f.target);
    assert.ok(targets.includes('consent.analytics') && targets.includes('consent.ads'));
    assert.ok(!targets.includes('consent.ad_user_data'));
    const r = run(draft, 'email,marketing_consent\na@example.com,true\nb@example.com,false', 'text/csv');
    assert.ok(r.ok);
    assert.deepEqual(
      r.rows.map((row) => (row.event['consent'] as Record<string, string>)['ads']),
      ['granted', 'denied'],
    );
  });

  it('reads ON/OFF as text unless a flag or consent name makes them yes/no (issue #63)', () => {
    const states = inferFields(parseSample('province\nON\nQC\nBC\nON'));
    assert.equal(states[0]?.type, 'string');
    // A light's ON/OFF is a setting's text; a ticked box or a flag's on/off is yes/no.
    const switches = inferFields(parseSample('light\nON\nOFF\nON'));
    assert.equal(switches[0]?.type, 'string');
    const flags = inferFields(parseSample('is_on,newsletter\nON,on\nOFF,off\nON,on'));
    assert.deepEqual(
      flags.map((f) => f.type),
      ['boolean', 'boolean'],
    );
  });

  it('infers a date pattern that reads its own sample (a blank before the offset)', () => {
    const text = 'Created At\n2018-01-04 15:51:23 -0800\n2018-01-05 09:00:00 +0100';
    const sample = parseSample(text);
    const [f] = inferFields(sample);
    assert.equal(f?.pattern, 'YYYY-MM-DD HH:mm:ss Z');
    const draft = draftResources({
      eventName: 'order_placed',
      translatorName: 'order-placed-csv',
      sample,
      fields: inferFields(sample),
      choices: [{ column: 'Created At', target: 'event_data', field: 'created_at' }],
    });
    const r = run(draft, text, 'text/csv');
    assert.ok(r.ok);
    assert.deepEqual(r.problems, []);
    assert.equal(r.rows[0]?.event['created_at'], '2018-01-04T23:51:23.000Z');
  });

  it('offers an object’s one array of objects as the records (GA4 events[]), and the translator reads it so', () => {
    const text = JSON.stringify({
      client_id: '123.456',
      events: [
        { name: 'page_view', params: { page_location: 'https://shop.example/' } },
        { name: 'add_to_cart', params: { value: 12.5 } },
      ],
    });
    const whole = parseSample(text);
    assert.equal(whole.recordsOffer, 'events');
    assert.equal(whole.rows.length, 1);
    const items = parseSample(text, { records: 'events' });
    assert.equal(items.records, 'events');
    assert.equal(items.rows.length, 2);
    assert.deepEqual(items.columns, ['name', 'params.page_location', 'params.value']);
    const draft = draftResources({
      eventName: 'ga_hit',
      translatorName: 'ga-hit-json',
      sample: items,
      fields: inferFields(items),
      choices: guessChoices(inferFields(items), items.rows).columns,
    });
    assert.deepEqual(draft.translator.spec.format, { type: 'json', records: 'events' });
    const r = run(draft, text, 'application/json');
    assert.ok(r.ok);
    assert.equal(r.rows.length, 2);
    // An order's several arrays (line_items beside tax_lines) are not offered.
    assert.equal(parseSample(source('woocommerce/order.json')).recordsOffer, undefined);
  });
});

describe('the creator on real webhook JSON (issue #63)', () => {
  const sample = (path: string) =>
    readFileSync(new URL(`../../fixtures/samples/${path}`, import.meta.url), 'utf8');
  const dataOf = (w: ReturnType<typeof walk>) => {
    const e = w.events[0];
    assert.ok(e?.ok, JSON.stringify(e && !e.ok && e.violations));
    return e.event;
  };

  for (const [vendor, text, column, value, over] of [
    [
      'WooCommerce',
      () => source('woocommerce/order.json'),
      'total',
      29.35,
      ['discount_total', 'shipping_total'],
    ],
    [
      'Shopify',
      () => source('shopify/order-created-with-customer.json'),
      'total_price',
      199,
      ['total_discounts'],
    ],
    [
      'Stripe',
      () => source('stripe/charge-succeeded.json'),
      'data.object.amount',
      2000,
      ['data.object.amount_refunded'],
    ],
    [
      'Lemon Squeezy',
      () => sample('lemonsqueezy/order-created.json'),
      'data.attributes.total',
      1199,
      ['data.attributes.discount_total', 'data.attributes.total_usd'],
    ],
    [
      'Paddle',
      () => source('paddle/transaction-completed.json'),
      'data.details.totals.total',
      '65215',
      ['data.details.totals.discount', 'data.details.totals.fee'],
    ],
  ] as const)
    it(`takes the value from ${vendor}’s total, never a discount, refund, tax or shipping column`, () => {
      const w = walk(text());
      assert.equal(w.guesses.value?.column, column);
      assert.equal(w.guesses.value?.field, 'value');
      assert.equal((dataOf(w).event_data as Record<string, unknown>)['value'], value);
      for (const other of over) assert.notEqual(guessOf(w.guesses, other)?.field, 'value');
      const ruled = guessOf(w.guesses, over[0]);
      if (/discount_total|refund/.test(over[0])) assert.match(ruled?.why ?? '', /it is not the value/);
    });

  it('takes the currency from the payload’s currency column, never a fixed code beside it', () => {
    for (const [text, column] of [
      [source('woocommerce/order.json'), 'currency'],
      [source('shopify/order-created-with-customer.json'), 'currency'],
      [source('stripe/charge-succeeded.json'), 'data.object.currency'],
      [source('stripe/checkout-session-completed.json'), 'data.object.currency'],
      [sample('lemonsqueezy/order-created.json'), 'data.attributes.currency'],
      [source('paddle/transaction-completed.json'), 'data.currency_code'],
    ] as const) {
      const g = walk(text).guesses;
      assert.deepEqual([g.currency?.column, g.currency?.field], [column, 'currency']);
      // What the page does with the guesses: the value and the currency column for Meta.
      const meta = walk(text, {
        events: { meta_capi: 'Purchase' },
        valueField: g.value?.field ?? '',
        currency: { field: g.currency?.field ?? '' },
      });
      const fields = (
        meta.draft.definition.spec['mappings'] as Record<string, { fields: Record<string, unknown> }>
      )['meta_capi']?.fields;
      assert.deepEqual(fields?.['custom_data.currency'] ?? fields?.['currency'], { from: 'currency' });
      assert.deepEqual(meta.applied, []);
    }
  });

  it('offers minor units for Stripe, Paddle and Lemon Squeezy, with why, applies them only when taken', () => {
    const stripe = walk(source('stripe/charge-succeeded.json'));
    assert.deepEqual(stripe.guesses.minorUnits?.majorUnits, { source: 'data.object.currency' });
    assert.deepEqual(stripe.guesses.minorUnits?.transform, {
      major_units: { source: 'data.object.currency' },
    });
    assert.match(
      stripe.guesses.minorUnits?.why ?? '',
      /Stripe sends amounts in minor units \(2000 is 20\.00/,
    );
    // Not applied out of sight: the walk took every guess, and the value is still 2000.
    const value = stripe.draft.translator.spec.fields.find((f) => f.target === 'value');
    assert.equal(value?.transforms, undefined);
    const lemon = walk(sample('lemonsqueezy/order-created.json'));
    assert.match(lemon.guesses.minorUnits?.why ?? '', /^Lemon Squeezy sends amounts in minor units/);
    // Paddle writes its minor units as text ("65215").
    const paddle = walk(source('paddle/transaction-completed.json'));
    assert.match(
      paddle.guesses.minorUnits?.why ?? '',
      /^Paddle sends amounts in minor units \(65215 is 652\.15/,
    );
    // WooCommerce writes major units ("29.35"): nothing to offer.
    assert.equal(walk(source('woocommerce/order.json')).guesses.minorUnits, undefined);
    // Taken, as the page does: the value column's choice gets majorUnits.
    for (const [text, guesses, expected] of [
      [source('stripe/charge-succeeded.json'), stripe.guesses, 20],
      [sample('lemonsqueezy/order-created.json'), lemon.guesses, 11.99],
      [source('paddle/transaction-completed.json'), paddle.guesses, 652.15],
    ] as const) {
      const offer = guesses.minorUnits;
      assert.ok(offer?.majorUnits);
      const parsed = parseSample(text);
      const fields = inferFields(parsed);
      const choices = guesses.columns.map((c) =>
        c.column === offer.column && offer.majorUnits ? { ...c, majorUnits: offer.majorUnits } : c,
      );
      const draft = draftResources({
        eventName: 'paid_order',
        translatorName: 'paid-order',
        sample: parsed,
        fields,
        choices,
      });
      const spec = draft.definition.spec['fields'] as { name: string; type: string }[];
      assert.equal(spec.find((f) => f.name === 'value')?.type, 'number');
      const r = run(draft, text, 'application/json');
      assert.ok(r.ok);
      assert.deepEqual(r.problems, []);
      assert.equal(r.rows[0]?.event['value'], expected);
    }
  });

  it('finds nested e-mails and phones: data.attributes.user_email, billing.email, billing_address.phone', () => {
    const lemon = walk(sample('lemonsqueezy/order-created.json'));
    assert.equal(guessOf(lemon.guesses, 'data.attributes.user_email')?.target, 'user.email');
    assert.equal(dataOf(lemon).user?.email, 'gernser@yahoo.com');
    const woo = walk(source('woocommerce/order.json'));
    assert.equal(guessOf(woo.guesses, 'billing.email')?.target, 'user.email');
    assert.equal(guessOf(woo.guesses, 'billing.phone')?.target, 'user.phone');
    // Shopify's top-level `phone` is null: it does not keep user.phone from the billing address.
    const shop = walk(source('shopify/order-created-with-customer.json'));
    assert.equal(guessOf(shop.guesses, 'phone')?.target, 'skip');
    assert.equal(guessOf(shop.guesses, 'billing_address.phone')?.target, 'user.phone');
    assert.equal(dataOf(shop).user?.phone, '555-555-5555');
    // A customer object's user_email, and not an issue's.
    const nested = parseSample('{"customer":{"user_email":"a@example.com"},"issue":{"title":"x"}}');
    assert.equal(guessChoices(inferFields(nested), nested.rows).columns[0]?.target, 'user.email');
  });

  it('reads Shopify’s province_code "ON" (Ontario) as text, and stores it', () => {
    const shop = walk(source('shopify/order-created-with-customer.json'));
    const f = shop.fields.find((x) => x.name === 'billing_address.province_code');
    assert.equal(f?.type, 'string');
    // Read as a boolean, it was stored as `true`.
    const data = dataOf(shop).event_data as Record<string, unknown>;
    assert.equal(data['billing_address_province_code'], 'ON');
  });

  it('proposes a format only when every sample value passes it: a CSV’s only row is kept', () => {
    const text = sample('hvacbizpro/customer-list.csv');
    const parsed = parseSample(text);
    const fields = inferFields(parsed);
    const phone = fields.find((f) => f.name === 'Phone');
    // It looks like a phone (and is mapped as one), but is not the E.164 the format asks for.
    assert.deepEqual([phone?.format, phone?.loose], ['phone', true]);
    const guesses = guessChoices(fields, parsed.rows);
    assert.equal(guessOf(guesses, 'Phone')?.target, 'user.phone');
    // Kept as an event field, the definition gets no format, and the row passes.
    const choices = guesses.columns.map((c) =>
      c.column === 'Phone' ? { column: 'Phone', target: 'event_data', field: 'phone' } : c,
    );
    const draft = draftResources({
      eventName: 'customer_listed',
      translatorName: 'customers-csv',
      sample: parsed,
      fields,
      choices,
    });
    const spec = draft.definition.spec['fields'] as { name: string; format?: string; pii?: boolean }[];
    assert.equal(spec.find((f) => f.name === 'phone')?.format, undefined);
    assert.equal(toFieldSpecs(fields).find((f) => f.name === 'phone')?.format, undefined);
    const r = run(draft, text, 'text/csv');
    assert.ok(r.ok);
    assert.deepEqual(r.problems, []);
    const defined = definedEvents([definedEvent('customer_listed', '0.0', draft.definition.spec as never)]);
    const events = r.rows.map((row) =>
      normalizeEvent(row.event as never, { options, now: NOW, newId: () => 'id', defined }),
    );
    assert.equal(events.length, 1);
    assert.ok(events[0]?.ok, JSON.stringify(events[0]));
    // The same for JSON: WooCommerce's "(555) 555-5555" is no E.164; an E.164 number keeps it.
    const woo = walk(source('woocommerce/order.json'));
    assert.equal(woo.fields.find((f) => f.name === 'billing.phone')?.loose, true);
    const e164 = inferFields(parseSample('phone\n+4930901820\n+14155552671'));
    assert.deepEqual([e164[0]?.format, e164[0]?.loose], ['phone', undefined]);
  });

  it('asks a blocking question for a time outside the window, with the column and its values', () => {
    const woo = walk(source('woocommerce/order.json'));
    assert.equal(woo.guesses.eventTime.column, undefined);
    assert.deepEqual(woo.guesses.eventTime.outside, {
      column: 'date_created_gmt',
      values: ['2017-03-22T19:28:02'],
      outside: 1,
      read: 1,
      from: new Date(NOW - options.eventTimePastMs).toISOString(),
      to: new Date(NOW + options.eventTimeFutureMs).toISOString(),
      blocking: true,
    });
    assert.match(
      woo.guesses.eventTime.why,
      /Choose: the time each row arrives as the event time, or another column/,
    );
    assert.equal(guessOf(woo.guesses, 'date_created_gmt')?.target, 'event_data');
    // A recent time is the event time, and no question.
    const recent = JSON.parse(source('woocommerce/order.json')) as Record<string, unknown>;
    recent['date_created_gmt'] = new Date(NOW - 3_600_000).toISOString().slice(0, 19);
    const fresh = walk(JSON.stringify(recent));
    assert.equal(fresh.guesses.eventTime.column, 'date_created_gmt');
    assert.equal(fresh.guesses.eventTime.outside, undefined);
  });

  it('makes a server’s form post with a page URL but no user agent "other", a browser’s "website"', () => {
    const text = sample('getsitecontrol/form-response.json');
    const sent = walk(text);
    assert.equal(guessOf(sent.guesses, 'page')?.target, 'page.url');
    assert.equal(guessOf(sent.guesses, 'user_agent')?.target, 'device.user_agent');
    assert.equal(sent.guesses.actionSource.value, 'website');
    // The same post with its user_agent left out: a server's, which Meta refuses as a website event.
    const body = JSON.parse(text) as Record<string, unknown>;
    delete body['user_agent'];
    const server = walk(JSON.stringify(body));
    assert.equal(guessOf(server.guesses, 'page')?.target, 'page.url');
    assert.equal(server.guesses.actionSource.value, 'other');
    assert.match(server.guesses.actionSource.why, /no browser’s user agent/);
  });
});
