#!/usr/bin/env node
/**
 * `npm run fidelity:storage -- <checkout of googleapis/nodejs-storage>`: runs Google's own system
 * tests of the Cloud Storage Node client (`system-test/storage.ts`, written for the real service)
 * against the project's Cloud Storage emulator, with the client this project installs, and prints
 * the figure. Nothing of Google's is copied into this repository: the test file is read from the
 * checkout and bundled into `.data/fidelity-storage/` at run time.
 *
 * Pinned: commit 5aa34a44 (release 7.19.0). Get it with the repository's `fetch`, then
 *   git --git-dir=<mirror> archive 5aa34a44 | tar -x -C /tmp/nodejs-storage
 *
 * The adaptation, all of it here:
 * - `../src/...` imports become the installed `@google-cloud/storage`; `getDirName()` points into
 *   the checkout so the test's data files are found;
 * - the test's own packages (nock, node-fetch, form-data, p-limit, tmp) are installed into the
 *   cache directory from the npm registry on first run;
 * - the root `before` hook also creates a Pub/Sub topic and grants it to allUsers, for the
 *   notification tests (skipped): that part is cut, and so is the topic clean-up;
 * - `this.retries(3)` becomes 0, so a failure is counted once;
 * - whole groups are skipped when they need Google services the emulator does not stand in for
 *   (SKIPPED, each with its reason). With STORAGE_EMULATOR_HOST unset, the script starts the
 *   emulator itself on a free port and a temporary data directory.
 *
 * Exit 0 when the run completed (failures are the figure), 1 on a harness error, and with
 * `--strict` 1 on any failing test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import * as esbuild from 'esbuild';
import { startStorageEmulator } from '../emulators/storage/server.ts';

const PINNED = { commit: '5aa34a44', version: '7.19.0' };
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.data', 'fidelity-storage');
/** The test file's own packages, at the ranges the pinned package.json gives. */
const TEST_PACKAGES = [
  'nock@~13.5.0',
  'node-fetch@^2.6.7',
  'form-data@^4.0.4',
  'p-limit@^3.0.1',
  'tmp@^0.2.0',
];

/** Groups (describe titles) skipped, and why. Shrink this list as the emulator grows. */
export const SKIPPED: Readonly<Record<string, string>> = {
  'without authentication':
    'public access and anonymous callers: the emulator has no IAM; access is Google’s job',
  acls: 'object and bucket ACLs are not served (IAM is declared by Pulumi)',
  iam: 'IAM policies are not served',
  'public access prevention': 'needs IAM and anonymous callers',
  'soft-delete': 'soft delete and restore are not served (the policy is stored, not acted on)',
  'dual-region': 'custom dual-region placement (customPlacementConfig, locationType) is Google’s',
  'uniform bucket-level access': 'ACL behaviour under uniform access',
  'bucket retention policies': 'retention policies and holds are stored, not enforced',
  'bucket logging': 'access logs are Google’s',
  'object retention lock': 'object retention is not enforced',
  'requester pays': 'needs billing and a second project',
  'customer-supplied encryption keys': 'encryption keys are not applied',
  'kms keys': 'needs Cloud KMS',
  channels: 'object change notification channels are deprecated and not served',
  'second service account': 'needs a second account with IAM',
  'v2 signed urls': 'signed URLs are signed for storage.googleapis.com and checked by Google',
  'v2 signed url with special characters in file name': 'signed URLs (as above)',
  'v4 signed urls': 'signed URLs (as above)',
  'v4 signed url with special characters in file name': 'signed URLs (as above)',
  'sign policy': 'POST policies are signed for Google',
  notifications: 'needs Pub/Sub notifications from Cloud Storage',
  universeDomainTests: 'needs a universe domain and its credentials',
};

/** Single tests skipped (full titles below the root `storage`), and why. */
export const SKIPPED_TESTS: Readonly<Record<string, string>> = {
  'write, read, and remove files should skip validation if file is served decompressed':
    'expects a gzip-stored object without Content-Encoding although the client sends Accept-Encoding: gzip; the emulator follows the documented transcoding rule (docs/storage-emulator.md)',
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text changes that make the test runnable offline, each required to apply once. */
function adapt(source: string): string {
  const edits: [RegExp, string, string][] = [
    [
      /const data = await pubsub\.createTopic\(generateName\(\)\);[\s\S]*?\n {4}\}\);\n/,
      '',
      'the Pub/Sub topic of the root before hook',
    ],
    [/deleteAllTopicsAsync\(\)\]/, 'Promise.resolve()]', 'the topic clean-up'],
    [/this\.retries\(3\);/, 'this.retries(0);', 'retries'],
  ];
  let out = source;
  for (const [pattern, replacement, what] of edits) {
    if (!pattern.test(out)) throw new Error(`the test file changed: cannot adapt ${what}`);
    out = out.replace(pattern, replacement);
  }
  return out;
}

function installTestPackages(): void {
  const marker = join(CACHE, 'node_modules', '.fidelity-installed');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === TEST_PACKAGES.join(' ')) return;
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(join(CACHE, 'package.json'), '{"private":true}\n');
  process.stdout.write(`installing the test's packages into ${CACHE}: ${TEST_PACKAGES.join(' ')}\n`);
  execFileSync(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', CACHE, ...TEST_PACKAGES],
    {
      stdio: 'inherit',
    },
  );
  writeFileSync(marker, TEST_PACKAGES.join(' '));
}

async function bundle(checkout: string): Promise<string> {
  const entry = join(checkout, 'system-test', 'storage.ts');
  const shim = join(CACHE, 'util-shim.mjs');
  // getDirName() is the compiled file's folder (build/esm/src) in Google's build.
  writeFileSync(
    shim,
    `export function getDirName() { return ${JSON.stringify(join(checkout, 'build', 'esm', 'src'))}; }\n`,
  );
  const outfile = join(CACHE, 'storage.system-test.mjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    logLevel: 'warning',
    plugins: [
      {
        name: 'adapt-google-system-test',
        setup(build) {
          build.onResolve({ filter: /^\.\.\/src\/(index|nodejs-common\/index)\.js$/ }, () => ({
            path: '@google-cloud/storage',
            external: true,
          }));
          build.onResolve({ filter: /^\.\.\/src\/util\.js$/ }, () => ({ path: shim }));
          build.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
          build.onLoad({ filter: /system-test[\\/]storage\.ts$/ }, (args) => ({
            contents: adapt(readFileSync(args.path, 'utf8')),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  return outfile;
}

interface Counts {
  passed: number;
  failed: number;
  pending: number;
  failures: string[];
}

async function runMocha(file: string): Promise<Counts> {
  const require = createRequire(import.meta.url);
  // biome-ignore lint/suspicious/noExplicitAny: mocha's CommonJS entry has no ESM types here; only its documented API is used.
  const Mocha = require('mocha') as any;
  const titles = Object.keys(SKIPPED).map(escapeRegExp).join('|');
  const tests = Object.keys(SKIPPED_TESTS).map(escapeRegExp).join('|');
  const mocha = new Mocha({
    timeout: 120_000,
    reporter: 'spec',
    // Skipped groups sit at the top level or one level down (kms keys, second service account).
    grep: new RegExp(`^storage (?:(?:[^ ].*? )?(?:${titles}) |(?:${tests})$)`),
    invert: true,
  });
  mocha.addFile(file);
  await mocha.loadFilesAsync();
  const counts: Counts = { passed: 0, failed: 0, pending: 0, failures: [] };
  await new Promise<void>((done) => {
    const runner = mocha.run(() => done());
    runner.on('pass', () => {
      counts.passed += 1;
    });
    runner.on('pending', () => {
      counts.pending += 1;
    });
    runner.on('fail', (test: { fullTitle(): string }, err: Error) => {
      counts.failed += 1;
      counts.failures.push(`${test.fullTitle()}: ${String(err.message).split('\n')[0]}`);
    });
  });
  return counts;
}

const program = new Command()
  .name('fidelity:storage')
  .description("Runs Google's Cloud Storage client system tests against the emulator and prints the figure")
  .argument('<checkout>', 'a checkout of googleapis/nodejs-storage (pinned: 5aa34a44, release 7.19.0)')
  .option('--strict', 'exit 1 when any test fails')
  .parse();

const checkout = resolve(program.args[0] as string);
const strict = program.opts<{ strict?: boolean }>().strict === true;
if (!existsSync(join(checkout, 'system-test', 'storage.ts'))) {
  process.stderr.write(
    `${checkout}/system-test/storage.ts not found: give a checkout of googleapis/nodejs-storage\n`,
  );
  process.exit(1);
}
const version = (JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as { version?: string })
  .version;
if (version !== PINNED.version)
  process.stdout.write(
    `note: the checkout is release ${version}; the figures in the docs are for ${PINNED.version} (${PINNED.commit})\n`,
  );

process.env.METADATA_SERVER_DETECTION ??= 'none';
process.env.GCLOUD_PROJECT ??= 'fidelity-project';
process.env.GOOGLE_CLOUD_PROJECT ??= process.env.GCLOUD_PROJECT;
let stopEmulator: (() => Promise<void>) | undefined;
if (!process.env.STORAGE_EMULATOR_HOST) {
  const dataDir = mkdtempSync(join(tmpdir(), 'fidelity-storage-'));
  const emulator = await startStorageEmulator({ port: 0, dataDir, fsync: 'none' });
  process.env.STORAGE_EMULATOR_HOST = emulator.url;
  stopEmulator = async () => {
    await emulator.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

installTestPackages();
const file = await bundle(checkout);
process.stdout.write(`running ${file} against ${process.env.STORAGE_EMULATOR_HOST}\n`);
const counts = await runMocha(file);
await stopEmulator?.();
const skipped = `${Object.keys(SKIPPED).length} groups and ${Object.keys(SKIPPED_TESTS).length} test`;
process.stdout.write('\nfailing:\n');
for (const f of counts.failures) process.stdout.write(`  - ${f}\n`);
process.stdout.write(
  `\nfidelity:storage  passed ${counts.passed}  failed ${counts.failed}  pending ${counts.pending}  (${skipped} skipped, see SKIPPED and SKIPPED_TESTS)\n`,
);
process.exit(strict && counts.failed > 0 ? 1 : 0);
