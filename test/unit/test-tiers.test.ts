/**
 * The test tiers of package.json (docs/local.md, "Tests"): `test:fast`, the inner loop, starts no
 * browser, so every test that launches Chromium is named `*.browser.test.ts` and runs in
 * `test:e2e` (and `npm test`) instead; nor does it start the CLI as a process: that is
 * `test/cli/`, an integration folder. A file moved between tiers stays in `npm test`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, matchesGlob, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scripts = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** The quoted globs of an npm script. */
const globsOf = (script: string): string[] => [...script.matchAll(/'([^']+)'/g)].map((m) => m[1] as string);

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** What starts a browser: the support files that launch Chromium, or playwright itself. */
const LAUNCHES =
  /from\s+['"](?:playwright-core|[./]+support\/(?:chromium|local-browser|studio-browser)\.ts)['"]/;

describe('test tiers: test:fast starts no browser', () => {
  it('every test:fast glob leaves out the browser tests', () => {
    const globs = globsOf(scripts['test:fast'] ?? '');
    assert.ok(globs.length >= 2, `test:fast globs: ${globs.join(' ')}`);
    for (const glob of globs) assert.ok(glob.endsWith('!(*.browser).test.ts'), `${glob} takes browser tests`);
  });

  it('every test that launches a browser, in any folder, is named *.browser.test.ts', () => {
    const problems: string[] = [];
    const emulators = readdirSync(join(root, 'emulators'))
      .map((e) => `emulators/${e}/test`)
      .filter((d) => statSync(join(root, d), { throwIfNoEntry: false })?.isDirectory());
    for (const file of [...testFiles('test'), ...emulators.flatMap(testFiles)])
      if (LAUNCHES.test(readFileSync(join(root, file), 'utf8')) && !file.endsWith('.browser.test.ts'))
        problems.push(file);
    assert.deepEqual(problems, []);
  });

  it('test:integration takes no browser test', () => {
    for (const glob of globsOf(scripts['test:integration'] ?? ''))
      if (glob.startsWith('test/'))
        assert.ok(glob.endsWith('!(*.browser).test.ts'), `${glob} takes browser tests`);
  });

  it('every browser test is one test:e2e and npm test run', () => {
    const e2e = globsOf(scripts['test:e2e'] ?? '');
    const all = globsOf(scripts['test'] ?? '');
    const browser = testFiles('test').filter((f) => f.endsWith('.browser.test.ts'));
    assert.ok(
      browser.some((f) => f.startsWith('test/gateway/')),
      browser.join(', '),
    );
    for (const file of browser) {
      assert.ok(
        e2e.some((g) => matchesGlob(file, g)),
        `test:e2e does not run ${file}`,
      );
      assert.ok(
        all.some((g) => matchesGlob(file, g)),
        `npm test does not run ${file}`,
      );
    }
  });
});

describe('test tiers: where a test file runs', () => {
  it('npm test, or the slow tier after it, runs every test file of the repository', () => {
    const all = [...globsOf(scripts['test'] ?? ''), ...globsOf(scripts['test:slow'] ?? '')];
    const emulatorTests = readdirSync(join(root, 'emulators')).flatMap((name) =>
      statSync(join(root, 'emulators', name)).isDirectory() &&
      readdirSync(join(root, 'emulators', name)).includes('test')
        ? testFiles(`emulators/${name}/test`)
        : [],
    );
    const files = [...testFiles('test'), ...emulatorTests];
    assert.ok(files.includes('test/cli/main.test.ts'), `${files.length} test files`);
    assert.deepEqual(
      files.filter((f) => !all.some((g) => matchesGlob(f, g))),
      [],
    );
  });

  it('the slow tier is its own folder, which npm test leaves out and CI runs after it', () => {
    assert.deepEqual(globsOf(scripts['test:slow'] ?? ''), ['test/slow/**/*.test.ts']);
    const slow = testFiles('test/slow');
    assert.ok(slow.length > 0, 'test/slow holds no test');
    const all = globsOf(scripts['test'] ?? '');
    assert.deepEqual(
      slow.filter((f) => all.some((g) => matchesGlob(f, g))),
      [],
    );
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8').split('\n');
    const at = (command: string) => ci.findIndex((line) => line.trim() === command);
    assert.ok(at('npm test') >= 0, '.ci/run runs no npm test');
    assert.ok(at('npm run test:slow') > at('npm test'), '.ci/run runs no test:slow after npm test');
  });

  it("no test of test:fast's folders starts the CLI as a child process (that is test/cli/)", () => {
    const problems = [...testFiles('test/unit'), ...testFiles('test/gateway')].filter((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return /node:child_process/.test(text) && /cli\/main\.ts/.test(text);
    });
    assert.deepEqual(problems, []);
  });
});
