/**
 * Signed URLs (V4 `GOOG4-RSA-SHA256` and V2 `GoogleAccessId`/`Expires`/`Signature`), verified as
 * Cloud Storage documents its signing processes (docs/storage-emulator.md, "Signed URLs and POST
 * policies"): the request's canonical form is rebuilt from what arrived, hashed, and the signature
 * checked with the public keys the environment published for the signing service account
 * (emulators/common/iam-keys.ts). A request that verifies acts as that service account: IAM then
 * decides as for its bearer calls.
 *
 * - V4: `X-Goog-Credential` = `<email>/<YYYYMMDD>/<location>/storage/goog4_request`; the canonical
 *   request is the method, the path as sent, the query (every parameter but `X-Goog-Signature`,
 *   names and values percent-encoded but `A-Za-z0-9-._~`, sorted), the signed headers
 *   (`name:value`, values trimmed, inner runs of spaces made one), their names, and the payload's
 *   hash (`x-goog-content-sha256` when signed, else `UNSIGNED-PAYLOAD`). The string to sign is
 *   `GOOG4-RSA-SHA256`, `X-Goog-Date`, the credential scope, and the canonical request's SHA-256
 *   (hex). `host` must be signed; Cloud Storage's host has no port, so the request's `Host` is
 *   tried as sent, then without its port (what Google's clients sign for a local endpoint).
 * - V2: the string to sign is the method, `Content-MD5`, `Content-Type`, `Expires`, then the
 *   request's `x-goog-*` headers (`name:value` lines, sorted) and the path; the signature is
 *   base64.
 * - Refusals are the XML API's: a signature that does not verify (or a service account with no
 *   published key) 403 `SignatureDoesNotMatch` with the string to sign; past its expiry 400
 *   `ExpiredToken`; before its `X-Goog-Date` 403 `AccessDenied`; a malformed one 400
 *   `AuthorizationQueryParametersError`; `X-Goog-Expires` over 604800 seconds (7 days) too.
 *
 * Without keys to check against (the emulator runs without `--iam`, where every caller is the
 * owner), the form and the times are still checked, the signature is not.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { type PublishedKey, verifyRsaSha256 } from '@eventbus/emulator-common/iam-enforce.ts';
import { rawQueryParams, XmlError } from './xml.ts';

const V4_ALGORITHM = 'GOOG4-RSA-SHA256';
export const MAX_V4_EXPIRES = 7 * 24 * 3600;

/** The published keys of a service account (none: nothing verifies), or undefined: not checked. */
export type KeysOf = ((email: string) => readonly PublishedKey[]) | undefined;

/** Percent-encodes every byte but `A-Za-z0-9-._~`, as Cloud Storage's canonical forms do. */
export const strictEncode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const malformed = (message: string): XmlError =>
  new XmlError(400, 'AuthorizationQueryParametersError', message);

/** Whether a request carries a signed URL's query (V4 or V2). */
export function isSignedQuery(q: URLSearchParams): boolean {
  return (
    q.has('X-Goog-Algorithm') || q.has('X-Goog-Signature') || (q.has('GoogleAccessId') && q.has('Signature'))
  );
}

const headerValue = (req: http.IncomingMessage, name: string): string => {
  const v = req.headers[name];
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s{2,}/g, ' ');
};

function mismatch(stringToSign: string, canonicalRequest?: string): XmlError {
  return new XmlError(
    403,
    'SignatureDoesNotMatch',
    'Access denied. The request signature we calculated does not match the signature you provided. Check your Google secret key and signing method.',
    {
      StringToSign: stringToSign,
      ...(canonicalRequest !== undefined ? { CanonicalRequest: canonicalRequest } : {}),
    },
  );
}

function verified(keysOf: KeysOf, email: string, data: string, signature: Buffer): boolean {
  if (keysOf === undefined) return true;
  return verifyRsaSha256(keysOf(email), data, signature) !== undefined;
}

/** `YYYYMMDDTHHMMSSZ` → epoch milliseconds. */
function parseGoogDate(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
}

/** What a signed URL that verifies grants: who it acts as, and which request headers it covers. */
export interface SignedRequest {
  /** `serviceAccount:<email>`. */
  readonly member: string;
  /** Whether the signature covers a header (lower case): V2 every `x-goog-*`, V4 its signed headers. */
  readonly covers: (header: string) => boolean;
}

/**
 * What a signed URL grants, or an XmlError. `rawPath` and `rawQuery` are the request's as sent.
 */
export function verifySignedUrl(
  req: http.IncomingMessage,
  rawPath: string,
  rawQuery: string,
  keysOf: KeysOf,
  now = Date.now(),
): SignedRequest {
  const params = rawQueryParams(rawQuery, (k) =>
    malformed(`The query parameter ${k} is not valid percent-encoding.`),
  );
  const get = (name: string): string | undefined => params.find(([k]) => k === name)?.[1];
  const method = req.method ?? 'GET';
  if (get('X-Goog-Algorithm') !== undefined || get('X-Goog-Signature') !== undefined) {
    const member = verifyV4(req, method, rawPath, params, get, keysOf, now);
    const signed = new Set((get('X-Goog-SignedHeaders') ?? '').split(';'));
    return { member, covers: (header) => signed.has(header) };
  }
  const member = verifyV2(req, method, rawPath, get, keysOf, now);
  return { member, covers: (header) => header.startsWith('x-goog-') };
}

function verifyV4(
  req: http.IncomingMessage,
  method: string,
  rawPath: string,
  params: readonly [string, string][],
  get: (name: string) => string | undefined,
  keysOf: KeysOf,
  now: number,
): string {
  const algorithm = get('X-Goog-Algorithm');
  if (algorithm !== V4_ALGORITHM)
    throw malformed(
      `X-Goog-Algorithm must be ${V4_ALGORITHM}${algorithm === undefined ? '' : `, not ${algorithm}`}.`,
    );
  const credential = get('X-Goog-Credential') ?? '';
  const cred = /^([^/]+@[^/]+)\/(\d{8})\/([^/]+)\/storage\/goog4_request$/.exec(credential);
  if (!cred) throw malformed(`X-Goog-Credential is malformed: ${credential}`);
  const [, email = '', day = '', location = ''] = cred;
  const dateText = get('X-Goog-Date') ?? '';
  const date = parseGoogDate(dateText);
  if (date === undefined || !dateText.startsWith(day))
    throw malformed(`X-Goog-Date must be YYYYMMDDTHHMMSSZ on the credential's day: ${dateText}`);
  const expiresText = get('X-Goog-Expires') ?? '';
  if (!/^\d+$/.test(expiresText) || Number(expiresText) < 1)
    throw malformed(`X-Goog-Expires must be a number of seconds: ${expiresText}`);
  const expires = Number(expiresText);
  if (expires > MAX_V4_EXPIRES)
    throw malformed(`X-Goog-Expires must be at most ${MAX_V4_EXPIRES} seconds (7 days): ${expiresText}`);
  const signedHeaders = get('X-Goog-SignedHeaders') ?? '';
  const names = signedHeaders.split(';');
  if (!names.includes('host')) throw malformed('X-Goog-SignedHeaders must include host.');
  const signatureHex = get('X-Goog-Signature') ?? '';
  if (!/^(?:[0-9a-f]{2})+$/i.test(signatureHex)) throw malformed('X-Goog-Signature must be hexadecimal.');

  if (now < date)
    throw new XmlError(403, 'AccessDenied', 'Access denied.', {
      Details: `The request is not yet valid: X-Goog-Date is ${new Date(date).toISOString()}.`,
    });
  if (now >= date + expires * 1000)
    throw new XmlError(400, 'ExpiredToken', 'The provided token has expired.', {
      Details: `Request signature expired at: ${new Date(date + expires * 1000).toISOString()}`,
    });

  const query = params
    .filter(([k]) => k !== 'X-Goog-Signature')
    .map(([k, v]) => [strictEncode(k), strictEncode(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const scope = `${day}/${location}/storage/goog4_request`;
  const payload = names.includes('x-goog-content-sha256')
    ? headerValue(req, 'x-goog-content-sha256')
    : 'UNSIGNED-PAYLOAD';
  const host = headerValue(req, 'host');
  const hosts = host.includes(':') && !host.endsWith(']') ? [host, host.replace(/:\d+$/, '')] : [host];
  const signature = Buffer.from(signatureHex, 'hex');
  let first: { stringToSign: string; canonical: string } | undefined;
  for (const h of hosts) {
    const headers = names.map((n) => `${n}:${n === 'host' ? h : headerValue(req, n)}\n`).join('');
    const canonical = [method, rawPath, query, headers, signedHeaders, payload].join('\n');
    const digest = createHash('sha256').update(canonical).digest('hex');
    const stringToSign = [V4_ALGORITHM, dateText, scope, digest].join('\n');
    if (verified(keysOf, email, stringToSign, signature)) return `serviceAccount:${email}`;
    first ??= { stringToSign, canonical };
  }
  throw mismatch(first?.stringToSign ?? '', first?.canonical);
}

function verifyV2(
  req: http.IncomingMessage,
  method: string,
  rawPath: string,
  get: (name: string) => string | undefined,
  keysOf: KeysOf,
  now: number,
): string {
  const email = get('GoogleAccessId') ?? '';
  if (!/^[^\s@]+@[^\s@]+$/.test(email))
    throw malformed(`GoogleAccessId must be a service account's email: ${email}`);
  const expiresText = get('Expires') ?? '';
  if (!/^\d+$/.test(expiresText))
    throw malformed(`Expires must be a number of seconds since the epoch: ${expiresText}`);
  const signatureText = get('Signature') ?? '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signatureText)) throw malformed('Signature must be base64.');
  if (now >= Number(expiresText) * 1000)
    throw new XmlError(400, 'ExpiredToken', 'The provided token has expired.', {
      Details: `Request signature expired at: ${new Date(Number(expiresText) * 1000).toISOString()}`,
    });
  const extension = Object.keys(req.headers)
    .filter((n) => n.startsWith('x-goog-'))
    .sort()
    .map((n) => `${n}:${headerValue(req, n)}\n`)
    .join('');
  const stringToSign = [
    method,
    headerValue(req, 'content-md5'),
    headerValue(req, 'content-type'),
    expiresText,
    `${extension}${rawPath}`,
  ].join('\n');
  if (verified(keysOf, email, stringToSign, Buffer.from(signatureText, 'base64')))
    return `serviceAccount:${email}`;
  throw mismatch(stringToSign);
}

/**
 * The member a POST policy's form acts as: its signature (V4 `x-goog-signature` in hex with
 * `x-goog-credential`, or V2 `signature` in base64 with `GoogleAccessId`) verified over the base64
 * policy as sent, with the signer's published keys. `fields` are the form's, named in lower case.
 */
export function verifyPolicySignature(
  fields: ReadonlyMap<string, string>,
  policy: string,
  keysOf: KeysOf,
): string {
  const v4 = fields.get('x-goog-signature');
  if (v4 !== undefined) {
    const algorithm = fields.get('x-goog-algorithm');
    if (algorithm !== V4_ALGORITHM) throw malformed(`x-goog-algorithm must be ${V4_ALGORITHM}.`);
    const email = /^([^/]+@[^/]+)\/\d{8}\/[^/]+\/storage\/goog4_request$/.exec(
      fields.get('x-goog-credential') ?? '',
    )?.[1];
    if (email === undefined) throw malformed('x-goog-credential is malformed.');
    if (!/^(?:[0-9a-f]{2})+$/i.test(v4)) throw malformed('x-goog-signature must be hexadecimal.');
    if (verified(keysOf, email, policy, Buffer.from(v4, 'hex'))) return `serviceAccount:${email}`;
    throw mismatch(policy);
  }
  const email = fields.get('googleaccessid');
  const signature = fields.get('signature');
  if (email === undefined || signature === undefined)
    throw malformed('A POST policy needs x-goog-signature (V4) or GoogleAccessId and signature (V2).');
  if (verified(keysOf, email, policy, Buffer.from(signature, 'base64'))) return `serviceAccount:${email}`;
  throw mismatch(policy);
}
