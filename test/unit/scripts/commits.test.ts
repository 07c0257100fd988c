/**
 * The commit log as releases read it (scripts/commits.ts, docs/versioning.md): the subject rule
 * `npm run lint` applies after `.commit-base`, and the release notes grouped from it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitBase, commitsAfter, hasCommit, ROOT, subjectProblems } from '../../../scripts/commits.ts';
import { releaseNotes } from '../../../scripts/release-notes.ts';

describe('commits: one change per commit, said in one subject', () => {
  it('passes `type(scope): what` of at most 72 characters, its type from the list', () => {
    for (const ok of [
      'fix(gateway): answer 413 for a body over the cap',
      'feat(studio)!: the console moves under /console',
      'refactor(emulators/common): split iam-enforce.ts by concern',
    ])
      assert.deepEqual(subjectProblems(ok), [], ok);
  });

  it('refuses a long subject, one without a scope or a colon, and a type off the list', () => {
    const cases: Record<string, RegExp> = {
      [`fix(gateway): ${'x'.repeat(70)}`]: /84 characters \(at most 72\)/,
      'fix: no scope': /not `type\(scope\): what`/,
      'fix(gateway) no colon': /not `type\(scope\): what`/,
      'Merge the three changes and fix the docs': /not `type\(scope\): what`/,
      'feature(gateway): a type off the list': /type "feature" is not one of/,
      'fix(Gateway): an upper-case scope': /not `type\(scope\): what`/,
    };
    for (const [subject, why] of Object.entries(cases)) {
      const problems = subjectProblems(subject);
      assert.ok(
        problems.some((p) => why.test(p)),
        `${subject}: ${problems.join('; ') || 'passed'}`,
      );
    }
  });

  it('the recorded base is in the history and every commit after it passes', function () {
    const base = commitBase();
    if (!hasCommit(base)) this.skip(); // a shallow clone: no history to read
    execFileSync('git', ['merge-base', '--is-ancestor', base, 'HEAD'], { cwd: ROOT });
    const bad = commitsAfter(base).filter((c) => subjectProblems(c.subject).length > 0);
    assert.deepEqual(
      bad.map((c) => c.subject),
      [],
    );
  });

  it("CHANGELOG.md's newest section's entries are each a commit after the base (written from the log)", function () {
    const base = commitBase();
    if (!hasCommit(base)) this.skip();
    const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    // `## Unreleased` while a release is being made; right after a release, its own section.
    const start = text.indexOf('\n## ');
    const next = text.indexOf('\n## ', start + 1);
    const newest = text.slice(start, next < 0 ? undefined : next);
    const entries = [...newest.matchAll(/^- \*\*([^*]+)\*\*: (.+?)(?: \(breaking\))?$/gm)].map(
      (m) => `(${m[1]}): ${m[2]}`,
    );
    assert.ok(entries.length > 0, "CHANGELOG.md's newest section has no entries");
    const subjects = commitsAfter(base).map((c) => c.subject);
    const unmatched = entries.filter(
      (e) => !subjects.some((s) => s.replace(/!?:/, ':').endsWith(e) && /^[a-z]+\(/.test(s)),
    );
    assert.deepEqual(unmatched, []);
  });

  it('release notes group the subjects by type, in a fixed order, the rest under Other', () => {
    const notes = releaseNotes('0.2.0', [
      'docs(glossary): one word per thing',
      'fix(gateway): answer 413',
      'feat(studio)!: the console moves',
      'an old subject',
    ]);
    assert.equal(
      notes,
      [
        '## 0.2.0',
        '',
        '### Features',
        '',
        '- **studio**: the console moves (breaking)',
        '',
        '### Fixes',
        '',
        '- **gateway**: answer 413',
        '',
        '### Documentation',
        '',
        '- **glossary**: one word per thing',
        '',
        '### Other',
        '',
        '- an old subject',
        '',
      ].join('\n'),
    );
  });
});
