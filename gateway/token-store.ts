/**
 * Where token and write-key hashes live: a JSON file locally (`file:<path>`, written
 * atomically under a lock file), one Secret Manager secret in production (`secret:<name>`, a new
 * version per change, the superseded one destroyed). Every update prunes long-ended records and
 * refuses a set over Secret Manager's 64 KiB payload limit (core/credentials.ts). Secret Manager is reached through its REST API with google-auth-library's client,
 * which the project already depends on, rather than adding @google-cloud/secret-manager.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { loadOnce } from '../adapters/load-once.ts';
import {
  type CredentialSet,
  EMPTY_CREDENTIALS,
  isCredentialSet,
  issueToken,
  mergeCredentials,
  prepareCredentialWrite,
} from './credentials.ts';

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

export interface StoreClock {
  /** Milliseconds since the epoch; pruning on update uses it. Defaults to Date.now. */
  readonly now?: () => number;
}

/** Options of the file store. */
export interface FileStoreOptions extends StoreClock {
  /** How long to wait for another writer's lock before giving up (default 10 s). */
  readonly lockTimeoutMs?: number;
  /** A lock file older than this is a crashed writer's and is taken over (default 30 s). */
  readonly staleLockMs?: number;
}

/**
 * Takes `<path>.lock` (created exclusively), so two CLI runs on one file do not both read the
 * old set and the later write drop the other's new token. Returns the release function.
 */
async function lockFile(path: string, timeoutMs: number, staleMs: number): Promise<() => void> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return () => rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      if (Date.now() - statSync(lock).mtimeMs > staleMs) rmSync(lock, { force: true });
    } catch {
      // Released between our attempt and the stat: try again at once.
    }
    if (Date.now() > deadline)
      throw new Error(`${lock} is held by another writer (remove it if none is running)`);
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
  }
}

/**
 * A token store in a local JSON file (mode 0600), replaced atomically by write + rename under a
 * lock file. Updates prune and check the size exactly as the Secret Manager store does, so a
 * local store fills up where production would.
 */
export function fileTokenStore(path: string, options: FileStoreOptions = {}): TokenStore {
  const abs = resolve(path);
  const now = options.now ?? Date.now;
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
      mkdirSync(dirname(abs), { recursive: true });
      const release = await lockFile(abs, options.lockTimeoutMs ?? 10_000, options.staleLockMs ?? 30_000);
      try {
        const current = existsSync(abs) ? parseSet(readFileSync(abs, 'utf8'), abs) : EMPTY_CREDENTIALS;
        const { set, result } = change(current);
        const { text } = prepareCredentialWrite(set, now());
        const tmp = `${abs}.${process.pid}.${Date.now()}.tmp`;
        writeFileSync(tmp, text, { mode: 0o600 });
        renameSync(tmp, abs);
        return result;
      } finally {
        release();
      }
    },
  };
}

/** The HTTP call the Secret Manager store makes; injectable so tests run offline. */
export type AuthorizedRequest = (opts: {
  url: string;
  method: 'GET' | 'POST';
  data?: unknown;
}) => Promise<{ status: number; data: unknown }>;

export interface SecretStoreOptions extends StoreClock {
  readonly project: string;
  readonly secret: string;
  /** Defaults to https://secretmanager.googleapis.com. */
  readonly baseUrl?: string;
  /** Defaults to google-auth-library's application-default credentials. */
  readonly request?: AuthorizedRequest;
  /** Where a problem after a successful write goes (an old version not destroyed); default stderr. */
  readonly warn?: (message: string) => void;
}

function defaultRequest(): AuthorizedRequest {
  // google-auth-library is loaded on the first read, not at cold start.
  const auth = loadOnce(() =>
    import('google-auth-library').then(
      ({ GoogleAuth }) => new GoogleAuth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] }),
    ),
  );
  return async ({ url, method, data }) => {
    const client = await (await auth()).getClient();
    const res = await client.request({
      url,
      method,
      ...(data === undefined ? {} : { data }),
      validateStatus: () => true,
    });
    return { status: res.status, data: res.data };
  };
}

/** The number at the end of a SecretVersion name (`projects/…/secrets/…/versions/7`). */
function versionNumber(data: unknown): number | undefined {
  const name = (data as { name?: unknown } | null)?.name;
  const m = typeof name === 'string' ? /\/versions\/(\d+)$/.exec(name) : null;
  return m ? Number(m[1]) : undefined;
}

/** How many times an update merges a concurrent writer's versions before giving up. */
const MAX_MERGE_ROUNDS = 5;

/**
 * A token store in one Secret Manager secret: `versions/latest:access` to read, `:addVersion`
 * to write, then `:destroy` on the versions the write superseded, so one enabled version holds
 * hashes (a disabled version stays billed and can be re-enabled; a destroyed one cannot).
 * `latest` always names the newest version, which is never the one destroyed: a reader sees the
 * old set or the new one, never an error.
 *
 * addVersion takes no precondition, so a race is detected after the fact: the version written
 * must directly follow the one read. When it does not, another writer added versions in
 * between; their sets are merged in (mergeCredentials: a union by id, revocations kept) and
 * written again, so neither writer's new token is lost.
 */
export function secretTokenStore(options: SecretStoreOptions): TokenStore {
  const base = `${options.baseUrl ?? 'https://secretmanager.googleapis.com'}/v1/projects/${encodeURIComponent(options.project)}/secrets/${encodeURIComponent(options.secret)}`;
  const request = options.request ?? defaultRequest();
  const now = options.now ?? Date.now;
  const warn = options.warn ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
  const where = `secret:projects/${options.project}/secrets/${options.secret}`;
  const access = async (
    version: string,
    gone: readonly number[] = [404],
  ): Promise<{ set: CredentialSet; version: number } | undefined> => {
    const res = await request({ url: `${base}/versions/${version}:access`, method: 'GET' });
    // No version yet (a fresh secret created by Pulumi without a value): an empty store. A 400
    // on `latest` (it was disabled or destroyed by hand) is an error, not "no tokens": the
    // gateway keeps the set it has and says why, instead of silently refusing every producer.
    if (gone.includes(res.status)) return undefined;
    if (res.status !== 200) throw new Error(`${where}: access ${version} returned HTTP ${res.status}`);
    const payload = (res.data as { payload?: { data?: string } }).payload?.data ?? '';
    return {
      set: parseSet(Buffer.from(payload, 'base64').toString('utf8'), where),
      version: versionNumber(res.data) ?? 0,
    };
  };
  const addVersion = async (text: string): Promise<number> => {
    const data = Buffer.from(text).toString('base64');
    const res = await request({ url: `${base}:addVersion`, method: 'POST', data: { payload: { data } } });
    if (res.status !== 200) throw new Error(`${where}: addVersion returned HTTP ${res.status}`);
    const version = versionNumber(res.data);
    if (version === undefined) throw new Error(`${where}: addVersion answered without a version name`);
    return version;
  };
  return {
    where,
    refreshMs: 60_000,
    onDemandMinMs: 5000,
    async read() {
      return (await access('latest'))?.set ?? EMPTY_CREDENTIALS;
    },
    async update(change) {
      const current = await access('latest');
      const { set: changed, result } = change(current?.set ?? EMPTY_CREDENTIALS);
      let { set: written, text } = prepareCredentialWrite(changed, now());
      let previous = current?.version ?? 0;
      let mine = await addVersion(text);
      // Versions whose sets the last written one includes: destroyed once the write is final.
      const superseded = previous > 0 ? [previous] : [];
      for (let round = 0; mine !== previous + 1; round++) {
        if (round === MAX_MERGE_ROUNDS) {
          throw new Error(`${where}: other writers kept adding versions; run the command again`);
        }
        let merged = written;
        for (let v = previous + 1; v < mine; v++) {
          // A destroyed version (400 FAILED_PRECONDITION) was destroyed by the writer whose
          // later version includes it; any other failure stops the update rather than drop it.
          const theirs = await access(String(v), [400, 404]);
          if (theirs) merged = mergeCredentials(merged, theirs.set);
          superseded.push(v);
        }
        const next = prepareCredentialWrite(merged, now());
        if (next.text === text) break;
        ({ set: written, text } = next);
        superseded.push(mine);
        previous = mine;
        mine = await addVersion(text);
      }
      for (const v of superseded) {
        const res = await request({ url: `${base}/versions/${v}:destroy`, method: 'POST', data: {} }).catch(
          (err: Error) => ({ status: 0, data: err.message }),
        );
        // 400: already destroyed (by a concurrent writer that merged it). Anything else is worth
        // saying, but the write itself succeeded: failing now would lose the secret just shown.
        if (res.status !== 200 && res.status !== 400) {
          warn(`${where}: version ${v} was not destroyed (HTTP ${res.status}); it still holds old hashes`);
        }
      }
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
 * Creates the development token on first run (scopes publish:* and translate:*) and writes the secret to
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
      { scopes: ['publish:*', 'translate:*'], description: 'development token (npm start)' },
      (n) => randomBytes(n),
      new Date(),
    );
    return { set: issued.set, result: issued.secret };
  });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return { token, created: true, path };
}
