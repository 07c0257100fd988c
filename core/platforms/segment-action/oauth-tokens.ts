/**
 * The access tokens of OAuth connections, kept in memory by each `forward-catalog` instance
 * (docs/catalog-destinations.md, "OAuth"): a token obtained with Segment's `refreshAccessToken` is
 * used until it expires (when the token endpoint said `expires_in`) or the platform refuses it
 * (401), then replaced. Deliveries in flight that need a new token at once share one refresh: the
 * first starts it, the others wait for it, and one refused with a token another refresh already
 * replaced takes the new one without asking again. A new instance starts with a refresh. A
 * rotated refresh token (a token endpoint that answers a new one) is written back to Secret Manager
 * under the claim of refresh-rotation.ts where the secrets are there; kept here otherwise.
 */

/** A token as the cache keeps it. */
export interface TokenEntry {
  readonly accessToken: string;
  /** When it stops being used (epoch ms), from the token endpoint's `expires_in`; undefined: until refused. */
  readonly expiresAt?: number;
  /** A refresh token the endpoint answered in place of the configured one. */
  readonly refreshToken?: string;
}

/** A token is replaced this long before its stated expiry, so it does not lapse in flight. */
export const EXPIRY_MARGIN_MS = 60_000;

export interface AccessTokens {
  /** The cached token of a connection while it is usable, else undefined. */
  current(key: string): TokenEntry | undefined;
  /**
   * The refresh token the endpoint last answered for a connection, expired access token or not:
   * a rotating provider took the one before it back, so the next refresh must send this one.
   */
  refreshToken(key: string): string | undefined;
  /**
   * A new token after `stale` was refused (or none was at hand): the refresh in flight for the
   * key if there is one, the cached token if it already differs from `stale`, else `refresh()`.
   */
  renew(key: string, stale: string | undefined, refresh: () => Promise<TokenEntry>): Promise<TokenEntry>;
}

export function createAccessTokens(now: () => number = Date.now): AccessTokens {
  const tokens = new Map<string, TokenEntry>();
  const pending = new Map<string, Promise<TokenEntry>>();
  const usable = (e: TokenEntry | undefined) =>
    e !== undefined && (e.expiresAt === undefined || e.expiresAt - EXPIRY_MARGIN_MS > now()) ? e : undefined;
  return {
    current: (key) => usable(tokens.get(key)),
    refreshToken: (key) => tokens.get(key)?.refreshToken,
    renew(key, stale, refresh) {
      const inFlight = pending.get(key);
      if (inFlight) return inFlight;
      const cached = usable(tokens.get(key));
      if (cached && cached.accessToken !== stale) return Promise.resolve(cached);
      const p = refresh()
        .then((entry) => {
          tokens.set(key, entry);
          return entry;
        })
        .finally(() => pending.delete(key));
      pending.set(key, p);
      return p;
    },
  };
}
