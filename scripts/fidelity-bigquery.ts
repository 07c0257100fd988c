#!/usr/bin/env node
/**
 * `npm run fidelity:bigquery -- <checkout of googleapis/nodejs-bigquery> [--strict]`: runs Google's
 * own system tests of the BigQuery Node client (`system-test/bigquery.ts` and
 * `system-test/timestamp_output_format.ts`, written for the real service) against the BigQuery
 * emulator (and the Cloud Storage emulator the tests' root hook needs for a bucket), with the client this project installs, and prints the figure: passed, failed,
 * skipped with reasons, and the failing titles (scripts/fidelity-harness.ts does the running).
 *
 * The adaptation, all of it here:
 * - `../src` and `../src/types` become the installed `@google-cloud/bigquery` (the types are only
 *   types);
 * - Google's public sample tables the tests query are stood in for by small tables with the columns
 *   and rows their conditions need (`publicSamples`);
 * - groups and single tests needing what the emulator does not stand in for are excluded, each
 *   with its reason (SKIPPED, SKIPPED_TESTS): models and routines;
 * - the BigQuery emulator runs without `--job-latency-ms`: jobs.insert answers at once and the job
 *   runs on, so the `Query timeout` group's query (a million-row CTAS) is still running after its
 *   1000 ms timeout on its own merit (about 2 s on two busy cores; a much faster machine may
 *   finish it in time, and those two tests then fail: `--job-latency-ms` is the emulator's knob);
 * - `import * as assert` and `import * as Big` become default imports (called as functions, they
 *   work only under TypeScript's CommonJS output), and the data files it requires from
 *   `../../system-test/data/` are read from the checkout;
 * - while `timestamp_output_format.ts` runs, `BIGQUERY_PICOSECOND_SUPPORT=true`: the installed
 *   client then asks for ISO8601_STRING timestamps by default, as the pinned release always does;
 * - its BigQuery and Storage clients send credentials to the emulators (`useAuthWithCustomEndpoint`):
 *   the harness's local credentials file, as the owner or `--as` a member granted BigQuery Admin
 *   and Storage Admin (IAM is on); without credentials the client cannot upload a load job's file
 *   at all (docs/google-wire.md §7).
 *
 * Exit 0 when the run completed (failures are the figure), 1 on a harness error, and with
 * `--strict` 1 on any failure.
 */
import { join } from 'node:path';
import { runFidelity } from './fidelity-harness.ts';

const PINNED = { commit: 'c61c15d2', version: '8.1.1' };

/** Groups (describe titles, at any depth) excluded, and why. Shrink this table as the emulator grows. */
export const SKIPPED: Readonly<Record<string, string>> = {
  'BigQuery/Model': 'BigQuery ML models are not emulated',
  'BigQuery/Routine': 'routines (persistent UDFs, procedures) are not emulated',
};

/** Single tests excluded (full titles below the root `BigQuery` group), and why. */
export const SKIPPED_TESTS: Readonly<Record<string, string>> = {};

/**
 * Stand-ins for the two public sample tables the tests query (`publicdata.samples.github_nested`
 * and `.gsod`), with the columns they read and rows their conditions find: Google's data is not
 * reachable offline, and the tests check only that a matching row comes back.
 */
async function publicSamples(): Promise<void> {
  const { BigQuery } = await import('@google-cloud/bigquery');
  const bq = new BigQuery({
    projectId: 'publicdata',
    apiEndpoint: process.env.BIGQUERY_EMULATOR_HOST as string,
  });
  await bq.createDataset('samples');
  await bq.query(`CREATE TABLE samples.github_nested AS
SELECT CONCAT('https://github.com/', owner, '/repo-', CAST(n AS STRING)) AS url, MOD(n, 3) != 0 AS public,
  STRUCT(owner AS owner, n AS forks) AS repository
FROM UNNEST(GENERATE_ARRAY(1, 200)) AS n, UNNEST([IF(MOD(n, 2) = 0, 'google', 'someone')]) AS owner`);
  await bq.query(`CREATE TABLE samples.gsod AS
SELECT CAST(n AS FLOAT64) / 2 AS snow_depth, 2000 + MOD(n, 20) AS year FROM UNNEST(GENERATE_ARRAY(0, 60)) AS n`);
}

await runFidelity({
  name: 'fidelity:bigquery',
  repo: 'googleapis/nodejs-bigquery',
  testFile: 'system-test/bigquery.ts',
  client: '@google-cloud/bigquery',
  pinned: PINNED,
  rootTitle: 'BigQuery',
  testPackages: [],
  textEdits: [
    // Namespace imports called as functions work under TypeScript's CommonJS output only.
    {
      what: 'the assert import',
      pattern: /import \* as assert from 'assert';/,
      replacement: "import assert from 'assert';",
    },
    {
      // Google's clients send credentials to a custom endpoint only when told to: the tests'
      // default credentials are the harness's local credentials file (IAM is on).
      what: 'the BigQuery clients (credentials to the emulator)',
      pattern: /new BigQuery\(\)/,
      replacement: 'new BigQuery({ useAuthWithCustomEndpoint: true } as {})',
      all: true,
    },
    {
      what: 'the Storage client (credentials to the emulator)',
      pattern: /new Storage\(\)/,
      replacement: 'new Storage({ useAuthWithCustomEndpoint: true })',
    },
    {
      // The client's own (CommonJS) big.js, so its instanceof checks see the test's values.
      what: 'the big.js import',
      pattern: /import \* as Big from 'big\.js';/,
      replacement:
        "import { createRequire as fidelityRequire } from 'module';\nconst Big = fidelityRequire(import.meta.url)('big.js');",
    },
    {
      what: 'the data files named with require.resolve from the compiled build/system-test/',
      pattern: /require\.resolve\('\.\.\/\.\.\/system-test\//,
      replacement: "String(process.env.FIDELITY_CHECKOUT) + ('/system-test/",
      all: true,
    },
  ],
  moreTestFiles: [
    {
      file: 'system-test/timestamp_output_format.ts',
      textEdits: [
        {
          what: 'the assert import',
          pattern: /import \* as assert from 'assert';/,
          replacement: "import assert from 'assert';",
        },
        {
          // The pinned release's getRows asks for ISO8601_STRING when given no format options (two
          // cases check it); the installed 8.3 client does so only with this variable set, so it
          // is set while this file's tests run.
          what: 'the picosecond default of the pinned release (set)',
          pattern: /before\(async \(\) => \{/,
          replacement: "before(async () => {\n    process.env.BIGQUERY_PICOSECOND_SUPPORT = 'true';",
        },
        {
          what: 'the picosecond default of the pinned release (unset)',
          pattern: /after\(async \(\) => \{/,
          replacement: 'after(async () => {\n    delete process.env.BIGQUERY_PICOSECOND_SUPPORT;',
        },
      ],
    },
  ],
  skipped: SKIPPED,
  skippedTests: SKIPPED_TESTS,
  resolveSrc: (path, _cache, checkout) => {
    if (path === '../src' || path === '../src/types' || path === '../src/bigquery')
      return '@google-cloud/bigquery';
    // Data files the compiled test (in build/system-test/) requires from the checkout.
    if (path.startsWith('../../system-test/data/')) return join(checkout, path.slice('../../'.length));
    return undefined;
  },
  // Storage first: the BigQuery emulator, started next, inherits STORAGE_EMULATOR_HOST and so
  // reads load sources from and writes extracts to the same bucket the tests use.
  // The credentialed member (`--as`) administers both services on the test project and reads the
  // stand-ins for Google's public samples.
  iam: { roles: ['roles/bigquery.admin', 'roles/storage.admin'], projects: ['publicdata'] },
  emulators: [
    { kind: 'storage', env: 'STORAGE_EMULATOR_HOST', args: ['--fsync', 'none'] },
    { kind: 'bigquery', env: 'BIGQUERY_EMULATOR_HOST' },
  ],
  // The client waits a while before retrying an insert into a table it just created.
  testTimeoutMs: 120_000,
  docs: 'docs/bigquery-emulator.md',
  prepare: publicSamples,
});
