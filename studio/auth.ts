/**
 * Who is calling the studio, and what they may do (docs/studio.md#on-google-cloud).
 *
 * Locally a single admin token stands for one admin. On Google Cloud the studio runs behind
 * Cloud Run's built-in IAP, which lets through only the settings' `studio.viewers`, `.editors`
 * and `.admins` (IAP's httpsResourceAccessor on the service) and adds to every request it
 * forwards a JWT it signed (`x-goog-iap-jwt-assertion`, ES256, Google's IAP keys). The studio
 * checks that JWT (signature, issuer, audience, lifetime) and takes the email as the author.
 * The mode is configuration only: an IAP audience configured (EVENTBUS_IAP_AUDIENCE, set by
 * Pulumi) means IAP callers are accepted; the admin token keeps working either way.
 *
 * Roles: `admin` may do everything, `editor` may apply, `viewer` may only read (GET). A caller
 * named in a list (`user:`, `serviceAccount:`) or in a listed `domain:` gets the highest role of
 * those lists. Group membership cannot be checked here without the Directory API: a caller
 * named nowhere and in no listed domain was let in by IAP through a `group:` entry, and gets the
 * lowest role of the lists that hold a group (least privilege when groups sit in several lists).
 */
import { fail, ok, type Step } from '../core/step.ts';

/** IAP's public keys: key id → PEM (google-auth-library's PublicKeys, not exported by name). */
export type PublicKeys = Readonly<Record<string, string>>;

export type Role = 'viewer' | 'editor' | 'admin';

/** The settings' `studio` lists of IAM members. */
export interface StudioAccess {
  readonly viewers?: readonly string[];
  readonly editors?: readonly string[];
  readonly admins?: readonly string[];
}

/** A verified caller: the author recorded in what they write, and their role. */
export interface Caller {
  readonly author: string;
  readonly role: Role;
}

/** Lowest first. */
const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

const LISTS: readonly (readonly [Role, keyof StudioAccess])[] = [
  ['viewer', 'viewers'],
  ['editor', 'editors'],
  ['admin', 'admins'],
];

/** The issuer of IAP's signed headers. */
export const IAP_ISSUER = 'https://cloud.google.com/iap';

/** The role of a verified email under the settings' lists; undefined when none applies. */
export function roleOf(email: string, access: StudioAccess): Role | undefined {
  const address = email.toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const named = (m: string) => {
    const [type, value = ''] = [m.slice(0, m.indexOf(':')), m.slice(m.indexOf(':') + 1).toLowerCase()];
    if (type === 'user' || type === 'serviceAccount') return value === address;
    return type === 'domain' && value === domain;
  };
  const direct = LISTS.filter(([, list]) => (access[list] ?? []).some(named)).map(([role]) => role);
  if (direct.length > 0) return direct[direct.length - 1];
  return LISTS.find(([, list]) => (access[list] ?? []).some((m) => m.startsWith('group:')))?.[0];
}

/** What a call does: reads (GET), applies, or deletes. */
export type Action = 'read' | 'apply' | 'delete';

const NEEDS: Readonly<Record<Action, Role>> = { read: 'viewer', apply: 'editor', delete: 'admin' };

/** Whether `role` may do `action`: viewers read, editors also apply, admins also delete. */
export const allowed = (role: Role, action: Action): boolean =>
  ROLES.indexOf(role) >= ROLES.indexOf(NEEDS[action]);

/** Where the verifier gets IAP's public keys (kid → PEM); tests inject their own. */
export type KeySource = () => Promise<PublicKeys>;

/** Google's IAP keys (https://www.gstatic.com/iap/verify/public_key), through google-auth-library. */
export const googleIapKeys: KeySource = async () => {
  const { OAuth2Client } = await import('google-auth-library');
  return (await new OAuth2Client().getIapPublicKeys()).pubkeys;
};

/**
 * Verifies IAP's signed header for one audience and gives the caller's email, or the 401 to
 * answer. Keys are kept for an hour and fetched again at once when a token names a key not
 * among them (rotation); a failure to fetch them throws (the studio answers 503).
 */
export function iapVerifier(
  audience: string,
  keys: KeySource = googleIapKeys,
  now: () => number = Date.now,
): (jwt: string) => Promise<Step<string>> {
  let cached: { keys: PublicKeys; at: number } | undefined;
  const load = async (force: boolean): Promise<PublicKeys> => {
    if (!cached || force || now() - cached.at > 3_600_000) cached = { keys: await keys(), at: now() };
    return cached.keys;
  };
  return async (jwt) => {
    const { OAuth2Client } = await import('google-auth-library');
    const client = new OAuth2Client();
    const kid = headerKid(jwt);
    let set = await load(false);
    if (kid && !(kid in set)) set = await load(true);
    let payload: { email?: unknown } | undefined;
    try {
      payload = (await client.verifySignedJwtWithCertsAsync(jwt, set, audience, [IAP_ISSUER])).getPayload();
    } catch (err) {
      // The library's messages quote the token: keep only the first clause.
      return refused(String((err as Error).message).split(':')[0] ?? '');
    }
    if (typeof payload?.email !== 'string' || payload.email === '') return refused('no email');
    return ok(payload.email);
  };
}

const refused = (why: string) => fail('INVALID_CREDENTIALS', { detail: `IAP assertion refused: ${why}` });

function headerKid(jwt: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')) as {
      kid?: unknown;
    };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}
