/** `npm run mutate` (scripts/mutate.ts): each module names files and tests that exist. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { codeFiles, REPO_ROOT } from '../../support/scratch-tree.ts';

const { MODULES, moduleOf } = await import('../../../scripts/mutate.ts');

describe('scripts: npm run mutate picks a module', () => {
  const files = codeFiles(REPO_ROOT);
  const matching = (globs: readonly string[]) => files.filter((f) => globs.some((g) => matchesGlob(f, g)));

  it('holds the modules that keep a promise, each with code to mutate and tests that run', () => {
    assert.deepEqual(Object.keys(MODULES).sort(), [
      'claim-stores',
      'claims',
      'conformance',
      'consent',
      'decision',
      'egress',
      'samples',
    ]);
    for (const [name, m] of Object.entries(MODULES)) {
      assert.ok(matching(m.mutate).length > 0, `${name} mutates nothing`);
      assert.ok(
        matching(m.tests).every((t) => t.endsWith('.test.ts')) && matching(m.tests).length > 0,
        `${name} runs no test`,
      );
    }
  });

  it("takes one file of core/ with its folder's tests, and nothing else", () => {
    assert.deepEqual(moduleOf('core/consent/us-privacy.ts'), {
      mutate: ['core/consent/us-privacy.ts'],
      tests: ['test/unit/consent/**/*.test.ts'],
    });
    assert.deepEqual(moduleOf('egress/policy'), {
      mutate: ['core/egress/policy.ts'],
      tests: ['test/unit/egress/**/*.test.ts'],
    });
    assert.deepEqual(moduleOf('core/consent/us-privacy.ts:40-60,95-95'), {
      mutate: ['core/consent/us-privacy.ts:40-60', 'core/consent/us-privacy.ts:95-95'],
      tests: ['test/unit/consent/**/*.test.ts'],
    });
    assert.equal(moduleOf('core/consent/us-privacy.ts:40'), undefined);
    assert.equal(moduleOf('decision:1-2'), undefined);
    assert.equal(moduleOf('core/nothing-here.ts'), undefined);
    assert.equal(moduleOf('../package.json'), undefined);
    assert.equal(moduleOf('core/../scripts/mutate.ts'), undefined);
  });
});

describe('docs/testing.md: every Stryker disable comment with its reason', () => {
  it('names each file holding one, and the mutator it turns off', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/testing.md'), 'utf8');
    const missing: string[] = [];
    for (const file of codeFiles(REPO_ROOT).filter((f) => !f.startsWith('test/unit/scripts/mutate.test.ts')))
      for (const m of readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(
        /Stryker disable(?:\s+next-line)?\s+(\S+)/g,
      ))
        if (!doc.includes(`\`${file}\``) || !doc.includes(m[1] as string)) missing.push(`${file}: ${m[1]}`);
    assert.deepEqual(missing, []);
  });
});
