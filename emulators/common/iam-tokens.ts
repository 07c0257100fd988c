/**
 * The local bearer tokens the emulators accept with `--iam` (`eventbus local token --as`): a
 * member and an expiry, signed with the access file's secret (HMAC-SHA256), shaped like Google's
 * access tokens (`ya29.`) so clients pass them on unchanged.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN_PREFIX = 'ya29.local.';

/** A random secret for a new access file. */
export const newTokenSecret = (): string => randomBytes(32).toString('hex');

const sign = (secret: string, payload: string) =>
  createHmac('sha256', Buffer.from(secret, 'hex')).update(payload).digest('base64url');

/** A bearer token the emulators accept as `member` until `ttlSeconds` from now. */
export function mintToken(secret: string, member: string, ttlSeconds = 3600, now = Date.now()): string {
  const payload = Buffer.from(
    JSON.stringify({ m: member, exp: Math.floor(now / 1000) + ttlSeconds }),
  ).toString('base64url');
  return `${TOKEN_PREFIX}${payload}.${sign(secret, payload)}`;
}

/** The member a token was minted for, or why it is not accepted. */
export function verifyToken(
  secret: string,
  token: string,
  now = Date.now(),
): { ok: true; member: string } | { ok: false; reason: string } {
  if (!token.startsWith(TOKEN_PREFIX)) return { ok: false, reason: 'not a token of this environment' };
  const [payload = '', mac = ''] = token.slice(TOKEN_PREFIX.length).split('.');
  const want = Buffer.from(sign(secret, payload));
  const got = Buffer.from(mac);
  if (want.length !== got.length || !timingSafeEqual(want, got))
    return { ok: false, reason: 'bad signature' };
  let claims: { m?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
  if (typeof claims.m !== 'string' || typeof claims.exp !== 'number')
    return { ok: false, reason: 'unreadable' };
  if (claims.exp * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, member: claims.m };
}

/**
 * The `exp` (epoch seconds) a bearer token claims, a local token's or a JWT's, read without
 * checking it: for a token already verified (iam-checks.ts `callerOf`).
 */
export function claimedExpiry(token: string): number | undefined {
  const payload = token.startsWith(TOKEN_PREFIX)
    ? token.slice(TOKEN_PREFIX.length).split('.')[0]
    : token.split('.')[1];
  try {
    const exp = (JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as { exp?: unknown })
      .exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}
