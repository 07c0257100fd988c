/**
 * The local environment's access file (`<data>/iam/access.json`): the IAM policies `pulumi up`
 * would bind for these settings (infra/access-plan.ts declares the program offline) and the
 * secret local tokens are signed with. The three emulators read it with `--iam` and enforce it
 * (emulators/common/iam-enforce.ts); each workload calls them on endpoints bound to its own
 * service account, and `eventbus local token --as <workload>` mints a token from the same
 * secret, `eventbus local credentials --as <member>` a credentials file Google's clients load, and
 * `eventbus local key --as <service account>` a service-account key whose public half it publishes.
 * docs/permissions.md tells how to debug a refusal.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { WORKLOADS, type Workload, workloadMember } from '../core/access/needs.ts';
import {
  type AccessFile,
  mintToken,
  newServiceAccountKey,
  newTokenSecret,
  OWNER,
  type PolicyTagEntry,
} from '../emulators/common/iam-enforce.ts';
import type { IamPolicy } from '../emulators/common/iam-policy.ts';
import { credentialsFile } from '../emulators/common/local-sts.ts';
import type { Settings } from '../schemas/settings.ts';

export const accessFilePath = (dataDir: string): string => join(dataDir, 'iam', 'access.json');

/** The access file of a data folder, if one was written. */
export function readAccessFile(dataDir: string): AccessFile | undefined {
  const path = accessFilePath(dataDir);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as AccessFile;
}

/**
 * Writes the file whole (a rename: an emulator never reads half of it), keeping its secret, its
 * published service-account keys, and its policy tags unless new ones are given.
 */
export function writeAccessFile(
  dataDir: string,
  policies: readonly IamPolicy[],
  policyTags?: readonly PolicyTagEntry[],
): AccessFile {
  const path = accessFilePath(dataDir);
  mkdirSync(dirname(path), { recursive: true });
  return withAccessFileLock(path, () => rewriteAccessFile(dataDir, path, policies, policyTags));
}

function rewriteAccessFile(
  dataDir: string,
  path: string,
  policies: readonly IamPolicy[],
  policyTags: readonly PolicyTagEntry[] | undefined,
): AccessFile {
  const before = readAccessFile(dataDir);
  const tags = policyTags ?? before?.policyTags;
  const file: AccessFile = {
    tokenSecret: before?.tokenSecret ?? newTokenSecret(),
    policies,
    ...(tags && tags.length > 0 ? { policyTags: tags } : {}),
    ...(before?.serviceAccountKeys && before.serviceAccountKeys.length > 0
      ? { serviceAccountKeys: before.serviceAccountKeys }
      : {}),
  };
  writePrivate(path, JSON.stringify(file));
  return file;
}

/** How long a writer waits for another's lock on the access file, and when a lock is stale. */
const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 30_000;

/**
 * Runs `change` (a read-modify-write of the access file at `path`) holding `<path>.lock`, so two
 * commands writing at once (a key and the policies) do not drop each other's change. A lock older
 * than LOCK_STALE_MS is a crashed writer's and is taken over.
 */
function withAccessFileLock<T>(path: string, change: () => T): T {
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > LOCK_STALE_MS) rmSync(lock, { force: true });
      else if (Date.now() > deadline)
        throw new Error(`${path} is being written by another command (${lock}); try again`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
  try {
    return change();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Writes `text` to `path` readable by its owner only (0600), whether or not `path` exists (a mode
 * given to writeFileSync applies only to a file it creates): written to a temporary file of its
 * own (unique per call) and renamed over `path`, so a reader sees the old or the new file whole.
 */
function writePrivate(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** What the program declares that the emulators enforce: its IAM policies and policy tags. */
export interface PlannedAccess {
  readonly policies: IamPolicy[];
  readonly policyTags: PolicyTagEntry[];
}

/**
 * What a declaration reads: the program and all it imports (the folders below, whole), the
 * packages' locked versions, and Node's. A file changed in any of them declares again.
 */
export const PLAN_INPUT_DIRS: readonly string[] = [
  'infra',
  'core',
  'adapters',
  'scripts',
  'emulators/common',
  'schemas',
  'sources',
];
const PLAN_INPUT_FILES: readonly string[] = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'Pulumi.yaml',
];

/**
 * The key of a declaration's result: the settings' bytes and every input's path and bytes
 * (about 430 files, 4 MB: 20 ms). Conservative on purpose: a file the program may read counts
 * whether it does or not, so a stale plan needs an edit outside the repository's code.
 */
export function planKey(root: string, settingsFile: string, node = process.version): string {
  const hash = createHash('sha256').update(`access-plan 1\0${node}\0`).update(readFileSync(settingsFile));
  const add = (path: string) => hash.update(`\0${path}\0`).update(readFileSync(join(root, path)));
  const walk = (dir: string) => {
    const entries = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const e of entries) {
      if (e.name === 'node_modules' || e.name === 'test') continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) add(path);
    }
  };
  for (const dir of PLAN_INPUT_DIRS) walk(dir);
  for (const file of PLAN_INPUT_FILES) if (existsSync(join(root, file))) add(file);
  return hash.digest('hex').slice(0, 32);
}

/** How many declared plans are kept: tests write settings with ports in them, each a key of its own. */
const KEPT_PLANS = 200;

/** Removes the oldest kept plans beyond `keep` (by modification time). */
export function pruneKept(dir: string, keep: number): void {
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  if (names.length <= keep) return;
  const byAge = names
    .map((n) => ({ path: join(dir, n), at: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of byAge.slice(keep)) rmSync(old.path, { force: true });
}

/**
 * The policies and policy tags the program declares for a settings file (a child process: see
 * infra/access-plan.ts). A declaration costs 1.5-2 s of CPU, mostly loading Pulumi and the
 * program, and every local start and IAM test makes one for the same few settings: its result is
 * kept under node_modules/.cache/eventbus-access-plan by `planKey`, reused while nothing it
 * reads changed. A cache that cannot be read or written is passed by.
 */
export async function plannedAccess(
  node: string,
  root: string,
  settingsFile: string,
): Promise<PlannedAccess> {
  const key = planKey(root, settingsFile);
  const cache = join(root, 'node_modules', '.cache', 'eventbus-access-plan');
  const kept = join(cache, `${key}.json`);
  try {
    return JSON.parse(readFileSync(kept, 'utf8')) as PlannedAccess;
  } catch {
    // Not kept yet (or half written by a process that died): declare.
  }
  const { stdout } = await promisify(execFile)(node, [join(root, 'infra', 'access-plan.ts'), settingsFile], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const planned = JSON.parse(stdout) as PlannedAccess;
  try {
    mkdirSync(cache, { recursive: true });
    const tmp = `${kept}.${process.pid}.tmp`;
    writeFileSync(tmp, stdout);
    renameSync(tmp, kept);
    pruneKept(cache, KEPT_PLANS);
  } catch {
    // A read-only checkout: declare again next time.
  }
  return planned;
}

/**
 * Where a start writes the settings its declaration reads (`<data>/iam/declared-settings.json`):
 * the settings as given, before the local ports moved the receiver's URLs (services.ts,
 * localSettings). IAM binds resources and members, never the address a service listens on, so
 * every start of the same settings shares one kept plan, whatever ports it runs on (tests start
 * each environment on free ports of its own).
 */
export function writeDeclaredSettings(dataDir: string, settings: Readonly<Settings>): string {
  const path = join(dataDir, 'iam', 'declared-settings.json');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(settings));
  return path;
}

/** The policies the program binds for a settings file. */
export async function plannedPolicies(
  node: string,
  root: string,
  settingsFile: string,
): Promise<IamPolicy[]> {
  return (await plannedAccess(node, root, settingsFile)).policies;
}

/** A workload's name, or a member as IAM writes it (`user:…`, `serviceAccount:…`). */
export function memberFor(as: string, project: string): string {
  if ((WORKLOADS as readonly string[]).includes(as)) return workloadMember(as as Workload, project);
  if (/^(serviceAccount|user|group):\S+@\S+$/.test(as)) return as;
  throw new Error(
    `--as: "${as}" is neither a workload (${WORKLOADS.join(', ')}) nor a member (user:…, serviceAccount:…)`,
  );
}

/**
 * A credentials file Google's clients load unchanged (`GOOGLE_APPLICATION_CREDENTIALS`) as `as`:
 * written to `path` (mode 0600), exchanging at `tokenUrl` (emulators/common/local-sts.ts). Its
 * subject token lasts `ttlSeconds`; the access tokens it is exchanged for, an hour each.
 */
export function writeLocalCredentials(
  dataDir: string,
  as: string,
  project: string,
  path: string,
  tokenUrl: string,
  ttlSeconds: number,
): string {
  const member = memberFor(as, project);
  const subject = localToken(dataDir, as, project, ttlSeconds);
  mkdirSync(dirname(path), { recursive: true });
  writePrivate(path, `${JSON.stringify(credentialsFile(path, member, subject, tokenUrl), null, 2)}\n`);
  return member;
}

/**
 * A token the local emulators accept as `as`, from the data folder's access file. `owner` is the
 * project's owner, who may do everything: what a call with no identity is on an emulator's main
 * port, and what reads the receiver's metrics, which no workload may list (docs/observability.md).
 */
export function localToken(dataDir: string, as: string, project: string, ttlSeconds = 3600): string {
  const file = readAccessFile(dataDir);
  if (!file)
    throw new Error(
      `${accessFilePath(dataDir)} does not exist: start the environment with IAM on (npm start) first`,
    );
  return mintToken(file.tokenSecret, as === 'owner' ? OWNER : memberFor(as, project), ttlSeconds);
}

/**
 * A new key for a service account (a workload's, or `serviceAccount:…`): its public half added to
 * the access file (the emulators re-read it: the key works at once), the key file written to `path`
 * (mode 0600). Returns the member. emulators/common/iam-keys.ts tells what the emulators verify.
 */
export function writeServiceAccountKey(dataDir: string, as: string, project: string, path: string): string {
  const member = memberFor(as, project);
  const access = accessFilePath(dataDir);
  if (!existsSync(access))
    throw new Error(`${access} does not exist: start the environment with IAM on (npm start) first`);
  const { keyFile, published } = newServiceAccountKey(member, project);
  withAccessFileLock(access, () => {
    const file = readAccessFile(dataDir) as AccessFile;
    const next: AccessFile = { ...file, serviceAccountKeys: [...(file.serviceAccountKeys ?? []), published] };
    writePrivate(access, JSON.stringify(next));
  });
  mkdirSync(dirname(path), { recursive: true });
  writePrivate(path, `${JSON.stringify(keyFile, null, 2)}\n`);
  return member;
}
