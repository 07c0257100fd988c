/**
 * Secret values read at run time, by name, and cached. Locally: an environment variable
 * with the secret's name, or a file with that name in EVENTBUS_SECRETS_DIR. In production:
 * Secret Manager (`versions/latest:access` over REST, google-auth-library credentials).
 * Which sources apply is configuration, not a `local` switch: a secrets dir means files.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GoogleAuth } from 'google-auth-library';
import { noteSecret } from './log-redaction.ts';

/** Values are re-read after this long, so a rotated secret takes effect without a deploy. */
export const SECRET_TTL_MS = 5 * 60_000;
/** A missing value is re-checked sooner: setting it should fix deliveries within seconds. */
export const MISSING_TTL_MS = 10_000;

const SECRET_NAME = /^[A-Za-z0-9_-]{1,255}$/;

export interface SecretsOptions {
  /** The explicit environment (entry points pass process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secretsDir?: string | undefined;
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
    manager ??= restSecretManager();
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
 * Secret Manager over REST (no gRPC client: one small call per secret and TTL).
 * google-auth-library is loaded on the first read, not when the function loads.
 */
export function restSecretManager(auth?: GoogleAuth): SecretManagerAccess {
  let gettingAuth: Promise<GoogleAuth> | undefined;
  const authOf = async (): Promise<GoogleAuth> => {
    if (auth) return auth;
    gettingAuth ??= import('google-auth-library').then(
      ({ GoogleAuth: Auth }) => new Auth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] }),
    );
    auth = await gettingAuth;
    return auth;
  };
  return async (project, name) => {
    const url = `https://secretmanager.googleapis.com/v1/projects/${encodeURIComponent(project)}/secrets/${encodeURIComponent(name)}/versions/latest:access`;
    const client = await (await authOf()).getClient();
    try {
      const res = await client.request<{ payload?: { data?: string } }>({ url, method: 'GET', retry: true });
      const data = res.data.payload?.data;
      return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
    } catch (err) {
      const status = (err as { status?: number; response?: { status?: number } }).response?.status;
      // No secret, or no enabled version: "has no value", which the ledger says plainly.
      if (status === 404 || status === 400) return undefined;
      throw err;
    }
  };
}
