/**
 * `npm run mutate -- <module>`: Stryker (stryker.config.mjs) over one module that holds a promise,
 * with the tests that keep it (docs/testing.md). A module is a name below, or a file of core/
 * (`core/consent/us-privacy.ts`) with its folder's tests, or lines of one
 * (`core/consent/us-privacy.ts:40-60,95-99`: a re-run of the survivors' lines once tests were added).
 * `npm run mutate` alone lists them; `--no-check` skips the TypeScript check of each mutant.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Each module: the files mutated whole, and the test files that must notice. */
export const MODULES: Readonly<Record<string, { mutate: string[]; tests: string[]; what: string }>> = {
  consent: {
    what: 'the consent resolver and the TCF, GPP, US Privacy and web consent decoders',
    mutate: ['core/consent/**/*.ts', 'core/decision/consent.ts'],
    tests: ['test/unit/consent/**/*.test.ts', 'test/unit/decision/**/*.test.ts'],
  },
  claims: {
    what: 'the send-once and identity claims',
    mutate: ['core/claims/**/*.ts', 'core/identity.ts'],
    tests: ['test/unit/claims/**/*.test.ts', 'test/unit/identity.test.ts'],
  },
  'claim-stores': {
    what: "the claim stores' atomic create, replace and release (Firestore and Bigtable)",
    mutate: ['adapters/firestore-claims.ts', 'adapters/bigtable-claims.ts'],
    tests: [
      'test/delivery/firestore-claims.test.ts',
      'test/delivery/bigtable-claims.test.ts',
      'test/delivery/bigtable-wire.test.ts',
      'test/delivery/claim-store-edges.test.ts',
    ],
  },
  decision: {
    what: 'the decision layer',
    mutate: ['core/decision/**/*.ts'],
    tests: ['test/unit/decision/**/*.test.ts'],
  },
  egress: {
    what: 'the egress gate policy',
    mutate: ['core/egress/**/*.ts'],
    tests: ['test/unit/egress/**/*.test.ts'],
  },
  samples: {
    what: "the creator's inference",
    mutate: ['core/samples/**/*.ts'],
    tests: ['test/unit/samples/**/*.test.ts'],
  },
  conformance: {
    what: 'the conformance classifier',
    mutate: ['scripts/conformance-segment/classify.ts'],
    tests: ['test/unit/platforms/segment-action/conformance.test.ts'],
  },
};

/**
 * The files and tests of a module name, or of one file of core/ with its folder's tests; a file
 * may end in `:<lines>`, ranges such as `10-20,31-31`, to mutate only those lines.
 */
export function moduleOf(name: string): { mutate: string[]; tests: string[] } | undefined {
  const known = MODULES[name];
  if (known) return known;
  const lines = /^(.+\.ts):(\d+-\d+(?:,\d+-\d+)*)$/.exec(name);
  if (lines) {
    const whole = moduleOf(lines[1] as string);
    const ranges = (lines[2] as string).split(',');
    return whole && { ...whole, mutate: ranges.map((r) => `${whole.mutate[0]}:${r}`) };
  }
  const file = name.endsWith('.ts') ? name : `${name}.ts`;
  const path = file.startsWith('core/') ? file : `core/${file}`;
  if (path.split('/').includes('..') || !existsSync(join(root, path))) return undefined;
  const folder = dirname(relative('core', path));
  const tests =
    folder === '.' ? [`test/unit/${path.slice(5, -3)}.test.ts`] : [`test/unit/${folder}/**/*.test.ts`];
  return { mutate: [path], tests };
}

async function main(argv: readonly string[]): Promise<number> {
  // `--no-check`: no TypeScript check of each mutant (on a busy machine it costs about a minute a
  // mutant); a mutant that would not compile then runs, and survives if no test fails.
  const noCheck = argv.includes('--no-check');
  const args = argv.filter((a) => a !== '--no-check');
  const name = args[0];
  const module = name === undefined ? undefined : moduleOf(name);
  if (module === undefined) {
    const lines = Object.entries(MODULES).map(([n, m]) => `  ${n.padEnd(12)} ${m.what}`);
    console.error(
      `${name === undefined ? 'Name a module' : `No module or core/ file "${name}"`}: npm run mutate -- <module>\n${lines.join('\n')}\n  or a file of core/, e.g. core/consent/us-privacy.ts`,
    );
    return 2;
  }
  const { Stryker } = await import('@stryker-mutator/core');
  const started = Date.now();
  const results = await new Stryker({
    configFile: join(root, 'stryker.config.mjs'),
    ...(noCheck ? { checkers: [] } : {}),
    mutate: module.mutate,
    // Mocha as a command (stryker.config.mjs says why), on the module's tests only.
    commandRunner: {
      command: `node ${join(root, 'node_modules/mocha/bin/mocha.js')} ${module.tests.map((t) => `'${t}'`).join(' ')}`,
    },
  }).runMutationTest();
  const killed = results.filter((r) => r.status === 'Killed' || r.status === 'Timeout').length;
  const valid = results.filter((r) => !['CompileError', 'RuntimeError', 'Ignored'].includes(r.status)).length;
  const score = valid === 0 ? 0 : (100 * killed) / valid;
  console.log(
    `${name}: mutation score ${score.toFixed(1)} % (${killed} of ${valid} mutants killed) in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
