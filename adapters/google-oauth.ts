/**
 * OAuth access tokens for the platforms that take one (Google's Data Manager API): by default
 * the function's own service account (Application Default Credentials, no key), or, when a
 * destination names a credentials secret, the credentials it holds: a service account key (`"type": "service_account"`)
 * or an authorized user's refresh token (`"type": "authorized_user"`, what `gcloud auth
 * application-default login --client-id-file=…` writes), through google-auth-library, which
 * caches each token and refreshes it before it expires. An authorized user's `token_uri`, when
 * given, is where its token is refreshed (the local stand-in's token endpoint); a service
 * account's tokens always come from Google's. `fresh` drops the cached token and client — the
 * forward function asks for it once after a 401 — so a token revoked or expired early is replaced.
 */

import { createHash } from 'node:crypto';
import type { AuthClient } from 'google-auth-library';
import { noteSecret } from './log-redaction.ts';

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
export function createAccessTokens(): AccessTokens {
  const clients = new Map<string, Promise<AuthClient>>();
  return async (credentials, scope, fresh) => {
    const key = `${createHash('sha256').update(credentials).digest('hex')} ${scope}`;
    if (fresh) clients.delete(key);
    let client = clients.get(key);
    if (!client) {
      client = clientFor(credentials, scope);
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

async function clientFor(credentials: string, scope: string): Promise<AuthClient> {
  // No credentials named: the function's own identity (Application Default Credentials: its
  // service account on Google Cloud), with the scope asked for. No key to create or rotate.
  if (credentials === '') {
    const { GoogleAuth } = await import('google-auth-library');
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
    return new JWT({ email: json.client_email, key: json.private_key, scopes: [scope] });
  }
  if (json.type === 'authorized_user') {
    if (!json.client_id || !json.client_secret || !json.refresh_token)
      throw new Error('the authorized user file needs client_id, client_secret and refresh_token');
    return new UserRefreshClient({
      clientId: json.client_id,
      clientSecret: json.client_secret,
      refreshToken: json.refresh_token,
      ...(json.token_uri ? { endpoints: { oauth2TokenUrl: json.token_uri } } : {}),
    });
  }
  throw new Error(
    `credentials of type ${JSON.stringify(json.type ?? null)}: expected service_account or authorized_user`,
  );
}
