/**
 * The creator measured on its labelled corpus (issue #94, test/fixtures/creator-corpus/): 161
 * vendors' samples read, inferred and guessed as the studio's page does, each guess judged
 * against the sample's truth file (scripts/creator-corpus.ts). No identity or money field is
 * filled without asking against its truth in the tuned part; every confidence the page shows is
 * right at least that often, on at least 20 guesses; the held-out part is one committed before
 * the inference changes it measures, never tuned on, its wrong guesses counted, not fixed. The
 * figures are in docs/creator-inference.md (`npm run docs`; test/unit/scripts/docs-generate.test.ts
 * checks they are current).
 */
import assert from 'node:assert/strict';
import { CONFIDENCE_LEVELS } from '../../core/samples/guess.ts';
import {
  guessedOf,
  HELD_OUT_6,
  heldOutDigest,
  loadCorpus,
  MEASURED,
  measure,
  ROLES,
  rowsOf,
  run,
  type Sample,
  SPLITS,
  truthOf,
} from '../../scripts/creator-corpus.ts';

/**
 * SHA-256 of the held-out part (held-out-6/, 20 vendors none of the corpus had before, two per
 * category, chosen for payloads with several parties), committed on its own (d8593bba) before the
 * inference changes that follow the retirement of held-out-5. A changed held-out set is a commit of
 * its own that changes this, saying why. The first held-out part (c4d2dce5), the second (07adfff1,
 * pinned by ea0c722c…), the third (d03bfb75, pinned by 324a1631…), the fourth (358f7dd9, pinned by
 * be19bdb8…) and the fifth (0c487a8b, pinned by ec5553d8…) were retired into the tuned part on
 * 2026-11-27, once their errors were known.
 */
const HELD_OUT_SHA256 = '00c635f55fa091f40859df46848d4aa97f1c604d9809300ecfb6eed9e1c461f9';

/**
 * SHA-256 of the next held-out part (held-out-7/, 20 vendors none of the corpus had before, two
 * per category, chosen for payloads with several parties), committed on its own before any
 * further inference change and not yet measured: only the reading step has run on it.
 */
const HELD_OUT_7_SHA256 = '91ebb7b73ef6d22f8e2aef55b097c99f2af57b10c7d18f52f22be6941b66d0c6';

/**
 * Wrong identity, money or personal fields filled without asking in the held-out part, measured
 * once when the changes after its commit were done (2026-11-27: none). Never fixed by tuning on it
 * (that would make it one more tuned part); pinned so that a change either way is seen, and the
 * documented figure stays true.
 */
const HELD_OUT_SILENT_WRONG = 0;

const CATEGORIES = [
  'payments',
  'subscriptions',
  'commerce',
  'forms',
  'scheduling',
  'auth',
  'messaging',
  'crm',
  'support',
  'marketing-email',
];

describe('the creator on its labelled corpus (issue #94)', () => {
  const samples = loadCorpus();
  const report = measure(samples.filter((s) => MEASURED.includes(s.split)));
  const vendors = (split: Sample['split']) =>
    new Set(samples.filter((s) => s.split === split).map((s) => s.vendor));

  it('holds at least 60 vendors across the categories, at least 20 of them held out', () => {
    assert.ok(
      vendors('tuned').size + vendors('held-out-6').size >= 60,
      `${vendors('tuned').size} + ${vendors('held-out-6').size}`,
    );
    assert.ok(vendors('held-out-6').size >= 20, `${vendors('held-out-6').size} held out`);
    const both = SPLITS.flatMap((a, i) =>
      SPLITS.slice(i + 1).flatMap((b) =>
        [...vendors(a)].filter((v) => vendors(b).has(v)).map((v) => `${v}: ${a}, ${b}`),
      ),
    );
    assert.deepEqual(both, [], 'a vendor is in one part only');
    for (const part of SPLITS) {
      const seen = new Set(samples.filter((s) => s.split === part).map((s) => s.truth.category));
      assert.deepEqual(
        CATEGORIES.filter((c) => !seen.has(c)),
        [],
        `${part}: categories without a sample`,
      );
    }
  });

  it('keeps the held-out part as it was committed', () => {
    assert.equal(
      heldOutDigest(undefined, HELD_OUT_6),
      HELD_OUT_SHA256,
      'test/fixtures/creator-corpus/held-out-6 changed',
    );
  });

  it('keeps held-out-7 as committed', () => {
    assert.equal(
      heldOutDigest(undefined, 'held-out-7'),
      HELD_OUT_7_SHA256,
      'test/fixtures/creator-corpus/held-out-7 changed',
    );
  });

  it('names in every truth file only columns the sample has, and a source for every sample', () => {
    const problems: string[] = [];
    // The reading step only: the held-out part's guesses are not looked at before it is measured.
    for (const sample of samples) {
      const columns = new Set(Object.keys(Object.assign({}, ...rowsOf(sample))));
      assert.ok(sample.truth.source.length > 10, `${sample.name}: no source`);
      const named = [
        ...ROLES.flatMap((role) => truthOf(sample.truth, role)),
        ...Object.keys(sample.truth.personal),
        ...(sample.truth.eventType ? [sample.truth.eventType] : []),
      ];
      for (const c of named) if (!columns.has(c)) problems.push(`${sample.name}: ${c}`);
    }
    assert.deepEqual(problems, []);
  });

  it('fills no identity or money field against its truth without asking (tuned part)', () => {
    const wrong = report.silentWrong.filter((w) => w.split === 'tuned');
    assert.deepEqual(
      wrong.map((w) => `${w.sample}: ${w.column} as ${w.target}`),
      [],
    );
  });

  it('fills as many wrong identity or money fields without asking in the held-out part as documented', () => {
    // Counted, never listed: what went wrong in the held-out part is not read while tuning.
    assert.equal(report.silentWrong.filter((w) => w.split === 'held-out-6').length, HELD_OUT_SILENT_WRONG);
  });

  it('shows only calibrated confidences: each level right at least that often, on at least 20 guesses', () => {
    for (const [level, l] of report.levels) {
      assert.ok(
        CONFIDENCE_LEVELS.some((c) => Math.round(c * 100) === level),
        `${level}% is shown but is not one of the levels`,
      );
      assert.ok(l.n >= 20, `${level}%: only ${l.n} guesses to judge it by`);
      assert.ok(l.right / l.n >= level / 100, `${level}%: right ${l.right} of ${l.n}`);
    }
    for (const c of CONFIDENCE_LEVELS) assert.ok(report.levels.has(Math.round(c * 100)), `${c} never shown`);
  });

  it('never fills a merchant’s account id as the person’s, nor an id as an e-mail', () => {
    for (const sample of samples.filter((s) => s.split === 'tuned')) {
      const r = run(sample);
      for (const column of guessedOf(r, 'personId'))
        assert.ok(!/account/i.test(column.slice(column.lastIndexOf('.') + 1)), `${sample.name}: ${column}`);
      for (const column of guessedOf(r, 'email')) {
        // A row without the column (an event that carries no e-mail) holds no id either.
        const values = r.rows
          .filter((row) => row[column] != null && row[column] !== '')
          .map((row) => String(row[column]));
        assert.ok(
          values.every((v) => v.includes('@')),
          `${sample.name}: ${column} ${values.join(', ')}`,
        );
      }
    }
  });
});
