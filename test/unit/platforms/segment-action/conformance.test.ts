/**
 * The conformance run with Segment's own tests (scripts/conformance-segment.ts): the committed table
 * in docs/catalog-destinations.md is what the committed results give, the results add up, each case
 * is put where its reason says, and snapshots are printed and read as Jest 27 does.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  caseId,
  classify,
  declaredTests,
  destinationFigure,
  failureReason,
  NO_SUCH_ACTION,
  NO_SUCH_ACTION_REASON,
  SETTINGS_INVALID,
  SETTINGS_REFUSED,
  STAND_IN_COMPARED,
  totalsOf,
  verifiedActions,
  WIRE_DIFFERS,
  type WorkerLine,
} from '../../../../scripts/conformance-segment/classify.ts';
import { hoistMocks, serialize, stripIndentation } from '../../../../scripts/conformance-segment/jest.ts';
import { pinned } from '../../../../scripts/conformance-segment/pinned.ts';
import {
  type ConformanceReport,
  conformanceSection,
  SECTION_END,
  SECTION_START,
  sectionOf,
  withSection,
} from '../../../../scripts/conformance-segment/table.ts';
import { verdict } from '../../../../scripts/conformance-segment/verdict.ts';
import { wireDiff } from '../../../../scripts/conformance-segment/wire.ts';

const REPORT = JSON.parse(
  readFileSync(new URL('../../../../docs/data/segment-conformance.json', import.meta.url), 'utf8'),
) as ConformanceReport;
const DOC = readFileSync(new URL('../../../../docs/catalog-destinations.md', import.meta.url), 'utf8');
const REVIEWED = JSON.parse(
  readFileSync(new URL('../../../../scripts/conformance-segment/not-runnable.json', import.meta.url), 'utf8'),
) as Record<string, number>;

/** A worker line of a case that ran `track` through testAction and passed, its wire compared. */
const workerLine = (over: Partial<WorkerLine>): WorkerLine => ({
  file: 'a.test.ts',
  name: 'x',
  status: 'pass',
  calls: ['testAction'],
  unsupported: [],
  actions: ['track'],
  wireCompared: 1,
  wireDiffs: [],
  ...over,
});

describe('segment_action: conformance with Segment’s own tests', () => {
  it('the table in docs/catalog-destinations.md is the one the committed results give', () => {
    assert.equal(
      sectionOf(DOC),
      conformanceSection(REPORT),
      'run `npm run conformance:segment -- <checkout>`',
    );
  });

  it('the headline counts in the docs are the verified ones', () => {
    for (const doc of ['catalog-destinations.md', 'linkage.md', 'platforms.md']) {
      const text = readFileSync(new URL(`../../../../docs/${doc}`, import.meta.url), 'utf8');
      const said = [...text.matchAll(/(\d+) of them verified by Segment's own tests/g)].map((m) =>
        Number(m[1]),
      );
      assert.ok(said.length > 0, `${doc} states the verified count`);
      for (const n of said) assert.equal(n, REPORT.totals.destinationsVerified, doc);
    }
  });

  it('the committed results add up: totals from the destinations, passing within runnable within cases', () => {
    assert.deepEqual(REPORT.totals, totalsOf(REPORT.destinations));
    for (const d of REPORT.destinations) {
      assert.ok(d.passing <= d.runnable && d.runnable <= d.cases, d.slug);
      assert.ok(d.passing <= d.assertions && d.passing <= d.wire && d.wire <= d.runnable, d.slug);
      assert.equal(d.passed.length, d.passing, d.slug);
      assert.equal(new Set(d.passed).size, d.passing, `${d.slug}: each passing case named once`);
      assert.equal(d.runnable - d.passing, d.failing.length, d.slug);
      assert.equal(
        Object.values(d.notRunnable).reduce((a, b) => a + b, 0),
        d.cases - d.runnable,
        d.slug,
      );
    }
    assert.equal(
      REPORT.version,
      JSON.parse(
        // Resolved as Node resolves the package, so the test also runs where node_modules is not
        // beside it (a Stryker sandbox of a worktree whose node_modules is a link).
        readFileSync(
          createRequire(import.meta.url).resolve('@segment/action-destinations/package.json'),
          'utf8',
        ),
      ).version,
    );
  });

  it('the reviewed reasons a case is not runnable are the committed run’s, reason by reason and count by count', () => {
    assert.deepEqual(
      REVIEWED,
      REPORT.totals.notRunnable,
      'review the change, then write the new counts in scripts/conformance-segment/not-runnable.json',
    );
  });

  it('a case is ours to pass only when it runs testAction or testBatchAction alone and passes Segment’s own way', () => {
    const at = (name: string, over: Partial<WorkerLine>): WorkerLine => workerLine({ name, ...over });
    const segment = [
      at('passes both', {}),
      at('fails ours', {}),
      at('batch', { calls: ['testBatchAction'] }),
      at('helper', { calls: [], actions: [] }),
      at('flags', { unsupported: ['features'] }),
      at('harness', { status: 'fail', message: 'no stored snapshot (Jest in CI fails the same way)' }),
      at('settings', { unsupported: [SETTINGS_INVALID] }),
      at('stand-in', {}),
      at('wire', {}),
      { file: 'b.test.ts', load: 'module mocks (jest.mock)' },
    ];
    const ours = [
      at('passes both', {}),
      at('fails ours', { status: 'fail', message: 'snapshot differs\n…' }),
      at('batch', { calls: ['testBatchAction'] }),
      at('helper', { calls: [], actions: [] }),
      at('flags', {}),
      at('harness', { status: 'fail', message: 'no stored snapshot' }),
      at('settings', { status: 'fail', message: 'anything' }),
      at('stand-in', { status: 'fail', message: 'expect(received)… api_key: "x"', standIns: ['apiKey'] }),
      at('wire', { wireDiffs: ['request 1: header authorization is absent in ours'] }),
    ];
    const cases = classify(segment, ours, (f) => (f === 'b.test.ts' ? 2 : 0));
    const results = cases.map((c) => `${c.name}: ${c.result}`);
    assert.equal(
      results.join('; '),
      'passes both: pass; fails ours: fail; batch: pass; helper: not runnable; flags: not runnable; ' +
        'harness: not runnable; settings: not runnable; stand-in: not runnable; wire: fail; (test 1): not runnable; (test 2): not runnable',
    );
    const figure = destinationFigure('x', cases);
    assert.deepEqual(
      [figure.cases, figure.runnable, figure.passing, figure.assertions, figure.wire],
      [11, 4, 2, 3, 3],
    );
    assert.deepEqual(figure.passed, ['a.test.ts › passes both', 'a.test.ts › batch']);
    // The batch case (testBatchAction) is counted apart too.
    assert.deepEqual(figure.batch, { runnable: 1, passing: 1, assertions: 1, wire: 1 });
    assert.deepEqual(
      figure.failing.map((f) => f.reason),
      ["request differs from Segment's snapshot", WIRE_DIFFERS],
    );
    assert.equal(figure.notRunnable[SETTINGS_REFUSED], 1);
    assert.equal(figure.notRunnable[STAND_IN_COMPARED], 1);
    // `track` has a failing case: not verified, so the destination is not either.
    assert.equal(totalsOf([figure]).destinationsVerified, 0);
    assert.equal(totalsOf([destinationFigure('y', cases.slice(0, 1))]).destinationsVerified, 1);
  });

  it('a failure whose message reads like a refusal or a stand-in is still a failure: no text decides', () => {
    const line = workerLine;
    for (const message of [
      "settings refused by x: The root value is missing 'apiKey'",
      'Bearer conformance-access-token',
    ]) {
      const [c] = classify([line({})], [line({ status: 'fail', message })], () => 0);
      assert.equal(c?.result, 'fail', message);
    }
    // A passing assertion without a recorded comparison is not a pass.
    const [unchecked] = classify([line({})], [line({ wireCompared: 0 })], () => 0);
    assert.deepEqual([unchecked?.result, unchecked?.assertions, unchecked?.wire], ['fail', true, false]);
  });

  it('the verdict: a case that passed and does not now, a destination gone, a reason unreviewed or over its count', () => {
    const figure = (passed: string[], notRunnable: Record<string, number> = {}) => ({
      ...destinationFigure('d', []),
      passing: passed.length,
      passed,
      notRunnable,
    });
    const committed = [figure(['a', 'b'])];
    assert.deepEqual(verdict(committed, [figure(['a', 'b', 'c'], { r: 2 })], ['d'], { r: 2 }), []);
    assert.deepEqual(verdict(committed, [figure(['a'])], ['d'], {}), [
      'd: "b" passed in the committed results, not now',
    ]);
    assert.deepEqual(verdict(committed, [], ['d'], {}), [
      'd: 2 cases passed in the committed results, none ran now',
    ]);
    assert.deepEqual(verdict(committed, [], ['other'], {}), [], 'a destination not run is not judged');
    assert.deepEqual(verdict(committed, [figure(['a', 'b'], { r: 3, s: 1 })], ['d'], { r: 2 }), [
      '3 cases not runnable (2 reviewed): r',
      '1 cases not runnable for a reason not reviewed: s',
    ]);
  });

  it('compares the wire request by request: method and URL, each header, the body', () => {
    const w = {
      method: 'POST',
      url: 'https://a.example/x',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    };
    assert.equal(wireDiff([w], [{ ...w, headers: { 'content-type': 'application/json' } }]), undefined);
    assert.match(wireDiff([], [w]) ?? '', /ours sends nothing/);
    assert.match(wireDiff([w], []) ?? '', /Segment's code sends nothing/);
    assert.match(wireDiff([{ ...w, url: `${w.url}?q=1` }], [w]) ?? '', /request 1: ours is POST/);
    assert.match(wireDiff([{ ...w, headers: {} }], [w]) ?? '', /header content-type is absent/);
    assert.match(wireDiff([{ ...w, body: '{"a":1}' }], [w]) ?? '', /body differs/);
    // JSON: the same value with its keys in another order is the same body; a value or an array's order is not.
    const json = (body: string) => ({ ...w, body });
    assert.equal(wireDiff([json('{"a":1,"b":[1,2]}')], [json('{"b":[1,2],"a":1}')]), undefined);
    assert.match(wireDiff([json('{"a":1,"b":[2,1]}')], [json('{"b":[1,2],"a":1}')]) ?? '', /body differs/);
    assert.match(wireDiff([json('a=1&b=2')], [json('b=2&a=1')]) ?? '', /body differs/);
  });

  it('holds the clock and randomness still for both runs of an input, then gives them back', async () => {
    const sample = () =>
      pinned(1_700_000_000_000, async () => [
        new Date().toISOString(),
        Date.now(),
        Math.random(),
        randomBytes(4).toString('hex'),
        randomUUID(),
        new Date(0).toISOString(),
      ]);
    const first = await sample();
    assert.deepEqual(await sample(), first);
    assert.deepEqual(first.slice(0, 2), ['2023-11-14T22:13:20.000Z', 1_700_000_000_000]);
    assert.equal(first[5], '1970-01-01T00:00:00.000Z');
    assert.ok(Date.now() > 1_700_000_000_000);
    assert.notEqual(new Date().toISOString(), first[0]);
    assert.notEqual(randomUUID(), first[4]);
  });

  it('a test running an action its destination lacks checks nothing: not runnable, in either mode', () => {
    const line = (over: Partial<WorkerLine>): WorkerLine => ({
      file: 'a.test.ts',
      name: 'misses event type',
      status: 'pass',
      calls: ['testAction'],
      unsupported: [NO_SUCH_ACTION],
      actions: ['trackEvenV2'],
      ...over,
    });
    const [typo] = classify(
      [line({})],
      [line({ status: 'fail', message: 'expect(received).toContain…' })],
      () => 0,
    );
    assert.deepEqual([typo?.result, typo?.reason], ['not runnable', NO_SUCH_ACTION_REASON]);
  });

  it('hoists a file’s top-level jest.mock calls out of it, as Jest’s transform does', () => {
    const text = [
      "import { Kafka } from 'kafkajs'",
      "jest.mock('kafkajs', () => ({ Kafka: jest.fn(() => ({ text: ')', re: \"(\" })) })) // a (",
      "jest.mock('../../functions');",
      "// jest.mock('commented')",
      "it('runs', () => undefined)",
    ].join('\n');
    const hoisted = hoistMocks(text);
    assert.deepEqual(hoisted?.specs, ['kafkajs', '../../functions']);
    assert.equal(
      hoisted?.hoisted,
      "jest.mock('kafkajs', () => ({ Kafka: jest.fn(() => ({ text: ')', re: \"(\" })) }))\njest.mock('../../functions');",
    );
    assert.equal(
      hoisted?.rest,
      "import { Kafka } from 'kafkajs'\n // a (\n\n// jest.mock('commented')\nit('runs', () => undefined)",
    );
    assert.equal(hoistMocks("jest.mock('x', () => ({ a: 1 })"), undefined);
  });

  it('prints and reads snapshots as Jest 27: `Object {`, escaped strings, the inline indentation taken off', () => {
    assert.equal(
      serialize({ b: [1], a: 'say "hi"' }),
      '\nObject {\n  "a": "say \\"hi\\"",\n  "b": Array [\n    1,\n  ],\n}\n',
    );
    assert.equal(serialize('one line'), '"one line"');
    assert.equal(
      stripIndentation('\n      Object {\n        "a": 1,\n      }\n    '),
      '\nObject {\n  "a": 1,\n}\n',
    );
  });

  it('replaces only the generated section of a document', () => {
    const doc = `before\n${SECTION_START}\nold\n${SECTION_END}\nafter`;
    assert.equal(
      withSection(doc, `${SECTION_START}\nnew\n${SECTION_END}`),
      `before\n${SECTION_START}\nnew\n${SECTION_END}\nafter`,
    );
    assert.equal(withSection('no markers', 'x'), 'no markers');
  });
});

describe('segment_action: conformance, each kind of case and the figures', () => {
  /** The reason one Segment-mode line is given, our own line being a pass. */
  const reasonOf = (over: Partial<WorkerLine>) =>
    classify([workerLine(over)], [workerLine({})], () => 0)[0]?.reason;
  /** A reviewed reason (scripts/conformance-segment/not-runnable.json) by its first words. */
  const reviewed = (start: string): string => {
    const found = Object.keys(REVIEWED).filter((r) => r.startsWith(start));
    assert.equal(found.length, 1, start);
    return found[0] as string;
  };

  it('gives each kind of case the committed run saw its reviewed reason', () => {
    const kinds: [Partial<WorkerLine>, string][] = [
      [{ calls: [] }, reviewed('no action run')],
      [{ calls: ['testAuthentication'] }, reviewed('connection test')],
      [{ calls: ['testDynamicField'] }, reviewed('dynamic field lookup')],
      [{ calls: ['executeDynamicField'] }, reviewed('dynamic field lookup')],
      [{ calls: ['refreshAccessToken'] }, reviewed('OAuth token refresh')],
      [{ calls: ['testRefreshToken'] }, reviewed('OAuth token refresh')],
      [{ calls: ['onDelete'] }, reviewed('deletion requests')],
      [{ calls: ['createAudience'] }, reviewed('Engage audience management')],
      [{ calls: ['getAudience'] }, reviewed('Engage audience management')],
      [{ status: 'skip' }, reviewed('skipped in Segment')],
      [{ unsupported: ['features'] }, reviewed('Segment-internal inputs')],
      [{ unsupported: ['results'] }, reviewed("reads the action's return value")],
      [{ unsupported: [NO_SUCH_ACTION] }, reviewed('runs an action the destination does not have')],
      [{ status: 'fail', message: 'anything else' }, reviewed("harness: fails with Segment's own")],
      [{ status: 'fail', message: 'snapshot differs\n- a' }, reviewed("harness: Segment's own run differs")],
    ];
    for (const [over, reason] of kinds) assert.equal(reasonOf(over), reason, JSON.stringify(over));
    // A batch through the test integration (testBatchAction, executeBatch) is ours to run; a
    // Destination's own onBatch or onEvent is not (no case of the committed run calls them).
    const direct = "calls actions-core's Destination directly, not through the test integration";
    for (const calls of [['onBatch'], ['onEvent'], ['executeAction']])
      assert.equal(reasonOf({ calls }), direct, calls[0]);
    for (const calls of [['testBatchAction'], ['executeBatch'], ['testAction', 'testBatchAction']]) {
      const [c] = classify([workerLine({ calls })], [workerLine({ calls })], () => 0);
      assert.deepEqual([c?.result, c?.batch], ['pass', true], calls.join());
    }
    const [mocked] = classify([{ file: 'a.test.ts', load: 'module mocks of actions-core (x)' }], [], () => 1);
    assert.equal(mocked?.reason, reviewed('module mocks of actions-core itself'));
  });

  it('tells each kind of harness, load and own failure apart', () => {
    const harness = [
      'no stored snapshot',
      'x not supported by the conformance harness',
      'snapshot differs',
      'it timed out',
      'Nock: no match',
      'other',
    ];
    const reasons = harness.map((message) => reasonOf({ status: 'fail', message }));
    assert.equal(new Set(reasons).size, harness.length, reasons.join(' | '));
    assert.ok(
      reasons.every((r) => r?.startsWith('harness: ')),
      reasons.join(' | '),
    );
    const loads = [
      'module mocks of actions-core',
      'module mocks (x)',
      'does not build: x',
      'Cannot find package',
    ];
    const loaded = loads.map((load) => classify([{ file: 'f.ts', load }], [], () => 1)[0]?.reason);
    assert.equal(new Set(loaded).size, loads.length, loaded.join(' | '));
    const own = [
      'snapshot differs',
      'no stored snapshot',
      'Nock: x',
      'no answer from https://x',
      'expect(received)',
      'TypeError',
    ];
    const failures = own.map(failureReason);
    assert.equal(failures[2], failures[3], 'a request the test does not mock, either way');
    assert.equal(new Set(failures).size, own.length - 1, failures.join(' | '));
    assert.equal(reasonOf({ calls: ['somethingNew'] }), 'calls somethingNew');
  });

  it('counts every test a file that could not load declares, and nothing else', () => {
    const text =
      "it('a', f); test('b', f); it.only('c', f); test.each([1, 2])('d', f); it ('e', f); submit('x'); split('y')";
    assert.equal(declaredTests(text), 5);
    assert.equal(declaredTests('no tests here'), 0);
  });

  it('names a case by its file under the destination, and a repeated name by its occurrence', () => {
    const file = 'packages/x/src/destinations/acme/track/__tests__/index.test.ts';
    assert.equal(caseId(file, 'sends', 1), 'track/__tests__/index.test.ts › sends');
    assert.equal(caseId(file, 'sends', 2), 'track/__tests__/index.test.ts › sends #2');
    assert.equal(caseId('other/path.test.ts', 'n', 1), 'other/path.test.ts › n');
  });

  it('pairs repeated names in order, and keeps a failure’s first 300 characters', () => {
    const twice = [workerLine({ name: 'same' }), workerLine({ name: 'same' })];
    const ours = [
      workerLine({ name: 'same' }),
      workerLine({ name: 'same', status: 'fail', message: 'x'.repeat(400) }),
    ];
    const cases = classify(twice, ours, () => 0);
    assert.deepEqual(
      cases.map((c) => [c.id, c.result]),
      [
        ['a.test.ts › same', 'pass'],
        ['a.test.ts › same #2', 'fail'],
      ],
    );
    assert.equal(cases[1]?.message, 'x'.repeat(300));
    const [lost] = classify([workerLine({})], [], () => 0);
    assert.deepEqual([lost?.result, lost?.reason], ['fail', 'no result from our run (the worker ended)']);
  });

  it('counts passing cases run with stand-ins, and verifies an action only when all its cases pass', () => {
    const segment = [workerLine({ name: 'a' }), workerLine({ name: 'b', actions: ['identify'] })];
    const ours = [
      workerLine({ name: 'a', standIns: ['apiKey'] }),
      workerLine({ name: 'b', status: 'fail', message: 'expect(' }),
    ];
    const figure = destinationFigure(
      'd',
      classify(segment, ours, () => 0),
    );
    assert.equal(figure.withStandIns, 1);
    assert.deepEqual(figure.actions, [
      { action: 'identify', runnable: 1, passing: 0 },
      { action: 'track', runnable: 1, passing: 1 },
    ]);
    assert.deepEqual(
      verifiedActions(figure).map((a) => a.action),
      ['track'],
    );
    assert.deepEqual(figure.failing, [
      { name: 'b', reason: "differs from the test's expectation", message: 'expect(' },
    ]);
  });

  it('adds the figures of every destination, the most frequent reasons first', () => {
    const lines = (n: number, over: Partial<WorkerLine>, prefix: string) =>
      Array.from({ length: n }, (_, i) => workerLine({ name: `${prefix}${i}`, ...over }));
    // Alphabetically `no action run…` comes before `skipped…`, and the expectation before the wire.
    const a = destinationFigure(
      'a',
      classify(
        [...lines(2, { status: 'skip' }, 's'), ...lines(1, { calls: [] }, 'h'), ...lines(1, {}, 'w')],
        [...lines(1, { wireDiffs: ['request 1 differs'] }, 'w')],
        () => 0,
      ),
    );
    const b = destinationFigure(
      'b',
      classify(
        [...lines(2, { status: 'skip' }, 's'), ...lines(1, { calls: [] }, 'h'), ...lines(2, {}, 'w')],
        [
          ...lines(1, { wireDiffs: ['request 1 differs'] }, 'w'),
          workerLine({ name: 'w1', status: 'fail', message: 'expect(' }),
        ],
        () => 0,
      ),
    );
    const totals = totalsOf([a, b]);
    assert.deepEqual(Object.entries(totals.notRunnable), [
      [reviewed('skipped in Segment'), 4],
      [reviewed('no action run'), 2],
    ]);
    assert.deepEqual(Object.entries(totals.failing), [
      [WIRE_DIFFERS, 2],
      ["differs from the test's expectation", 1],
    ]);
    assert.equal(totals.cases, 9);
  });
});
