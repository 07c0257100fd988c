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
 * - the root `before` hook creates a Pub/Sub topic and grants it to allUsers (Cloud Storage's
 *   service agent publishes to it): it runs as written against the Pub/Sub emulator, started
 *   first with IAM on; its client sends no credentials to an emulator, so it is the owner there;
 * - `this.retries(3)` becomes 0, so a failure is counted once;
 * - the main client sends credentials to the emulator (`useAuthWithCustomEndpoint`): a
 *   service-account key file given as its `keyFilename` (IAM is on; emulators/common/iam-keys.ts;
 *   the other clients keep the local credentials file), so it can sign URLs and POST
 *   policies as it does against Cloud Storage: as the owner, the test project's service account
 *   `fidelity-owner` granted Storage Admin, or `--as serviceAccount:…` that member granted Storage
 *   Admin (`--as user:…` keeps the local credentials file: a user has no key, the signing tests
 *   fail); its bearer header is added to its resumable uploads, which the client sends without
 *   (TEXT_EDITS);
 * - the emulator runs with `--anonymous allUsers`: the tests' credential-less client is Cloud
 *   Storage's anonymous caller, and Google's public bucket it reads is stood in for (`publicBucket`);
 * - whole groups and single tests needing what the emulator does not stand in for are excluded by an
 *   inverted mocha grep built from SKIPPED and SKIPPED_TESTS (each with its reason);
 * - only connections to loopback and to the emulator's host are allowed from this process (no
 *   metadata server, no internet): any other is refused and listed.
 *
 * The emulators: PUBSUB_EMULATOR_HOST and STORAGE_EMULATOR_HOST if set, else `emulators/pubsub/main.ts`
 * and `emulators/storage/main.ts` started as child processes on free ports and temporary data
 * directories, the Storage emulator publishing its notifications to the Pub/Sub one.
 *
 * Exit 0 when the run completed (failures are the figure), 1 on a harness error, and with
 * `--strict` 1 on any failure.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFidelity, type TextEdit } from './fidelity-harness.ts';

const PINNED = { commit: '5aa34a44', version: '7.19.0' };

/** Google's public bucket the `without authentication` group reads; `publicBucket` stands in for it. */
const PUBLIC_BUCKET = 'gcp-public-data-landsat';

/**
 * Packages the test imports that are installed into the cache directory at the checkout's ranges.
 * The others resolve from the project's node_modules: `mocha` must be the runner's own instance,
 * `uuid` (v4) and `@google-cloud/pubsub` (the notifications' topic and subscription) work as they are.
 */
const TEST_PACKAGES = ['nock', 'node-fetch', 'form-data', 'p-limit', 'tmp'] as const;

/**
 * Groups (describe titles, at any depth) excluded, and why. Shrink this table as the emulator grows.
 * Not here because they run and pass: acls, uniform bucket-level access, public access prevention,
 * without authentication (but one test, SKIPPED_TESTS), lifecycle, turbo replication, hierarchical
 * namespace, bucket retention policies, object retention lock, customer-supplied encryption keys, soft-delete,
 * dual-region, bucket logging (the setting; no logs are written), channels (stop answers the 404
 * of a channel that cannot exist), notifications (published to the Pub/Sub emulator started here),
 * signed URLs and POST policies (signed with the tests' service-account key; one test aside).
 * Not here because the test file skips them itself (counted as pending): HMAC keys (`describe.skip`,
 * with its `second service account` group inside), and requester
 * pays' tests from a second project (it runs them only with GCN_STORAGE_2ND_PROJECT_ID set); its one
 * other test passes.
 */
export const SKIPPED: Readonly<Record<string, string>> = {
  'kms keys': 'needs Cloud KMS',
  universeDomainTests:
    'builds a client with a universe domain but without useAuthWithCustomEndpoint, so against an emulator it calls without credentials (anonymous, refused), and its after hook deletes the main bucket',
};

/** Single tests excluded (full titles below the root `storage` group), and why. */
export const SKIPPED_TESTS: Readonly<Record<string, string>> = {
  'without authentication private data should not upload a file':
    'expects the refusal’s message to name storage.objects.create (or, against Cloud Storage, the missing default credentials); the client’s resumable upload to a custom endpoint reports the emulator’s 401 as gaxios’s bare "Request failed with status code 401", its body (which names storage.objects.create: emulators/storage/test/acl.test.ts) left in the response',
  'v4 signed urls should create a virtual-hosted style URL':
    'the client builds a virtual-hosted URL on https://<bucket>.storage.<universe> whatever its endpoint (signer.js), so the test fetches Cloud Storage itself over TLS, which no local emulator answers',
  'write, read, and remove files should skip validation if file is served decompressed':
    'expects a gzip-stored object without Content-Encoding although the client sends Accept-Encoding: gzip; the emulator follows the documented transcoding rule (docs/storage-emulator.md)',
};

/** Text changes to the test file that make it runnable offline; each must apply exactly once. */
const TEXT_EDITS: readonly TextEdit[] = [
  { what: 'retries', pattern: /this\.retries\(3\);/, replacement: 'this.retries(0);' },
  {
    // The client (7.22, file.js startResumableUpload_) does not pass useAuthWithCustomEndpoint on to
    // its resumable uploads, so to a custom endpoint they go without credentials, and the emulator
    // (`--anonymous allUsers`) refuses them as an anonymous caller. The main client's own request
    // hook (interceptors) adds its token to them; `isPublic()`'s probe, which the hook also reaches
    // (with a uri), stays anonymous, as it is against Cloud Storage. The header is the key file's
    // self-signed JWT, which lasts an hour: the hook is synchronous, so the header it adds is
    // fetched again every 10 minutes (the auth client renews the JWT before it expires), and a
    // run over an hour keeps a valid one.
    what: 'the main client’s token on its resumable uploads',
    pattern: /\n {2}before\(async \(\) => \{\n {4}await bucket\.create\(\);\n/,
    replacement: `
  before(async () => {
    await bucket.create();
    let uploadAuth = await storage.authClient.getRequestHeaders();
    setInterval(() => {
      storage.authClient.getRequestHeaders().then(h => {
        uploadAuth = h;
      }, () => undefined);
    }, 10 * 60_000).unref();
    storage.interceptors.push({
      request: reqOpts =>
        reqOpts.uri === undefined
          ? {...reqOpts, headers: {...reqOpts.headers, ...uploadAuth}}
          : reqOpts,
    });
`,
  },
  {
    // Google's clients send credentials to a custom endpoint only when told to (IAM is on). The
    // main client is given the member's service-account key file, with which it signs URLs and
    // POST policies; without one (`--as user:…`) it takes the harness's local credentials file.
    what: 'the main Storage client (credentials to the emulator)',
    pattern: /const storage = new Storage\(\{\n/,
    replacement:
      'const storage = new Storage({\n    useAuthWithCustomEndpoint: true,\n    keyFilename: process.env.FIDELITY_SERVICE_ACCOUNT_KEY,\n',
  },
];

/**
 * A stand-in for Google's public bucket `gcp-public-data-landsat`, which `without authentication`
 * lists and reads with no credentials: one object, the bucket and the object readable by
 * allUsers through their ACLs (Google's data is not reachable offline; the test checks only that
 * a public object comes back).
 */
async function publicBucket(): Promise<void> {
  const { Storage } = await import('@google-cloud/storage');
  const storage = new Storage({ useAuthWithCustomEndpoint: true });
  const [bucket] = await storage.createBucket(PUBLIC_BUCKET, { predefinedAcl: 'publicRead' });
  await bucket
    .file('index.csv.gz')
    .save('scene,cloud_cover\n', { resumable: false, predefinedAcl: 'publicRead' });
}

await runFidelity({
  name: 'fidelity:storage',
  repo: 'googleapis/nodejs-storage',
  testFile: 'system-test/storage.ts',
  client: '@google-cloud/storage',
  pinned: PINNED,
  rootTitle: 'storage',
  testPackages: TEST_PACKAGES,
  textEdits: TEXT_EDITS,
  skipped: SKIPPED,
  skippedTests: SKIPPED_TESTS,
  resolveSrc: (path, cache, checkout) => {
    if (/^\.\.\/src\/(index|nodejs-common\/index)\.js$/.test(path)) return '@google-cloud/storage';
    if (path === '../src/util.js') {
      // In Google's build getDirName() is the compiled file's folder, build/esm/src: three levels down.
      const shim = join(cache, 'util-shim.mjs');
      writeFileSync(
        shim,
        `export function getDirName() { return ${JSON.stringify(join(checkout, 'build', 'esm', 'src'))}; }\n`,
      );
      return shim;
    }
    return undefined;
  },
  iam: { roles: ['roles/storage.admin'] },
  // The client signs URLs and POST policies with its credentials' key.
  serviceAccountKey: true,
  prepare: publicBucket,
  // Started in this order: the Storage emulator publishes its bucket notifications to the Pub/Sub
  // emulator it finds in PUBSUB_EMULATOR_HOST (set once that one is up), where the test's Pub/Sub
  // client finds it too.
  emulators: [
    {
      kind: 'pubsub',
      env: 'PUBSUB_EMULATOR_HOST',
      value: (url) => new URL(url).host,
      args: ['--fsync', 'none'],
    },
    {
      kind: 'storage',
      env: 'STORAGE_EMULATOR_HOST',
      // A call without credentials is allUsers, as in Cloud Storage (`without authentication`).
      args: ['--fsync', 'none', '--anonymous', 'allUsers'],
    },
  ],
  docs: 'docs/storage-emulator.md',
});
