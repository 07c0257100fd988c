/**
 * OAuth access tokens for the platforms that take one (Google's Data Manager API): by default
 * the function's own service account (Application Default Credentials, no key), or, when a
 * destination names a credentials secret, the credentials it holds: a service account key (`"type": "service_account"`)
 * or an authorized user's refresh token (`"type": "authorized_user"`, what `gcloud auth
 * application-default login --client-id-file=…` writes), through google-auth-library, which
 * caches each token and refreshes it before it expires. `fresh` drops the cached token and client
 * — the forward function asks for it once after a 401 — so a token revoked or expired early is replaced.
 *
 * The token endpoint is fixed in code (Google's, GOOGLE_TOKEN_URL): an authorized user's
 * `token_uri` that names another one is refused with the reason, before any request, since the
 * refresh sends the refresh token and the client secret there. The one exception is an origin on
 * the egress allow-list (configuration: locally, the receiver's Google Ads stand-in; empty on
 * Google Cloud). Every refresh, a service account's included, is sent through the `fetch` given
 * (the egress gate's, adapters/egress.ts), so its address is checked like any call out.
 */

import { createHash } from 'node:crypto';
import type { AuthClient } from 'google-auth-library';
import { type AllowList, EGRESS_REFUSED, EGRESS_REFUSED_CODE } from '../core/egress/policy.ts';
import { createEgressSender, egressFetch } from './egress.ts';
import { noteSecret } from './log-redaction.ts';

/** Google's OAuth 2.0 token endpoint: the one an authorized user's refresh token is sent to. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** Where refreshes are sent from: the egress gate's fetch and its allow-list. */
export interface TokenEgress {
  /** The gate as a fetch (egressFetch); every token request goes through it. */
  readonly fetch: typeof fetch;
  /** Origins taken as token endpoints besides Google's (the configured stand-ins; empty in the cloud). */
  readonly allow: AllowList;
  /**
   * The metadata server named where it is not Google's own address (GCE_METADATA_HOST, read by the
   * entry point; locally the receiver's twin): a function's own token is asked there directly.
   */
  readonly metadataHost?: string;
}

/** How long one token request may take through the gate. */
const TOKEN_CALL_TIMEOUT_MS = 30_000;

/** The token egress of a component: the egress gate (as a fetch) over the configured allow-list. */
export function tokenEgress(allow: AllowList, component: string, metadataHost?: string): TokenEgress {
  return {
    ...(metadataHost ? { metadataHost } : {}),
    fetch: egressFetch(createEgressSender({ allow, component: `${component}-oauth` }), TOKEN_CALL_TIMEOUT_MS),
    allow,
  };
}

/**
 * Why a credentials file's `token_uri` is refused, or undefined for Google's endpoint (or an
 * allow-listed stand-in's). Compared as a URL: `https://oauth2.googleapis.com/token` only.
 */
export function refusedTokenUri(tokenUri: string, allow: AllowList): string | undefined {
  if (tokenUri === GOOGLE_TOKEN_URL) return undefined;
  const url = URL.canParse(tokenUri) ? new URL(tokenUri) : undefined;
  if (url && `${url.origin}${url.pathname}` === GOOGLE_TOKEN_URL && url.search === '') return undefined;
  if (url && allow.has(url.origin)) return undefined;
  return `${EGRESS_REFUSED}: the credentials' token_uri ${JSON.stringify(tokenUri)} is not Google's token endpoint (${GOOGLE_TOKEN_URL}); the refresh token and client secret are sent only there`;
}

/** An access token for these credentials and scope; rejects when none can be obtained. */
export type AccessTokens = (credentials: string, scope: string, fresh: boolean) => Promise<string>;

interface CredentialsJson {
  readonly type?: string;
  readonly client_email?: string;
  readonly private_key?: string;
  readonly client_id?: string;
  readonly client_secret?: string;
  readonly refresh_token?: string;
  readonly token_uri?: string;
}

/** A token source with one client per credentials and scope (google-auth-library loaded on first use). */
export function createAccessTokens(egress: TokenEgress): AccessTokens {
  const clients = new Map<string, Promise<AuthClient>>();
  return async (credentials, scope, fresh) => {
    const key = `${createHash('sha256').update(credentials).digest('hex')} ${scope}`;
    if (fresh) clients.delete(key);
    let client = clients.get(key);
    if (!client) {
      client = clientFor(credentials, scope, egress);
      clients.set(key, client);
      // A client that could not be made is not kept: fixed credentials work on the next call.
      client.catch(() => clients.delete(key));
    }
    const { token } = await (await client).getAccessToken();
    if (!token) throw new Error('the credentials gave no access token');
    noteSecret(token);
    return token;
  };
}

async function clientFor(credentials: string, scope: string, egress: TokenEgress): Promise<AuthClient> {
  // No credentials named: the function's own identity (Application Default Credentials: its
  // service account on Google Cloud), with the scope asked for. No key to create or rotate. Its
  // token comes from the metadata server, which google-auth-library names itself (never a
  // setting or a secret); the gate refuses that address, so this one stays outside it.
  // Where a metadata server is named (GCE_METADATA_HOST: locally, the receiver's twin) its
  // token endpoint is asked directly, as ADC does on Google Cloud, without probing for it.
  if (credentials === '') {
    const { Compute, GoogleAuth } = await import('google-auth-library');
    if (egress.metadataHost) return new Compute({ scopes: [scope] });
    return new GoogleAuth({ scopes: [scope] }).getClient();
  }
  let json: CredentialsJson;
  try {
    json = JSON.parse(credentials) as CredentialsJson;
  } catch {
    throw new Error('the credentials secret is not JSON (a service account key or an authorized user file)');
  }
  const { JWT, UserRefreshClient } = await import('google-auth-library');
  if (json.type === 'service_account') {
    if (!json.client_email || !json.private_key)
      throw new Error('the service account key has no client_email or private_key');
    // The key's own token_uri is not read: gtoken sends the signed assertion to Google's endpoint.
    return new JWT({
      email: json.client_email,
      key: json.private_key,
      scopes: [scope],
      transporterOptions: { fetchImplementation: egress.fetch },
    });
  }
  if (json.type === 'authorized_user') {
    if (!json.client_id || !json.client_secret || !json.refresh_token)
      throw new Error('the authorized user file needs client_id, client_secret and refresh_token');
    const tokenUri = json.token_uri ?? GOOGLE_TOKEN_URL;
    const refused = refusedTokenUri(tokenUri, egress.allow);
    if (refused) throw Object.assign(new Error(refused), { code: EGRESS_REFUSED_CODE });
    return new UserRefreshClient({
      clientId: json.client_id,
      clientSecret: json.client_secret,
      refreshToken: json.refresh_token,
      endpoints: { oauth2TokenUrl: tokenUri },
      transporterOptions: { fetchImplementation: egress.fetch },
    });
  }
  throw new Error(
    `credentials of type ${JSON.stringify(json.type ?? null)}: expected service_account or authorized_user`,
  );
}
