#!/usr/bin/env node
/**
 * `npm run fidelity:pubsub -- <checkout of googleapis/nodejs-pubsub> [--strict]`: runs Google's own
 * system tests of the Pub/Sub Node client (`system-test/pubsub.ts`, written for the real service)
 * against our Pub/Sub emulator, with the client this project installs, and prints the figure:
 * passed, failed, skipped with reasons, and the failing titles (scripts/fidelity-harness.ts does
 * the running). Nothing of Google's is copied into this repository: the test file is read from the
 * checkout and bundled at run time.
 *
 * The adaptation, all of it here:
 * - `../src` becomes the installed `@google-cloud/pubsub`; `../test/testResources` (naming and
 *   clean-up helpers) and the fixtures are bundled from the checkout;
 * - `import * as assert` and `import defer = require('p-defer')` become default imports (the first
 *   is called as a function, the second is CommonJS syntax an ES module cannot hold);
 * - the client finds the emulator through `PUBSUB_EMULATOR_HOST` alone, as a user's code would;
 * - groups and single tests needing what the emulator does not stand in for are excluded, each
 *   with its reason (SKIPPED, SKIPPED_TESTS).
 *
 * Exit 0 when the run completed (failures are the figure), 1 on a harness error, and with
 * `--strict` 1 on any failure.
 */
import { copyFileSync, cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runFidelity } from './fidelity-harness.ts';

const PINNED = { commit: '775cc886', version: '5.3.0' };

/** Groups (describe titles, at any depth) excluded, and why. Shrink this table as the emulator grows. */
export const SKIPPED: Readonly<Record<string, string>> = {};

const GENERATED_CLIENT =
  "the sample pulls with the generated v1.SubscriberClient, which does not read PUBSUB_EMULATOR_HOST (only the PubSub class does): it connects to Google's endpoint with default credentials";

/**
 * Single tests excluded (full titles below the root `pubsub` group, or from the samples' root
 * group down), and why.
 */
export const SKIPPED_TESTS: Readonly<Record<string, string>> = {
  'topics should publish with retry settings':
    'Google\'s test passes the sample its arguments in the wrong order (project id first, where the sample takes the topic): the emulator\'s NOT_FOUND for topic "<project id>" is what Pub/Sub answers',
  'topics should publish ordered messages':
    'the sample names a regional Google endpoint (us-east1-pubsub.googleapis.com) in its client options, which PUBSUB_EMULATOR_HOST does not override: it needs the real service',
  'subscriptions should create an exactly-once delivery sub and listen on it.':
    'the sample names a regional Google endpoint (us-west1-pubsub.googleapis.com) in its client options, which PUBSUB_EMULATOR_HOST does not override: it needs the real service',
  'subscriptions should listen for messages synchronously': GENERATED_CLIENT,
  'subscriptions should listen for messages synchronously with lease management': GENERATED_CLIENT,
  'subscriptions should listen for messages synchronously with delivery attempts.': GENERATED_CLIENT,
  'openTelemetry should run the WithOpenTelemetryTracing samples':
    'the samples export their traces to Cloud Trace (another Google service)',
};

/** The samples' test files (in `samples/system-test/`) that exercise the service. */
const SAMPLE_TESTS = ['topics', 'subscriptions', 'schema', 'quickstart', 'openTelemetryTracing'];

const SAMPLE_PACKAGES = [
  '@google-cloud/bigquery',
  '@google-cloud/storage',
  '@google-cloud/opentelemetry-cloud-trace-exporter',
  '@opentelemetry/api',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/semantic-conventions',
  'avro-js',
  'p-defer',
  'protobufjs',
  'chai',
  'uuid',
];

await runFidelity({
  name: 'fidelity:pubsub',
  repo: 'googleapis/nodejs-pubsub',
  testFile: 'system-test/pubsub.ts',
  client: '@google-cloud/pubsub',
  pinned: PINNED,
  rootTitle: 'pubsub',
  testPackages: [],
  textEdits: [
    {
      what: 'the assert import',
      pattern: /import \* as assert from 'assert';/,
      replacement: "import assert from 'assert';",
    },
    {
      what: 'the p-defer import (CommonJS import-equals)',
      pattern: /import defer = require\('p-defer'\);/,
      replacement: "import defer from 'p-defer';",
    },
  ],
  skipped: SKIPPED,
  skippedTests: SKIPPED_TESTS,
  resolveSrc: (path, _cache, checkout) => {
    if (path === '../src' || path === '../src/topic') return '@google-cloud/pubsub';
    if (path === '../test/testResources') return join(checkout, 'test', 'testResources.ts');
    // Fixtures the compiled test (in build/system-test/) requires from the checkout.
    if (path.startsWith('../../system-test/fixtures/')) return join(checkout, path.slice('../../'.length));
    return undefined;
  },
  // Started in this order: the Pub/Sub emulator finds the other two through the variables
  // (BigQuery and Cloud Storage subscriptions write into them).
  emulators: [
    // The samples' tests make buckets with Google's Storage client, and a dataset and table with
    // Google's BigQuery client.
    { kind: 'storage', env: 'STORAGE_EMULATOR_HOST', args: ['--fsync', 'none'] },
    { kind: 'bigquery', env: 'BIGQUERY_EMULATOR_HOST' },
    {
      kind: 'pubsub',
      env: 'PUBSUB_EMULATOR_HOST',
      value: (url) => new URL(url).host,
      args: ['--fsync', 'none'],
    },
  ],
  testTimeoutMs: 120_000,
  docs: 'docs/pubsub-emulator.md',
  extra: {
    dir: 'samples',
    // The samples' unit tests (common, testResources) test the test helpers, not the service.
    testFiles: SAMPLE_TESTS.map((name) => `system-test/${name}.test.ts`),
    // What the samples and their tests import; `@google-cloud/pubsub` is this project's.
    packages: SAMPLE_PACKAGES,
    // avro-js 1.12 requires underscore without declaring it (Google's own runs get it through
    // the samples' dev dependencies, which are not installed here).
    undeclared: ['underscore@^1.13.0'],
    // The samples' `npm test` compiles typescript/ into build/, then copies the JavaScript
    // samples (the same samples, type-stripped) over it: the JavaScript ones are what runs, from
    // build/ (and one test runs `node listenForErrors` from the folder itself).
    textEdits: {
      'system-test/schema.test.ts': [
        {
          what: 'the p-defer import (a namespace import called as a function)',
          pattern: /import \* as defer from 'p-defer';/,
          replacement: "import defer from 'p-defer';",
        },
        {
          // The bundle is an ES module (no __dirname); the fixtures are copied beside build/.
          what: 'the fixtures path',
          pattern: /path\.join\(__dirname, '\.\.', '\.\.', 'system-test', 'fixtures', fixture\)/,
          replacement: "path.join(process.cwd(), 'system-test', 'fixtures', fixture)",
        },
      ],
    },
    prepare: (work, folder) => {
      // The system test reads `system-test/fixtures/provinces.avsc` from the current directory,
      // the samples' schema test the same files from its own fixtures: they are the same files.
      cpSync(join(folder, 'system-test', 'fixtures'), join(work, 'system-test', 'fixtures'), {
        recursive: true,
      });
      for (const file of readdirSync(folder)) {
        if (!file.endsWith('.js')) continue;
        copyFileSync(join(folder, file), join(work, file));
        copyFileSync(join(folder, file), join(work, 'build', file));
      }
    },
  },
});
