/**
 * Vendors' webhook signatures (docs/senders.md): a sender that can be given only a URL proves
 * itself with an HMAC under a shared secret, in a header of its own. Each scheme here checks
 * (and, for tests and our own relays, makes) one vendor's header: Stripe, Shopify, GitHub,
 * WooCommerce, HubSpot v3, Paddle, Typeform, Calendly; the generic `hmac` form for the rest
 * (which bytes are signed, the digest, its encoding, header and prefix, a signed timestamp);
 * Amazon SNS's and PayPal's certificate-signed deliveries are signature-sns.ts and
 * signature-paypal.ts. Verification runs on the bytes
 * as received, compares in constant time (node:crypto timingSafeEqual), and accepts any of the
 * secrets given (two during a rotation). A verified delivery is named (`delivery`) for the
 * gateway's replay memory. Pure: secrets, headers, the clock and certificates are passed in.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { TranslatorSignature } from '../../schemas/translator-signature.ts';
import type { MaybePromise } from '../maybe-async.ts';
import {
  STANDARD_HEADERS,
  type StandardFamily,
  sign as standardSign,
  verify as standardVerify,
} from '../signing/standard-webhooks.ts';
import {
  DEFAULT_TOLERANCE_SECONDS,
  fresh,
  refuse,
  type SignatureCheck,
  type SignedRequest,
} from './signature-check.ts';
import { signatureHeader } from './signature-header.ts';
import { verifyPaypal } from './signature-paypal.ts';
import { type CertificateSource, verifySns } from './signature-sns.ts';

export {
  DEFAULT_TOLERANCE_SECONDS,
  type SignatureCheck,
  type SignatureRefusal,
  type SignedRequest,
} from './signature-check.ts';

type Algorithm = 'sha256' | 'sha1' | 'sha512' | 'md5';
type Encoding = 'hex' | 'base64' | 'base64url';
type Part = string | Uint8Array;

const hmac = (alg: Algorithm, secret: string, parts: readonly Part[]): Buffer => {
  const h = createHmac(alg, secret);
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Decodes a presented digest; undefined when it is not of that encoding. */
function decodeDigest(text: string, encoding: Encoding): Buffer | undefined {
  const t = text.trim();
  if (encoding === 'hex') return /^(?:[0-9a-fA-F]{2})+$/.test(t) ? Buffer.from(t, 'hex') : undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) return undefined;
  return Buffer.from(t, encoding);
}

/** Constant-time equality of two digests (different lengths are unequal without comparing). */
function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `k=v` pairs of a header split on `sep` (Stripe and Calendly use `,`, Paddle `;`); keys may repeat. */
function pairs(header: string, sep: string): [string, string][] {
  return header.split(sep).flatMap((p) => {
    const i = p.indexOf('=');
    return i < 0 ? [] : [[p.slice(0, i).trim(), p.slice(i + 1).trim()] as [string, string]];
  });
}

/**
 * HubSpot v3 signs the URL it called with some characters percent-decoded (its documentation
 * lists them); the same decoding makes the URL we saw comparable.
 */
const HUBSPOT_DECODED: Readonly<Record<string, string>> = {
  '%3A': ':',
  '%2F': '/',
  '%3F': '?',
  '%40': '@',
  '%21': '!',
  '%24': '$',
  '%27': "'",
  '%28': '(',
  '%29': ')',
  '%2A': '*',
  '%2C': ',',
  '%3B': ';',
};
export const hubspotUrl = (url: string): string =>
  url.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (m) => HUBSPOT_DECODED[m.toUpperCase()] ?? m);

/**
 * A form body's parameters as `url_form` signs them (Twilio's "Validating requests", docs/senders.md):
 * decoded, sorted by name (a repeated name by value), each name immediately followed by its value.
 */
export function sortedFormParts(body: Uint8Array): string[] {
  const params = [...new URLSearchParams(Buffer.from(body).toString('utf8'))];
  params.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return params.map(([k, v]) => k + v);
}

/** A signed timestamp's text in seconds: up to 11 digits are seconds, 13 or more milliseconds. */
function timestampSeconds(text: string): number | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1e11 ? n / 1000 : n;
}

/** The generic scheme's form, with its defaults. */
function genericForm(sig: TranslatorSignature): {
  algorithm: Algorithm;
  encoding: Encoding;
  prefix: string;
} {
  switch (sig.scheme) {
    case 'github':
      return { algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' };
    case 'typeform':
      return { algorithm: 'sha256', encoding: 'base64', prefix: 'sha256=' };
    case 'shopify':
    case 'woocommerce':
      return { algorithm: 'sha256', encoding: 'base64', prefix: '' };
    default:
      return {
        algorithm: sig.algorithm ?? 'sha256',
        encoding: sig.encoding ?? 'hex',
        prefix: sig.prefix ?? '',
      };
  }
}

/** The bytes a body-signing or generic scheme signs, in order; `ts` is the signed timestamp's text. */
function genericParts(sig: TranslatorSignature, req: Omit<SignedRequest, 'header'>, ts: string): Part[] {
  if (sig.scheme !== 'hmac') return [req.body];
  switch (sig.signed ?? 'body') {
    case 'url_form':
      return [req.url, ...sortedFormParts(req.body)];
    case 'method_url_body_timestamp':
      return [req.method, req.url, req.body, ts];
    case 'timestamp_body':
      return [`${ts}.`, req.body];
    default:
      return [req.body];
  }
}

/** The vendor's delivery id header, where the scheme names one (docs/senders.md, "Replays"). */
function deliveryHeader(sig: TranslatorSignature): string | undefined {
  switch (sig.scheme) {
    case 'github':
      return 'x-github-delivery';
    case 'shopify':
      return 'x-shopify-webhook-id';
    case 'woocommerce':
      return 'x-wc-webhook-delivery-id';
    case 'standard_webhooks':
    case 'svix':
      // The message id: the same on every retry of one message (the specification's idempotency key).
      return STANDARD_HEADERS[sig.scheme].id;
    case 'hmac':
      return sig.delivery_id_header?.toLowerCase();
    default:
      return undefined;
  }
}

/**
 * A verified delivery's name in the replay memory: the vendor's delivery id header when the
 * scheme names one and it was sent, else the SHA-256 of the signed bytes.
 */
function deliveryOf(sig: TranslatorSignature, req: SignedRequest, signed: readonly Part[]): string {
  const h = deliveryHeader(sig);
  const id = h ? req.header(h)?.trim() : undefined;
  if (id) return `${h}:${id.slice(0, 200)}`;
  const d = createHash('sha256');
  for (const p of signed) d.update(p);
  return `sha256:${d.digest('base64url')}`;
}

/**
 * Checks a request's signature under the translator's scheme against each of `secrets` (an
 * `sns` message against the certificate `certificates` gives for its URL: a promise then).
 * Nothing of the body is parsed but a `url_form` body's parameters and an SNS message; a
 * missing, malformed, wrong or stale signature is refused with its reason (a stale one only
 * once its digest matched, so an attacker learns nothing from it).
 */
export function verifySignature(
  sig: TranslatorSignature,
  req: SignedRequest,
  secrets: readonly string[],
  nowMs: number,
  certificates?: CertificateSource,
): MaybePromise<SignatureCheck> {
  if (sig.scheme === 'sns') return verifySns(sig, req.body, nowMs, certificates);
  if (sig.scheme === 'paypal') return verifyPaypal(sig, req, nowMs, certificates);
  if (sig.scheme === 'standard_webhooks' || sig.scheme === 'svix')
    return verifyStandard(sig, sig.scheme, req, secrets, nowMs);
  const name = signatureHeader(sig) ?? '';
  const value = req.header(name);
  if (value === undefined || value.trim() === '') return refuse('missing_signature', `no ${name} header`);
  if (secrets.length === 0) return refuse('no_secret', 'the translator’s signing secret has no value');
  const tolerance = sig.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
  const matching = (digest: (secret: string) => Buffer, presented: readonly Buffer[]) =>
    secrets.some((s) => {
      const d = digest(s);
      return presented.some((p) => same(d, p));
    });
  const bad = refuse('bad_signature', `${name} matches none of the translator’s secrets`);
  const malformed = refuse('malformed_signature', `${name} is not in the ${sig.scheme} form`);
  const stale = (what: string, seconds: number) =>
    refuse('stale_signature', `${what} is more than ${seconds} s old`);
  const ok = (signed: readonly Part[]): SignatureCheck => ({
    ok: true,
    delivery: deliveryOf(sig, req, signed),
  });

  switch (sig.scheme) {
    case 'stripe':
    case 'calendly': {
      // t=<seconds>,v1=<hex>[,v1=<hex>…]: HMAC-SHA256 of `t.body`.
      const kv = pairs(value, ',');
      const t = kv.find(([k]) => k === 't')?.[1];
      const v1 = kv.filter(([k]) => k === 'v1').map(([, v]) => decodeDigest(v, 'hex'));
      if (!t || !/^\d{1,12}$/.test(t) || v1.length === 0 || v1.some((v) => !v)) return malformed;
      const signed = [`${t}.`, req.body];
      if (!matching((s) => hmac('sha256', s, signed), v1 as Buffer[])) return bad;
      return fresh(Number(t), nowMs, tolerance) ? ok(signed) : stale(name, tolerance);
    }
    case 'paddle': {
      // ts=<seconds>;h1=<hex>: HMAC-SHA256 of `ts:body`.
      const kv = pairs(value, ';');
      const ts = kv.find(([k]) => k === 'ts')?.[1];
      const h1 = kv.filter(([k]) => k === 'h1').map(([, v]) => decodeDigest(v, 'hex'));
      if (!ts || !/^\d{1,12}$/.test(ts) || h1.length === 0 || h1.some((v) => !v)) return malformed;
      const signed = [`${ts}:`, req.body];
      if (!matching((s) => hmac('sha256', s, signed), h1 as Buffer[])) return bad;
      return fresh(Number(ts), nowMs, tolerance) ? ok(signed) : stale(name, tolerance);
    }
    case 'hubspot': {
      // base64 HMAC-SHA256 of method + URL + body + timestamp (milliseconds, its own header).
      const ts = req.header('x-hubspot-request-timestamp');
      const presented = decodeDigest(value, 'base64');
      if (!ts || !/^\d{1,15}$/.test(ts) || !presented) return malformed;
      const signed = [req.method, hubspotUrl(req.url), req.body, ts];
      if (!matching((s) => hmac('sha256', s, signed), [presented])) return bad;
      // HubSpot's own rule: older than five minutes is refused, whatever the translator says.
      return fresh(Number(ts) / 1000, nowMs, Math.min(tolerance, 300))
        ? ok(signed)
        : refuse('stale_signature', 'X-HubSpot-Request-Timestamp is more than 5 minutes old');
    }
    default: {
      const { algorithm, encoding, prefix } = genericForm(sig);
      const text = value.trim();
      if (prefix && !text.startsWith(prefix)) return malformed;
      const presented = decodeDigest(text.slice(prefix.length), encoding);
      if (!presented) return malformed;
      const tsHeader = sig.scheme === 'hmac' ? sig.timestamp_header?.toLowerCase() : undefined;
      const ts = tsHeader ? req.header(tsHeader)?.trim() : undefined;
      const seconds = ts === undefined ? undefined : timestampSeconds(ts);
      if (tsHeader && seconds === undefined)
        return refuse('malformed_signature', `${tsHeader} is not seconds or milliseconds since 1970`);
      const signed = genericParts(sig, req, ts ?? '');
      if (!matching((s) => hmac(algorithm, s, signed), [presented])) return bad;
      return seconds === undefined || fresh(seconds, nowMs, tolerance)
        ? ok(signed)
        : stale(tsHeader ?? name, tolerance);
    }
  }
}

/** A Standard Webhooks (or Svix) delivery checked by the one module that also signs them. */
function verifyStandard(
  sig: TranslatorSignature,
  family: StandardFamily,
  req: SignedRequest,
  secrets: readonly string[],
  nowMs: number,
): SignatureCheck {
  const names = STANDARD_HEADERS[family];
  const id = req.header(names.id);
  const verdict = standardVerify({
    id,
    timestamp: req.header(names.timestamp),
    signature: req.header(names.signature),
    body: req.body,
    secrets,
    nowMs,
    toleranceSeconds: sig.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS,
    family,
  });
  if (!verdict.ok) return refuse(verdict.reason, verdict.detail);
  return { ok: true, delivery: deliveryOf(sig, req, []) };
}

/**
 * The headers a sender under `sig` would send for `req` (what our relays and tests send, and
 * what the vendors' verifiers accept). `timestamp` is in seconds (HubSpot's header takes it in
 * milliseconds; a generic `timestamp_header` in seconds). Not for `sns` or `paypal`, whose
 * deliveries the vendor signs with its own key (signSnsMessage, signPaypalDelivery, for tests).
 */
export function signRequest(
  sig: TranslatorSignature,
  secret: string,
  req: { method: string; url: string; body: Uint8Array | string },
  timestamp: number,
): Record<string, string> {
  const name = signatureHeader(sig);
  if (name === undefined || sig.scheme === 'paypal')
    throw new Error(`${sig.scheme} messages are not signed with a shared secret`);
  const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
  switch (sig.scheme) {
    case 'stripe':
    case 'calendly':
      return {
        [name]: `t=${timestamp},v1=${hmac('sha256', secret, [`${timestamp}.`, body]).toString('hex')}`,
      };
    case 'paddle':
      return {
        [name]: `ts=${timestamp};h1=${hmac('sha256', secret, [`${timestamp}:`, body]).toString('hex')}`,
      };
    case 'standard_webhooks':
    case 'svix': {
      const names = STANDARD_HEADERS[sig.scheme];
      const id = `msg_${createHash('sha256').update(body).update(String(timestamp)).digest('hex').slice(0, 24)}`;
      return {
        [names.id]: id,
        [names.timestamp]: String(timestamp),
        [names.signature]: standardSign({ id, timestamp, body, secrets: [secret] }),
      };
    }
    case 'hubspot': {
      const ms = String(timestamp * 1000);
      const digest = hmac('sha256', secret, [req.method, hubspotUrl(req.url), body, ms]);
      return { [name]: digest.toString('base64'), 'x-hubspot-request-timestamp': ms };
    }
    default: {
      const { algorithm, encoding, prefix } = genericForm(sig);
      const tsHeader = sig.scheme === 'hmac' ? sig.timestamp_header?.toLowerCase() : undefined;
      const ts = String(timestamp);
      const signed = genericParts(sig, { method: req.method, url: req.url, body }, ts);
      const digest = hmac(algorithm, secret, signed).toString(encoding);
      return { [name]: `${prefix}${digest}`, ...(tsHeader ? { [tsHeader]: ts } : {}) };
    }
  }
}
