/**
 * OAuth catalogue destinations (issue #78; docs/catalog-destinations.md, "OAuth"): what Segment's
 * definitions say of each (oauth-destinations.json, written at build time by
 * scripts/segment-oauth.ts), and how a destination takes its credentials from an `oauth2`
 * connection of the settings. The connection names the secrets (client id, client secret, refresh
 * token, optionally a first access token); the destination names the connection; before delivery
 * the connection's secrets become the destination's under the roles below, so `forward-catalog`
 * reads them as it reads any secret (cached, from Secret Manager) and `plan()` grants them to it.
 * Pure, and no `node:` import: the studio's pages may bundle it.
 */
import type { Connection, Destination } from '../../../schemas/settings.ts';
import table from './oauth-destinations.json' with { type: 'json' };

/** What Segment's definition of one OAuth destination says of its tokens. */
export interface OAuthDefinition {
  readonly scheme: 'oauth2' | 'oauth-managed';
  /** The definition has `refreshAccessToken`: the runtime gets a new access token with it. */
  readonly refresh: boolean;
  /** The token endpoint its refresh function names, where its text has exactly one URL. */
  readonly tokenUrl?: string;
  /** The credentials its refresh function reads by name (`auth.refreshToken`…). */
  readonly reads: readonly ('refreshToken' | 'clientId' | 'clientSecret')[];
}

export interface OAuthDefinitions {
  /** The @segment/action-destinations version the table was read from. */
  readonly version: string;
  readonly destinations: Readonly<Record<string, OAuthDefinition>>;
}

const TABLE = table as unknown as OAuthDefinitions;

/** The OAuth facts of a destination, by slug; undefined for one that is not OAuth. */
export function oauthDefinition(slug: string): OAuthDefinition | undefined {
  return Object.hasOwn(TABLE.destinations, slug) ? TABLE.destinations[slug] : undefined;
}

/** Every OAuth destination, by slug. */
export function oauthDefinitions(): OAuthDefinitions {
  return TABLE;
}

/** The connection type OAuth destinations name. */
export const OAUTH_CONNECTION = 'oauth2';

/**
 * A connection's secret role → the destination role it is read under. The destination roles are
 * not settings keys of any catalogue destination (their `oauth_` prefix), so they never collide.
 */
export const OAUTH_ROLES = {
  access_token: 'oauth_access_token',
  refresh_token: 'oauth_refresh_token',
  client_id: 'oauth_client_id',
  client_secret: 'oauth_client_secret',
} as const;
export type OAuthConnectionRole = keyof typeof OAUTH_ROLES;

/** The roles an `oauth2` connection may name, in the order the docs list them. */
export const OAUTH_CONNECTION_ROLES = Object.keys(OAUTH_ROLES) as OAuthConnectionRole[];

/** The connection role each credential Segment's refresh function reads is kept under. */
export const ROLE_OF_CREDENTIAL = {
  refreshToken: 'refresh_token',
  clientId: 'client_id',
  clientSecret: 'client_secret',
} as const satisfies Record<OAuthDefinition['reads'][number], OAuthConnectionRole>;

/** The `oauth2` connection a destination names, if it names one that exists and is of that type. */
export function oauthConnectionOf(
  destination: Readonly<Destination>,
  connections: readonly Readonly<Connection>[] | undefined,
): Readonly<Connection> | undefined {
  const id = destination.connection;
  if (id === undefined) return undefined;
  const c = (connections ?? []).find((x) => x.id === id);
  return c?.type === OAUTH_CONNECTION ? c : undefined;
}

/**
 * The destination as forward-catalog delivers it: with its `oauth2` connection's secrets among
 * its own, under OAUTH_ROLES. Unchanged when it names no such connection (the check says why).
 */
export function withOAuthConnection(
  destination: Readonly<Destination>,
  connections: readonly Readonly<Connection>[] | undefined,
): Readonly<Destination> {
  const c = oauthConnectionOf(destination, connections);
  if (!c) return destination;
  const extra: Record<string, string> = {};
  for (const role of OAUTH_CONNECTION_ROLES) {
    const name = c.secrets?.[role];
    if (name !== undefined) extra[OAUTH_ROLES[role]] = name;
  }
  return { ...destination, secrets: { ...(destination.secrets ?? {}), ...extra } };
}

/**
 * The refresh-token secrets forward-catalog rotates (refresh-rotation.ts): the `refresh_token` of
 * each `oauth2` connection a catalogue destination names whose definition refreshes. The
 * workload adds their versions and disables and enables them as its claim (core/access/needs.ts).
 */
export function rotatedRefreshTokenSecrets(settings: {
  readonly destinations?: readonly Readonly<Destination>[] | undefined;
  readonly connections?: readonly Readonly<Connection>[] | undefined;
}): string[] {
  const out = new Set<string>();
  for (const d of settings.destinations ?? []) {
    if (d.type !== 'segment_action' || !oauthDefinition(d.destination ?? '')?.refresh) continue;
    const name = oauthConnectionOf(d, settings.connections)?.secrets?.['refresh_token'];
    if (name !== undefined) out.add(name);
  }
  return [...out];
}
