/**
 * `npm run bench:quick` (mocha on this file, its own CI step, never part of `npm test`): every
 * suite of bench/run.ts runs in a few seconds with `--quick` and must work — complete, throw
 * nothing, measure something (no zero or NaN figure) — or the run fails. This checks that the
 * benches work, never how fast anything is (the figures come from the full `npm run bench`); it
 * is pure CPU for two minutes, which is why it runs apart from the correctness suite.
 */
import assert from 'node:assert/strict';
import { SUITES } from './run.ts';
import { runBench as bench } from './spawn-bench.ts';

describe('npm run bench -- --quick', () => {
  it('runs every suite to completion, each measuring something', async function () {
    // A bound for a loaded machine. Each suite has its own inside the harness: 90 s here, not the
    // harness's 45 s, since the suites that start the whole local stack (propagation: ~33 s on a
    // quiet machine) would be killed for the machine's load, not for not working.
    this.timeout(900_000);
    const { code, out } = await bench(['--quick', '--bound', '90']);
    assert.equal(code, 0, out);
    // Every suite bench/run.ts lists ran and worked.
    const ran =
      /(\d+) suite\(s\) in [\d.]+ s \(quick: checks that each works, not its speed\); all worked/.exec(out);
    assert.ok(ran, out);
    assert.equal(Number(ran[1]), Object.keys(SUITES).length, out);
    assert.doesNotMatch(out, /failed:/);
    // What the figures were measured on, and how much of the machine other tenants took meanwhile.
    assert.match(out, /^machine: \d+ cores \(nproc\), .+, Node v\d+/m);
    assert.match(out, /^CPU steal over the run: \d+\.\d % of the machine's CPU time/m);
    for (const title of ['# gateway:', '# store:', '# delivery:', '# pubsub emulator', '# studio', '# syncs'])
      assert.ok(out.includes(title), `${title} ran:\n${out}`);
  });

  it('compares a gateway started with BENCH_GATEWAY_VARIANT in the same turns, and refuses a malformed one', async function () {
    this.timeout(120_000);
    const { code, out } = await bench(['gateway', '--quick'], {
      BENCH_GATEWAY_VARIANT: 'EVENTBUS_PUBLISH_HOLD_MS=0',
    });
    assert.equal(code, 0, out);
    const line =
      /single-event POST, the gateway with EVENTBUS_PUBLISH_HOLD_MS=0: ([\d,]+) req\/s {2}\| baseline the gateway as configured, in the same turns: ([\d,]+) req\/s/.exec(
        out,
      );
    assert.ok(line, out);
    assert.ok(Number(line[1]?.replaceAll(',', '')) > 0 && Number(line[2]?.replaceAll(',', '')) > 0, out);
    const batches =
      /1000-event batches, the gateway with EVENTBUS_PUBLISH_HOLD_MS=0: ([\d,]+) events\/s {2}\| baseline the gateway as configured, in the same turns: ([\d,]+) events\/s/.exec(
        out,
      );
    assert.ok(batches, out);
    assert.ok(
      Number(batches[1]?.replaceAll(',', '')) > 0 && Number(batches[2]?.replaceAll(',', '')) > 0,
      out,
    );
    assert.match(out, /CPU µs\/request: gateway \d+/);
    const bad = await bench(['gateway', '--quick'], { BENCH_GATEWAY_VARIANT: 'HOLD' });
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /BENCH_GATEWAY_VARIANT: "HOLD" is not NAME=value/);
  });
});
