/**
 * `node scripts/count-assertions.ts [dir …]`: the assertions in each test file (calls of
 * `assert.…(`, `assert(` and `expect(`), one `count<TAB>path` line per file and a total. A
 * refactor that must leave the tests' checks whole (issue 36) is counted before and after:
 * a lower count names the file that lost one.
 */
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

if (import.meta.main) {
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
