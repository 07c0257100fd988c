/**
 * OAuth 1.0a request signing (RFC 5849 §3.4.1, HMAC-SHA1), what X's Ads API takes as "user
 * context" (docs/platforms.md, "X"). Pure: the nonce and timestamp come from the caller, so a
 * request is the same for the same inputs. A JSON body is not part of the signature (only form
 * bodies are), so only the URL's query and the protocol parameters are signed.
 */
import { createHmac } from 'node:crypto';

export interface OAuth1Credentials {
  readonly consumerKey: string;
  readonly consumerSecret: string;
  readonly token: string;
  readonly tokenSecret: string;
}

/** RFC 3986 percent-encoding, as RFC 5849 §3.6 asks (encodeURIComponent leaves !'()* alone). */
export const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The signature base string's parameters: the protocol ones and the query, encoded and sorted. */
export function signatureBase(method: string, url: string, params: Readonly<Record<string, string>>): string {
  const u = new URL(url);
  const pairs = [...Object.entries(params), ...u.searchParams.entries()].map(([k, v]) => [
    rfc3986(k),
    rfc3986(v),
  ]);
  pairs.sort(([ak = '', av = ''], [bk = '', bv = '']) => (ak === bk ? (av < bv ? -1 : 1) : ak < bk ? -1 : 1));
  const normalized = pairs.map(([k, v]) => `${k}=${v}`).join('&');
  const base = `${u.protocol}//${u.host}${u.pathname}`;
  return [method.toUpperCase(), rfc3986(base), rfc3986(normalized)].join('&');
}

/** The HMAC-SHA1 signature of a base string with the two secrets. */
export const hmacSha1 = (base: string, consumerSecret: string, tokenSecret: string): string =>
  createHmac('sha1', `${rfc3986(consumerSecret)}&${rfc3986(tokenSecret)}`)
    .update(base)
    .digest('base64');

/** The `Authorization: OAuth …` header of a request. */
export function oauth1Header(
  method: string,
  url: string,
  creds: OAuth1Credentials,
  nonce: string,
  timestamp: number,
): string {
  const params: Record<string, string> = {
    oauth_consumer_key: creds.consumerKey,
    oauth_nonce: nonce,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(timestamp),
    oauth_token: creds.token,
    oauth_version: '1.0',
  };
  params['oauth_signature'] = hmacSha1(
    signatureBase(method, url, params),
    creds.consumerSecret,
    creds.tokenSecret,
  );
  return `OAuth ${Object.entries(params)
    .map(([k, v]) => `${rfc3986(k)}="${rfc3986(v)}"`)
    .join(', ')}`;
}
