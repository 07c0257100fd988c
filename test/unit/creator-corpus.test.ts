/**
 * The creator measured on its labelled corpus (issue #94, test/fixtures/creator-corpus/): 321
 * vendors' samples read, inferred and guessed as the studio's page does, each guess judged
 * against the sample's truth file (scripts/creator-corpus.ts). No identity or money field, nor
 * event id (a wrong one folds two events into one), is filled without asking against its truth
 * in the tuned part; every confidence the page shows is
 * right at least that often, on at least 20 guesses; the held-out part, when one is committed
 * (`HELD_OUT`), is one committed before the inference changes it measures, never tuned on, its
 * wrong guesses counted, not fixed; while none is, its tests skip saying so. The
 * figures are in docs/creator-inference.md (`npm run docs`); this file checks they are current,
 * from the measure its tests read (test/unit/scripts/docs-generate.test.ts checks the other parts).
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIDENCE_LEVELS } from '../../core/samples/guess.ts';
import {
  CORPUS,
  corpusFigures,
  guessedOf,
  HELD_OUT,
  HELD_OUT_MEASURED,
  heldOutDigest,
  loadCorpus,
  MEASURED,
  measure,
  QUEUED,
  ROLES,
  type Run,
  rowsOf,
  run,
  type Sample,
  SPLITS,
  truthOf,
} from '../../scripts/creator-corpus.ts';
import { fill } from '../../scripts/docs-markers.ts';

/**
 * SHA-256 of the held-out part (`HELD_OUT` in scripts/creator-corpus.ts names its folder), or null
 * while none is committed. A held-out part is committed on its own before the inference changes it
 * is to measure; a changed held-out set is a commit of its own that changes this, saying why. The
 * first held-out part (c4d2dce5), the second (07adfff1, pinned by ea0c722c…), the third (d03bfb75,
 * pinned by 324a1631…), the fourth (358f7dd9, pinned by be19bdb8…), the fifth (0c487a8b, pinned by
 * ec5553d8…), the sixth (d8593bba, pinned by 00c635f5…), the seventh (610deebd, pinned by
 * 91ebb7b7…, measured once: 2 wrong) and the eighth (0c11602c, pinned by 10506728…, measured once:
 * 2 wrong) were retired into the tuned part on 2026-11-27, once their errors were known; the ninth
 * (9bc0e2a9, pinned by d45323ea…, measured once: 2 wrong), the tenth (30865670, pinned by
 * f77c6971…, measured once: 1 wrong), the eleventh (2bb2dce6, pinned by 4e4ff83d…, measured
 * once: 2 wrong), the twelfth (4eda7239, pinned by 89eed12b…, measured once: 0 wrong), the
 * thirteenth (22e3fdd1, pinned by df132430…, measured once: 2 wrong), the fourteenth
 * (a30d6103, pinned by 6db4ed1d…, measured once: 0 wrong), the fifteenth (dccf17fc, pinned by
 * 70eae8cc…, measured once: 3 wrong), the sixteenth (89426d4a, pinned by 2ea503e0…, measured
 * once: 3 wrong), the seventeenth (5265b837, pinned by dded6fe7…, measured once: 2 wrong), the
 * eighteenth (a34c4b83, pinned by 8f7c9ebe…, measured once: 3 wrong), the nineteenth
 * (58e80858, pinned by 3450191f…, measured once: 3 wrong), the twentieth (988a935d, pinned by
 * 0f5fbf7b…, measured once: 2 wrong) and the twenty-first (b509ecc5, pinned by a258f5e1…,
 * measured once: 11 wrong) on 2026-11-28; the twenty-second (245b82e8, pinned by a3231824…,
 * measured once: 2 wrong), the twenty-third (599d9531, pinned by 04a50a47…, measured once: 5
 * wrong), the twenty-fourth (d0ec9667, pinned by 2df92146…, measured once: 2 wrong), the
 * twenty-fifth (070dc3b4, pinned by f1927d3f…, measured once: 7 wrong), the twenty-sixth
 * (1018151b, pinned by f8229488…, measured once: 6 wrong), the twenty-seventh (88096dd0,
 * pinned by b7fabcff…, measured once: 6 wrong), the twenty-eighth (82c3b05c…db92569f, pinned
 * by c7590937…, measured once: 1 wrong), the twenty-ninth (3f0b3e0b, pinned by 31c85188…,
 * measured once: 3 wrong), the thirtieth (e1984296…26563b08, pinned by 03200fa2…, measured
 * once: 4 wrong), the thirty-first (b6d0372a…23c24d3f, pinned by 974e5f97…, measured once:
 * 7 wrong), the thirty-second (d61f3870…98c444e2, pinned by 9918ae81…, measured once: 0
 * wrong), the thirty-third (5460f46f…6e79af49, pinned by 1c5a1593…, measured once: 4 wrong)
 * and the thirty-fourth (8806e22a…dfa0373c, pinned by 4fd68e6e…, measured once: 0 wrong) on
 * 2026-11-29.
 */
const HELD_OUT_SHA256: string | null = 'd1bb4a7d0d17c28d628158269dfd02f14847910e80a9d1d71e3449ba24de4c07';

/**
 * Wrong identity, money, personal fields or event ids filled without asking in the held-out part,
 * measured once when the changes after its commit were done (`HELD_OUT_MEASURED`), or null until
 * then. Never fixed by tuning on it (that would make it one more tuned part); pinned so that a
 * change either way is seen, and the documented figure stays true.
 */
const HELD_OUT_SILENT_WRONG: number | null = 0;

/** SHA-256 of the queued part (`QUEUED` in scripts/creator-corpus.ts), or null while none waits. */
const QUEUED_SHA256: string | null = null;

/** Skips a held-out test with its reason in the title, so the run says why: never the tuned part's. */
function skipFor(test: Mocha.Context, reason: string): never {
  if (test.test) test.test.title += ` (skipped: ${reason})`;
  test.skip();
}

/** The held-out part's folder, or the test skipped saying that none is committed. */
function heldOut(test: Mocha.Context): string {
  if (HELD_OUT === null)
    skipFor(test, 'no held-out part committed; HELD_OUT in scripts/creator-corpus.ts names none');
  return HELD_OUT;
}

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
  // Each sample run once: the measure's runs are the ones the tests below read again.
  const runs = new Map<Sample, Run>();
  const runOnce = (sample: Sample): Run => {
    const r = runs.get(sample) ?? run(sample);
    runs.set(sample, r);
    return r;
  };
  const report = measure(
    samples.filter((s) => MEASURED.includes(s.split)),
    runOnce,
  );
  const vendors = (split: Sample['split']) =>
    new Set(samples.filter((s) => s.split === split).map((s) => s.vendor));

  const categoriesMissing = (part: Sample['split']) => {
    const seen = new Set(samples.filter((s) => s.split === part).map((s) => s.truth.category));
    return CATEGORIES.filter((c) => !seen.has(c));
  };

  it('docs/creator-inference.md shows its figures as `npm run docs` writes them', () => {
    // The measure of the measured parts, the one `npm run docs` makes (corpusFigures' default).
    const file = 'docs/creator-inference.md';
    const text = readFileSync(join(import.meta.dirname, '../..', file), 'utf8');
    assert.ok(
      fill(text, 'creator-corpus', corpusFigures(report), file) === text,
      `${file} is stale: run \`npm run docs\``,
    );
  });

  it('holds at least 60 vendors across the categories in the tuned part', () => {
    assert.ok(vendors('tuned').size >= 60, `${vendors('tuned').size} tuned`);
    assert.deepEqual(categoriesMissing('tuned'), [], 'tuned: categories without a sample');
  });

  it('has no folder that is not one of its parts', () => {
    // A held-out part committed but not named by HELD_OUT would be neither pinned nor measured.
    const folders = readdirSync(CORPUS, { withFileTypes: true }).filter((d) => d.isDirectory());
    assert.deepEqual(
      folders.map((d) => d.name).filter((name) => !SPLITS.includes(name) && name !== QUEUED),
      [],
      'name it HELD_OUT in scripts/creator-corpus.ts and pin its hash here, or take it out',
    );
  });

  it('holds at least 20 held-out vendors across the categories, none of them tuned', function () {
    const part = heldOut(this);
    assert.ok(vendors(part).size >= 20, `${vendors(part).size} held out`);
    assert.deepEqual(
      [...vendors(part)].filter((v) => vendors('tuned').has(v)),
      [],
      'a vendor is in one part only',
    );
    assert.deepEqual(categoriesMissing(part), [], `${part}: categories without a sample`);
  });

  it('keeps the held-out part as it was committed', function () {
    const part = heldOut(this);
    assert.ok(HELD_OUT_SHA256, `${part} is held out but its hash is not pinned`);
    assert.equal(heldOutDigest(part), HELD_OUT_SHA256, `test/fixtures/creator-corpus/${part} changed`);
  });

  it('keeps the queued part as it was committed, unread, its vendors in no other part', function () {
    // Never loaded nor run: only its folder names and bytes are looked at until it is held out.
    if (QUEUED === null) skipFor(this, 'no part queued; QUEUED in scripts/creator-corpus.ts names none');
    assert.ok(QUEUED_SHA256, `${QUEUED} is queued but its hash is not pinned`);
    assert.equal(heldOutDigest(QUEUED), QUEUED_SHA256, `test/fixtures/creator-corpus/${QUEUED} changed`);
    const queued = readdirSync(join(CORPUS, QUEUED));
    assert.ok(queued.length >= 20, `${queued.length} queued`);
    const elsewhere = new Set(samples.map((s) => s.vendor));
    assert.deepEqual(
      queued.filter((v) => elsewhere.has(v)),
      [],
      'a vendor is in one part only',
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

  it('fills no identity or money field, nor event id, against its truth without asking (tuned part)', () => {
    const wrong = report.silentWrong.filter((w) => w.split === 'tuned');
    assert.deepEqual(
      wrong.map((w) => `${w.sample}: ${w.column} as ${w.target}`),
      [],
    );
  });

  it('fills as many wrong identity or money fields or event ids without asking in the held-out part as documented', function () {
    const part = heldOut(this);
    if (!HELD_OUT_MEASURED)
      skipFor(this, `${part} is not measured until the changes after its commit are done`);
    assert.ok(HELD_OUT_SILENT_WRONG !== null, `${part} is measured but its count is not pinned`);
    // Counted, never listed: what went wrong in the held-out part is not read while tuning.
    assert.equal(report.silentWrong.filter((w) => w.split === part).length, HELD_OUT_SILENT_WRONG);
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
      const r = runOnce(sample);
      for (const column of guessedOf(r, 'personId'))
        assert.ok(!/account/i.test(column.slice(column.lastIndexOf('.') + 1)), `${sample.name}: ${column}`);
      for (const column of guessedOf(r, 'email')) {
        // A row without the column (an event that carries no e-mail) holds no id either.
        // A list of addresses fills it with its first (an address, or an object holding one).
        const first = (v: unknown) => (Array.isArray(v) ? v[0] : v);
        const text = (v: unknown) =>
          v !== null && typeof v === 'object'
            ? Object.values(v)
                .filter((x) => typeof x === 'string' && x.includes('@'))
                .join(', ')
            : String(v);
        const values = r.rows
          .filter((row) => row[column] != null && row[column] !== '')
          .map((row) => text(first(row[column])));
        assert.ok(
          values.every((v) => v.includes('@')),
          `${sample.name}: ${column} ${values.join(', ')}`,
        );
      }
    }
  });
});

describe('the corpus measure with a held-out part of any name', () => {
  let root: string;
  const part = 'held-out-x';
  const tuned = join(CORPUS, 'tuned', 'crossmint');

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'creator-corpus-'));
    for (const [split, vendor] of [
      ['tuned', 'a'],
      [part, 'b'],
    ] as const) {
      mkdirSync(join(root, split, vendor), { recursive: true });
      copyFileSync(join(tuned, 'users-created.json'), join(root, split, vendor, 'users-created.json'));
      const truth = JSON.parse(readFileSync(join(tuned, 'users-created.truth.json'), 'utf8'));
      // The held-out copy's truth says the e-mail is the business's: the creator's fill is wrong there.
      if (split === part) truth.personal['data.email'] = 'business email';
      writeFileSync(join(root, split, vendor, 'users-created.truth.json'), JSON.stringify(truth));
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('loads, measures and counts the part under its folder name', () => {
    const report = measure(loadCorpus(root, ['tuned', part]));
    assert.deepEqual([...report.parts.keys()], ['tuned', part]);
    assert.equal(report.parts.get(part)?.vendors, 1);
    assert.deepEqual(
      report.silentWrong.map((w) => `${w.split} ${w.column} ${w.target}`),
      [`${part} data.email email`],
    );
    assert.match(corpusFigures(report), /tuned 1 vendors \(1 samples\), held out 1 vendors \(1 samples\)/);
  });

  it('counts an event id filled against the truth as failing, and an event time as not', () => {
    const [sample] = loadCorpus().filter((s) => s.name === 'maileroo/clicked.json');
    assert.ok(sample, 'the tuned sample this check reads');
    const taken = measure([{ ...sample, split: part }]);
    assert.deepEqual(taken.silentWrong, []);
    // The same payload, its truth naming other columns as the event's id and time.
    const truth = { ...sample.truth, eventId: ['message_reference_id'], time: ['inserted_at'] };
    const wrong = measure([{ ...sample, split: part, truth }]);
    assert.deepEqual(
      wrong.silentWrong.map((w) => `${w.split} ${w.column} ${w.target}`),
      [`${part} event_id eventId`],
    );
    assert.equal(wrong.parts.get(part)?.roles.time.wrong, 1, 'a wrong time is counted in the figures');
  });

  it('counts a sample taken through with no correction only when no role is missed or filled wrong', () => {
    const [sample] = loadCorpus().filter((s) => s.name === 'maileroo/clicked.json');
    assert.ok(sample, 'the tuned sample this check reads: its id and time found, nothing else the person’s');
    const alone = (truth: typeof sample.truth) =>
      measure([{ ...sample, split: part, truth }]).parts.get(part)?.alone;
    assert.equal(alone(sample.truth), 1);
    // A wrong event time is a correction, though it does not fail the run.
    assert.equal(alone({ ...sample.truth, time: ['inserted_at'] }), 0);
    // So is a role the truth gives and the creator does not find: the person's id under `domain_id`.
    assert.equal(
      alone({ ...sample.truth, personal: { ...sample.truth.personal, domain_id: 'person id' } }),
      0,
    );
    assert.match(
      corpusFigures(measure([{ ...sample, split: part }])),
      /no correction: 1 of 1 samples \(100%\)/,
    );
  });

  it('counts a column a question offers while preselecting no as asked, never as filled', () => {
    const [sample] = loadCorpus().filter((s) => s.name === 'trengo/voice-call-recorded.json');
    assert.ok(sample, 'the tuned sample this check reads: the agent’s e-mail beside the contact’s id');
    const open = run(sample).guesses.questions.find((q) => q.target === 'user.email');
    assert.ok(open?.noneGuessed, 'its e-mail question preselects no');
    const asIs = measure([{ ...sample, split: part }]).parts.get(part)?.roles.email;
    assert.deepEqual(asIs, { truth: 0, guessed: 0, correct: 0, right: 0, wrong: 0, asked: 0, missed: 0 });
    // Were the user's e-mail the person's, the page would ask about it and fill nothing.
    const truth = { ...sample.truth, personal: { ...sample.truth.personal, user_email: 'person email' } };
    const taken = measure([{ ...sample, split: part, truth }]);
    assert.deepEqual(taken.silentWrong, []);
    assert.deepEqual(taken.parts.get(part)?.roles.email, {
      truth: 1,
      guessed: 0,
      correct: 0,
      right: 0,
      wrong: 0,
      asked: 1,
      missed: 0,
    });
  });

  it('pins the part by its bytes: one changed byte changes its hash', () => {
    const before = heldOutDigest(part, root);
    assert.equal(heldOutDigest(part, root), before);
    const file = join(root, part, 'b', 'users-created.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('123', '124'));
    assert.notEqual(heldOutDigest(part, root), before);
  });
});
