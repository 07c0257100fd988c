/**
 * Service-account keys of a local environment, as Google has them: a `serviceAccount:` member may
 * hold RSA keys; the private half goes to whoever asked, in Google's `service_account` key file
 * (type, project_id, private_key_id, private_key, client_email, client_id, token_uri, …), and the
 * public half is published where the emulators read it — locally the access file's
 * `serviceAccountKeys` (iam-policy-file.ts), where Google publishes an x509 certificate per key.
 *
 * What the emulators verify with a published key:
 * - a **self-signed JWT** sent as the bearer token (`verifySelfSignedJwt`), which Google's auth
 *   libraries send instead of an access token for a key file outside googleapis.com's universe (and
 *   the gRPC clients in every universe): RS256, a `kid` this environment published for the key's
 *   service account, `iss` = `sub` = its email, `exp` at most an hour after `iat` and not passed,
 *   and either a `scope` or an `aud` naming a service of the key's universe;
 * - a **signature** over a string to sign (`verifyRsaSha256`): Cloud Storage's signed URLs and
 *   POST policies, made by the key's private half.
 * A token signed by a key this environment did not publish, an expired one, or one of another
 * environment (its `kid` unknown here) does not verify: the caller gets the service's 401.
 *
 * The OAuth JWT-bearer exchange (a JWT posted to the key file's `token_uri`) is not served: the
 * installed auth libraries (gtoken 7 and 8) post it to Google's fixed token URL whatever the file
 * says, so no local client could reach it.
 */
import { createPublicKey, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * The universe the keys of a local environment belong to. A key file naming a universe other than
 * googleapis.com makes Google's auth library sign its own bearer JWTs rather than ask Google's token
 * endpoint for an access token, which no local environment can answer.
 */
export const LOCAL_UNIVERSE = 'eventbus.localhost';

/** How long a self-signed JWT may last, as Google bounds it: `exp` at most an hour past `iat`. */
const MAX_JWT_SECONDS = 3600;
/** Clock skew tolerated on `iat` (a JWT issued slightly in the future). */
const SKEW_SECONDS = 300;

/** A key's public half as the emulators read it (the access file's `serviceAccountKeys`). */
export interface PublishedKey {
  /** The service account's email (the member without `serviceAccount:`). */
  readonly serviceAccount: string;
  /** The key's id: the key file's `private_key_id`, a JWT's `kid`. */
  readonly keyId: string;
  /** SPKI PEM. */
  readonly publicKey: string;
  /** The universe its key file names (default LOCAL_UNIVERSE): a JWT's `aud` must be of it. */
  readonly universe?: string;
}

/** Google's service-account key file, as its auth libraries read it. */
export interface ServiceAccountKeyFile {
  readonly type: 'service_account';
  readonly project_id: string;
  readonly private_key_id: string;
  readonly private_key: string;
  readonly client_email: string;
  readonly client_id: string;
  readonly auth_uri: string;
  readonly token_uri: string;
  readonly auth_provider_x509_cert_url: string;
  readonly client_x509_cert_url: string;
  readonly universe_domain: string;
}

/** The email of a `serviceAccount:` member, or undefined for any other member. */
export function serviceAccountEmail(member: string): string | undefined {
  const m = /^serviceAccount:([^\s@]+@[^\s@]+)$/.exec(member);
  return m?.[1];
}

/**
 * A new RSA key for `member` (a `serviceAccount:`): the key file to hand out and the public half to
 * publish. The key file's URLs are Google's (its auth library reads `token_uri` only to name the
 * token's audience in googleapis.com's universe); its universe is `universe`.
 */
export function newServiceAccountKey(
  member: string,
  projectId: string,
  universe = LOCAL_UNIVERSE,
): { keyFile: ServiceAccountKeyFile; published: PublishedKey } {
  const email = serviceAccountEmail(member);
  if (email === undefined) throw new Error(`a key is for a serviceAccount: member, not ${member}`);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = randomBytes(20).toString('hex');
  const keyFile: ServiceAccountKeyFile = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: keyId,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: email,
    client_id: BigInt(`0x${randomBytes(8).toString('hex')}`).toString(10),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
    universe_domain: universe,
  };
  const published: PublishedKey = {
    serviceAccount: email,
    keyId,
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    universe,
  };
  return { keyFile, published };
}

/** Whether `signature` is an RSA-SHA256 signature of `data` by one of `keys`. */
export function verifyRsaSha256(
  keys: readonly PublishedKey[],
  data: string | Buffer,
  signature: Buffer,
): PublishedKey | undefined {
  for (const key of keys) {
    try {
      const v = createVerify('RSA-SHA256');
      v.update(data);
      if (v.verify(createPublicKey(key.publicKey), signature)) return key;
    } catch {
      // a garbled published key verifies nothing
    }
  }
  return undefined;
}

/** Whether a bearer token has a JWT's form (three base64url parts): then it is verified as one. */
export const looksLikeJwt = (token: string): boolean =>
  /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The service an emulator stands in for, as a self-signed JWT must address it: its host under the
 * universe (`aud` `https://<host>.<universe>/`) or one of its OAuth scopes (`cloud-platform` is
 * every service's).
 */
export interface JwtService {
  readonly host: string;
  readonly scopes: readonly string[];
}

const SCOPE = 'https://www.googleapis.com/auth/';
const CLOUD_PLATFORM_SCOPE = `${SCOPE}cloud-platform`;

/** Cloud Storage: its host and scopes, as Google documents them for its JSON API. */
export const STORAGE_JWT_SERVICE: JwtService = {
  host: 'storage',
  scopes: ['devstorage.full_control', 'devstorage.read_write', 'devstorage.read_only'].map((s) => SCOPE + s),
};

/** Whether a JWT's `scope` (space-separated) holds one the service takes; any, without a service. */
function scopeFor(scope: unknown, service: JwtService | undefined): boolean {
  if (typeof scope !== 'string' || scope.trim() === '') return false;
  if (service === undefined) return true;
  return scope
    .split(/\s+/)
    .some(
      (s) =>
        s === CLOUD_PLATFORM_SCOPE || s === `${CLOUD_PLATFORM_SCOPE}.read-only` || service.scopes.includes(s),
    );
}

/** Whether `aud` names `service` (else any service) of `universe`: `https://<service>.<universe>/`. */
function audienceOf(aud: unknown, universe: string, service: JwtService | undefined): boolean {
  if (typeof aud !== 'string') return false;
  try {
    const u = new URL(aud);
    return (
      u.protocol === 'https:' &&
      (service === undefined
        ? u.hostname.endsWith(`.${universe}`)
        : u.hostname === `${service.host}.${universe}`) &&
      (u.pathname === '/' || u.pathname === '')
    );
  } catch {
    return false;
  }
}

/**
 * The member a self-signed JWT speaks for (`serviceAccount:<email>`), or why it does not verify
 * against the keys this environment published.
 */
export function verifySelfSignedJwt(
  keys: readonly PublishedKey[],
  token: string,
  now = Date.now(),
  service?: JwtService,
): { ok: true; member: string } | { ok: false; reason: string } {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'not a JWT' };
  const [h = '', p = '', s = ''] = parts;
  const header = decodePart(h);
  const claims = decodePart(p);
  if (!header || !claims) return { ok: false, reason: 'unreadable' };
  if (header.alg !== 'RS256') return { ok: false, reason: 'not RS256' };
  const key = keys.find((k) => k.keyId === header.kid);
  if (!key) return { ok: false, reason: 'signed by a key this environment did not publish' };
  if (claims.iss !== key.serviceAccount || claims.sub !== key.serviceAccount)
    return { ok: false, reason: "iss and sub must be the key's service account" };
  if (!verifyRsaSha256([key], `${h}.${p}`, Buffer.from(s, 'base64url')))
    return { ok: false, reason: 'bad signature' };
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number')
    return { ok: false, reason: 'iat and exp are required' };
  const seconds = now / 1000;
  if (exp - iat > MAX_JWT_SECONDS) return { ok: false, reason: 'exp is more than an hour after iat' };
  if (iat > seconds + SKEW_SECONDS) return { ok: false, reason: 'issued in the future' };
  if (exp <= seconds) return { ok: false, reason: 'expired' };
  if (!scopeFor(claims.scope, service) && !audienceOf(claims.aud, key.universe ?? LOCAL_UNIVERSE, service))
    return {
      ok: false,
      reason: `neither a scope nor an audience of ${service ? `${service.host} in ` : ''}the key's universe`,
    };
  return { ok: true, member: `serviceAccount:${key.serviceAccount}` };
}
