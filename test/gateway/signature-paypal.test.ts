/**
 * PayPal's certificate-signed webhooks (docs/senders.md, "PayPal") through the translator
 * endpoint on a loopback port: deliveries signed as PayPal documents under a self-made key, the
 * certificate served by a loopback server. The seam is the gateway's injected `fetch` (the one
 * the SNS test uses): the gateway pins PAYPAL-CERT-URL to PayPal's hosts on the URL as sent, and
 * only then calls `fetch`, which here alone maps api.sandbox.paypal.com to the loopback port; in
 * production main.ts gives the egress gate instead, and the host list is the same. A good
 * delivery is taken and its certificate fetched once for many; a tampered body and a URL off
 * PayPal's hosts (nothing fetched) are 401; PayPal's retry of a delivery folds into one event.
 */
import assert from 'node:assert/strict';
import { signPaypalDelivery } from '../../core/translate/signature-paypal.ts';
import { certificateGateway, post, reasonOf } from './support.ts';

const HOST = 'api.sandbox.paypal.com';
const CERT_PATH = '/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77';
const WEBHOOK_ID = '1JE4291016473214C';

const SPEC = {
  event: 'purchase',
  format: { type: 'json' },
  auth: { signature: { scheme: 'paypal', webhook_id: WEBHOOK_ID } },
  fields: [
    { target: 'transaction_id', source: 'resource.id' },
    { target: 'value', source: 'resource.amount.total', transforms: ['number'] },
    { target: 'currency', source: 'resource.amount.currency' },
  ],
};

// A PAYMENT.SALE.COMPLETED delivery's shape, from PayPal's webhook event reference.
const sale = (total: string) =>
  JSON.stringify({
    id: 'WH-2WR32451HC0233532-67976317FL4543714',
    event_version: '1.0',
    create_time: '2026-11-25T18:22:10.000Z',
    resource_type: 'sale',
    event_type: 'PAYMENT.SALE.COMPLETED',
    resource: {
      id: '80021663DE681814L',
      state: 'completed',
      amount: { total, currency: 'USD' },
      transaction_fee: { value: '0.29', currency: 'USD' },
    },
  });

describe('gateway: PayPal’s certificate-signed webhooks', () => {
  const c = certificateGateway('paypal-sales', SPEC, HOST, CERT_PATH);

  const send = (body: string, over: { id?: string; certUrl?: string; signed?: string } = {}) =>
    post(
      `${c.g.g.url}/v1/translators/paypal-sales`,
      body,
      {
        'content-type': 'application/json',
        ...signPaypalDelivery(
          over.signed ?? body,
          {
            webhookId: WEBHOOK_ID,
            id: over.id ?? 'b2384410-f8d2-11e5-a9bc-8b6a5e6e4b6e',
            time: new Date().toISOString(),
            certUrl: over.certUrl ?? `https://${HOST}${CERT_PATH}`,
          },
          c.pair.key,
        ),
      },
      true,
    );

  it('takes signed deliveries, fetching the certificate once for many', async () => {
    const a = await send(sale('0.48'));
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const b = await send(sale('12.00'), { id: 'c0ffee00-f8d2-11e5-a9bc-8b6a5e6e4b6e' });
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal(c.g.pub.published, 2);
    assert.deepEqual(c.server.hits, [CERT_PATH]);
  });

  it('refuses a tampered body and a certificate URL off PayPal’s hosts (fetching nothing) with 401', async () => {
    const tampered = await send(sale('480.00'), { signed: sale('0.48') });
    const forged = await send(sale('0.48'), { certUrl: `https://${HOST}.attacker.example${CERT_PATH}` });
    assert.deepEqual(
      [tampered, forged].map((a) => [a.status, reasonOf(a)]),
      [
        [401, 'INVALID_CREDENTIALS'],
        [401, 'INVALID_CREDENTIALS'],
      ],
    );
    assert.match(forged.body.error?.message ?? '', /attacker\.example is not PayPal's/);
    assert.equal(c.g.pub.published, 0);
    assert.deepEqual(c.fetched, [`https://${HOST}${CERT_PATH}`], 'only the tampered delivery’s (pinned) URL');
    assert.deepEqual(
      c.g.refusals().map((r) => [r['reason'], r['credential']]),
      [
        ['bad_signature', 'signature:paypal'],
        ['bad_signature', 'signature:paypal'],
      ],
    );
  });

  it('takes PayPal’s retry of a delivery again as the same event, logged as a replay', async () => {
    const body = sale('0.48');
    assert.equal((await send(body)).status, 200);
    assert.equal((await send(body)).status, 200);
    const ids = c.g.pub.calls.map((call) => call.messages[0]?.attributes['event_id']);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1]);
    assert.ok(
      c.g.logged.some((e) => e['replay'] === 'paypal-transmission-id:b2384410-f8d2-11e5-a9bc-8b6a5e6e4b6e'),
    );
  });
});
