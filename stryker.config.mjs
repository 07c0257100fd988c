// @ts-check
/**
 * Mutation testing with Stryker (`npm run mutate -- <module>`; docs/testing.md): the default
 * mutators over whole files, each mutant type-checked first (a mutant that does not compile is
 * not a test's failure), then the module's tests run by mocha as a command. The mocha runner
 * plugin (@stryker-mutator/mocha-runner 10.0.0) cannot load mocha 12, whose CLI helpers are now
 * `.cjs` files it requires without an extension; the command runner runs the same tests without
 * per-test coverage. scripts/mutate.ts picks a module's files and tests; this file holds what
 * every run shares. Never part of `npm test`: a run takes minutes to hours.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'command',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // A shared 2-core machine: one test process at a time.
  concurrency: 1,
  coverageAnalysis: 'off',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // What the sandbox needs is the code and its fixtures, not pictures or data.
  ignorePatterns: ['docs/img', '.data', 'dist', 'reports', '.scratch', '*.duckdb', '*.duckdb.wal'],
  timeoutMS: 20_000,
};
