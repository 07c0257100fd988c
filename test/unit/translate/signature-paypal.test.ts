/**
 * core/translate/signature-paypal.ts: PayPal deliveries signed as PayPal documents them
 * ("Integrate webhooks": `<transmission id>|<transmission time>|<webhook id>|<crc32 of the body>`,
 * SHA256withRSA, base64) under a self-made key and certificate. A good delivery verifies and is
 * named by its transmission id; another key, a changed body, another webhook id, a certificate
 * URL off PayPal's hosts (nothing fetched), a wrong algorithm, an expired certificate and a
 * transmission time outside the window are refused with their reasons; the spec's rules hold.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { SignatureCheck, SignedRequest } from '../../../core/translate/signature-check.ts';
import {
  paypalSignedText,
  signPaypalDelivery,
  unpinnedPaypalCertificateUrl,
} from '../../../core/translate/signature-paypal.ts';
import type { CertificateSource } from '../../../core/translate/signature-sns.ts';
import { signatureSpecViolations } from '../../../core/translate/signature-spec.ts';
import { signRequest, verifySignature } from '../../../core/translate/signatures.ts';
import type { TranslatorSignature } from '../../../schemas/translator-signature.ts';
import { type SigningCertificate, sharedSigningCertificate } from '../../support/signing-certificate.ts';

const WEBHOOK_ID = '8PT597110X687430LKGECATA';
const CERT_URL = 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77';
const SIG: TranslatorSignature = { scheme: 'paypal', webhook_id: WEBHOOK_ID };
// A PAYMENT.SALE.COMPLETED delivery's shape, from PayPal's webhook event reference.
const BODY = JSON.stringify({
  id: 'WH-2WR32451HC0233532-67976317FL4543714',
  create_time: '2026-11-25T18:22:10.000Z',
  resource_type: 'sale',
  event_type: 'PAYMENT.SALE.COMPLETED',
  summary: 'A successful sale payment was made for $ 0.48 USD',
  resource: {
    id: '80021663DE681814L',
    state: 'completed',
    amount: { total: '0.48', currency: 'USD' },
    transaction_fee: { value: '0.29', currency: 'USD' },
  },
});

describe('signatures: PayPal (paypal)', () => {
  let pair: SigningCertificate;
  let other: SigningCertificate;
  let fetched: string[];
  let source: CertificateSource;
  before(() => {
    pair = sharedSigningCertificate(0);
    other = sharedSigningCertificate(1);
  });
  beforeEach(() => {
    fetched = [];
    source = (url) => {
      fetched.push(url);
      return { ok: true, certificate: new X509Certificate(pair.cert) };
    };
  });
  const delivery = (over: { time?: string; certUrl?: string; key?: string; webhookId?: string } = {}) =>
    signPaypalDelivery(
      BODY,
      {
        webhookId: over.webhookId ?? WEBHOOK_ID,
        id: 'b2384410-f8d2-11e5-a9bc-8b6a5e6e4b6e',
        time: over.time ?? new Date().toISOString(),
        certUrl: over.certUrl ?? CERT_URL,
      },
      over.key ?? pair.key,
    );
  const request = (headers: Record<string, string>, body = BODY): SignedRequest => ({
    method: 'POST',
    url: 'https://gateway.example/v1/translators/paypal-sales',
    header: (h) => headers[h],
    body: Buffer.from(body),
  });
  const run = async (req: SignedRequest, sig = SIG, now = Date.now()) =>
    (await verifySignature(sig, req, [], now, source)) as SignatureCheck;
  const reason = (c: SignatureCheck) => (c.ok ? 'ok' : `${c.reason}: ${c.detail}`);

  it('signs the transmission id, time, webhook id and the body’s CRC32 as an unsigned decimal', () => {
    // CRC-32 of "123456789" is 0xCBF43926 (its check value): 3421780262, above 2^31.
    assert.equal(paypalSignedText('id-1', 't', 'W1', Buffer.from('123456789')), 'id-1|t|W1|3421780262');
  });

  it('takes a delivery PayPal signed, named by its transmission id', async () => {
    const check = await run(request(delivery()));
    assert.deepEqual(check, {
      ok: true,
      delivery: 'paypal-transmission-id:b2384410-f8d2-11e5-a9bc-8b6a5e6e4b6e',
    });
    assert.deepEqual(fetched, [CERT_URL]);
  });

  it('refuses another key, a changed body and another webhook id', async () => {
    const checks = [
      await run(request(delivery({ key: other.key }))),
      await run(request(delivery(), BODY.replace('0.48', '480.00'))),
      await run(request(delivery({ webhookId: 'OTHERWEBHOOK1' }))),
    ];
    for (const c of checks)
      assert.match(reason(c), /^bad_signature: PAYPAL-TRANSMISSION-SIG does not verify/);
  });

  it('pins the certificate URL to PayPal’s hosts over https before fetching anything', async () => {
    for (const url of [
      'https://api.paypal.com.attacker.example/cert.pem',
      'http://api.paypal.com/v1/notifications/certs/CERT-1',
      'https://api.paypal.com:8443/v1/notifications/certs/CERT-1',
      'https://user@api.sandbox.paypal.com/v1/notifications/certs/CERT-1',
      'https://127.0.0.1/cert.pem',
    ])
      assert.match(reason(await run(request(delivery({ certUrl: url })))), /^bad_signature: PAYPAL-CERT-URL/);
    assert.deepEqual(fetched, []);
    for (const host of [
      'api.paypal.com',
      'api-m.paypal.com',
      'api.sandbox.paypal.com',
      'api-m.sandbox.paypal.com',
    ])
      assert.equal(unpinnedPaypalCertificateUrl(`https://${host}/v1/notifications/certs/CERT-1`), undefined);
  });

  it('refuses missing and malformed headers, and an algorithm other than SHA256withRSA', async () => {
    const good = delivery();
    const { 'paypal-transmission-sig': _, ...unsigned } = good;
    assert.match(reason(await run(request(unsigned))), /^missing_signature/);
    const { 'paypal-cert-url': __, ...noUrl } = good;
    assert.match(reason(await run(request(noUrl))), /^malformed_signature/);
    assert.match(
      reason(await run(request({ ...good, 'paypal-auth-algo': 'SHA1withRSA' }))),
      /^malformed_signature/,
    );
    assert.match(
      reason(await run(request({ ...good, 'paypal-transmission-time': 'yesterday' }))),
      /^malformed_signature/,
    );
    assert.deepEqual(fetched, []);
  });

  it('refuses a transmission time outside the window, either side, and honours tolerance_seconds', async () => {
    const now = Date.now();
    const old = delivery({ time: new Date(now - 301_000).toISOString() });
    const ahead = delivery({ time: new Date(now + 301_000).toISOString() });
    assert.match(
      reason(await run(request(old), SIG, now)),
      /^stale_signature: PAYPAL-TRANSMISSION-TIME is more than 300 s off/,
    );
    assert.match(reason(await run(request(ahead), SIG, now)), /^stale_signature/);
    assert.equal(reason(await run(request(old), { ...SIG, tolerance_seconds: 600 }, now)), 'ok');
  });

  it('refuses under a certificate that is not valid now, and says when none can be had', async () => {
    const later = Date.now() + 5 * 86_400_000;
    const d = delivery({ time: new Date(later).toISOString() });
    assert.match(
      reason(await run(request(d), SIG, later)),
      /^bad_signature: the PayPal signing certificate is not valid now/,
    );
    source = () => ({ ok: false, detail: 'the signing certificate answered 503' });
    assert.equal(
      reason(await run(request(delivery()))),
      'certificate_unavailable: the signing certificate answered 503',
    );
  });

  it('needs a webhook_id and no secret in the spec; the studio cannot sign it', () => {
    const at = 'spec.auth.signature';
    assert.deepEqual(signatureSpecViolations(SIG, at, undefined), []);
    assert.deepEqual(
      signatureSpecViolations({ scheme: 'paypal', secrets: ['s'] }, at, undefined).map((v) => v.field),
      [`${at}.secrets`, `${at}.webhook_id`],
    );
    assert.deepEqual(
      signatureSpecViolations(
        { scheme: 'stripe', secrets: ['s'], webhook_id: WEBHOOK_ID },
        at,
        undefined,
      ).map((v) => v.field),
      [`${at}.webhook_id`],
    );
    assert.throws(
      () => signRequest(SIG, 'x', { method: 'POST', url: 'https://x', body: BODY }, 1),
      /not signed with a shared secret/,
    );
  });
});
