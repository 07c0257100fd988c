/**
 * What the `fidelity:*` scripts share (scripts/fidelity-storage.ts, scripts/fidelity-bigquery.ts):
 * running one of Google's own Node client system tests, read from a checkout of its repository and
 * bundled at run time (nothing of Google's is copied into this repository), against our emulators,
 * with the client this project installs, and printing the figure: passed, failed, skipped with
 * reasons, and the failing titles.
 *
 * Each script gives a `Fidelity`: the checkout's test file and pinned release, the test's own
 * packages to install into a cache directory, text edits that make the file runnable offline
 * (each must apply exactly once), how its imports of the checkout's `src` resolve, the groups and
 * single tests excluded with their reasons, and the emulators to start, with IAM on (`--iam`, as
 * `npm start` runs them): the tests' clients load a local credentials file
 * (`GOOGLE_APPLICATION_CREDENTIALS`, emulators/common/local-sts.ts) acting as the project owner
 * or, with `--as <member>`, as a member granted only the script's roles. Only connections to
 * loopback and to the emulators are allowed from the process (no metadata server, no internet).
 * With `docs`, the run checks that the emulator's docs page states its figure and names each
 * excluded group, so the page's list of differences stays true (`--strict` fails when it is not).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import * as esbuild from 'esbuild';
import type Mocha from 'mocha';
import {
  type AccessFile,
  mintToken,
  newServiceAccountKey,
  newTokenSecret,
  OWNER,
  type PublishedKey,
} from '../emulators/common/iam-enforce.ts';
import type { IamPolicy } from '../emulators/common/iam-policy.ts';
import { credentialsFile, STS_PATH } from '../emulators/common/local-sts.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EMULATOR_START_TIMEOUT_MS = 30_000;
/** The test project's service account the tests act as for the owner, with a key (`serviceAccountKey`). */
export const OWNER_SERVICE_ACCOUNT = 'fidelity-owner';

export interface TextEdit {
  readonly what: string;
  readonly pattern: RegExp;
  readonly replacement: string;
  /** Every match rather than exactly one (still at least one). */
  readonly all?: boolean;
}

export interface EmulatorNeed {
  /** `emulators/<kind>/main.ts`. */
  readonly kind: 'storage' | 'bigquery' | 'pubsub';
  /** The variable the client reads (set to the emulator's URL, or used as given when set). */
  readonly env: string;
  /** The value of the variable from the emulator's URL (default: the URL). */
  readonly value?: (url: string) => string;
  readonly args?: readonly string[];
}

/**
 * A second set of Google's tests in a folder of the checkout with its own package.json (the
 * samples and their tests: each test runs a sample as a program, `node build/<sample>.js`, from
 * the folder, and reads what it prints). The folder's packages are installed with the test's own
 * (at the folder's ranges) into the cache directory, outside `npm install` and `npm test`; the
 * tests are bundled as the main file is and run in the same mocha run, from a working copy of the
 * folder in the cache directory.
 */
export interface ExtraTests {
  /** The folder in the checkout, e.g. `samples`. */
  readonly dir: string;
  /** Its test files, relative to the folder (`system-test/topics.test.ts`). */
  readonly testFiles: readonly string[];
  /** Packages of the folder's package.json to install (the client under test is never installed). */
  readonly packages: readonly string[];
  /**
   * Packages the folder's package.json does not list but its packages need (`name@range`), each
   * for a reason the script gives.
   */
  readonly undeclared?: readonly string[];
  /** Edits by test file (relative to the folder), as `textEdits` for the main file. */
  readonly textEdits?: Readonly<Record<string, readonly TextEdit[]>>;
  /** Fills the working copy (the tests' current directory) from the checkout's folder. */
  readonly prepare: (work: string, folder: string) => void;
}

export interface Fidelity {
  /** `fidelity:storage`. */
  readonly name: string;
  /** `googleapis/nodejs-storage`. */
  readonly repo: string;
  /** `system-test/storage.ts`, in the checkout. */
  readonly testFile: string;
  /** The client this project installs, e.g. `@google-cloud/storage`. */
  readonly client: string;
  readonly pinned: { readonly commit: string; readonly version: string };
  /** The root describe title, dropped from single tests' titles in `skippedTests`. */
  readonly rootTitle: string;
  readonly testPackages: readonly string[];
  readonly textEdits: readonly TextEdit[];
  readonly skipped: Readonly<Record<string, string>>;
  readonly skippedTests: Readonly<Record<string, string>>;
  /**
   * Where an import of a path above the test file (`../src`, `../../system-test/data/…`) goes: a
   * package name (external), a file path, or undefined for an error. `cache` is the cache
   * directory (for shims).
   */
  readonly resolveSrc: (path: string, cache: string, checkout: string) => string | undefined;
  readonly emulators: readonly EmulatorNeed[];
  readonly testTimeoutMs?: number;
  /** Runs once the emulators are up, before the tests (stand-in data the tests read). */
  readonly prepare?: () => Promise<void>;
  /**
   * The emulator's docs page (`docs/pubsub-emulator.md`), whose "Last run" figure
   * (`**N passed, M failed**`) and list of exclusions the run checks: a page that no longer says
   * what the run measured is reported (and fails a `--strict` run).
   */
  readonly docs?: string;
  /**
   * IAM (always on, as `npm start` runs it): the roles a credentialed member (`--as`) is granted
   * on the test project, and on these other projects the tests read (`publicdata`).
   */
  readonly iam?: { readonly roles: readonly string[]; readonly projects?: readonly string[] };
  /**
   * The tests' member has a service-account key file (emulators/common/iam-keys.ts, its public half
   * published in the access file), so a client given it can sign (signed URLs, POST policies): for
   * `--as serviceAccount:…` that member's; as the owner, a service account of the test project
   * (OWNER_SERVICE_ACCOUNT) granted the script's roles, since the owner of the local credentials
   * file has no key. A `user:` member has none either. The key file's path is in
   * FIDELITY_SERVICE_ACCOUNT_KEY, for the script's text edits to hand to the clients that sign;
   * every other client keeps the local credentials file (GOOGLE_APPLICATION_CREDENTIALS), as the
   * same member: the key's universe is not googleapis.com (iam-keys.ts), and Google's gRPC clients
   * refuse credentials of another universe than theirs.
   */
  readonly serviceAccountKey?: boolean;
  /** Google's tests from another folder of the checkout, run with the main file. */
  readonly extra?: ExtraTests;
  /**
   * More test files of the checkout's `system-test/`, bundled as the main file is (with their own
   * edits) and run in the same mocha run.
   */
  readonly moreTestFiles?: readonly { readonly file: string; readonly textEdits: readonly TextEdit[] }[];
}

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface PackageJson {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** Runs one fidelity script: its command line, the bundle, the emulators, mocha, the figure. */
export async function runFidelity(f: Fidelity): Promise<void> {
  const fail = (message: string): never => {
    process.stderr.write(`${f.name}: ${message}\n`);
    process.exit(1);
  };
  const cache = join(ROOT, '.data', f.name.replace(':', '-'));
  const program = new Command()
    .name(f.name)
    .description(`Runs Google's ${f.client} system tests against the emulator and prints the figure`)
    .argument('<checkout>', `a checkout of ${f.repo} (pinned: ${f.pinned.commit})`)
    .option('--strict', 'exit 1 when any test fails')
    .option('--filter <regexp>', 'run only the tests whose full title matches (to iterate on a few)')
    .option(
      '--as <member>',
      "the member the tests' credentials act as: owner, or user:…/serviceAccount:… granted the script's roles",
      'owner',
    )
    .parse();
  const checkout = resolve(program.args[0] as string);
  // Text edits may name files of the checkout through it.
  process.env.FIDELITY_CHECKOUT = checkout;
  const opts = program.opts<{ strict?: boolean; filter?: string; as: string }>();
  if (opts.as !== 'owner' && !/^(user|serviceAccount):\S+@\S+$/.test(opts.as))
    fail(`--as: expected owner, user:… or serviceAccount:…, got ${opts.as}`);
  const strict = opts.strict === true;
  const filter = opts.filter === undefined ? undefined : new RegExp(opts.filter);

  // The checkout.
  const testFile = join(checkout, f.testFile);
  if (!existsSync(testFile))
    fail(
      `${testFile} not found: give a checkout of ${f.repo}, e.g.\n` +
        `  git --git-dir=<mirror of ${f.repo}> archive ${f.pinned.commit} | tar -x -C /tmp/checkout`,
    );
  const pkg = readJson<PackageJson>(join(checkout, 'package.json'));
  const client = readJson<PackageJson>(
    join(ROOT, 'node_modules', ...f.client.split('/'), 'package.json'),
  ).version;
  say(
    `google tests: ${checkout} (release ${pkg.version}); pinned: commit ${f.pinned.commit}, release ${f.pinned.version}`,
  );
  say(`client under test: ${f.client} ${client} (this project's node_modules)`);
  if (pkg.version !== f.pinned.version)
    say(
      `warning: the checkout is release ${pkg.version}, not the pinned ${f.pinned.version}; the figure may differ`,
    );

  // The test's own packages, at the checkout's ranges.
  const ranges = { ...pkg.devDependencies, ...pkg.dependencies };
  const specs = f.testPackages.map((name) => {
    const range = ranges[name];
    if (range === undefined) fail(`the checkout's package.json does not list ${name}`);
    return `${name}@${range}`;
  });
  if (f.extra) {
    const folder = readJson<PackageJson>(join(checkout, f.extra.dir, 'package.json'));
    const folderRanges = { ...folder.devDependencies, ...folder.dependencies };
    for (const name of f.extra.packages) {
      const range = folderRanges[name];
      if (range === undefined) fail(`the checkout's ${f.extra.dir}/package.json does not list ${name}`);
      specs.push(`${name}@${range}`);
    }
    specs.push(...(f.extra.undeclared ?? []));
  }
  const marker = join(cache, 'node_modules', '.fidelity-installed');
  if (specs.length > 0 && !(existsSync(marker) && readFileSync(marker, 'utf8') === specs.join(' '))) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'package.json'), '{"private":true}\n');
    say(`installing the test's packages into ${cache}: ${specs.join(' ')}`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', cache, ...specs], {
      stdio: 'inherit',
    });
    writeFileSync(marker, specs.join(' '));
  }

  // The bundles.
  mkdirSync(cache, { recursive: true });
  const outfile = await bundleTest(f, f.testFile, f.textEdits, cache, checkout, fail);
  const more: string[] = [];
  for (const m of f.moreTestFiles ?? [])
    more.push(await bundleTest(f, m.file, m.textEdits, cache, checkout, fail));

  const extra = f.extra ? await bundleExtra(f, f.extra, cache, checkout, fail) : undefined;

  // The emulators, then the guard.
  process.env.METADATA_SERVER_DETECTION ??= 'none';
  process.env.GCLOUD_PROJECT ??= 'fidelity-project';
  process.env.GOOGLE_CLOUD_PROJECT ??= process.env.GCLOUD_PROJECT;
  process.env.PROJECT_ID ??= process.env.GOOGLE_CLOUD_PROJECT;
  const project = process.env.GCLOUD_PROJECT as string;
  const keyed = f.serviceAccountKey === true && !opts.as.startsWith('user:');
  const member =
    opts.as === 'owner'
      ? keyed
        ? `serviceAccount:${OWNER_SERVICE_ACCOUNT}@${project}.iam.gserviceaccount.com`
        : OWNER
      : opts.as;
  const key = keyed ? newServiceAccountKey(member, project) : undefined;
  const access = writeAccess(f, cache, member, key ? [key.published] : []);
  if (key) {
    const path = join(cache, 'iam', 'service-account-key.json');
    writeFileSync(path, JSON.stringify(key.keyFile), { mode: 0o600 });
    process.env.FIDELITY_SERVICE_ACCOUNT_KEY = path;
  }
  const started: { stop(): Promise<void> }[] = [];
  const hosts: string[] = [];
  let tokenUrl: string | undefined;
  for (const e of f.emulators) {
    const given = process.env[e.env];
    if (given) {
      hosts.push(new URL(given.includes('://') ? given : `http://${given}`).hostname);
      continue;
    }
    const emu = await startEmulator(e, access.file, fail);
    started.push(emu);
    process.env[e.env] = e.value ? e.value(emu.url) : emu.url;
    hosts.push(new URL(emu.url).hostname);
    if (e.kind !== 'pubsub') tokenUrl ??= `${emu.url}${STS_PATH}`;
  }
  if (tokenUrl && process.env.GOOGLE_APPLICATION_CREDENTIALS === undefined) {
    // Credentials the clients load unchanged, exchanged at an emulator (emulators/common/local-sts.ts).
    const path = join(cache, 'iam', 'credentials.json');
    const subject = mintToken(access.secret, member, 24 * 3600);
    writeFileSync(path, JSON.stringify(credentialsFile(path, member, subject, tokenUrl)), { mode: 0o600 });
    process.env.GOOGLE_APPLICATION_CREDENTIALS = path;
  }
  say(
    `IAM on (${access.file}); credentials ${key ? `(a service-account key file, universe ${key.keyFile.universe_domain}) ` : ''}act as ${member === OWNER ? 'the project owner' : `${member}, granted ${(f.iam?.roles ?? []).join(', ')}`}`,
  );
  const refused = guardNetwork(hosts, f.name);
  await f.prepare?.();

  say(
    `running ${[outfile, ...more].join(', ')} against ${f.emulators.map((e) => `${e.env}=${process.env[e.env]}`).join(', ')}`,
  );
  const result = await runMocha(f, [outfile, ...more, ...(extra?.files ?? [])], extra?.work, filter);
  for (const s of started) await s.stop();
  report(f, result, refused);
  // A filtered run's figure is partial: the docs are checked on whole runs only.
  const stale = f.docs && !filter ? checkDocs(f, f.docs, result) : [];
  process.exit(strict && (result.failed + result.failedHooks > 0 || stale.length > 0) ? 1 : 0);
}

/** One test file of the checkout's `system-test/`, with its edits, bundled into the cache directory. */
async function bundleTest(
  f: Fidelity,
  file: string,
  edits: readonly TextEdit[],
  cache: string,
  checkout: string,
  fail: (message: string) => never,
): Promise<string> {
  const base = file.split('/').pop() as string;
  const outfile = join(cache, `${base.replace(/\.ts$/, '')}.system-test.mjs`);
  await esbuild.build({
    entryPoints: [join(checkout, file)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    logLevel: 'warning',
    // Not the checkout's tsconfig.json: it extends gts, which is not installed.
    tsconfigRaw: {},
    plugins: [
      {
        name: 'adapt-google-system-test',
        setup(build) {
          build.onResolve({ filter: /^\.\.\// }, (args) => {
            const to = f.resolveSrc(args.path, cache, checkout);
            if (to === undefined)
              return { errors: [{ text: `unexpected import of the checkout's src: ${args.path}` }] };
            return to.startsWith('/') ? { path: to } : { path: to, external: true };
          });
          // Packages and node built-ins stay imports, resolved from the cache dir, then the project.
          build.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
          build.onLoad({ filter: new RegExp(`system-test[\\\\/]${escapeRegExp(base)}$`) }, (args) => ({
            contents: applyEdits(readFileSync(args.path, 'utf8'), edits, fail),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  return outfile;
}

/** A test file's source with the edits applied (each exactly once, or with `all` at least once). */
function applyEdits(source: string, edits: readonly TextEdit[], fail: (message: string) => never): string {
  let out = source;
  for (const { what, pattern, replacement, all } of edits) {
    const global = new RegExp(pattern.source, 'g');
    const hits = out.match(global)?.length ?? 0;
    if (all ? hits === 0 : hits !== 1) fail(`the test file changed: cannot adapt ${what} (${hits} matches)`);
    out = all ? out.replace(global, replacement) : out.replace(pattern, replacement);
  }
  return out;
}

/**
 * The working copy of the extra folder (filled by its `prepare`) and its tests bundled into
 * `<work>/build/system-test/` (their imports of packages resolve from the cache directory, then
 * the project; the samples they run resolve the client under test from the project).
 */
async function bundleExtra(
  f: Fidelity,
  extra: ExtraTests,
  cache: string,
  checkout: string,
  fail: (message: string) => never,
): Promise<{ files: string[]; work: string }> {
  const work = join(cache, extra.dir);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'build', 'system-test'), { recursive: true });
  // CommonJS samples: the project's package.json says "type": "module".
  writeFileSync(join(work, 'package.json'), '{"private":true}\n');
  extra.prepare(work, join(checkout, extra.dir));
  const entryPoints = extra.testFiles.map((file) => join(checkout, extra.dir, file));
  await esbuild.build({
    entryPoints,
    outdir: join(work, 'build', 'system-test'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    logLevel: 'error',
    tsconfigRaw: {},
    plugins: [
      {
        name: `adapt-google-${extra.dir}`,
        setup(build) {
          build.onResolve({ filter: /^\.\.\// }, (args) => {
            const to = f.resolveSrc(args.path, cache, checkout);
            if (to === undefined)
              return { errors: [{ text: `unexpected import above the tests: ${args.path}` }] };
            return to.startsWith('/') ? { path: to } : { path: to, external: true };
          });
          build.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
          build.onLoad({ filter: /\.test\.ts$/ }, (args) => {
            const file = args.path.slice(join(checkout, extra.dir).length + 1);
            const source = readFileSync(args.path, 'utf8');
            return { contents: applyEdits(source, extra.textEdits?.[file] ?? [], fail), loader: 'ts' };
          });
        },
      },
    ],
  });
  const files = extra.testFiles.map((file) =>
    join(work, 'build', 'system-test', `${(file.split('/').pop() as string).replace(/\.ts$/, '')}.mjs`),
  );
  return { files, work };
}

/** Refuses every connection from this process except to loopback and the emulators' hosts. */
function guardNetwork(hosts: readonly string[], name: string): string[] {
  const refused: string[] = [];
  const allowed = (host: string) =>
    host === 'localhost' ||
    host === '::1' ||
    host.startsWith('127.') ||
    host === '::ffff:127.0.0.1' ||
    hosts.includes(host.replace(/^\[|\]$/g, ''));
  const original = net.Socket.prototype.connect;
  const guarded = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const to = destination(args);
    if (to && !allowed(to.host)) {
      const where = `${to.host}:${to.port}`;
      if (!refused.includes(where)) refused.push(where);
      this.destroy(
        new Error(`${name} refused a connection to ${where} (only loopback and the emulators are allowed)`),
      );
      return this;
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  };
  net.Socket.prototype.connect = guarded as typeof original;
  return refused;
}

/** Where a `Socket#connect` call goes (host:port), or undefined for an IPC path. */
function destination(args: readonly unknown[]): { host: string; port: string } | undefined {
  const [first, second] = args;
  const options = (Array.isArray(first) ? first[0] : first) as unknown;
  if (typeof options === 'object' && options !== null) {
    const o = options as { host?: string; port?: number | string; path?: string | null };
    if (o.path) return undefined; // an IPC path (http sets path: null for TCP)
    return { host: o.host ?? 'localhost', port: String(o.port) };
  }
  if (typeof options === 'string' && Number.isNaN(Number(options))) return undefined;
  return { host: typeof second === 'string' ? second : 'localhost', port: String(options) };
}

/**
 * The access file the emulators enforce (`<cache>/iam/access.json`, a new secret each run): the
 * script's roles for `member` on the test project and the other projects it names; none for the
 * owner, who may do everything; the public halves of the run's service-account keys.
 */
function writeAccess(
  f: Fidelity,
  cache: string,
  member: string,
  keys: readonly PublishedKey[],
): { file: string; secret: string } {
  const dir = join(cache, 'iam');
  mkdirSync(dir, { recursive: true });
  const secret = newTokenSecret();
  const projects = [process.env.GCLOUD_PROJECT as string, ...(f.iam?.projects ?? [])];
  const policies: IamPolicy[] =
    member === OWNER
      ? []
      : projects.map((p) => ({
          resource: `projects/${p}`,
          bindings: (f.iam?.roles ?? []).map((role) => ({ role, members: [member] })),
        }));
  const access: AccessFile = {
    tokenSecret: secret,
    policies,
    ...(keys.length > 0 ? { serviceAccountKeys: keys } : {}),
  };
  const file = join(dir, 'access.json');
  writeFileSync(file, JSON.stringify(access), { mode: 0o600 });
  return { file, secret };
}

/** Starts `emulators/<kind>/main.ts` on a free port and a temporary data directory, IAM on. */
async function startEmulator(
  e: EmulatorNeed,
  accessFile: string,
  fail: (message: string) => never,
): Promise<{ url: string; stop(): Promise<void> }> {
  const main = join(ROOT, 'emulators', e.kind, 'main.ts');
  if (!existsSync(main)) fail(`${main} not found: set ${e.env} to a running emulator`);
  const dataDir = mkdtempSync(join(tmpdir(), `fidelity-${e.kind}-`));
  const args = [main, '--port', '0', '--data-dir', dataDir, '--iam', accessFile, ...(e.args ?? [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = await listening(child, () => stderr).catch((err: unknown) => {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    return fail(`the ${e.kind} emulator did not start: ${err instanceof Error ? err.message : String(err)}`);
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        say(
          `warning: the ${e.kind} emulator stopped during the run (${child.exitCode ?? child.signalCode})\n${stderr}`,
        );
      } else {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits for the emulator's `<kind> emulator listening on <url>` line. */
function listening(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((done, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error('no listening line in 30 s')), EMULATOR_START_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) {
        clearTimeout(timer);
        done(url);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`it exited with ${code}\n${stdout}${stderr()}`));
    });
  });
}

interface Exclusions {
  grep: RegExp | undefined;
  excluded: number;
  total: number;
}

interface Counts {
  passed: number;
  failed: number;
  failedHooks: number;
  pending: number;
  failures: string[];
}

const allTests = (suite: Mocha.Suite): Mocha.Test[] => [...suite.tests, ...suite.suites.flatMap(allTests)];

/** Finds the skipped groups and tests in the loaded tree; the grep that leaves them out. */
function exclusions(f: Fidelity, root: Mocha.Suite, filtered: boolean): Exclusions {
  const prefixes: string[] = [];
  const unused = new Set([...Object.keys(f.skipped), ...Object.keys(f.skippedTests)]);
  const walk = (suite: Mocha.Suite): void => {
    for (const child of suite.suites) {
      if (child.title in f.skipped) {
        prefixes.push(`^${escapeRegExp(child.fullTitle())} `);
        unused.delete(child.title);
      } else walk(child);
    }
  };
  walk(root);
  const tests = allTests(root);
  for (const test of tests) {
    const title = test.fullTitle().replace(new RegExp(`^${escapeRegExp(f.rootTitle)} `), '');
    if (title in f.skippedTests) {
      prefixes.push(`^${escapeRegExp(test.fullTitle())}$`);
      unused.delete(title);
    }
  }
  // A filtered run leaves most of the list unmatched by design.
  if (!filtered)
    for (const title of unused) say(`warning: "${title}" (skip list) matches nothing in the test files`);
  const grep = prefixes.length > 0 ? new RegExp(prefixes.join('|')) : undefined;
  const excluded = grep ? tests.filter((t) => grep.test(t.fullTitle())).length : 0;
  return { grep, excluded, total: tests.length };
}

async function runMocha(
  f: Fidelity,
  files: readonly string[],
  cwd: string | undefined,
  filter: RegExp | undefined,
): Promise<Counts & Exclusions> {
  const require = createRequire(import.meta.url);
  const MochaClass = require('mocha') as typeof Mocha;
  const mocha = new MochaClass({ timeout: f.testTimeoutMs ?? 120_000, reporter: 'spec' });
  for (const file of files) mocha.addFile(file);
  await mocha.loadFilesAsync();
  // A filtered run drops the other tests before the exclusions are counted (its figure is partial).
  if (filter) {
    const prune = (suite: Mocha.Suite): void => {
      suite.tests = suite.tests.filter((t) => filter.test(t.fullTitle()));
      suite.suites.forEach(prune);
    };
    prune(mocha.suite);
  }
  // The samples' tests run `node build/<sample>.js` from their folder.
  if (cwd) process.chdir(cwd);
  const skip = exclusions(f, mocha.suite, filter !== undefined);
  if (skip.grep) mocha.grep(skip.grep).invert();
  const counts: Counts = { passed: 0, failed: 0, failedHooks: 0, pending: 0, failures: [] };
  await new Promise<void>((done) => {
    const runner = mocha.run(() => done());
    runner.on('pass', () => {
      counts.passed += 1;
    });
    runner.on('pending', () => {
      counts.pending += 1;
    });
    runner.on('fail', (test: Mocha.Hook | Mocha.Test, err: Error) => {
      if (test.type === 'hook') counts.failedHooks += 1;
      else counts.failed += 1;
      counts.failures.push(`${test.fullTitle()}: ${String(err?.message).split('\n')[0]}`);
    });
  });
  return { ...counts, ...skip };
}

/**
 * Whether the docs page still says what this run measured: its figure, and every excluded group
 * named (its last title part, any case). Returns what is stale.
 */
function checkDocs(f: Fidelity, docs: string, r: Counts): string[] {
  const text = readFileSync(join(ROOT, docs), 'utf8');
  const lower = text.toLowerCase();
  const stale: string[] = [];
  const figure = `**${r.passed} passed, ${r.failed} failed`;
  if (!text.includes(figure)) stale.push(`its figure is not ${figure}**`);
  for (const group of Object.keys(f.skipped)) {
    const last = (group.split('/').pop() as string).toLowerCase();
    if (!lower.includes(last)) stale.push(`it does not name the excluded group "${group}"`);
  }
  say(stale.length === 0 ? `\ndocs: ${docs} says what this run measured` : `\ndocs: ${docs} is stale:`);
  for (const x of stale) say(`  - ${x}`);
  return stale;
}

function report(f: Fidelity, r: Counts & Exclusions, refused: readonly string[]): void {
  say('\nfailing:');
  if (r.failures.length === 0) say('  none');
  for (const x of r.failures) say(`  - ${x}`);
  if (refused.length > 0)
    say(`\nrefused connections (neither loopback nor an emulator): ${refused.join(', ')}`);
  say('\nexcluded, and why:');
  for (const [title, why] of [...Object.entries(f.skipped), ...Object.entries(f.skippedTests)])
    say(`  - ${title}: ${why}`);
  const skipped = r.pending + r.excluded;
  const notRun = r.total - r.passed - r.failed - skipped;
  const extra = notRun > 0 || r.failedHooks > 0 ? `  not run ${notRun} (${r.failedHooks} failed hooks)` : '';
  say(
    `\n${f.name}  passed ${r.passed}  failed ${r.failed}  skipped(pending/excluded) ${skipped} ` +
      `(${r.pending}/${r.excluded})${extra}  of ${r.total}`,
  );
}
