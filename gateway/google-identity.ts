/**
 * Google ID tokens and OAuth access tokens of the principals listed in the settings, checked
 * with google-auth-library. Endpoints are injectable so tests serve certificates and tokeninfo
 * on loopback (docs/google-wire.md §5) and nothing leaves the machine.
 */
import { createHash } from 'node:crypto';
import { loadOnce } from '../adapters/load-once.ts';

export type IdentityResult =
  | { readonly ok: true; readonly email: string }
  /** `denied`: a genuine token that may not publish (403), rather than a bad one (401). */
  | { readonly ok: false; readonly reason: string; readonly denied?: true };

/**
 * The OAuth scopes Pub/Sub's own publish requires: an access token minted for anything less
 * (only `openid email`, say) must not publish through the gateway either.
 */
export const PUBLISH_SCOPES: readonly string[] = Object.freeze([
  'https://www.googleapis.com/auth/pubsub',
  'https://www.googleapis.com/auth/cloud-platform',
]);

export interface GoogleIdentity {
  verify(bearer: string): Promise<IdentityResult>;
}

export interface GoogleIdentityOptions {
  /** Expected `aud` of ID tokens (the gateway's URL); ID tokens are refused when unset. */
  readonly audience?: string;
  /** Overrides of Google's endpoints (tests: loopback). */
  readonly certsUrl?: string;
  readonly tokenInfoUrl?: string;
  /** How long a verified access token is trusted before tokeninfo is asked again. */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Verifies a bearer token as a Google ID token (JWT) or an OAuth access token (tokeninfo). */
export function createGoogleIdentity(options: GoogleIdentityOptions = {}): GoogleIdentity {
  const endpoints: Record<string, string> = {};
  if (options.certsUrl) endpoints['oauth2FederatedSignonPemCertsUrl'] = options.certsUrl;
  if (options.tokenInfoUrl) endpoints['tokenInfoUrl'] = options.tokenInfoUrl;
  // google-auth-library is loaded on the first Google token, not at cold start.
  const oauth = loadOnce(() =>
    import('google-auth-library').then(({ OAuth2Client }) => new OAuth2Client({ endpoints })),
  );
  const cacheMs = options.cacheMs ?? 60_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { until: number; result: IdentityResult }>();

  const verifyUncached = async (bearer: string): Promise<IdentityResult> => {
    if (JWT.test(bearer)) {
      if (!options.audience)
        return { ok: false, reason: 'ID tokens are not accepted: no audience is configured' };
      try {
        const ticket = await (await oauth()).verifyIdToken({ idToken: bearer, audience: options.audience });
        const p = ticket.getPayload();
        if (!p?.email || p.email_verified !== true)
          return { ok: false, reason: 'the ID token has no verified email' };
        return { ok: true, email: p.email.toLowerCase() };
      } catch (err) {
        return { ok: false, reason: `ID token rejected: ${(err as Error).message.slice(0, 200)}` };
      }
    }
    try {
      const info = await (await oauth()).getTokenInfo(bearer);
      if (!info.email || info.email_verified === false)
        return { ok: false, reason: 'the access token has no email' };
      if (info.expiry_date !== undefined && info.expiry_date <= now())
        return { ok: false, reason: 'access token expired' };
      if (!info.scopes.some((scope) => PUBLISH_SCOPES.includes(scope))) {
        return {
          ok: false,
          denied: true,
          reason: `the access token lacks a scope that may publish (${PUBLISH_SCOPES.join(' or ')})`,
        };
      }
      return { ok: true, email: info.email.toLowerCase() };
    } catch {
      return { ok: false, reason: 'access token rejected by tokeninfo' };
    }
  };

  return {
    async verify(bearer) {
      const key = createHash('sha256').update(bearer).digest('base64');
      const hit = cache.get(key);
      if (hit && hit.until > now()) return hit.result;
      const result = await verifyUncached(bearer);
      // Failures are cached briefly so a bad token cannot make us call Google on every request.
      cache.set(key, { until: now() + (result.ok ? cacheMs : 5000), result });
      if (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
      return result;
    },
  };
}

/**
 * Whether an email is one of the principals (`serviceAccount:`, `user:`, `domain:`). Groups
 * cannot be resolved without the Cloud Identity API, so `group:` entries never match here
 * (they still apply on the native path through IAM).
 */
export function principalAllowed(principals: readonly string[], email: string): boolean {
  const e = email.toLowerCase();
  return principals.some((p) => {
    const [kind, value = ''] = [p.slice(0, p.indexOf(':')), p.slice(p.indexOf(':') + 1).toLowerCase()];
    if (kind === 'serviceAccount' || kind === 'user') return value === e;
    if (kind === 'domain') return e.endsWith(`@${value}`);
    return false;
  });
}
