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
import { join } from 'node:path';
import { runFidelity } from './fidelity-harness.ts';

const PINNED = { commit: '775cc886', version: '5.3.0' };

/** Groups (describe titles, at any depth) excluded, and why. Shrink this table as the emulator grows. */
export const SKIPPED: Readonly<Record<string, string>> = {
  schema: 'schemas are not emulated: the emulator refuses them by name (docs/pubsub-emulator.md)',
};

/** Single tests excluded (full titles below the root `pubsub` group), and why. */
export const SKIPPED_TESTS: Readonly<Record<string, string>> = {};

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
  emulators: [
    {
      kind: 'pubsub',
      env: 'PUBSUB_EMULATOR_HOST',
      value: (url) => new URL(url).host,
      args: ['--fsync', 'none'],
    },
  ],
  testTimeoutMs: 120_000,
  docs: 'docs/pubsub-emulator.md',
});
