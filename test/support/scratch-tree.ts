/**
 * A scratch copy of the repository's code for the architecture tests' planted violations: each
 * guard is run over the copy with bad files planted in it, and must name every one. The copy
 * holds the code files (`.ts`, `.mts`, `.mjs`) of the folders or files asked for, never
 * node_modules, build output or data. The guards plant into a few files, not the whole house:
 * their first test reads the house itself, and a copy of it cost a second of CPU a guard.
 */
import {
  copyFileSync,
  type Dirent,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
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
