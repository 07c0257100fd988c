/**
 * The catalogue's sources (sources/*.yaml) on the real shapes issue 63 found them refusing or
 * misreading, each a vendor's published sample (test/fixtures/sources/SOURCES.md names where from):
 * every one becomes its standard event with its value, currency, identifiers and id, and the same
 * delivery sent again gets the same id (it folds). The gateway's own walk of the catalogue is
 * test/gateway/sources.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { translate } from '../../../core/translate/index.ts';
import { sourceTranslator } from '../../../core/translate/sources.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';
import { sourceCatalogue } from '../../support/source-catalogue.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/sources');
const fixture = (file: string) =>
  JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown>;

const catalogue = sourceCatalogue();

/** The one event a catalogue source makes of a body, failing the test on any row problem. */
function event(source: string, body: unknown): Record<string, unknown> {
  const entry = catalogue.find((s) => s.name === source);
  assert.ok(entry, source);
  const spec = sourceTranslator(entry).spec as unknown as TranslatorSpec;
  const r = translate({
    translator: source,
    spec,
    eventName: spec.event,
    body: new TextEncoder().encode(JSON.stringify(body)),
    contentType: 'application/json',
  });
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.problems, []);
  assert.equal(r.rows.length, 1);
  const e = r.rows[0]?.event;
  assert.ok(e);
  return e;
}

/** The event, and that a retried delivery (the same body again) gets the same event id. */
function folded(source: string, body: unknown): Record<string, unknown> {
  const e = event(source, body);
  assert.equal(event(source, structuredClone(body))['event_id'], e['event_id'], 'a retried delivery folds');
  return e;
}

describe('the catalogue on real shapes (issue 63)', () => {
  it('Stripe customer.subscription.created without data.object.currency: the plan’s currency', () => {
    const body = fixture('stripe/customer-subscription-created.json');
    assert.equal((body['data'] as { object: Record<string, unknown> }).object['currency'], undefined);
    const e = folded('stripe', body);
    assert.equal(e['event_name'], 'subscribe');
    assert.equal(e['event_id'], 'evt_000000000000000000000000');
    assert.equal(e['value'], 15);
    assert.equal(e['currency'], 'USD');
    assert.equal(e['plan'], 'price_000000000000000000000000');
    // A subscription is no payment (per-type rules): its first invoice is the transaction.
    assert.equal(e['transaction_id'], 'in_000000000000000000000000');
    assert.equal(e['subscription_id'], 'sub_000000000000000000000000');
    assert.deepEqual(e['user'], { external_id: 'cus_00000000000000' });
  });

  it('Stripe customer.subscription.created with only its price’s currency (the plan left out)', () => {
    const body = fixture('stripe/customer-subscription-created.json');
    const sub = (body['data'] as { object: Record<string, unknown> }).object;
    delete sub['plan'];
    const e = event('stripe', body);
    assert.equal(e['value'], 15);
    assert.equal(e['currency'], 'USD');
  });

  it('Stripe charge.succeeded: the value is the charge’s amount, not its amount_refunded (0)', () => {
    const e = folded('stripe', fixture('stripe/charge-succeeded.json'));
    assert.equal(e['event_name'], 'charge_succeeded');
    assert.equal(e['value'], 20);
    assert.equal(e['currency'], 'USD');
    assert.equal(e['transaction_id'], 'pi_000000000000000000000000');
  });

  it('Shopify order without admin_graphql_api_id: the key falls back to the order’s id', () => {
    const { admin_graphql_api_id: gid, ...order } = fixture('shopify/order-created-with-customer.json');
    assert.equal(gid, 'gid://shopify/Order/1073459980');
    const e = folded('shopify', order);
    assert.equal(e['event_name'], 'purchase');
    assert.match(String(e['event_id']), /^[0-9a-f]{32}$/);
    assert.equal(e['value'], 199);
    assert.equal(e['currency'], 'USD');
    assert.equal(e['transaction_id'], '#1002');
    const withGid = event('shopify', { ...order, admin_graphql_api_id: gid });
    assert.notEqual(withGid['event_id'], e['event_id'], 'the GraphQL id still makes the id where present');
  });

  it('Paddle customer.created: the e-mail and the given name reach the user fields', () => {
    const e = folded('paddle', fixture('paddle/customer-created.json'));
    assert.equal(e['event_name'], 'customer_created');
    assert.equal(e['event_id'], 'evt_01h8441jx8x1q971q9ksksqh82');
    const user = e['user'] as Record<string, unknown>;
    assert.equal(user['email'], 'sam@example.com');
    assert.equal(user['first_name'], 'Sam');
    // The notification's data is the customer (per-type rules): its own id, and no transaction.
    assert.equal(user['external_id'], 'ctm_01h8441jn5pcwrfhwh78jqt8hk');
    assert.equal(e['transaction_id'], undefined, 'a customer is no transaction');
  });

  it('WooCommerce guest order (customer_id 0): no user.external_id "0"', () => {
    const order = fixture('woocommerce/order.json');
    assert.equal(order['customer_id'], 0);
    const e = folded('woocommerce', order);
    assert.equal(e['event_name'], 'purchase');
    assert.equal(e['value'], 29.35);
    assert.equal(e['currency'], 'USD');
    assert.equal((e['user'] as Record<string, unknown>)['external_id'], undefined);
    const member = event('woocommerce', { ...order, customer_id: 25 });
    assert.equal((member['user'] as Record<string, unknown>)['external_id'], '25');
  });
});
