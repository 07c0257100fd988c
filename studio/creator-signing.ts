/**
 * The creator's signed test (docs/studio.md, step 5): the sample signed with the chosen scheme and
 * secret by the same signer the gateway's checks mirror (core/translate/signatures.ts), then
 * posted to the translator's endpoint exactly as the vendor would (its content type, its
 * signature headers, no token, no `?partial`). Here, not in the page: the browser bundle holds no
 * HMAC (node:crypto), and the gateway is another origin. The secret is used for this one request
 * and kept nowhere; the gateway checks the signature against the secret it reads by name, so a
 * wrong secret typed here shows the vendor's 401. With it, what both sends (creator-api.ts's
 * unsigned one too) share: the body's text fields, the translator's URL, the POST itself.
 */

import { fail, ok, type Step } from '../core/step.ts';
import { signRequest } from '../core/translate/signatures.ts';
import { compileValidator } from '../core/validation.ts';
import { TranslatorSignature } from '../schemas/translator.ts';
import { checkedName, invalidField } from './request.ts';

const signatureShape = compileValidator<TranslatorSignature>(TranslatorSignature);

/** The longest sample the studio sends, signed or not (the studio's body cap is 4 MiB). */
export const SAMPLE_MAX = 4 << 20;

/** A request body's text field: a non-empty string of at most `max` characters, or INVALID naming it. */
export function bodyText(body: Record<string, unknown>, field: string, max = 1024): Step<string> {
  const v = body[field];
  if (typeof v !== 'string' || v === '' || v.length > max)
    return invalidField(field, `must be a non-empty string of at most ${max} characters`);
  return ok(v);
}

/**
 * The body's `contentType`, sent as a header: a media type on one line (`application/json;
 * charset=utf-8`). A CR, LF or other control character is the caller's mistake (400), not the
 * gateway's failure: fetch refuses such a header, which used to answer 503 (#75).
 */
export function bodyContentType(body: Record<string, unknown>): Step<string> {
  const v = bodyText(body, 'contentType', 128);
  if (!v.ok) return v;
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;[\x20-\x7e]*)?$/.test(v.value))
    return invalidField('contentType', 'must be a media type on one line, such as application/json');
  return v;
}

/** The translator's endpoint at the gateway, where a sender posts. */
export const translatorUrl = (gatewayUrl: string, translator: string): string =>
  `${gatewayUrl.replace(/\/$/, '')}/v1/translators/${encodeURIComponent(translator)}`;

/**
 * `{translator, signature, secret, contentType, text}` → the gateway's answer `{status, body,
 * signed}` (`signed`: the headers the signature went in, by name; never their values).
 */
export async function signedSend(
  gatewayUrl: string,
  body: Record<string, unknown>,
  now: Date,
): Promise<Step<unknown>> {
  const translator = checkedName('Translator', body['translator'], 'translator');
  if (!translator.ok) return translator;
  const problems = signatureShape.violations(body['signature'], 'signature');
  const first = problems[0];
  if (first) return invalidField(first.field, first.description);
  const sig = body['signature'] as TranslatorSignature;
  const secret = bodyText(body, 'secret');
  if (!secret.ok) return secret;
  const contentType = bodyContentType(body);
  if (!contentType.ok) return contentType;
  const sample = bodyText(body, 'text', SAMPLE_MAX);
  if (!sample.ok) return sample;
  const url = translatorUrl(gatewayUrl, translator.value);
  let headers: Record<string, string>;
  try {
    headers = signRequest(
      sig,
      secret.value,
      { method: 'POST', url, body: sample.value },
      Math.floor(now.getTime() / 1000),
    );
  } catch (err) {
    // A scheme whose vendor signs with its own certificate (`sns`, `paypal`) has no shared secret to sign with.
    return invalidField('signature.scheme', `cannot be signed by the studio: ${(err as Error).message}`);
  }
  const own = sampleHeaders(body);
  if (!own.ok) return own;
  const answer = await postToGateway(
    url,
    { ...own.value, ...headers, 'content-type': contentType.value },
    sample.value,
  );
  return answer.ok ? ok({ ...answer.value, signed: Object.keys(headers) }) : answer;
}

/** Headers the post sets itself: dropped from the sample's own (the page may pass them along). */
const SET_BY_POST =
  /^(content-type|content-length|host|connection|transfer-encoding|expect|te|upgrade|keep-alive)$/i;
/** Headers that carry a credential or a signature: never relayed from a request body. */
const CREDENTIAL =
  /^(authorization|proxy-authorization|cookie|x-api-key|x-goog-api-key|x-write-key)$|signature|hmac/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

/**
 * The sample's own headers (the creator's step 1, `headers: {name: value}`), sent with it so a
 * translator that reads `header:X-Shopify-Topic` finds it: at most 20, each a header name with a
 * value on one line. One that carries a credential or a signature is refused (the token or the
 * studio's signing proves the sender); one the post sets itself is left to the post.
 */
export function sampleHeaders(body: Record<string, unknown>): Step<Record<string, string>> {
  const given = body['headers'];
  if (given === undefined) return ok({});
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    return invalidField('headers', 'must be an object of header names to values');
  const entries = Object.entries(given);
  if (entries.length > 20) return invalidField('headers', 'must hold at most 20 headers');
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const field = `headers.${name.slice(0, 64)}`;
    if (
      !HEADER_NAME.test(name) ||
      typeof value !== 'string' ||
      value.length > 1024 ||
      !/^[\x20-\x7e]*$/.test(value)
    )
      return invalidField(
        field,
        'must be a header name with a value of printable ASCII on one line, at most 1024 characters',
      );
    if (CREDENTIAL.test(name))
      return invalidField(
        field,
        'carries a credential or a signature: the token or the studio signs the sample',
      );
    if (!SET_BY_POST.test(name)) out[name.toLowerCase()] = value;
  }
  return ok(out);
}

/** A POST to the gateway as a sender makes it: its answer's status and JSON body, or UNAVAILABLE. */
export async function postToGateway(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<Step<{ status: number; body: unknown }>> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    return fail('UNAVAILABLE', { retryAfter: 5, detail: `the gateway: ${String(err)}` });
  }
  const answer: unknown = await res.json().catch(() => ({}));
  return ok({ status: res.status, body: answer });
}
