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
  const answer = await postToGateway(url, { ...headers, 'content-type': contentType.value }, sample.value);
  return answer.ok ? ok({ ...answer.value, signed: Object.keys(headers) }) : answer;
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
