/**
 * The conformance run with Segment's own tests (scripts/conformance-segment.ts): the committed table
 * in docs/catalog-destinations.md is what the committed results give, the results add up, each case
 * is put where its reason says, and snapshots are printed and read as Jest 27 does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  classify,
  destinationFigure,
  NO_SUCH_ACTION,
  NO_SUCH_ACTION_REASON,
  totalsOf,
  type WorkerLine,
} from '../../../../scripts/conformance-segment/classify.ts';
import { hoistMocks, serialize, stripIndentation } from '../../../../scripts/conformance-segment/jest.ts';
import {
  type ConformanceReport,
  conformanceSection,
  SECTION_END,
  SECTION_START,
  sectionOf,
  withSection,
} from '../../../../scripts/conformance-segment/table.ts';

const REPORT = JSON.parse(
  readFileSync(new URL('../../../../docs/data/segment-conformance.json', import.meta.url), 'utf8'),
) as ConformanceReport;
const DOC = readFileSync(new URL('../../../../docs/catalog-destinations.md', import.meta.url), 'utf8');

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
        readFileSync(
          new URL('../../../../node_modules/@segment/action-destinations/package.json', import.meta.url),
          'utf8',
        ),
      ).version,
    );
  });

  it('a case is ours to pass only when it runs testAction alone and passes Segment’s own way', () => {
    const at = (name: string, over: Partial<WorkerLine>): WorkerLine => ({
      file: 'a.test.ts',
      name,
      status: 'pass',
      calls: ['testAction'],
      unsupported: [],
      actions: ['track'],
      ...over,
    });
    const segment = [
      at('passes both', {}),
      at('fails ours', {}),
      at('batch', { calls: ['testBatchAction'] }),
      at('helper', { calls: [], actions: [] }),
      at('flags', { unsupported: ['features'] }),
      at('harness', { status: 'fail', message: 'no stored snapshot (Jest in CI fails the same way)' }),
      at('settings', {}),
      at('stand-in', {}),
      { file: 'b.test.ts', load: 'module mocks (jest.mock)' },
    ];
    const ours = [
      at('passes both', {}),
      at('fails ours', { status: 'fail', message: 'snapshot differs\n…' }),
      at('batch', { calls: ['testBatchAction'] }),
      at('helper', { calls: [], actions: [] }),
      at('flags', {}),
      at('harness', { status: 'fail', message: 'no stored snapshot' }),
      at('settings', {
        status: 'fail',
        message: "settings refused by x: The root value is missing the required field 'apiKey'.",
      }),
      at('stand-in', {
        status: 'fail',
        message: 'expect(received)… api_key: "conformance-apiKey"',
        standIns: ['apiKey'],
      }),
    ];
    const cases = classify(segment, ours, (f) => (f === 'b.test.ts' ? 2 : 0));
    const results = cases.map((c) => `${c.name}: ${c.result}`);
    assert.equal(
      results.join('; '),
      'passes both: pass; fails ours: fail; batch: not runnable; helper: not runnable; flags: not runnable; ' +
        'harness: not runnable; settings: not runnable; stand-in: not runnable; (test 1): not runnable; (test 2): not runnable',
    );
    const figure = destinationFigure('x', cases);
    assert.deepEqual([figure.cases, figure.runnable, figure.passing], [10, 2, 1]);
    assert.deepEqual(
      figure.failing.map((f) => f.reason),
      ["request differs from Segment's snapshot"],
    );
    // `track` has a failing case: not verified, so the destination is not either.
    assert.equal(totalsOf([figure]).destinationsVerified, 0);
    assert.equal(totalsOf([destinationFigure('y', cases.slice(0, 1))]).destinationsVerified, 1);
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
