/**
 * Where token and write-key hashes live: a JSON file locally (`file:<path>`, written
 * atomically), one Secret Manager secret in production (`secret:<name>`, a new version per
 * change). Secret Manager is reached through its REST API with google-auth-library's client,
 * which the project already depends on, rather than adding @google-cloud/secret-manager.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { GoogleAuth } from 'google-auth-library';
import { type CredentialSet, EMPTY_CREDENTIALS, isCredentialSet, issueToken } from '../core/credentials.ts';

export interface TokenStore {
  /** A human-readable location, for CLI output. */
  readonly where: string;
  /** How often the gateway should re-read (file: cheap; Secret Manager: every minute). */
  readonly refreshMs: number;
  /** Least time between on-demand re-reads (an unknown token triggers one): bounds the cost of floods. */
  readonly onDemandMinMs: number;
  read(): Promise<CredentialSet>;
  /** Reads, applies `change`, writes the result; returns what `change` returned. */
  update<T>(change: (set: CredentialSet) => { set: CredentialSet; result: T }): Promise<T>;
}

function parseSet(text: string, where: string): CredentialSet {
  if (text.trim() === '') return EMPTY_CREDENTIALS;
  const value: unknown = JSON.parse(text);
  if (!isCredentialSet(value)) throw new Error(`${where} does not hold a token store (version 1)`);
  return value;
}

/** A token store in a local JSON file (mode 0600), replaced atomically by write + rename. */
export function fileTokenStore(path: string): TokenStore {
  const abs = resolve(path);
  return {
    where: `file:${abs}`,
    refreshMs: 1000,
    // A local file is cheap to read: a token created a moment ago by the CLI works at once.
    onDemandMinMs: 0,
    async read() {
      try {
        return parseSet(await readFile(abs, 'utf8'), abs);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_CREDENTIALS;
        throw err;
      }
    },
    async update(change) {
      const current = existsSync(abs) ? parseSet(readFileSync(abs, 'utf8'), abs) : EMPTY_CREDENTIALS;
      const { set, result } = change(current);
      mkdirSync(dirname(abs), { recursive: true });
      const tmp = `${abs}.${process.pid}.${Date.now()}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(set, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, abs);
      return result;
    },
  };
}

/** The HTTP call the Secret Manager store makes; injectable so tests run offline. */
export type AuthorizedRequest = (opts: {
  url: string;
  method: 'GET' | 'POST';
  data?: unknown;
}) => Promise<{ status: number; data: unknown }>;

export interface SecretStoreOptions {
  readonly project: string;
  readonly secret: string;
  /** Defaults to https://secretmanager.googleapis.com. */
  readonly baseUrl?: string;
  /** Defaults to google-auth-library's application-default credentials. */
  readonly request?: AuthorizedRequest;
}

function defaultRequest(): AuthorizedRequest {
  // google-auth-library is loaded on the first read, not at cold start.
  let auth: Promise<GoogleAuth> | undefined;
  return async ({ url, method, data }) => {
    auth ??= import('google-auth-library').then(
      ({ GoogleAuth: Auth }) => new Auth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] }),
    );
    const client = await (await auth).getClient();
    const res = await client.request({
      url,
      method,
      ...(data === undefined ? {} : { data }),
      validateStatus: () => true,
    });
    return { status: res.status, data: res.data };
  };
}

/** A token store in one Secret Manager secret: `versions/latest:access` to read, `:addVersion` to write. */
export function secretTokenStore(options: SecretStoreOptions): TokenStore {
  const base = `${options.baseUrl ?? 'https://secretmanager.googleapis.com'}/v1/projects/${encodeURIComponent(options.project)}/secrets/${encodeURIComponent(options.secret)}`;
  const request = options.request ?? defaultRequest();
  const where = `secret:projects/${options.project}/secrets/${options.secret}`;
  const read = async (): Promise<CredentialSet> => {
    const res = await request({ url: `${base}/versions/latest:access`, method: 'GET' });
    // No version yet (a fresh secret created by Pulumi without a value): an empty store. A 400
    // (the latest version disabled or destroyed) is an error, not "no tokens": the gateway keeps
    // the set it has and says why, instead of silently refusing every producer.
    if (res.status === 404) return EMPTY_CREDENTIALS;
    if (res.status !== 200) throw new Error(`${where}: access returned HTTP ${res.status}`);
    const payload = (res.data as { payload?: { data?: string } }).payload?.data ?? '';
    return parseSet(Buffer.from(payload, 'base64').toString('utf8'), where);
  };
  return {
    where,
    refreshMs: 60_000,
    onDemandMinMs: 5000,
    read,
    async update(change) {
      const { set, result } = change(await read());
      const data = Buffer.from(JSON.stringify(set)).toString('base64');
      const res = await request({ url: `${base}:addVersion`, method: 'POST', data: { payload: { data } } });
      if (res.status !== 200) throw new Error(`${where}: addVersion returned HTTP ${res.status}`);
      return result;
    },
  };
}

/** Opens the store named by EVENTBUS_TOKEN_STORE (`file:<path>` | `secret:<name>`). */
export function openTokenStore(spec: string, project: string, request?: AuthorizedRequest): TokenStore {
  if (spec.startsWith('file:')) return fileTokenStore(spec.slice(5));
  if (spec.startsWith('secret:')) {
    return secretTokenStore({ project, secret: spec.slice(7), ...(request ? { request } : {}) });
  }
  throw new Error(`token store "${spec}" must be file:<path> or secret:<name>`);
}

/**
 * Creates the development token on first run (scope publish:*) and writes the secret to
 * `<dataDir>/dev-token`; later runs return the existing one. Called by the local supervisor.
 */
export async function ensureDevToken(
  dataDir: string,
  store: TokenStore,
): Promise<{ token: string; created: boolean; path: string }> {
  const path = join(dataDir, 'dev-token');
  if (existsSync(path)) {
    const token = readFileSync(path, 'utf8').trim();
    const set = await store.read();
    const id = /^ebt_([0-9a-f]{12})_/.exec(token)?.[1];
    if (id && set.tokens.some((t) => t.id === id && !t.revoked_at)) return { token, created: false, path };
  }
  const token = await store.update((set) => {
    const issued = issueToken(
      set,
      { scopes: ['publish:*'], description: 'development token (npm start)' },
      (n) => randomBytes(n),
      new Date(),
    );
    return { set: issued.set, result: issued.secret };
  });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return { token, created: true, path };
}
