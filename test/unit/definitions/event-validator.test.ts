/**
 * The check of a defined event's data against its definition (core/definitions/event-validator.ts): every
 * type and constraint a definition can state, nested objects and arrays, unplanned fields, and
 * messages that say what was expected and what came, never longer than a line.
 */
import assert from 'node:assert/strict';
import type { FieldSpec } from '../../../core/definitions/definitions.ts';
import { compileDefinition } from '../../../core/definitions/event-validator.ts';

const FIELDS: FieldSpec[] = [
  { name: 'order_id', type: 'string', required: true, minLength: 3, maxLength: 12 },
  { name: 'amount', type: 'number', required: true, minimum: 0, maximum: 1e6 },
  { name: 'items_count', type: 'integer' },
  { name: 'express', type: 'boolean' },
  { name: 'requested_at', type: 'timestamp' },
  { name: 'requested_on', type: 'date' },
  { name: 'tier', type: 'string', enum: ['gold', 'silver'] },
  { name: 'email', type: 'string', format: 'email', pii: true },
  { name: 'site', type: 'string', format: 'url' },
  { name: 'ref', type: 'string', format: 'uuid' },
  { name: 'currency', type: 'string', format: 'currency' },
  { name: 'country', type: 'string', format: 'country' },
  { name: 'phone', type: 'string', format: 'phone' },
  { name: 'extra', type: 'json' },
  { name: 'tags', type: 'array', items: 'string' },
  {
    name: 'lines',
    type: 'array',
    fields: [
      { name: 'sku', type: 'string', required: true },
      { name: 'qty', type: 'integer', minimum: 1 },
    ],
  },
  {
    name: 'address',
    type: 'object',
    fields: [
      { name: 'city', type: 'string', required: true },
      { name: 'geo', type: 'object', fields: [{ name: 'lat', type: 'number' }] },
    ],
  },
];
const validate = compileDefinition(FIELDS);
const fieldsOf = (data: unknown) => validate(data).map((v) => v.field);

const VALID = {
  order_id: 'Q-1001',
  amount: 1234.5,
  items_count: 3,
  express: false,
  requested_at: '2026-03-01T12:00:00+01:00',
  requested_on: '2026-02-28',
  tier: 'gold',
  email: 'ana@example.com',
  site: 'https://shop.example/quote?x=1',
  ref: '0190b6a4-0000-7000-8000-000000000000',
  currency: 'EUR',
  country: 'DE',
  phone: '+4930901820',
  extra: { anything: [1, 'two'] },
  tags: ['roof', 'red'],
  lines: [{ sku: 'A-1', qty: 2 }, { sku: 'B-2' }],
  address: { city: 'Köln', geo: { lat: 50.9 } },
};

describe('event validator: data against a definition', () => {
  it('accepts data that has every type and constraint right, and optional fields absent or null', () => {
    assert.deepEqual(validate(VALID), []);
    assert.deepEqual(validate({ order_id: 'Q-1', amount: 0, tier: null, address: null }), []);
  });

  it('names every wrong type, saying what was expected and what came', () => {
    const v = validate({
      ...VALID,
      amount: '12,5',
      items_count: 2.5,
      express: 'yes',
      requested_at: '2026-03-01 12:00',
      requested_on: '2026-02-30',
      tags: 'roof',
      address: 'Köln',
    });
    const by = Object.fromEntries(v.map((x) => [x.field, x.description]));
    assert.equal(by['amount'], 'expected a number, got "12,5"');
    assert.equal(by['items_count'], 'expected an integer, got 2.5');
    assert.equal(by['express'], 'expected true or false, got "yes"');
    assert.match(by['requested_at'] ?? '', /RFC 3339/);
    assert.match(by['requested_on'] ?? '', /calendar date/);
    assert.equal(by['tags'], 'expected a list, got "roof"');
    assert.equal(by['address'], 'expected an object, got "Köln"');
    assert.equal(v.length, 7);
  });

  it('checks required fields, bounds, lengths, enums and formats', () => {
    assert.deepEqual(fieldsOf({ amount: 1 }), ['order_id']);
    assert.deepEqual(fieldsOf({ order_id: null, amount: 1 }), ['order_id'], 'null is absent');
    const v = validate({
      order_id: 'Q1',
      amount: -1,
      tier: 'bronze',
      email: 'ana@',
      site: 'ftp://x',
      ref: 'nope',
      currency: 'eur',
      country: 'Germany',
      phone: '030 901820',
    });
    assert.deepEqual(v.map((x) => x.field).sort(), [
      'amount',
      'country',
      'currency',
      'email',
      'order_id',
      'phone',
      'ref',
      'site',
      'tier',
    ]);
    const by = Object.fromEntries(v.map((x) => [x.field, x.description]));
    assert.equal(by['amount'], 'must be at least 0, got -1');
    assert.equal(by['order_id'], 'must have at least 3 characters, has 2');
    assert.equal(by['tier'], 'must be one of "gold","silver", got "bronze"');
    assert.match(by['phone'] ?? '', /E\.164/);
  });

  it('walks arrays of objects and nested objects, with their paths', () => {
    const v = validate({
      ...VALID,
      lines: [{ sku: 'A-1', qty: 0 }, { qty: 1 }, 'C-3'],
      tags: ['a', 2],
      address: { geo: { lat: 'north', alt: 3 } },
    });
    assert.deepEqual(v.map((x) => x.field).sort(), [
      'address.city',
      'address.geo.alt',
      'address.geo.lat',
      'lines[0].qty',
      'lines[1].sku',
      'lines[2]',
      'tags[1]',
    ]);
  });

  it('refuses fields the definition does not list, saying how to add one', () => {
    const v = validate({ ...VALID, colour: 'red' });
    assert.deepEqual(v, [
      {
        field: 'colour',
        description: 'is not in the definition; add it as an optional field (a minor version)',
      },
    ]);
    assert.deepEqual(
      compileDefinition(FIELDS)({ ...VALID, colour: 1 }, 'event_data')[0]?.field,
      'event_data.colour',
    );
  });

  it('keeps messages short: a long or odd value is cut, and no input makes it throw', () => {
    const long = 'x'.repeat(500);
    const d = validate({ ...VALID, amount: long })[0]?.description ?? '';
    assert.ok(d.length < 100, d);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const odd of [null, undefined, 3, 'text', [], cyclic, { order_id: cyclic, amount: 1 }]) {
      const v = validate(odd);
      assert.ok(Array.isArray(v));
    }
    assert.equal(validate([1, 2])[0]?.description, 'expected an object, got a list');
  });
});
