/**
 * `node scripts/count-assertions.ts [dir …]`: the assertions in each test file (calls of
 * `assert.…(`, `assert(` and `expect(`), one `count<TAB>path` line per file and a total. A
 * refactor that must leave the tests' checks whole (issue 36) is counted before and after:
 * a lower count names the file that lost one.
 *
 * `node scripts/count-assertions.ts --since <rev>` does the comparison itself: each test file's
 * count now against the same file at `<rev>`, following renames (`git diff -M40%`: a moved file that also grew is still found), so a file moved
 * to another folder is compared with its old self; it prints the files whose count changed and
 * exits 1 when one has fewer (or was deleted with assertions in it).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ASSERTION = /\b(?:assert(?:\.[A-Za-z]+)?|expect)\s*\(/g;

/** The `.test.ts` files under a directory, sorted. */
function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'fixtures') return [];
      if (statSync(path).isDirectory()) return testFiles(path);
      return name.endsWith('.test.ts') ? [path] : [];
    });
}

/** How many assertion calls a source text makes (line comments left out). */
export function countAssertions(text: string): number {
  const code = text.replace(/^\s*\/\/.*$/gm, '');
  return code.match(ASSERTION)?.length ?? 0;
}

/** A test file's count then and now; `now` undefined when the file is gone. */
export interface CountChange {
  readonly before: string;
  readonly after: string | undefined;
  readonly was: number;
  readonly now: number | undefined;
}

/**
 * Pairs the test files at `rev` with where they are now from `git diff -M --name-status` lines
 * (`R087\told\tnew`, `D\told`), and counts each side with the readers given.
 */
export function compareCounts(
  beforeFiles: readonly string[],
  diff: string,
  readThen: (path: string) => string,
  readNow: (path: string) => string | undefined,
): CountChange[] {
  const renamed = new Map<string, string | undefined>();
  for (const line of diff.split('\n')) {
    const [status, from, to] = line.split('\t');
    if (status?.startsWith('R') && from && to) renamed.set(from, to);
    if (status === 'D' && from) renamed.set(from, undefined);
  }
  return beforeFiles.map((before) => {
    const after = renamed.has(before) ? renamed.get(before) : before;
    const now = after === undefined ? undefined : readNow(after);
    return {
      before,
      after,
      was: countAssertions(readThen(before)),
      now: now === undefined ? undefined : countAssertions(now),
    };
  });
}

function since(rev: string): number {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  const beforeFiles = git('ls-tree', '-r', '--name-only', rev, 'test/')
    .split('\n')
    .filter((f) => f.endsWith('.test.ts') && !f.includes('/fixtures/'));
  const diff = git('diff', '-M40%', '--name-status', rev, '--', 'test/');
  const changes = compareCounts(
    beforeFiles,
    diff,
    (path) => git('show', `${rev}:${path}`),
    (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
  );
  let lost = 0;
  let then = 0;
  let now = 0;
  for (const c of changes) {
    then += c.was;
    now += c.now ?? 0;
    if (c.now === c.was && c.before === c.after) continue;
    const where = c.before === c.after ? c.before : `${c.before} -> ${c.after ?? '(deleted)'}`;
    process.stdout.write(`${c.was}\t${c.now ?? '-'}\t${where}\n`);
    if ((c.now ?? 0) < c.was) lost++;
  }
  process.stdout.write(
    `${then}\t${now}\ttotal over the files that existed at ${rev} (${changes.length} files)\n`,
  );
  if (lost > 0) process.stdout.write(`${lost} file(s) lost assertions\n`);
  return lost > 0 ? 1 : 0;
}

if (import.meta.main && process.argv[2] === '--since') {
  process.exitCode = since(process.argv[3] ?? 'HEAD');
} else if (import.meta.main) {
  const root = process.cwd();
  const dirs = process.argv.slice(2);
  let total = 0;
  for (const dir of dirs.length > 0 ? dirs : ['test']) {
    for (const file of testFiles(resolve(root, dir))) {
      const n = countAssertions(readFileSync(file, 'utf8'));
      total += n;
      process.stdout.write(`${n}\t${relative(root, file)}\n`);
    }
  }
  process.stdout.write(`${total}\ttotal\n`);
}
