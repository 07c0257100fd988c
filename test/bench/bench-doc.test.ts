/** docs/bench.md as `npm run bench` writes it (bench/report.ts): sections replaced per suite run. */
import assert from 'node:assert/strict';
import type { SuiteOutcome } from '../../bench/lib.ts';
import { BENCH_DOC_HEAD, benchDoc } from '../../bench/report.ts';

const outcome = (suite: string, value: number, problems: string[] = []): SuiteOutcome => ({
  suite,
  title: `${suite}: a title`,
  figures: [{ name: 'throughput', value, unit: 'req/s', target: { op: '>=', value: 10 } }],
  problems,
  seconds: 1.5,
});

describe('docs/bench.md, written by npm run bench', () => {
  it('writes each suite run, in the harness order, stamped', () => {
    const doc = benchDoc('', [outcome('store', 12), outcome('gateway', 5)], 'Measured 2026-11-25.', [
      'gateway',
      'store',
    ]);
    assert.ok(doc.startsWith(BENCH_DOC_HEAD));
    assert.ok(doc.indexOf('<!-- bench:gateway -->') < doc.indexOf('<!-- bench:store -->'));
    assert.match(
      doc,
      /## gateway: a title\n\nMeasured 2026-11-25\.\n\n```\nthroughput: 5\.00 req\/s {2}\| target >= 10: NOT met\n\(1\.5 s\)\n```/,
    );
    assert.match(doc, /throughput: 12\.00 req\/s {2}\| target >= 10: met/);
  });

  it('replaces the sections of the suites run and keeps the others', () => {
    const first = benchDoc('', [outcome('gateway', 5), outcome('store', 12)], 'Measured day 1.', [
      'gateway',
      'store',
    ]);
    const second = benchDoc(first, [outcome('store', 20, ['a gate missed'])], 'Measured day 2.', [
      'gateway',
      'store',
    ]);
    assert.match(second, /<!-- bench:gateway -->\n## gateway: a title\n\nMeasured day 1\./);
    assert.match(
      second,
      /<!-- bench:store -->\n## store: a title\n\nMeasured day 2\.[\s\S]*20\.00 req\/s[\s\S]*failed: a gate missed/,
    );
    assert.doesNotMatch(second, /12\.00 req\/s/);
    assert.equal(second.match(/<!-- bench:store -->/g)?.length, 1);
    assert.equal(benchDoc(second, [], 'x', ['gateway', 'store']), second);
  });
});
