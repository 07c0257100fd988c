/**
 * The deployables the local environment runs from their bundles, as Google Cloud runs them: the
 * `store`, `forward` and `schedule` functions, the gateway and the studio, each built by the
 * deploy's own build (scripts/build-functions.ts, the same esbuild options and files) with a
 * linked source map beside each file. Node reads them only when asked
 * (`NODE_OPTIONS=--enable-source-maps`, which the services inherit): then a stack trace names the
 * TypeScript file and line; by default it names the bundle's, as on Google Cloud, since parsing
 * the maps costs each process about 0.15 CPU-s at start, half of what the bundle saves.
 *
 * A bundle is built once per content and kept under `node_modules/.cache/eventbus-bundles/`, one
 * folder per checkout (worktrees sharing one `node_modules` keep their own: the source maps name
 * their files). Its record lists every file the build read (the modules, the studio's pages, the
 * tag's sources, the installed packages' files, the build's own scripts and esbuild's version) and
 * the key their bytes make; a start hashes them again and runs the kept bundle while the key
 * holds. An edited file changes the key, and the start builds that bundle again (a few seconds;
 * the others stay). A new import can only come from an edited file, so the list stays complete.
 *
 * The build runs in a child process (`scripts/local-bundles.ts`), one at a time per checkout
 * (a lock file): starts that find a bundle missing together wait for one build.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireOwnerLock, LockHeldError } from '../emulators/common/owner-lock.ts';

/** The deployables a local environment runs from their bundles (BUNDLES' names, scripts/build-functions.ts). */
export const LOCAL_BUNDLES = ['store', 'forward', 'schedule', 'gateway', 'studio'] as const;
export type LocalBundle = (typeof LOCAL_BUNDLES)[number];

/** What a kept bundle's record holds (`<cache>/<name>/record.json`). */
export interface BundleRecord {
  /** The inputs' key: their folder is `<cache>/<name>/<key>`. */
  readonly key: string;
  /** Every file the build read, relative to the checkout. */
  readonly inputs: readonly string[];
}

/** Where a checkout's bundles are kept. */
export function bundleCache(root: string): string {
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return join(root, 'node_modules', '.cache', 'eventbus-bundles', checkout);
}

/**
 * The key the inputs' bytes make now (throws when one is gone). `digests` keeps each file's
 * digest for the next key taken in the same look: the bundles share most of their modules.
 */
export function inputsKey(
  root: string,
  inputs: readonly string[],
  digests: Map<string, string> = new Map(),
): string {
  const hash = createHash('sha256');
  for (const input of inputs) {
    let digest = digests.get(input);
    if (digest === undefined) {
      digest = createHash('sha256')
        .update(readFileSync(join(root, input)))
        .digest('hex');
      digests.set(input, digest);
    }
    hash.update(`${input}\0${digest}\0`);
  }
  return hash.digest('hex').slice(0, 32);
}

/** The folder of a kept bundle whose inputs still have the bytes it was built from, else undefined. */
export function keptBundle(
  root: string,
  name: LocalBundle,
  digests: Map<string, string> = new Map(),
): string | undefined {
  const dir = join(bundleCache(root), name);
  try {
    const record = JSON.parse(readFileSync(join(dir, 'record.json'), 'utf8')) as BundleRecord;
    const kept = join(dir, record.key);
    // Its folder too: one removed by hand is built again, not run half there.
    if (!existsSync(kept)) return undefined;
    return inputsKey(root, record.inputs, digests) === record.key ? kept : undefined;
  } catch {
    // No record yet, or an input gone: build.
    return undefined;
  }
}

/** How long a start waits for another start's build of the same checkout's bundles. */
const BUILD_WAIT_MS = 180_000;

/**
 * The folder of each bundle asked for, built first where none is kept for the sources as they
 * are. Rejects when the build fails (with its output), so a start never runs stale code.
 */
export async function localBundles(
  root: string,
  names: readonly LocalBundle[],
  log: (line: string) => void,
): Promise<Readonly<Partial<Record<LocalBundle, string>>>> {
  const kept = () => {
    const digests = new Map<string, string>();
    return new Map(names.map((name) => [name, keptBundle(root, name, digests)] as const));
  };
  let found = kept();
  const missing = () => names.filter((name) => found.get(name) === undefined);
  if (missing().length > 0) {
    const cache = bundleCache(root);
    mkdirSync(cache, { recursive: true });
    const release = await buildLock(join(cache, 'build.lock'));
    try {
      // Another start may have built them while this one waited for the lock.
      found = kept();
      if (missing().length > 0) {
        log(`building the bundles of ${missing().join(', ')} (once for these sources)`);
        await runBuild(root, missing());
        found = kept();
      }
    } finally {
      release();
    }
  }
  const still = missing();
  if (still.length > 0)
    throw new Error(`the bundles of ${still.join(', ')} were built but cannot be read back`);
  return Object.fromEntries(found) as Partial<Record<LocalBundle, string>>;
}

async function buildLock(path: string): Promise<() => void> {
  const deadline = Date.now() + BUILD_WAIT_MS;
  for (;;) {
    try {
      return acquireOwnerLock(path, 'the local bundles', 'start building them', 0);
    } catch (err) {
      if (!(err instanceof LockHeldError) || Date.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

function runBuild(root: string, names: readonly LocalBundle[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'scripts', 'local-bundles.ts'), ...names], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done() : fail(new Error(`building the bundles failed (exit ${code}):\n${output}`)),
    );
  });
}
