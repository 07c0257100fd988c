import assert from 'node:assert/strict';
import { applyMapping, readSource } from '../../../core/linkage/engine.ts';
import { resolveMapping } from '../../../core/platforms/mappings.ts';
import { JOHN_SMITH, PHONE_US, storedEvent } from './sample-events.ts';

describe('linkage engine', () => {
  const event = storedEvent('purchase');

  it('reads context paths at the top and event fields from event_data', () => {
    assert.equal(readSource(event, 'user.country'), 'US');
    assert.equal(readSource(event, 'transaction_id'), 'T-1');
    assert.equal(readSource(event, 'event_data.transaction_id'), 'T-1');
    assert.equal(readSource(event, 'user.nothing'), undefined);
  });

  it('takes the first present value of ordered fallbacks, then the default', () => {
    const out = applyMapping(
      {
        event: 'X',
        fields: {
          a: { from: ['missing', 'user.email', 'user_id'] },
          b: { from: ['missing', 'also_missing'], default: 'fallback' },
          c: 'missing',
          d: { const: 7 },
        },
      },
      event,
    );
    assert.deepEqual(out, { event: 'X', payload: { a: ' John_Smith@gmail.com ', b: 'fallback', d: 7 } });
  });

  it('keeps a value only when it is one of a documented set (oneOf), case-insensitively', () => {
    const rule = { from: 'content_type', transform: [{ oneOf: ['product', 'product_group'] }] };
    const map = (content_type: string) =>
      applyMapping({ event: 'X', fields: { t: rule } }, storedEvent('view_content', { content_type }))
        .payload;
    assert.deepEqual(map('product'), { t: 'product' });
    assert.deepEqual(map(' Product_Group '), { t: 'product_group' });
    assert.deepEqual(map('article'), {}, 'a value outside the set is left out, never sent');
  });

  it('gives a contents line without a quantity the quantity 1 (Meta Purchase, AddToCart)', () => {
    const m = resolveMapping({ type: 'meta_capi' }, 'purchase');
    assert.ok(m);
    const out = applyMapping(
      m,
      storedEvent('purchase', {
        transaction_id: 'T1',
        value: 30,
        currency: 'EUR',
        items: [
          { item_id: 'A', price: 10 },
          { item_id: 'B', quantity: '2', price: 10 },
        ],
      }),
    );
    const contents = (out.payload['custom_data'] as { contents: unknown }).contents;
    assert.deepEqual(contents, [
      { id: 'A', quantity: 1, item_price: 10 },
      { id: 'B', quantity: 2, item_price: 10 },
    ]);
  });

  it('chains transforms and hashes a normalised e-mail and phone as Meta documents', () => {
    const out = applyMapping(
      {
        event: 'X',
        fields: {
          'user.em': { from: 'user.email', transform: ['trim', 'lowercase', 'sha256', 'list'] },
          'user.ph': { from: 'user.phone', transform: [{ phone: 'digits' }, 'sha256'] },
          'user.ph_e164': { from: 'user.phone', transform: [{ phone: 'e164' }] },
          time: { from: 'event_time', transform: ['unix_seconds'] },
          joined: { from: 'items', transform: [{ join: ',' }] },
        },
      },
      storedEvent('view_content', { items: ['a', 'b'] }),
    );
    assert.deepEqual(out.payload, {
      user: { em: [JOHN_SMITH], ph: PHONE_US, ph_e164: '+16505551212' },
      time: 1731741454,
      joined: 'a,b',
    });
  });

  it('passes already-hashed values through normalisers and sha256 unchanged', () => {
    const hashed = storedEvent('page_view');
    const e = { ...hashed, user: { email: JOHN_SMITH.toUpperCase(), phone: PHONE_US } };
    const out = applyMapping(
      {
        event: 'X',
        fields: {
          em: { from: 'user.email', transform: ['trim', 'lowercase', 'sha256'] },
          ph: { from: 'user.phone', transform: [{ phone: 'digits' }, 'sha256'] },
        },
      },
      e,
    );
    assert.deepEqual(out.payload, { em: JOHN_SMITH, ph: PHONE_US });
  });

  it('maps lists with each, and drops objects made only of constants', () => {
    const out = applyMapping(
      {
        event: 'X',
        fields: {
          ids: { each: 'items', value: '$.item_id' },
          contents: { each: 'items', fields: { id: '$.item_id', qty: '$.quantity', kind: { const: 'p' } } },
          single: { list: [{ object: { id: 'content_id', quantity: { const: 1 } } }] },
        },
      },
      event,
    );
    assert.deepEqual(out.payload, {
      ids: ['SKU1', 'SKU2'],
      contents: [
        { id: 'SKU1', qty: 1, kind: 'p' },
        { id: 'SKU2', qty: 3, kind: 'p' },
      ],
    });
  });

  it('merges a destination override with the default field by field; null drops a field', () => {
    const m = resolveMapping(
      {
        type: 'meta_capi',
        mappings: {
          purchase: {
            event: 'OrderPlaced',
            fields: { 'custom_data.order_id': { const: 'fixed' }, 'user_data.fbp': null },
          },
        },
      },
      'purchase',
    );
    assert.ok(m);
    assert.equal(m.event, 'OrderPlaced');
    assert.deepEqual(m.fields['custom_data.order_id'], { const: 'fixed' });
    assert.equal(m.fields['user_data.fbp'], undefined);
    assert.ok(m.fields['user_data.em'], 'the rest of the default stays');
  });

  it('replace: true starts from nothing; custom events start from the platform envelope', () => {
    const replaced = resolveMapping(
      { type: 'ga4_mp', mappings: { purchase: { replace: true, fields: { client_id: 'user_id' } } } },
      'purchase',
    );
    assert.deepEqual(replaced, { event: 'purchase', fields: { client_id: 'user_id' } });
    const custom = resolveMapping(
      {
        type: 'tiktok_events',
        mappings: { quote_requested: { event: 'SubmitForm', fields: { 'properties.value': 'value' } } },
      },
      'quote_requested',
    );
    assert.ok(custom);
    assert.equal(custom.event, 'SubmitForm');
    assert.ok(custom.fields['user.email'], 'envelope field present');
    assert.equal(custom.fields['properties.value'], 'value');
  });

  it('has no mapping for a custom event without one, nor for webhooks', () => {
    assert.equal(resolveMapping({ type: 'meta_capi' }, 'quote_requested'), undefined);
    assert.equal(resolveMapping({ type: 'webhook' }, 'purchase'), undefined);
  });
});
