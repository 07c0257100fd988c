#!/usr/bin/env node
/**
 * `npm run fidelity:bigquery-storage -- <checkout of googleapis/nodejs-bigquery-storage> [--strict]`:
 * runs Google's own system test of the Storage Write API client
 * (`system-test/managed_writer_client_test.ts`, written for the real service: the managed writer's
 * WriterClient, Writer and JSONWriter against default, committed, pending and buffered streams)
 * against the BigQuery emulator, which serves the Write API over gRPC on its REST port
 * (docs/bigquery-emulator.md, "The Storage Write API"), with the client this project installs,
 * and prints the figure (scripts/fidelity-harness.ts does the running).
 *
 * The adaptation, all of it here:
 * - `../src`, `../src/managedwriter/*` become the installed `@google-cloud/bigquery-storage`; its
 *   generated `../protos/protos` (a UMD module Node cannot name exports of) a two-line shim;
 *   `../samples/customer_record.json` and `./util` are read from the checkout;
 * - the test's Write clients get the emulator's endpoint, plaintext and no token (`servicePath`,
 *   `port`, `sslCreds`): the one difference from production; its BigQuery client finds the
 *   emulator by `BIGQUERY_EMULATOR_HOST`, unchanged;
 * - `import * as assert` and `import * as protobuf` become default imports (Node names no exports
 *   of these CommonJS modules; the first is also called as a function), and the package.json it
 *   reads by `__dirname` is the installed client's (the trace id it checks names the release).
 *
 * Exit 0 when the run completed (failures are the figure), 1 on a harness error, and with
 * `--strict` 1 on any failure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFidelity } from './fidelity-harness.ts';

const PINNED = { commit: '057959ad', version: '5.1.0' };

/** Groups (describe titles, at any depth) excluded, and why. */
export const SKIPPED: Readonly<Record<string, string>> = {};

/** Single tests excluded (full titles below the root group), and why. */
export const SKIPPED_TESTS: Readonly<Record<string, string>> = {};

const CLIENT_DIR = join('@google-cloud', 'bigquery-storage', 'build');

await runFidelity({
  name: 'fidelity:bigquery-storage',
  repo: 'googleapis/nodejs-bigquery-storage',
  testFile: 'system-test/managed_writer_client_test.ts',
  client: '@google-cloud/bigquery-storage',
  pinned: PINNED,
  rootTitle: 'managedwriter.WriterClient',
  testPackages: ['sinon', 'uuid'],
  textEdits: [
    {
      // Namespace imports called as functions work under TypeScript's CommonJS output only; the
      // options every Write client of the test gets follow it (import bindings are hoisted).
      what: 'the assert import (and the emulator endpoint of the Write clients)',
      pattern: /import \* as assert from 'assert';/,
      replacement:
        "import assert from 'assert';\nconst fidelityUrl = new URL(String(process.env.BIGQUERY_EMULATOR_HOST));\n" +
        'const fidelityWriteOptions = { servicePath: fidelityUrl.hostname, port: Number(fidelityUrl.port), ' +
        'sslCreds: gax.grpc.credentials.createInsecure() };',
    },
    {
      // protobufjs is CommonJS whose exports Node cannot name: its default export is the module.
      what: 'the protobufjs import',
      pattern: /import \* as protobuf from 'protobufjs';/,
      replacement: "import protobuf from 'protobufjs';",
    },
    {
      what: 'the Write clients made without options',
      pattern: /new WriterClient\(\)/,
      replacement: 'new WriterClient(fidelityWriteOptions)',
      all: true,
    },
    {
      what: 'the options of the Write clients made with options',
      pattern: /clientOptions = \{\n(\s+)projectId: projectId,/,
      replacement: 'clientOptions = {\n$1...fidelityWriteOptions,\n$1projectId: projectId,',
    },
    {
      // The test reads the release it runs with (the trace id names it): the installed client's.
      what: "the package.json read from the compiled test's directory",
      pattern: /path\.resolve\(__dirname, '\.\.\/\.\.\/package\.json'\)/,
      replacement:
        "(await import('module')).createRequire(import.meta.url).resolve('@google-cloud/bigquery-storage/package.json')",
    },
  ],
  skipped: SKIPPED,
  skippedTests: SKIPPED_TESTS,
  resolveSrc: (path, cache, checkout) => {
    if (path === '../src') return '@google-cloud/bigquery-storage';
    if (path.startsWith('../src/managedwriter/'))
      return `@google-cloud/bigquery-storage/build/src/managedwriter/${path.slice('../src/managedwriter/'.length)}.js`;
    if (path === '../protos/protos') {
      // The generated protos are a UMD module: its value is the root, with no named exports.
      const shim = join(cache, 'shims', 'protos.mjs');
      mkdirSync(join(cache, 'shims'), { recursive: true });
      writeFileSync(
        shim,
        `import root from '${CLIENT_DIR.split('\\').join('/')}/protos/protos.js';\nexport const google = root.google;\n`,
      );
      return shim;
    }
    if (path === '../samples/customer_record.json') return join(checkout, 'samples', 'customer_record.json');
    return undefined;
  },
  emulators: [{ kind: 'bigquery', env: 'BIGQUERY_EMULATOR_HOST' }],
  testTimeoutMs: 120_000,
});
