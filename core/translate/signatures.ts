/**
 * Vendors' webhook signatures (docs/senders.md): a sender that can be given only a URL proves
 * itself with an HMAC of the raw body under a shared secret, in a header of its own. Each scheme
 * here checks (and, for tests and our own relays, makes) one vendor's header: Stripe, Shopify,
 * GitHub, WooCommerce, HubSpot v3, Paddle, Typeform, Calendly, and a generic HMAC form for the
 * rest. Verification runs on the bytes as received, before anything is parsed, compares in
 * constant time (node:crypto timingSafeEqual), and accepts any of the secrets given (two during
 * a rotation). Pure: secrets, headers and the clock are passed in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TranslatorSignature } from '../../schemas/translator.ts';
import { signatureHeader } from './signature-header.ts';

/** Seconds a timestamped signature stays valid unless the translator says otherwise. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** What a signature is checked against: the request as received. */
export interface SignedRequest {
  readonly method: string;
  /** The URL the sender called, scheme and host included (HubSpot signs it). */
  readonly url: string;
  /** A header's value by lower-case name. */
  readonly header: (name: string) => string | undefined;
  readonly body: Uint8Array;
}

/** Why a signature was refused: the refusal record's reason. */
export type SignatureRefusal =
  | 'missing_signature'
  | 'malformed_signature'
  | 'bad_signature'
  | 'stale_signature'
  | 'no_secret';

export type SignatureCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: SignatureRefusal; readonly detail: string };

type Algorithm = 'sha256' | 'sha1' | 'sha512';
type Encoding = 'hex' | 'base64' | 'base64url';

const hmac = (alg: Algorithm, secret: string, parts: readonly (string | Uint8Array)[]): Buffer => {
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

const refuse = (reason: SignatureRefusal, detail: string): SignatureCheck => ({ ok: false, reason, detail });

/** A timestamp in seconds checked against the tolerance, either side (a clock skewed ahead too). */
function fresh(seconds: number, nowMs: number, tolerance: number): boolean {
  return Number.isFinite(seconds) && Math.abs(nowMs / 1000 - seconds) <= tolerance;
}

/**
 * Checks a request's signature under the translator's scheme against each of `secrets`.
 * Nothing of the body is parsed; a missing, malformed, wrong or stale signature is refused with
 * its reason (a stale one only once its digest matched, so an attacker learns nothing from it).
 */
export function verifySignature(
  sig: TranslatorSignature,
  req: SignedRequest,
  secrets: readonly string[],
  nowMs: number,
): SignatureCheck {
  const name = signatureHeader(sig);
  const value = req.header(name);
  if (value === undefined || value.trim() === '') return refuse('missing_signature', `no ${name} header`);
  if (secrets.length === 0) return refuse('no_secret', 'the translator’s signing secret has no value');
  const tolerance = sig.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
  const anySecret = (digest: (secret: string) => Buffer, presented: readonly Buffer[]) =>
    secrets.some((s) => {
      const d = digest(s);
      return presented.some((p) => same(d, p));
    });
  const bad = refuse('bad_signature', `${name} matches none of the translator’s secrets`);
  const malformed = refuse('malformed_signature', `${name} is not in the ${sig.scheme} form`);

  switch (sig.scheme) {
    case 'stripe':
    case 'calendly': {
      // t=<seconds>,v1=<hex>[,v1=<hex>…]: HMAC-SHA256 of `t.body`.
      const kv = pairs(value, ',');
      const t = kv.find(([k]) => k === 't')?.[1];
      const v1 = kv.filter(([k]) => k === 'v1').map(([, v]) => decodeDigest(v, 'hex'));
      if (!t || !/^\d{1,12}$/.test(t) || v1.length === 0 || v1.some((v) => !v)) return malformed;
      if (!anySecret((s) => hmac('sha256', s, [`${t}.`, req.body]), v1 as Buffer[])) return bad;
      return fresh(Number(t), nowMs, tolerance)
        ? { ok: true }
        : refuse('stale_signature', `${name} is more than ${tolerance} s old`);
    }
    case 'paddle': {
      // ts=<seconds>;h1=<hex>: HMAC-SHA256 of `ts:body`.
      const kv = pairs(value, ';');
      const ts = kv.find(([k]) => k === 'ts')?.[1];
      const h1 = kv.filter(([k]) => k === 'h1').map(([, v]) => decodeDigest(v, 'hex'));
      if (!ts || !/^\d{1,12}$/.test(ts) || h1.length === 0 || h1.some((v) => !v)) return malformed;
      if (!anySecret((s) => hmac('sha256', s, [`${ts}:`, req.body]), h1 as Buffer[])) return bad;
      return fresh(Number(ts), nowMs, tolerance)
        ? { ok: true }
        : refuse('stale_signature', `${name} is more than ${tolerance} s old`);
    }
    case 'hubspot': {
      // base64 HMAC-SHA256 of method + URL + body + timestamp (milliseconds, its own header).
      const ts = req.header('x-hubspot-request-timestamp');
      const presented = decodeDigest(value, 'base64');
      if (!ts || !/^\d{1,15}$/.test(ts) || !presented) return malformed;
      const url = hubspotUrl(req.url);
      if (!anySecret((s) => hmac('sha256', s, [req.method, url, req.body, ts]), [presented])) return bad;
      // HubSpot's own rule: older than five minutes is refused, whatever the translator says.
      return fresh(Number(ts) / 1000, nowMs, Math.min(tolerance, 300))
        ? { ok: true }
        : refuse('stale_signature', 'X-HubSpot-Request-Timestamp is more than 5 minutes old');
    }
    default: {
      const { algorithm, encoding, prefix } = plainForm(sig);
      const text = value.trim();
      if (prefix && !text.startsWith(prefix)) return malformed;
      const presented = decodeDigest(text.slice(prefix.length), encoding);
      if (!presented) return malformed;
      return anySecret((s) => hmac(algorithm, s, [req.body]), [presented]) ? { ok: true } : bad;
    }
  }
}

/** The digest form of the schemes that sign the body alone. */
function plainForm(sig: TranslatorSignature): { algorithm: Algorithm; encoding: Encoding; prefix: string } {
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

/**
 * The headers a sender under `sig` would send for `body` (what our relays and tests send, and
 * what the vendors' verifiers accept). `timestamp` is in seconds (HubSpot's header takes ms).
 */
export function signRequest(
  sig: TranslatorSignature,
  secret: string,
  req: { method: string; url: string; body: Uint8Array | string },
  timestamp: number,
): Record<string, string> {
  const name = signatureHeader(sig);
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
    case 'hubspot': {
      const ms = String(timestamp * 1000);
      const digest = hmac('sha256', secret, [req.method, hubspotUrl(req.url), body, ms]);
      return { [name]: digest.toString('base64'), 'x-hubspot-request-timestamp': ms };
    }
    default: {
      const { algorithm, encoding, prefix } = plainForm(sig);
      return { [name]: `${prefix}${hmac(algorithm, secret, [body]).toString(encoding)}` };
    }
  }
}
