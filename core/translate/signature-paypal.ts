/**
 * PayPal's webhook signatures (docs/senders.md, "PayPal"), as PayPal documents them in
 * "Integrate webhooks" (https://developer.paypal.com/api/rest/webhooks/rest/) and the
 * verify-webhook-signature API's fields: PayPal signs, with the RSA key of a certificate it
 * publishes (`PAYPAL-CERT-URL`), the text
 * `<PAYPAL-TRANSMISSION-ID>|<PAYPAL-TRANSMISSION-TIME>|<webhook id>|<CRC32 of the raw body>`
 * (the CRC32 as an unsigned decimal), SHA256withRSA (`PAYPAL-AUTH-ALGO`), base64 in
 * `PAYPAL-TRANSMISSION-SIG`. The webhook id is the one PayPal gave the listener URL: it names
 * the subscription, so a delivery meant for another listener does not verify here. The URL is
 * pinned to PayPal's API hosts (https, no port or credentials) before anything is fetched; the
 * certificate is fetched and cached by the caller (gateway/signing-certificates.ts).
 */
import { createSign, createVerify } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { TranslatorSignature } from '../../schemas/translator-signature.ts';
import { andThen, type MaybePromise } from '../maybe-async.ts';
import type { SignatureCheck, SignedRequest } from './signature-check.ts';
import { DEFAULT_TOLERANCE_SECONDS, fresh, refuse } from './signature-check.ts';
import type { CertificateSource } from './signature-sns.ts';

/** The hosts PayPal serves its signing certificates from (live and sandbox, both API names). */
export const PAYPAL_CERTIFICATE_HOSTS: readonly string[] = [
  'api.paypal.com',
  'api-m.paypal.com',
  'api.sandbox.paypal.com',
  'api-m.sandbox.paypal.com',
];

/** The headers PayPal sends with each delivery (lower case, as node gives them). */
export const PAYPAL_HEADERS = {
  signature: 'paypal-transmission-sig',
  id: 'paypal-transmission-id',
  time: 'paypal-transmission-time',
  certUrl: 'paypal-cert-url',
  algorithm: 'paypal-auth-algo',
} as const;

/** PayPal's algorithm names, as node:crypto calls them (PayPal documents SHA256withRSA). */
const ALGORITHMS: Readonly<Record<string, string>> = { SHA256withRSA: 'RSA-SHA256' };

/** Why a PAYPAL-CERT-URL is not PayPal's, or undefined when it is (https on a pinned host). */
export function unpinnedPaypalCertificateUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'PAYPAL-CERT-URL is not a URL';
  }
  if (u.protocol !== 'https:' || u.username || u.password || u.port)
    return `PAYPAL-CERT-URL ${url.slice(0, 200)} is not an https URL without port or credentials`;
  if (!PAYPAL_CERTIFICATE_HOSTS.includes(u.hostname))
    return `PAYPAL-CERT-URL's host ${u.hostname.slice(0, 100)} is not PayPal's (${PAYPAL_CERTIFICATE_HOSTS.join(', ')})`;
  return undefined;
}

/** The text PayPal signs for a delivery. */
export function paypalSignedText(id: string, time: string, webhookId: string, body: Uint8Array): string {
  return `${id}|${time}|${webhookId}|${crc32(body) >>> 0}`;
}

/** A header PayPal sends: a short single-line text, or undefined. */
function headerText(req: SignedRequest, name: string, max: number): string | undefined {
  const v = req.header(name)?.trim();
  return v && v.length <= max && !/[|\r\n]/.test(v) ? v : undefined;
}

/**
 * Checks a PayPal delivery: its headers' form and the certificate URL's pin before anything is
 * fetched, then the RSA signature under the certificate (valid now), then the transmission time
 * against the translator's tolerance (default 300 s), either side. The delivery is named by
 * PAYPAL-TRANSMISSION-ID (PayPal's retries of a delivery resend it).
 */
export function verifyPaypal(
  sig: TranslatorSignature,
  req: SignedRequest,
  nowMs: number,
  certificates: CertificateSource | undefined,
): MaybePromise<SignatureCheck> {
  const signature = req.header(PAYPAL_HEADERS.signature)?.trim();
  if (!signature) return refuse('missing_signature', 'no paypal-transmission-sig header');
  const id = headerText(req, PAYPAL_HEADERS.id, 100);
  const time = headerText(req, PAYPAL_HEADERS.time, 100);
  const certUrl = headerText(req, PAYPAL_HEADERS.certUrl, 500);
  const algorithm = ALGORITHMS[req.header(PAYPAL_HEADERS.algorithm)?.trim() ?? ''];
  const at = time === undefined ? Number.NaN : Date.parse(time);
  if (!id || !certUrl || !algorithm || Number.isNaN(at) || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature))
    return refuse(
      'malformed_signature',
      'a PayPal delivery has PAYPAL-TRANSMISSION-ID, PAYPAL-TRANSMISSION-TIME (a date), PAYPAL-CERT-URL, PAYPAL-AUTH-ALGO SHA256withRSA and a base64 PAYPAL-TRANSMISSION-SIG',
    );
  const unpinned = unpinnedPaypalCertificateUrl(certUrl);
  if (unpinned) return refuse('bad_signature', unpinned);
  if (!sig.webhook_id) return refuse('bad_signature', 'the translator names no PayPal webhook_id');
  if (!certificates) return refuse('certificate_unavailable', 'no way to fetch PayPal signing certificates');
  const text = paypalSignedText(id, time as string, sig.webhook_id, req.body);
  const tolerance = sig.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
  return andThen(certificates(certUrl), (answer): SignatureCheck => {
    if (!answer.ok) return refuse('certificate_unavailable', answer.detail);
    const cert = answer.certificate;
    if (nowMs < Date.parse(cert.validFrom) || nowMs > Date.parse(cert.validTo))
      return refuse('bad_signature', 'the PayPal signing certificate is not valid now');
    if (!createVerify(algorithm).update(text).verify(cert.publicKey, signature, 'base64'))
      return refuse(
        'bad_signature',
        'PAYPAL-TRANSMISSION-SIG does not verify under the PayPal certificate for this webhook_id',
      );
    if (!fresh(at / 1000, nowMs, tolerance))
      return refuse('stale_signature', `PAYPAL-TRANSMISSION-TIME is more than ${tolerance} s off`);
    return { ok: true, delivery: `${PAYPAL_HEADERS.id}:${id}` };
  });
}

/**
 * The headers PayPal would send for `body`, signed with `privateKey` (PEM) standing for
 * PayPal's: for tests and relays that stand in for PayPal.
 */
export function signPaypalDelivery(
  body: Uint8Array | string,
  d: { webhookId: string; id: string; time: string; certUrl: string },
  privateKey: string,
): Record<string, string> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const signature = createSign('RSA-SHA256')
    .update(paypalSignedText(d.id, d.time, d.webhookId, bytes))
    .sign(privateKey, 'base64');
  return {
    [PAYPAL_HEADERS.signature]: signature,
    [PAYPAL_HEADERS.id]: d.id,
    [PAYPAL_HEADERS.time]: d.time,
    [PAYPAL_HEADERS.certUrl]: d.certUrl,
    [PAYPAL_HEADERS.algorithm]: 'SHA256withRSA',
  };
}
