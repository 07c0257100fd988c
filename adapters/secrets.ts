/**
 * Secret values read at run time, by name, and cached: an environment variable with the secret's
 * name, else a file with that name in EVENTBUS_SECRETS_DIR (in-process test stacks only), else
 * Secret Manager (`versions/latest:access` over REST). Which source applies is configuration, not
 * a `local` switch: locally the supervisor points SECRET_MANAGER_EMULATOR_HOST at the Secret
 * Manager emulator, which answers as Secret Manager does (IAM included); as Google's clients do
 * for an emulator host, no Google credentials are sent there (the port says who calls).
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GoogleAuth } from 'google-auth-library';
import { noteSecret } from './log-redaction.ts';

/** Values are re-read after this long, so a rotated secret takes effect without a deploy. */
export const SECRET_TTL_MS = 5 * 60_000;
/** A missing value is re-checked sooner: setting it should fix deliveries within seconds. */
export const MISSING_TTL_MS = 10_000;

/** A secret's name, or `<name>@<version>` for one version of it (a webhook key rotation). */
const SECRET_NAME = /^[A-Za-z0-9_-]{1,255}(@[1-9][0-9]{0,9})?$/;

export interface SecretsOptions {
  /** The explicit environment (entry points pass process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secretsDir?: string | undefined;
  /** SECRET_MANAGER_EMULATOR_HOST: Secret Manager's REST API at this URL, without credentials. */
  readonly endpoint?: string | undefined;
  readonly project: string;
  /** Secret Manager access; defaults to REST through google-auth-library. */
  readonly secretManager?: SecretManagerAccess;
  readonly now?: () => number;
}

/** Reads the latest version of a secret; undefined when it or its version does not exist. */
export type SecretManagerAccess = (project: string, name: string) => Promise<string | undefined>;

export interface Secrets {
  /** The value, undefined when no source has one; throws when a source is unreachable. */
  get(name: string): Promise<string | undefined>;
  /**
   * The cached answer while it is fresh, without a promise (the per-delivery fast path:
   * every await in `forward` costs a domain enter/exit under the functions framework);
   * undefined when `get` has to read.
   */
  peek(name: string): { readonly value: string | undefined } | undefined;
}

/** Creates a cached secret reader over the configured sources. */
export function createSecrets(options: SecretsOptions): Secrets {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { value: string | undefined; expires: number }>();
  const pending = new Map<string, Promise<string | undefined>>();
  let manager = options.secretManager;

  const lookup = async (name: string): Promise<string | undefined> => {
    const fromEnv = options.env[name];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    if (options.secretsDir !== undefined) return readSecretFile(options.secretsDir, name);
    manager ??= restSecretManager(undefined, options.endpoint);
    return manager(options.project, name);
  };

  return {
    peek(name) {
      const hit = cache.get(name);
      return hit && hit.expires > now() ? hit : undefined;
    },
    async get(name) {
      if (!SECRET_NAME.test(name)) throw new Error(`invalid secret name ${JSON.stringify(name)}`);
      const hit = cache.get(name);
      if (hit && hit.expires > now()) return hit.value;
      // Concurrent deliveries share one read.
      let p = pending.get(name);
      if (!p) {
        p = lookup(name).finally(() => pending.delete(name));
        pending.set(name, p);
      }
      const value = await p;
      // Whatever reads it, its value never reaches a log line (adapters/log-redaction.ts).
      noteSecret(value);
      cache.set(name, { value, expires: now() + (value === undefined ? MISSING_TTL_MS : SECRET_TTL_MS) });
      return value;
    },
  };
}

async function readSecretFile(dir: string, name: string): Promise<string | undefined> {
  try {
    // Editors and `echo` add a final newline that is never part of a key.
    const text = (await readFile(join(dir, name), 'utf8')).replace(/\r?\n$/, '');
    return text === '' ? undefined : text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Secret Manager refused the caller (403 PERMISSION_DENIED): the workload's account lacks the
 * permission (`secretmanager.versions.access`) on the secret. Not a missing value: the fix is a
 * grant, which the message names.
 */
export class SecretAccessDenied extends Error {
  readonly secret: string;
  readonly permission: string;
  readonly principal: string | undefined;
  constructor(secret: string, permission: string, principal: string | undefined, detail: string) {
    super(`${permission} denied on secret ${secret}${principal ? ` for ${principal}` : ''}: ${detail}`);
    this.name = 'SecretAccessDenied';
    this.secret = secret;
    this.permission = permission;
    this.principal = principal;
  }
}

/** The permission and principal Google's ErrorInfo names in a 403 body, if it does. */
function deniedBy(body: unknown): { permission?: string; principal?: string; message: string } {
  const error = (body as { error?: { message?: string; details?: { metadata?: Record<string, string> }[] } })
    ?.error;
  const meta = error?.details?.find((d) => d.metadata?.['permission'])?.metadata;
  const named = /Permission '([a-z.]+)'/.exec(error?.message ?? '')?.[1];
  const permission = meta?.['permission'] ?? named;
  return {
    ...(permission ? { permission } : {}),
    ...(meta?.['principal'] ? { principal: meta['principal'] } : {}),
    message: error?.message ?? 'permission denied',
  };
}

/** One Secret Manager REST call: its HTTP status and JSON body (an HTTP error is an answer, not a throw). */
export type SecretManagerCall = (
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
) => Promise<{ status: number; body: unknown }>;

/**
 * Secret Manager's REST calls at secretmanager.googleapis.com with google-auth-library
 * credentials (loaded on the first call, not when the function loads), or at an emulator's
 * `endpoint` without any; the base URL they are made under.
 */
export function secretManagerCall(
  auth?: GoogleAuth,
  endpoint?: string,
): { base: string; call: SecretManagerCall } {
  let gettingAuth: Promise<GoogleAuth> | undefined;
  const authOf = async (): Promise<GoogleAuth> => {
    if (auth) return auth;
    gettingAuth ??= import('google-auth-library').then(
      ({ GoogleAuth: Auth }) => new Auth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] }),
    );
    auth = await gettingAuth;
    return auth;
  };
  const call: SecretManagerCall = async (method, url, body) => {
    if (endpoint !== undefined) {
      const res = await fetch(url, {
        method,
        signal: AbortSignal.timeout(10_000),
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return { status: res.status, body: await res.json().catch(() => undefined) };
    }
    const client = await (await authOf()).getClient();
    try {
      // Only reads are retried: a repeated addVersion would add the token twice.
      const res = await client.request({
        url,
        method,
        retry: method === 'GET',
        ...(body === undefined ? {} : { data: body }),
      });
      return { status: res.status, body: res.data };
    } catch (err) {
      const response = (err as { response?: { status?: number; data?: unknown } }).response;
      if (response?.status === undefined) throw err;
      return { status: response.status, body: response.data };
    }
  };
  return { base: endpoint ?? 'https://secretmanager.googleapis.com', call };
}

/**
 * Secret Manager over REST (no gRPC client: one small call per secret and TTL), at
 * secretmanager.googleapis.com with google-auth-library credentials, or at an emulator's
 * `endpoint` without any (secretManagerCall).
 */
export function restSecretManager(auth?: GoogleAuth, endpoint?: string): SecretManagerAccess {
  const { base, call } = secretManagerCall(auth, endpoint);
  return async (project, name) => {
    // `<secret>@<version>` reads that version; a bare name the newest.
    const [secret = name, version = 'latest'] = name.split('@');
    const url = `${base}/v1/projects/${encodeURIComponent(project)}/secrets/${encodeURIComponent(secret)}/versions/${version}:access`;
    const { status, body } = await call('GET', url);
    if (status === 200) {
      const data = (body as { payload?: { data?: string } } | undefined)?.payload?.data;
      return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
    }
    // No secret, or no enabled version: "has no value", which the ledger says plainly.
    if (status === 404 || status === 400) return undefined;
    if (status === 403) throw accessDenied(name, body, 'secretmanager.versions.access');
    throw new Error(`Secret Manager answered HTTP ${status} for secret ${name}`);
  };
}

/** A 403's SecretAccessDenied, naming the permission Google's answer names (else `permission`). */
export function accessDenied(name: string, body: unknown, permission: string): SecretAccessDenied {
  const d = deniedBy(body);
  return new SecretAccessDenied(name, d.permission ?? permission, d.principal, d.message);
}
