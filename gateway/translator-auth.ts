/**
 * How a translator's senders prove themselves (docs/senders.md), for the translate handler in
 * server.ts: a vendor's body signature checked on the bytes as received (signedBody), a token
 * scoped to the translator in its URL (urlCredential, authenticateInUrl, and the GET a sender
 * makes to check its webhook URL: verifyUrl), and which principals may use a translator
 * (mayTranslate).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiError, apiError } from '../core/errors.ts';
import { type AuthResult, authenticateUrlToken, oneCredential, type Principal } from './auth.ts';
import { inflateBody, type RawBody, receiveBody } from './body.ts';
import { TOKEN_PREFIX } from './credentials.ts';
import { note, protoOf, type Runtime, refused, send, sendError, translatorNow } from './runtime.ts';
import { TRANSLATOR_CHARSETS, type TranslatorEntry, verifyDelivery } from './translate.ts';

/** A signed body, or why not: the refusal to record (a bad signature), or the error to answer. */
type Signed =
  | { ok: true; value: RawBody }
  | { ok: false; error: ApiError; refusal?: [ApiError, string, string | undefined] };

/**
 * A signing sender (Stripe, GitHub, …) cannot add a token: its signature is its credential,
 * checked on the bytes as they arrived, before they are inflated or parsed.
 */
export async function signedBody(
  rt: Runtime,
  req: IncomingMessage,
  name: string,
  signature: NonNullable<NonNullable<TranslatorEntry['spec']['auth']>['signature']>,
  media: readonly string[],
): Promise<Signed> {
  const got = await receiveBody(req, rt.limits, rt.bodyTimeoutMs, media, TRANSLATOR_CHARSETS);
  if (!got.ok) return got;
  const check = await verifyDelivery(
    name,
    signature,
    {
      method: req.method ?? 'POST',
      url: `${protoOf(rt, req)}://${req.headers.host ?? ''}${req.url ?? ''}`,
      header: (h) => {
        const v = req.headers[h];
        return Array.isArray(v) ? v[0] : v;
      },
      body: got.value.received,
    },
    {
      secrets: rt.deps.secrets,
      certificates: rt.certificates.source,
      replays: rt.replays,
      now: rt.now(),
      log: rt.log,
    },
  );
  if (!check.ok) {
    const refusal: [ApiError, string, string] | undefined = check.reason
      ? [check.error, `signature:${signature.scheme}`, check.reason]
      : undefined;
    return refusal ? { ok: false, error: check.error, refusal } : { ok: false, error: check.error };
  }
  return inflateBody(got.value, rt.limits);
}

/** A credential in a translator's URL: its last path segment, or a token in `?key=`. */
export function urlCredential(
  pathCredential: string | undefined,
  query: Readonly<URLSearchParams>,
): string | undefined {
  const key = query.get('key');
  return pathCredential ?? (key?.startsWith(TOKEN_PREFIX) ? key : undefined);
}

/**
 * A URL credential, where the translator takes one (auth.url_token), and the request's only
 * one: a header or a second `?key=` beside it is refused, never ignored (oneCredential).
 */
export async function authenticateInUrl(
  rt: Runtime,
  req: IncomingMessage,
  entry: TranslatorEntry | undefined,
  name: string,
  presented: string,
  query: Readonly<URLSearchParams>,
  inPath: boolean,
): Promise<AuthResult> {
  const notOne = oneCredential(req, query.getAll('key'), inPath);
  if (notOne) return notOne;
  return entry && !entry.spec.auth?.url_token
    ? {
        ok: false,
        error: apiError('INVALID_CREDENTIALS', {
          detail: `translator ${name} takes no credential in its URL (its spec's auth.url_token)`,
        }),
      }
    : authenticateUrlToken(presented, name, rt.authDeps);
}

/**
 * `GET` on a translator's URL with its credential: senders that check a webhook URL before
 * they post to it (Mailchimp sends a GET when the webhook is saved) get 200 when the URL would
 * be accepted, and the refusal a POST would get otherwise. Nothing is read or published.
 */
export async function verifyUrl(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  presented: string,
  inPath: boolean,
  query: Readonly<URLSearchParams>,
): Promise<void> {
  note(rt, req, { translator: name });
  const entry = await translatorNow(rt, name);
  if (entry === null)
    return sendError(rt, req, res, apiError('REGISTRY_UNAVAILABLE', { retryAfter: 5 }), true);
  const auth = await authenticateInUrl(rt, req, entry, name, presented, query, inPath);
  if (!auth.ok) {
    refused(rt, req, auth.error, auth.credential, { translator: name, size: undefined });
    return sendError(rt, req, res, auth.error, true);
  }
  if (!entry) return sendError(rt, req, res, apiError('NOT_FOUND', { resource: `translator ${name}` }), true);
  send(rt, req, res, 200, { status: 'ok', translator: name });
}

export function mayTranslate(principal: Principal, name: string, sdkPath: boolean): boolean {
  if (principal.kind === 'signature') return principal.id === name;
  if (principal.kind === 'token')
    return ['admin', 'translate:*', `translate:${name}`].some((s) => principal.scopes.includes(s));
  // A write key sits in a page's source: it publishes a browser SDK's calls on their own paths
  // (bound to its origins and its event list; money events unverified without the allowance),
  // never a translator's bulk payloads (a file, a vendor's webhook) on /v1/translators.
  return principal.kind !== 'key' || sdkPath;
}
