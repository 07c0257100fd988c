/**
 * Fallback lists (docs/translators.md, "Fallback lists"): wherever a translator reads one path —
 * a field's source, a `key` part, `major_units.source`, an `each` item's source — a list of paths
 * may stand, and the first present one wins. A list where one path or code is taken is refused
 * with a text that says so, not with every branch of a union.
 */
import assert from 'node:assert/strict';
import { translate } from '../../../core/translate/index.ts';
import { translatorViolations } from '../../../core/translate/spec.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';

const run = (spec: TranslatorSpec, body: unknown) =>
  translate({
    translator: 'orders',
    spec,
    eventName: spec.event,
    body: new TextEncoder().encode(JSON.stringify(body)),
    contentType: 'application/json',
  });

const ORDERS: TranslatorSpec = {
  event: 'purchase',
  format: { type: 'json' },
  key: [['gid', 'id']],
  fields: [
    {
      target: 'value',
      source: 'cents',
      transforms: [{ major_units: { source: ['currency', 'price.currency', 'plan.currency'] } }],
    },
    {
      target: 'items',
      source: 'lines',
      transforms: [
        {
          each: {
            item_id: ['sku', 'product_id'],
            price: { source: ['price', 'unit_price'], transforms: ['number'] },
          },
        },
      ],
    },
  ],
};

describe('translators: fallback lists', () => {
  it('takes the first present path of a key part, and keeps the id a single path made', () => {
    const withGid = run(ORDERS, { gid: 'gid://shop/Order/7', id: 7, cents: 100, currency: 'eur' });
    const single = run(
      { ...ORDERS, key: ['gid'] },
      { gid: 'gid://shop/Order/7', cents: 100, currency: 'eur' },
    );
    const withoutGid = run(ORDERS, { id: 7, cents: 100, currency: 'eur' });
    const retried = run(ORDERS, { id: 7, cents: 100, currency: 'eur' });
    assert.ok(withGid.ok && single.ok && withoutGid.ok && retried.ok);
    const id = (r: typeof withGid) => (r.ok ? r.rows[0]?.event['event_id'] : undefined);
    assert.equal(id(withGid), id(single), 'a list whose first path is present makes the same id');
    assert.match(String(id(withoutGid)), /^[0-9a-f]{32}$/);
    assert.notEqual(id(withoutGid), id(withGid));
    assert.equal(id(retried), id(withoutGid), 'a retried delivery folds');
    const none = run(ORDERS, { cents: 100, currency: 'eur' });
    assert.ok(none.ok);
    assert.deepEqual(none.problems, [
      { field: 'rows[0].gid', description: 'the key is empty: the row has no identity' },
    ]);
  });

  it('scales by the first currency present of major_units.source', () => {
    const r = run(ORDERS, [
      { id: 1, cents: 1500, plan: { currency: 'usd' } },
      { id: 2, cents: 500, price: { currency: 'jpy' }, plan: { currency: 'usd' } },
      { id: 3, cents: 1500 },
    ]);
    assert.ok(r.ok);
    assert.deepEqual(
      r.rows.map((x) => x.event['value']),
      [15, 500],
    );
    assert.deepEqual(r.problems, [
      {
        field: 'rows[2].value',
        description: 'expected an ISO 4217 currency code to scale by, got undefined',
      },
    ]);
  });

  it('reads an each item from the first present of its sources, plain or with transforms', () => {
    const r = run(ORDERS, {
      id: 1,
      lines: [
        { sku: 'A-1', product_id: 9, price: '2.50' },
        { product_id: 8, unit_price: '4' },
      ],
    });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.rows[0]?.event['items'], [
      { item_id: 'A-1', price: 2.5 },
      { item_id: 8, price: 4 },
    ]);
  });

  it('accepts lists where they are taken, and names where they are not', () => {
    assert.deepEqual(translatorViolations(ORDERS, 'spec'), []);
    const misplaced = {
      event: 'purchase',
      format: { type: 'json', records: ['events', 'batch'] },
      fields: [
        { target: 'value', source: 'cents', transforms: [{ major_units: { currency: ['EUR', 'USD'] } }] },
        { target: 'coupon', source: 'extra', transforms: ['json', { path: ['a', 'b'] }] },
        {
          target: 'items',
          source: 'lines',
          transforms: [{ each: { item_id: { source: 'x', transforms: [{ path: ['y', 'z'] }] } } }],
        },
      ],
    };
    const got = translatorViolations(misplaced, 'spec');
    assert.deepEqual(
      got.map((v) => v.field),
      [
        'spec.format.records',
        'spec.fields[0].transforms[0].major_units.currency',
        'spec.fields[1].transforms[1].path',
        'spec.fields[2].transforms[0].each.item_id.transforms[0].path',
      ],
    );
    for (const v of got) assert.doesNotMatch(v.description, /must match|anyOf|union/i);
    assert.match(
      got[0]?.description ?? '',
      /takes one path, not a list: a list of fallback paths is taken by/,
    );
    assert.match(got[1]?.description ?? '', /use major_units\.source/);
  });
});
