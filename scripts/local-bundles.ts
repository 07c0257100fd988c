/**
 * `node scripts/local-bundles.ts [<name>...]`: builds the named deployables' bundles for the local
 * environment where none is kept for the sources as they are (local/bundles.ts runs it when a
 * start finds one missing or stale; `npm test`'s pretest runs it for all, so that no test's start
 * waits for a build within its bound on a fresh checkout): the deploy's
 * build of each (scripts/build-functions.ts), with linked source maps, kept under the checkout's
 * bundle cache with the list of every file the build read and the key their bytes make.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  type BundleRecord,
  bundleCache,
  inputsKey,
  keptBundle,
  LOCAL_BUNDLES,
  type LocalBundle,
} from '../local/bundles.ts';

/** The checkout (the build's own module is loaded only when something is built: it loads esbuild). */
const REPO_ROOT = resolve(import.meta.dirname, '..');

/** Files every bundle's build depends on besides what esbuild reads: the build itself, its version. */
const BUILD_INPUTS = [
  'scripts/build-functions.ts',
  'scripts/local-bundles.ts',
  'scripts/segment-bundle.ts',
  'tsconfig.json',
  'node_modules/esbuild/package.json',
  'node_modules/terser/package.json',
];

/** How many builds of one bundle are kept: a running environment may still read an older one's files. */
const KEEP = 3;

/** Builds one bundle into `<cache>/<name>/<key>` and writes its record; returns the folder. */
export async function buildLocalBundle(root: string, name: LocalBundle): Promise<string> {
  const { BUNDLES, bundleFiles, FRAMEWORK, rootDependencies, writeFiles } = await import(
    './build-functions.ts'
  );
  const spec = BUNDLES.find((b) => b.name === name);
  if (!spec) throw new Error(`no deployable named ${name}`);
  const dir = join(bundleCache(root), name);
  // Built one level below `dir`, as the kept folder is: the source maps' relative paths hold.
  const building = join(dir, `building-${process.pid}`);
  const read: string[] = [...BUILD_INPUTS];
  const { files } = await bundleFiles(spec, root, building, rootDependencies()[FRAMEWORK] ?? '^5.0.5', {
    sourcemap: true,
    inputs: read,
  });
  const inputs = [
    ...new Set(
      read
        .filter((p) => !p.includes(':') && p !== '<stdin>')
        .map((p) => relative(root, resolve(root, p)).split('\\').join('/')),
    ),
  ]
    .filter((p) => existsSync(join(root, p)))
    .sort();
  const key = inputsKey(root, inputs);
  const kept = join(dir, key);
  writeFiles(building, files);
  rmSync(kept, { recursive: true, force: true });
  renameSync(building, kept);
  const record: BundleRecord = { key, inputs };
  const tmp = join(dir, `record.json.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(record));
  renameSync(tmp, join(dir, 'record.json'));
  prune(dir, key);
  return kept;
}

/** Removes all but the newest KEEP builds of a bundle (never the one just made). */
function prune(dir: string, key: string): void {
  const builds = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== key && !e.name.startsWith('building-'))
    .map((e) => ({ path: join(dir, e.name), at: statSync(join(dir, e.name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of builds.slice(KEEP - 1)) rmSync(old.path, { recursive: true, force: true });
}

if (import.meta.main) {
  // No names: every deployable the local environment runs (what `npm test`'s pretest asks for).
  const names = process.argv.length > 2 ? process.argv.slice(2) : [...LOCAL_BUNDLES];
  const unknown = names.filter((n) => !(LOCAL_BUNDLES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    process.stderr.write(`usage: node scripts/local-bundles.ts [${LOCAL_BUNDLES.join('|')}]...\n`);
    process.exit(2);
  }
  (async () => {
    // Only what is not kept for the sources as they are (another start may have just built it).
    for (const name of names as LocalBundle[])
      if (keptBundle(REPO_ROOT, name) === undefined) await buildLocalBundle(REPO_ROOT, name);
  })().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
