/**
 * What an architecture guard found in one file, kept between runs by content (issue #99). The
 * guards parse most of the house with TypeScript's parser on every run, about half of the inner
 * loop's CPU for four files; the findings of a file depend only on its path and text, the guard's
 * own code and the facts it matches against. So a guard asks `findings.of(where, text, analyse)`:
 * the key is a hash of the path and the text, in a file of findings named by a hash of the
 * guard's source, TypeScript's version and the `inputs` the guard hands in (the platform names it
 * looks for). A file that changed, a changed guard or new platform facts analyse again; an
 * unchanged file is not parsed. A cache that cannot be read or written is passed by.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { REPO_ROOT } from './scratch-tree.ts';

/** Where the findings are kept, a folder per guard: beside the other caches, never committed. */
export const KEPT_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'eventbus-guard-findings');

/**
 * Versions kept per guard. Each checkout keeps its own (its path is part of the version), so
 * worktrees that share one node_modules do not overwrite each other's findings.
 */
const KEPT_VERSIONS = 16;

const hash = (...parts: readonly string[]): string => {
  const h = createHash('sha256');
  for (const part of parts) h.update(part).update('\0');
  return h.digest('hex').slice(0, 32);
};

export class KeptFindings {
  private readonly path: string;
  private readonly kept: Readonly<Record<string, unknown>>;
  private readonly used: Record<string, unknown> = {};
  private analysed = 0;

  /**
   * `guard` is the guard's `import.meta.url`; `inputs`, every value outside its file that its
   * analysis reads (sets are written as sorted lists).
   */
  constructor(guard: string, inputs: readonly unknown[] = [], dir: string = KEPT_DIR) {
    const file = fileURLToPath(guard);
    const name = basename(file).replace(/\.test\.ts$/, '');
    const version = hash(
      file,
      ts.version,
      readFileSync(file, 'utf8'),
      JSON.stringify(inputs, (_k, v) => (v instanceof Set ? [...v].sort() : v)),
    );
    this.path = join(dir, name, `${version}.json`);
    let kept: Record<string, unknown> = {};
    try {
      kept = JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, unknown>;
    } catch {
      // Not kept yet, or half written by a process that died: analyse.
    }
    this.kept = kept;
  }

  /** What `analyse` finds in `where` (a repository path) holding `text`: kept, or analysed now. */
  of<T>(where: string, text: string, analyse: () => T): T {
    const key = hash(where, text);
    if (Object.hasOwn(this.kept, key)) {
      this.used[key] = this.kept[key];
      return structuredClone(this.kept[key]) as T;
    }
    const found = analyse();
    this.used[key] = found;
    this.analysed++;
    return found;
  }

  /** How many files this run analysed rather than found kept. */
  get analysedCount(): number {
    return this.analysed;
  }

  /**
   * Writes what this run used (an unchanged file's findings, and the new ones) when anything was
   * analysed, as a whole file (a rename), keeping this guard's newest versions only.
   */
  save(): void {
    if (this.analysed === 0) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.used));
      renameSync(tmp, this.path);
      const dir = dirname(this.path);
      const older = readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .map((n) => ({ path: join(dir, n), at: statSync(join(dir, n)).mtimeMs }))
        .sort((a, b) => b.at - a.at)
        .slice(KEPT_VERSIONS);
      for (const { path } of older) rmSync(path, { force: true });
    } catch {
      // A read-only checkout: analyse again next time.
    }
  }
}
