/**
 * The local OAuth 2 stand-in (issue #78; docs/catalog-destinations.md, "OAuth"): an authorization
 * server as RFC 6749 describes one, for the catalogue destinations that authenticate with OAuth.
 * The capturing stand-in (capture.ts) serves it at each destination's own token endpoint (the URLs
 * in core/platforms/segment-action/oauth-destinations.json, Google's among them), so Segment's
 * `refreshAccessToken` runs unchanged under a `base_url`.
 *
 * Token endpoint (RFC 6749 §3.2, §4.1.3, §5, §6): POST only, `application/x-www-form-urlencoded`,
 * no parameter twice; the client authenticates with HTTP Basic (its id and secret form-encoded,
 * §2.3.1) or with `client_id` and `client_secret` in the body, never both; `grant_type`
 * `refresh_token` (the refresh token must be one issued to that client) or `authorization_code`
 * (a code issued by the authorization endpoint to that client, used once, within ten minutes,
 * with the same `redirect_uri`). Success is `{access_token, token_type: "Bearer", expires_in}`
 * (and a refresh token for a code) with `Cache-Control: no-store`; errors are JSON
 * `{error, error_description}`: `invalid_request`, `invalid_client` (401, with
 * `WWW-Authenticate` when Basic was tried), `invalid_grant`, `unsupported_grant_type`.
 *
 * Authorization endpoint (§4.1.1, §4.1.2): `GET /_standin/oauth/authorize?response_type=code&
 * client_id=…&redirect_uri=…&state=…` consents at once (nobody to ask on a laptop) and redirects
 * with `code` and `state`; an unknown client or redirect URI is answered 400 and never redirected.
 *
 * The resource stand-ins (google-sheets.ts) ask `accessTokenState` whether a Bearer token is one it
 * issued and still valid. `expire_first_token` makes a client's first access token expire at once
 * (as if its hour had passed), so a test sees a 401 and the runtime's refresh.
 */
import { randomBytes } from 'node:crypto';
import type { Answer } from './server.ts';

/** A client as a test or `npm start` registers it, with the refresh token it was granted, if any. */
export interface OAuthClientRegistration {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris?: readonly string[];
  /** A refresh token issued to this client (what a user pastes into `eventbus connect`). */
  readonly refresh_token?: string;
  /** Lifetime of the access tokens issued, in seconds (default 3600). */
  readonly expires_in?: number;
  /** The first access token issued to the client is expired at once. */
  readonly expire_first_token?: boolean;
  /**
   * Refresh-token rotation (RFC 6749 §6, OAuth 2.0 Security BCP §4.14): every refresh answers a
   * new refresh token and the one used stops working at once, so a second refresh with it is
   * `invalid_grant`, as the providers that rotate answer.
   */
  readonly rotate_refresh_tokens?: boolean;
}

export interface OAuthStandIn {
  /** Registers (or replaces) a client; returns a problem, or undefined. */
  register(client: unknown): string | undefined;
  /** Answers a request to a token endpoint. */
  token(req: { method: string; headers: Readonly<Record<string, string>>; raw: string }): Answer;
  /** Answers the authorization endpoint. */
  authorize(query: Readonly<Record<string, string>>): Answer;
  /** Whether a Bearer token is valid, expired, or unknown here. */
  accessTokenState(token: string): 'valid' | 'expired' | 'unknown';
}

/** The stand-in's authorization endpoint, under the capturing stand-in's own paths. */
export const AUTHORIZE_PATH = '/_standin/oauth/authorize';
/** Where clients are registered: `POST` an OAuthClientRegistration. */
export const CLIENTS_PATH = '/_standin/oauth/clients';

/** How long an authorization code may be exchanged (RFC 6749 §4.1.2 recommends at most ten minutes). */
const CODE_TTL_MS = 10 * 60_000;
const DEFAULT_EXPIRES_IN = 3600;

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  return { status, body: { error, error_description: description }, headers: { ...NO_STORE, ...headers } };
}

const opaque = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

/** application/x-www-form-urlencoded decoding of one component (`+` is a space). */
const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

/** The body's parameters, or the name of one given twice (RFC 6749 §3.2). */
function formOf(raw: string): { params: Map<string, string> } | { repeated: string } {
  const params = new Map<string, string>();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = formDecode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : formDecode(pair.slice(eq + 1));
    if (params.has(name)) return { repeated: name };
    params.set(name, value);
  }
  return { params };
}

/**
 * The client's credentials from HTTP Basic (each part form-encoded, RFC 6749 §2.3.1). Another
 * scheme is no client authentication and is ignored: Segment's Google destinations send their
 * stale `Bearer` token with the refresh request too, which Google's endpoint does not refuse.
 */
function basicOf(header: string | undefined): { id: string; secret: string } | 'malformed' | undefined {
  if (header === undefined || !/^Basic\b/i.test(header.trim())) return undefined;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!m) return 'malformed';
  const text = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    return { id: formDecode(text.slice(0, colon)), secret: formDecode(text.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

interface Client {
  readonly secret: string;
  readonly redirectUris: readonly string[];
  readonly expiresIn: number;
  expireFirst: boolean;
  readonly rotate: boolean;
}

export function createOAuthStandIn(now: () => number = Date.now): OAuthStandIn {
  const clients = new Map<string, Client>();
  const refreshTokens = new Map<string, string>(); // token → client id
  const accessTokens = new Map<string, { client: string; expiresAt: number }>();
  const codes = new Map<string, { client: string; redirectUri: string | undefined; expiresAt: number }>();

  const issue = (clientId: string, client: Client, withRefresh: boolean): Answer => {
    const access = opaque('sa-');
    const expired = client.expireFirst;
    client.expireFirst = false;
    accessTokens.set(access, {
      client: clientId,
      expiresAt: expired ? now() : now() + client.expiresIn * 1000,
    });
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: client.expiresIn,
    };
    if (withRefresh) {
      const refresh = opaque('sr-');
      refreshTokens.set(refresh, clientId);
      body['refresh_token'] = refresh;
    }
    return { status: 200, body, headers: { ...NO_STORE } };
  };

  return {
    register(raw) {
      const r = raw as Partial<OAuthClientRegistration> | undefined;
      if (typeof r?.client_id !== 'string' || r.client_id === '' || typeof r.client_secret !== 'string')
        return 'expected {client_id, client_secret, redirect_uris?, refresh_token?, expires_in?, expire_first_token?, rotate_refresh_tokens?}';
      const expiresIn = r.expires_in ?? DEFAULT_EXPIRES_IN;
      if (!Number.isInteger(expiresIn) || expiresIn < 1) return 'expires_in must be a positive integer';
      clients.set(r.client_id, {
        secret: r.client_secret,
        redirectUris: Array.isArray(r.redirect_uris)
          ? r.redirect_uris.filter((u) => typeof u === 'string')
          : [],
        expiresIn,
        expireFirst: r.expire_first_token === true,
        rotate: r.rotate_refresh_tokens === true,
      });
      if (typeof r.refresh_token === 'string' && r.refresh_token !== '')
        refreshTokens.set(r.refresh_token, r.client_id);
      return undefined;
    },

    token({ method, headers, raw }) {
      if (method !== 'POST')
        return oauthError(405, 'invalid_request', 'the token endpoint takes POST only', { allow: 'POST' });
      const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded')
        return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
      const form = formOf(raw);
      if ('repeated' in form)
        return oauthError(400, 'invalid_request', `parameter ${form.repeated} is given more than once`);
      const p = form.params;
      const basic = basicOf(headers['authorization']);
      const inBody = p.has('client_secret');
      if (basic !== undefined && inBody)
        return oauthError(
          400,
          'invalid_request',
          'the client authenticates one way only: HTTP Basic or the body',
        );
      const challenge = basic === undefined ? {} : { 'www-authenticate': 'Basic realm="oauth-stand-in"' };
      if (basic === 'malformed')
        return oauthError(401, 'invalid_client', 'malformed HTTP Basic credentials', challenge);
      const clientId = basic?.id ?? p.get('client_id');
      const secret = basic?.secret ?? p.get('client_secret');
      if (basic && p.has('client_id') && p.get('client_id') !== basic.id)
        return oauthError(400, 'invalid_request', 'client_id differs from the authenticated client');
      const client = clientId === undefined ? undefined : clients.get(clientId);
      if (clientId === undefined || secret === undefined || !client || client.secret !== secret)
        return oauthError(401, 'invalid_client', 'client authentication failed', challenge);
      const grant = p.get('grant_type');
      if (grant === undefined || grant === '')
        return oauthError(400, 'invalid_request', 'grant_type is required');
      if (grant === 'refresh_token') {
        const refresh = p.get('refresh_token');
        if (refresh === undefined || refresh === '')
          return oauthError(400, 'invalid_request', 'refresh_token is required');
        if (refreshTokens.get(refresh) !== clientId)
          return oauthError(
            400,
            'invalid_grant',
            'the refresh token is invalid, revoked, or was issued to another client',
          );
        // A rotating provider takes the used token back and answers a new one.
        if (client.rotate) refreshTokens.delete(refresh);
        return issue(clientId, client, client.rotate);
      }
      if (grant === 'authorization_code') {
        const code = p.get('code');
        if (code === undefined || code === '') return oauthError(400, 'invalid_request', 'code is required');
        const issued = codes.get(code);
        codes.delete(code); // used once, whatever the outcome
        if (!issued || issued.client !== clientId || issued.expiresAt < now())
          return oauthError(
            400,
            'invalid_grant',
            'the authorization code is invalid, expired, used, or was issued to another client',
          );
        if (issued.redirectUri !== p.get('redirect_uri'))
          return oauthError(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
        return issue(clientId, client, true);
      }
      return oauthError(400, 'unsupported_grant_type', `grant_type ${grant} is not supported`);
    },

    authorize(query) {
      const client = clients.get(query['client_id'] ?? '');
      const redirectUri = query['redirect_uri'];
      // §4.1.2.1: a bad client or redirect URI is told to the user, never redirected to.
      if (!client) return oauthError(400, 'invalid_request', 'unknown client_id');
      if (redirectUri === undefined || !client.redirectUris.includes(redirectUri))
        return oauthError(400, 'invalid_request', 'redirect_uri is not registered for this client');
      const back = new URL(redirectUri);
      if (query['state'] !== undefined) back.searchParams.set('state', query['state']);
      if (query['response_type'] !== 'code') back.searchParams.set('error', 'unsupported_response_type');
      else {
        const code = opaque('sc-');
        codes.set(code, {
          client: query['client_id'] as string,
          redirectUri,
          expiresAt: now() + CODE_TTL_MS,
        });
        back.searchParams.set('code', code);
      }
      return { status: 302, headers: { location: back.toString(), ...NO_STORE } };
    },

    accessTokenState(token) {
      const t = accessTokens.get(token);
      if (!t) return 'unknown';
      return t.expiresAt > now() ? 'valid' : 'expired';
    },
  };
}
