/**
 * The OAuth side of the `segment_action` runtime (run.ts): a destination's settings and auth from
 * its secrets and `oauth2` connection (`authOf`), and the session that sends, caches and refreshes
 * its access token for one delivery (`oauthSession`, tokens shared per connection by
 * oauth-tokens.ts, a rotated refresh token kept under a claim by refresh-rotation.ts).
 */
import { createHash } from 'node:crypto';
import { environmentRoles } from '../../core/platforms/segment-action/environment.ts';
import { OAUTH_ROLES } from '../../core/platforms/segment-action/oauth.ts';
import { createAccessTokens, type TokenEntry } from '../../core/platforms/segment-action/oauth-tokens.ts';
import { refreshUnderClaim } from '../../core/platforms/segment-action/refresh-rotation.ts';
import { ACCESS_TOKEN_ROLE } from '../../core/platforms/segment-action/roles.ts';
import type { Destination } from '../../schemas/settings.ts';
import type { CoreDestination, LoadedDefinition, OAuthCredentials, RefreshTokenStore } from './core-api.ts';
import { current, type RunContext, type TokenAnswer } from './run-context.ts';

/** An OAuth destination's credentials from its connection, and whether its definition can refresh. */
export interface OAuthSetup {
  readonly credentials: { readonly accessToken?: string } & Omit<OAuthCredentials, 'accessToken'>;
  readonly canRefresh: boolean;
}

/** Access tokens obtained by refreshes, per connection, for this instance (oauth-tokens.ts). */
const ACCESS_TOKENS = createAccessTokens();

export interface OAuthSession {
  readonly canRefresh: boolean;
  /** The token to send: the cached one, the configured one, else a refresh's. */
  token(): Promise<string>;
  /** A new token after `stale` was refused. */
  renew(stale: string | undefined): Promise<string>;
  /** The settings and auth the actions get with a token. */
  apply(token: string): { settings: Record<string, unknown>; auth: Record<string, unknown> };
}

export function oauthSession(
  oauth: OAuthSetup,
  destination: Readonly<Destination>,
  core: CoreDestination,
  settings: Record<string, unknown>,
  run: RunContext,
  obtained: string[],
  store: RefreshTokenStore | undefined,
): OAuthSession {
  const c = oauth.credentials;
  // Per connection and per credential: a rotated secret (another refresh token, another client) starts afresh.
  const key = createHash('sha256')
    .update(`${destination.connection ?? destination.id}\0${c.clientId}\0${c.refreshToken}`)
    .digest('base64url');
  // The secret the connection's refresh token is kept in: there a rotated one survives the instance.
  const secret = destination.secrets?.[OAUTH_ROLES.refresh_token];
  const refresh = async (stale: string | undefined): Promise<TokenEntry> => {
    const refreshing: TokenAnswer = {};
    const call = async (refreshToken: string) => {
      const answered = await current.run({ ...run, refreshing }, () =>
        core.refreshAccessToken(settings, {
          accessToken: stale ?? '',
          refreshToken,
          clientId: c.clientId,
          clientSecret: c.clientSecret,
        }),
      );
      // The definition's word, else the endpoint's answer: many definitions drop a rotated token.
      const rotated =
        typeof answered?.refreshToken === 'string' && answered.refreshToken !== ''
          ? answered.refreshToken
          : refreshing.refreshToken;
      if (rotated) obtained.push(rotated);
      return { accessToken: answered?.accessToken, ...(rotated ? { refreshToken: rotated } : {}) };
    };
    const answered =
      store && secret
        ? await refreshUnderClaim(secret, store.versions(secret), call, store.clock)
        : await call(ACCESS_TOKENS.refreshToken(key) ?? c.refreshToken);
    const accessToken = answered.accessToken;
    if (typeof accessToken !== 'string' || accessToken === '')
      throw Object.assign(new Error('the token endpoint answered no access token'), {
        name: 'InvalidAuthenticationError',
        code: 'OAUTH_REFRESH_FAILED',
      });
    const rotated = answered.refreshToken ?? ACCESS_TOKENS.refreshToken(key);
    return {
      accessToken,
      ...(refreshing.expiresIn !== undefined ? { expiresAt: Date.now() + refreshing.expiresIn * 1000 } : {}),
      ...(rotated ? { refreshToken: rotated } : {}),
    };
  };
  // The token this delivery sends: once obtained, every action of the event sends it until refused.
  let held: string | undefined;
  const renew = (stale: string | undefined) =>
    ACCESS_TOKENS.renew(key, stale, () => refresh(stale)).then((e) => {
      held = e.accessToken;
      obtained.push(held);
      return held;
    });
  return {
    canRefresh: oauth.canRefresh,
    token() {
      const at = held ?? ACCESS_TOKENS.current(key)?.accessToken ?? c.accessToken;
      if (at !== undefined || !oauth.canRefresh) return Promise.resolve(at ?? '');
      return renew(undefined);
    },
    renew,
    apply: (token) => ({
      settings: {
        ...settings,
        oauth: {
          access_token: token,
          refresh_token: c.refreshToken,
          clientId: c.clientId,
          clientSecret: c.clientSecret,
        },
      },
      auth: {
        accessToken: token,
        refreshToken: c.refreshToken,
        clientId: c.clientId,
        clientSecret: c.clientSecret,
      },
    }),
  };
}

export type AuthResult =
  | {
      ok: true;
      settings: Record<string, unknown>;
      auth: Record<string, unknown>;
      /** An OAuth destination with an `oauth2` connection: its credentials. */
      oauth?: OAuthSetup;
    }
  | { ok: false; reason: string };

/**
 * The settings the actions see (the destination's config and secrets by their settings keys) and
 * their auth. An OAuth destination takes its credentials from its `oauth2` connection (the roles
 * of OAUTH_ROLES, oauth.ts): its token is refreshed with the definition's `refreshAccessToken`;
 * or, for the three whose tokens do not expire, an access token under the `access_token` role,
 * used as it is.
 */
export function authOf(
  definition: LoadedDefinition,
  slug: string,
  config: Readonly<Record<string, unknown>>,
  secrets: Readonly<Record<string, string>>,
): AuthResult {
  const scheme = definition.authentication?.scheme;
  const oauth = scheme === 'oauth2' || scheme === 'oauth-managed';
  const {
    [ACCESS_TOKEN_ROLE]: token,
    [OAUTH_ROLES.access_token]: connectionToken,
    [OAUTH_ROLES.refresh_token]: refreshToken,
    [OAUTH_ROLES.client_id]: clientId,
    [OAUTH_ROLES.client_secret]: clientSecret,
    ...rest
  } = secrets;
  // What Segment reads from its environment is not a setting of the destination's (environment.ts).
  const own: Record<string, string> = { ...rest };
  for (const { role } of environmentRoles(slug)) delete own[role];
  const settings = { ...config, ...own };
  if (!oauth)
    return { ok: true, settings: token ? { ...settings, [ACCESS_TOKEN_ROLE]: token } : settings, auth: {} };
  const canRefresh = typeof definition.authentication?.refreshAccessToken === 'function';
  if (refreshToken !== undefined || connectionToken !== undefined || clientId !== undefined)
    return {
      ok: true,
      settings,
      auth: {},
      oauth: {
        credentials: {
          ...(connectionToken !== undefined ? { accessToken: connectionToken } : {}),
          refreshToken: refreshToken ?? '',
          clientId: clientId ?? '',
          clientSecret: clientSecret ?? '',
        },
        canRefresh,
      },
    };
  if (!token)
    return {
      ok: false,
      reason: `${slug} authenticates with OAuth (${scheme}): name an oauth2 connection holding its client and refresh token under the destination's connection (eventbus connect ${slug})`,
    };
  return {
    ok: true,
    settings: { ...settings, oauth: { access_token: token } },
    auth: { accessToken: token },
  };
}
