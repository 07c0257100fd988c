/**
 * A scratch copy of the repository's code for the architecture tests' planted violations: each
 * guard is run over the copy with bad files planted in it, and must name every one. The copy
 * holds the code files (`.ts`, `.mts`, `.mjs`) of the folders or files asked for, never
 * node_modules, build output or data. The guards plant into a few files, not the whole house:
 * their first test reads the house itself, and a copy of it cost a second of CPU a guard.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  type Dirent,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const SKIP = new Set(['node_modules', '.data', 'dist', '.git', '.stryker-tmp', 'reports']);
const CODE = /\.(ts|mts|mjs)$/;

/** The code files under `dirs` of `root` (all of it when `dirs` is empty), repository-relative with `/`. */
export function codeFiles(root: string, dirs: readonly string[] = []): string[] {
  const tops = dirs.length > 0 ? dirs : readdirSync(root).filter((n) => !SKIP.has(n));
  return tops
    .flatMap((top) => {
      let entries: Dirent[];
      try {
        entries = readdirSync(join(root, top), { recursive: true, withFileTypes: true });
      } catch {
        return CODE.test(top) ? [top] : [];
      }
      return entries
        .filter((e) => e.isFile() && CODE.test(e.name))
        .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
    })
    .filter((f) => !f.split('/').some((part) => SKIP.has(part)))
    .sort();
}

/** A scratch copy of the code under `dirs` (all of it when empty), and a way to plant files in it. */
export function scratchCopy(dirs: readonly string[] = []): {
  root: string;
  plant: (path: string, text: string) => void;
  remove: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), 'eventbus-scratch-'));
  for (const file of codeFiles(REPO_ROOT, dirs)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(root, file));
  }
  return {
    root,
    plant: (path, text) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** How long a claimed folder may stand before another run takes it as left by a run that died. */
const CLAIM_STALE_MS = 10 * 60_000;

/**
 * An empty folder under the OS temp dir at the same path on every run from this checkout, for a
 * scratch tree a child process runs from: V8's compile cache (test/support/offline-env.cjs) is
 * keyed by a file's path as well as its text, so a fresh `mkdtemp` name compiles every file the
 * child loads again (half of a probe's CPU), where a path used before finds them compiled. A run
 * claims `<name>-<checkout hash>-<n>` by creating it, the first `n` no other run holds, so runs at
 * the same time never share one; one left standing for ten minutes is taken as a dead run's.
 * The caller removes it when done.
 */
export function claimStableDir(name: string, now = Date.now()): string {
  const base = join(tmpdir(), `${name}-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}`);
  for (let n = 0; ; n++) {
    const dir = `${base}-${n}`;
    try {
      mkdirSync(dir);
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      if (now - statSync(dir).mtimeMs < CLAIM_STALE_MS) continue;
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      return dir;
    } catch {
      // Another run took or removed it first: try the next.
    }
  }
}
