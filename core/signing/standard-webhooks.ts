/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, the form Svix sends under its
 * own `svix-` header names): an HMAC-SHA256, base64, of `<id>.<timestamp>.<body>` under a secret
 * given as `whsec_<base64 key>`, sent as `v1,<signature>`; the signature header holds several
 * such entries, space-separated, while a sender rotates its key. One module both signs (our
 * outgoing webhooks, tests, the studio's signed test) and verifies (a translator's `signature`
 * of scheme `standard_webhooks` or `svix`), so the two cannot drift apart. Pure: the secrets and
 * the clock are passed in; comparison is constant-time.
 */
import { createHmac, createPrivateKey, createPublicKey, sign as edSign, timingSafeEqual } from 'node:crypto';

/** The prefix of a Standard Webhooks signing secret as vendors show it. */
export const SECRET_PREFIX = 'whsec_';

/** The version tag of a symmetric (HMAC-SHA256) signature entry. */
const VERSION = 'v1';

/** The prefix of an asymmetric (ed25519) signing key, and of its public key a receiver holds. */
export const SIGNING_KEY_PREFIX = 'whsk_';
export const PUBLIC_KEY_PREFIX = 'whpk_';
/** The version tag of an asymmetric (ed25519) signature entry. */
const ASYMMETRIC_VERSION = 'v1a';

/** PKCS#8 DER of an ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The ed25519 private key of a `whsk_` secret: the base64 of the 32-byte seed, or of the seed
 * followed by the 32-byte public key (the 64-byte form many libraries print); undefined otherwise.
 */
function ed25519Key(secret: string): ReturnType<typeof createPrivateKey> | undefined {
  const b64 = secret.trim().slice(SIGNING_KEY_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
  const raw = Buffer.from(b64, 'base64');
  if (raw.length !== 32 && raw.length !== 64) return undefined;
  return createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, raw.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  });
}

/** The ed25519 signature of `text` under a `whsk_` secret (exported for the RFC 8032 vectors). */
export function ed25519Signature(secret: string, text: Uint8Array | string): Buffer {
  const key = ed25519Key(secret);
  if (!key)
    throw new Error('a Standard Webhooks signing key is whsk_ followed by the base64 of an ed25519 key');
  return edSign(null, typeof text === 'string' ? Buffer.from(text) : text, key);
}

/** The `whpk_` public key a receiver verifies `v1a` signatures with, from a `whsk_` secret. */
export function publicKeyOf(secret: string): string {
  const key = ed25519Key(secret);
  if (!key)
    throw new Error('a Standard Webhooks signing key is whsk_ followed by the base64 of an ed25519 key');
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return `${PUBLIC_KEY_PREFIX}${spki.subarray(spki.length - 32).toString('base64')}`;
}

/** The three headers of a delivery, by lower-case name, for each of the two header families. */
export const STANDARD_HEADERS = {
  standard_webhooks: { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' },
  svix: { id: 'svix-id', timestamp: 'svix-timestamp', signature: 'svix-signature' },
} as const;
export type StandardFamily = keyof typeof STANDARD_HEADERS;

/** What is signed: the message id, its timestamp in seconds, and the body as sent. */
export interface StandardMessage {
  readonly id: string;
  readonly timestamp: number;
  readonly body: Uint8Array | string;
}

/**
 * The key bytes of a secret: the base64 after `whsec_` (the prefix is optional, as the vendors'
 * libraries accept a pasted key without it); undefined when that is not base64 or is empty.
 */
export function secretKey(secret: string): Buffer | undefined {
  const b64 = secret.trim().startsWith(SECRET_PREFIX)
    ? secret.trim().slice(SECRET_PREFIX.length)
    : secret.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 === 1) return undefined;
  const key = Buffer.from(b64, 'base64');
  return key.length > 0 ? key : undefined;
}

const digest = (key: Buffer, m: StandardMessage): Buffer =>
  createHmac('sha256', key).update(`${m.id}.${m.timestamp}.`).update(m.body).digest();

/**
 * The signature header's value for `message`: one entry per secret, in the order given,
 * space-separated (the new key and the old one during a rotation): `v1,<base64 HMAC>` for a
 * `whsec_` secret, `v1a,<base64 ed25519>` for a `whsk_` signing key. Throws on a secret that is
 * neither: a sender's configuration mistake, never a request's.
 */
export function sign(message: StandardMessage & { readonly secrets: readonly string[] }): string {
  if (message.secrets.length === 0) throw new Error('Standard Webhooks signing needs at least one secret');
  return message.secrets
    .map((s) => {
      if (s.trim().startsWith(SIGNING_KEY_PREFIX)) {
        const text = Buffer.concat([
          Buffer.from(`${message.id}.${message.timestamp}.`),
          Buffer.from(message.body),
        ]);
        return `${ASYMMETRIC_VERSION},${ed25519Signature(s, text).toString('base64')}`;
      }
      const key = secretKey(s);
      if (!key) throw new Error('a Standard Webhooks secret is whsec_ followed by base64');
      return `${VERSION},${digest(key, message).toString('base64')}`;
    })
    .join(' ');
}

/** Why a delivery was refused (the translator's refusal reasons: signature-check.ts). */
export type StandardRefusal =
  | 'missing_signature'
  | 'malformed_signature'
  | 'bad_signature'
  | 'stale_signature'
  | 'no_secret';

export type StandardVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: StandardRefusal; readonly detail: string };

/** What a receiver checks: the three headers' text as received, the body, and its secrets. */
export interface StandardDelivery {
  readonly id: string | undefined;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly body: Uint8Array | string;
  readonly secrets: readonly string[];
  readonly nowMs: number;
  /** Seconds either side of now a timestamp may be (the specification suggests 5 minutes). */
  readonly toleranceSeconds: number;
  /** The header family, for the refusal's words. */
  readonly family?: StandardFamily;
}

/** The `v1` signatures of a header's entries (other versions, such as `v1a`, are skipped). */
function presented(header: string): Buffer[] | undefined {
  const out: Buffer[] = [];
  for (const entry of header.trim().split(/\s+/)) {
    const comma = entry.indexOf(',');
    if (comma < 0) return undefined;
    if (entry.slice(0, comma) !== VERSION) continue;
    const b64 = entry.slice(comma + 1);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
    out.push(Buffer.from(b64, 'base64'));
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Checks a delivery: any `v1` entry matching any secret verifies it, then its timestamp must be
 * within the tolerance (checked only once a signature matched, so a forger learns nothing). A
 * missing header, an entry not in the `v1,<base64>` form, or a timestamp not in whole seconds is
 * refused with its reason.
 */
export function verify(d: StandardDelivery): StandardVerdict {
  const names = STANDARD_HEADERS[d.family ?? 'standard_webhooks'];
  const no = (reason: StandardRefusal, detail: string): StandardVerdict => ({ ok: false, reason, detail });
  if (!d.signature?.trim()) return no('missing_signature', `no ${names.signature} header`);
  if (!d.id?.trim()) return no('missing_signature', `no ${names.id} header: the id is signed`);
  if (!d.timestamp?.trim())
    return no('missing_signature', `no ${names.timestamp} header: the time is signed`);
  const ts = d.timestamp.trim();
  if (!/^\d{1,12}$/.test(ts))
    return no('malformed_signature', `${names.timestamp} is not whole seconds since 1970`);
  const sigs = presented(d.signature);
  if (!sigs) return no('malformed_signature', `${names.signature} is not a list of v1,<base64> signatures`);
  const keys = d.secrets.flatMap((s) => secretKey(s) ?? []);
  if (keys.length === 0)
    return no('no_secret', 'the signing secret is not a whsec_ key (whsec_ then base64)');
  const message = { id: d.id, timestamp: Number(ts), body: d.body };
  const matched = keys.some((k) => {
    const mine = digest(k, message);
    return sigs.some((p) => p.length === mine.length && timingSafeEqual(p, mine));
  });
  if (!matched) return no('bad_signature', `${names.signature} matches none of the secrets`);
  if (Math.abs(d.nowMs / 1000 - Number(ts)) > d.toleranceSeconds)
    return no('stale_signature', `${names.timestamp} is more than ${d.toleranceSeconds} s from now`);
  return { ok: true };
}
