#!/usr/bin/env node
/**
 * `npm run fidelity:storage -- <checkout of googleapis/nodejs-storage> [--strict]`: runs Google's own
 * system tests of the Cloud Storage Node client (`system-test/storage.ts`, written for the real
 * service) against a Cloud Storage emulator, with the client this project installs (not the
 * checkout's `src`), and prints the figure: passed, failed, skipped, and the failing titles.
 *
 * Why: our emulator claims to behave like Cloud Storage for `@google-cloud/storage`; Google's own
 * tests are the most independent measure of that claim we can run offline.
 *
 * Nothing of Google's is copied into this repository: the test file is read from the checkout and
 * bundled (esbuild) into `.data/fidelity-storage/` at run time. The adaptation, all of it here:
 * - `../src/index.js` and `../src/nodejs-common/index.js` become the installed `@google-cloud/storage`
 *   (which exports `ApiError` too); `../src/util.js` becomes a shim whose `getDirName()` points into
 *   the checkout, so `system-test/data/...` is found there;
 * - the test's own packages the project lacks (TEST_PACKAGES) are installed into the cache directory
 *   from the npm registry on first run, at the ranges the checkout's package.json gives;
 * - the root `before` hook also creates a Pub/Sub topic and grants it to allUsers, for the
 *   notification tests (excluded): that part is cut (TEXT_EDITS), and so is the topic clean-up;
 * - `this.retries(3)` becomes 0, so a failure is counted once;
 * - whole groups and single tests needing what the emulator does not stand in for are excluded by an
 *   inverted mocha grep built from SKIPPED and SKIPPED_TESTS (each with its reason);
 * - only connections to loopback and to the emulator's host are allowed from this process (no
 *   metadata server, no internet): any other is refused and listed.
 *
 * The emulator: STORAGE_EMULATOR_HOST if set, else `emulators/storage/main.ts` started as a child
 * process on a free port and a temporary data directory.
 *
 * Exit 0 when the run completed (failures are the figure), 1 on a harness error, and with
 * `--strict` 1 on any failure.
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

const PINNED = { commit: '5aa34a44', version: '7.19.0' };
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.data', 'fidelity-storage');
const EMULATOR_MAIN = join(ROOT, 'emulators', 'storage', 'main.ts');
const TEST_TIMEOUT_MS = 120_000;
const EMULATOR_START_TIMEOUT_MS = 30_000;

/**
 * Packages the test imports that are installed into the cache directory at the checkout's ranges.
 * The others resolve from the project's node_modules: `mocha` must be the runner's own instance,
 * `uuid` (v4) and `@google-cloud/pubsub` (only constructed, its hook is cut) work as they are.
 */
const TEST_PACKAGES = ['nock', 'node-fetch', 'form-data', 'p-limit', 'tmp'] as const;

/**
 * Groups (describe titles, at any depth) excluded, and why. Shrink this table as the emulator grows.
 * Not here because they run and pass: lifecycle, turbo replication, hierarchical namespace.
 * Not here because the test file skips them itself (counted as pending): HMAC keys.
 */
export const SKIPPED: Readonly<Record<string, string>> = {
  'without authentication':
    'public access and anonymous callers (also the VPC-SC checks): the emulator has no IAM',
  acls: 'object and bucket ACLs are not served (IAM is declared by Pulumi)',
  iam: 'IAM policies are not served',
  'public access prevention': 'needs IAM and anonymous callers',
  'soft-delete': 'soft delete and restore are not served (the policy is stored, not acted on)',
  'dual-region': 'custom dual-region placement (customPlacementConfig, locationType) is Google’s',
  'uniform bucket-level access': 'ACL behaviour under uniform access',
  'bucket retention policies': 'retention policies and held objects are stored, not enforced',
  'bucket logging': 'access logs are Google’s',
  'object retention lock': 'object retention is not enforced',
  'requester pays': 'needs billing and a second project',
  'customer-supplied encryption keys': 'encryption keys are not applied',
  'kms keys': 'needs Cloud KMS',
  channels: 'object change notification channels are deprecated and not served',
  'second service account': 'needs a second account with IAM (HMAC keys)',
  'v2 signed urls': 'signed URLs are signed for storage.googleapis.com and checked by Google',
  'v2 signed url with special characters in file name': 'signed URLs (as above)',
  'v4 signed urls': 'signed URLs (as above)',
  'v4 signed url with special characters in file name': 'signed URLs (as above)',
  'sign policy': 'POST policies are signed for Google',
  notifications: 'needs Pub/Sub notifications from Cloud Storage',
  universeDomainTests: 'needs a universe domain and its credentials',
};

/** Single tests excluded (full titles below the root `storage` group), and why. */
export const SKIPPED_TESTS: Readonly<Record<string, string>> = {
  'write, read, and remove files should skip validation if file is served decompressed':
    'expects a gzip-stored object without Content-Encoding although the client sends Accept-Encoding: gzip; the emulator follows the documented transcoding rule (docs/storage-emulator.md)',
};

/** Text changes to the test file that make it runnable offline; each must apply exactly once. */
const TEXT_EDITS: readonly { what: string; pattern: RegExp; replacement: string }[] = [
  {
    what: 'the Pub/Sub topic and its IAM policy in the root before hook',
    pattern: /const data = await pubsub\.createTopic\(generateName\(\)\);[\s\S]*?\n {4}\}\);\n/,
    replacement: '',
  },
  { what: 'the topic clean-up', pattern: /deleteAllTopicsAsync\(\)\]/, replacement: 'Promise.resolve()]' },
  { what: 'retries', pattern: /this\.retries\(3\);/, replacement: 'this.retries(0);' },
];

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fail(message: string): never {
  process.stderr.write(`fidelity:storage: ${message}\n`);
  process.exit(1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

// --- the checkout -------------------------------------------------------------------------------

interface PackageJson {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Checks the checkout has the test file, says what is pinned, warns on another release. */
function checkCheckout(checkout: string): PackageJson {
  const testFile = join(checkout, 'system-test', 'storage.ts');
  if (!existsSync(testFile)) {
    fail(
      `${testFile} not found: give a checkout of googleapis/nodejs-storage, e.g.\n` +
        `  git --git-dir=<mirror of googleapis/nodejs-storage> archive ${PINNED.commit} | tar -x -C /tmp/nodejs-storage`,
    );
  }
  const pkg = readJson<PackageJson>(join(checkout, 'package.json'));
  const client = readJson<PackageJson>(
    join(ROOT, 'node_modules', '@google-cloud', 'storage', 'package.json'),
  ).version;
  say(
    `google tests: ${checkout} (release ${pkg.version}); pinned: commit ${PINNED.commit}, release ${PINNED.version}`,
  );
  say(`client under test: @google-cloud/storage ${client} (this project's node_modules)`);
  if (pkg.version !== PINNED.version) {
    say(
      `warning: the checkout is release ${pkg.version}, not the pinned ${PINNED.version}; the figure may differ`,
    );
  }
  return pkg;
}

/** `name@range` for each test package, the range taken from the checkout's package.json. */
function testPackageSpecs(pkg: PackageJson): string[] {
  const ranges = { ...pkg.devDependencies, ...pkg.dependencies };
  return TEST_PACKAGES.map((name) => {
    const range = ranges[name];
    if (range === undefined) fail(`the checkout's package.json does not list ${name}`);
    return `${name}@${range}`;
  });
}

function installTestPackages(specs: readonly string[]): void {
  const marker = join(CACHE, 'node_modules', '.fidelity-installed');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === specs.join(' ')) return;
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(join(CACHE, 'package.json'), '{"private":true}\n');
  say(`installing the test's packages into ${CACHE}: ${specs.join(' ')}`);
  const args = ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', CACHE, ...specs];
  execFileSync('npm', args, { stdio: 'inherit' });
  writeFileSync(marker, specs.join(' '));
}

// --- the bundle ---------------------------------------------------------------------------------

function adapt(source: string): string {
  let out = source;
  for (const { what, pattern, replacement } of TEXT_EDITS) {
    const hits = out.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
    if (hits !== 1) fail(`the test file changed: cannot adapt ${what} (${hits} matches)`);
    out = out.replace(pattern, replacement);
  }
  return out;
}

function adaptPlugin(shim: string): esbuild.Plugin {
  return {
    name: 'adapt-google-system-test',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/src\/(index|nodejs-common\/index)\.js$/ }, () => ({
        path: '@google-cloud/storage',
        external: true,
      }));
      build.onResolve({ filter: /^\.\.\/src\/util\.js$/ }, () => ({ path: shim }));
      build.onResolve({ filter: /^\.\.\/src\// }, (args) => ({
        errors: [{ text: `unexpected import of the checkout's src: ${args.path}` }],
      }));
      // Packages and node built-ins stay imports, resolved from the cache dir, then the project.
      build.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /system-test[\\/]storage\.ts$/ }, (args) => ({
        contents: adapt(readFileSync(args.path, 'utf8')),
        loader: 'ts',
      }));
    },
  };
}

/** Bundles the checkout's system test into the cache directory; returns the bundle's path. */
async function bundle(checkout: string): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  const shim = join(CACHE, 'util-shim.mjs');
  // In Google's build getDirName() is the compiled file's folder, build/esm/src: three levels down.
  const dir = JSON.stringify(join(checkout, 'build', 'esm', 'src'));
  writeFileSync(shim, `export function getDirName() { return ${dir}; }\n`);
  const outfile = join(CACHE, 'storage.system-test.mjs');
  await esbuild.build({
    entryPoints: [join(checkout, 'system-test', 'storage.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    logLevel: 'warning',
    // Not the checkout's tsconfig.json: it extends gts, which is not installed.
    tsconfigRaw: {},
    plugins: [adaptPlugin(shim)],
  });
  return outfile;
}

// --- the network guard --------------------------------------------------------------------------

const refused: string[] = [];

function isAllowed(host: string, emulatorHost: string): boolean {
  const loopback =
    host === 'localhost' || host === '::1' || host.startsWith('127.') || host === '::ffff:127.0.0.1';
  return loopback || host === emulatorHost;
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

/** Refuses every connection from this process except to loopback and to the emulator's host. */
function guardNetwork(emulatorUrl: string): void {
  const emulatorHost = new URL(emulatorUrl).hostname.replace(/^\[|\]$/g, '');
  const original = net.Socket.prototype.connect;
  const guarded = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const to = destination(args);
    if (to && !isAllowed(to.host, emulatorHost)) {
      const where = `${to.host}:${to.port}`;
      if (!refused.includes(where)) refused.push(where);
      this.destroy(
        new Error(
          `fidelity:storage refused a connection to ${where} (only loopback and the emulator are allowed)`,
        ),
      );
      return this;
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  };
  net.Socket.prototype.connect = guarded as typeof original;
}

// --- the emulator -------------------------------------------------------------------------------

interface Emulator {
  url: string;
  stop(): Promise<void>;
}

/** Starts `emulators/storage/main.ts` on a free port and a temporary data directory. */
async function startEmulator(): Promise<Emulator> {
  if (!existsSync(EMULATOR_MAIN)) {
    fail(`${EMULATOR_MAIN} not found: set STORAGE_EMULATOR_HOST to a running Cloud Storage emulator`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'fidelity-storage-'));
  const child = spawn(
    process.execPath,
    [EMULATOR_MAIN, '--port', '0', '--data-dir', dataDir, '--fsync', 'none'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = await emulatorUrl(child, () => stderr).catch((err: unknown) => {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
    fail(`the storage emulator did not start: ${err instanceof Error ? err.message : String(err)}`);
  });
  return { url, stop: () => stopEmulator(child, dataDir, () => stderr) };
}

/** Waits for the emulator's `storage emulator listening on <url>` line. */
function emulatorUrl(child: ChildProcess, stderr: () => string): Promise<string> {
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

async function stopEmulator(child: ChildProcess, dataDir: string, stderr: () => string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    say(`warning: the emulator stopped during the run (${child.exitCode ?? child.signalCode})\n${stderr()}`);
  } else {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}

// --- the run ------------------------------------------------------------------------------------

interface Exclusions {
  grep: RegExp | undefined;
  excluded: number;
  total: number;
}

function allTests(suite: Mocha.Suite): Mocha.Test[] {
  return [...suite.tests, ...suite.suites.flatMap(allTests)];
}

/** Finds the skipped groups and tests in the loaded tree; the grep that leaves them out. */
function exclusions(root: Mocha.Suite): Exclusions {
  const prefixes: string[] = [];
  const unused = new Set([...Object.keys(SKIPPED), ...Object.keys(SKIPPED_TESTS)]);
  const walk = (suite: Mocha.Suite): void => {
    for (const child of suite.suites) {
      if (child.title in SKIPPED) {
        prefixes.push(`^${escapeRegExp(child.fullTitle())} `);
        unused.delete(child.title);
      } else walk(child);
    }
  };
  walk(root);
  const tests = allTests(root);
  for (const test of tests) {
    const title = test.fullTitle().replace(/^storage /, '');
    if (title in SKIPPED_TESTS) {
      prefixes.push(`^${escapeRegExp(test.fullTitle())}$`);
      unused.delete(title);
    }
  }
  for (const title of unused) say(`warning: "${title}" (skip list) matches nothing in the test file`);
  const grep = prefixes.length > 0 ? new RegExp(prefixes.join('|')) : undefined;
  const excluded = grep ? tests.filter((t) => grep.test(t.fullTitle())).length : 0;
  return { grep, excluded, total: tests.length };
}

interface Counts {
  passed: number;
  failed: number;
  failedHooks: number;
  pending: number;
  failures: string[];
}

async function runMocha(file: string): Promise<Counts & Exclusions> {
  const require = createRequire(import.meta.url);
  const MochaClass = require('mocha') as typeof Mocha;
  const mocha = new MochaClass({ timeout: TEST_TIMEOUT_MS, reporter: 'spec' });
  mocha.addFile(file);
  await mocha.loadFilesAsync();
  const skip = exclusions(mocha.suite);
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

function report(r: Counts & Exclusions): void {
  say('\nfailing:');
  if (r.failures.length === 0) say('  none');
  for (const f of r.failures) say(`  - ${f}`);
  if (refused.length > 0)
    say(`\nrefused connections (neither loopback nor the emulator): ${refused.join(', ')}`);
  const skipped = r.pending + r.excluded;
  const notRun = r.total - r.passed - r.failed - skipped;
  const extra = notRun > 0 || r.failedHooks > 0 ? `  not run ${notRun} (${r.failedHooks} failed hooks)` : '';
  say(
    `\nfidelity:storage  passed ${r.passed}  failed ${r.failed}  skipped(pending/excluded) ${skipped} ` +
      `(${r.pending}/${r.excluded})${extra}  of ${r.total}`,
  );
}

async function main(): Promise<void> {
  const program = new Command()
    .name('fidelity:storage')
    .description("Runs Google's Cloud Storage client system tests against the emulator and prints the figure")
    .argument('<checkout>', `a checkout of googleapis/nodejs-storage (pinned: ${PINNED.commit})`)
    .option('--strict', 'exit 1 when any test fails')
    .parse();
  const checkout = resolve(program.args[0] as string);
  const strict = program.opts<{ strict?: boolean }>().strict === true;

  const pkg = checkCheckout(checkout);
  installTestPackages(testPackageSpecs(pkg));
  const file = await bundle(checkout);

  process.env.METADATA_SERVER_DETECTION ??= 'none';
  process.env.GCLOUD_PROJECT ??= 'fidelity-project';
  process.env.GOOGLE_CLOUD_PROJECT ??= process.env.GCLOUD_PROJECT;
  process.env.PROJECT_ID ??= process.env.GOOGLE_CLOUD_PROJECT;
  const given = process.env.STORAGE_EMULATOR_HOST;
  // The client reads a host without a scheme as a protocol ('Only HTTP(S) protocols are supported').
  if (given && !given.includes('://')) process.env.STORAGE_EMULATOR_HOST = `http://${given}`;
  const emulator = given ? undefined : await startEmulator();
  if (emulator) process.env.STORAGE_EMULATOR_HOST = emulator.url;
  guardNetwork(process.env.STORAGE_EMULATOR_HOST as string);

  say(`running ${file} against ${process.env.STORAGE_EMULATOR_HOST}`);
  const result = await runMocha(file);
  await emulator?.stop();
  report(result);
  const failed = result.failed + result.failedHooks > 0;
  process.exit(strict && failed ? 1 : 0);
}

await main();
