/**
 * The bench harness (bench/run.ts) fails deliberately broken suites: one that throws, one that
 * measures zero, one that hangs past its bound (killed, with what it started). The quick run of
 * the real suites is `npm run bench:quick` (bench/quick.ts), apart from this suite.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBench as bench } from '../../bench/spawn-bench.ts';

/** Whether a process still runs: a zombie (dead, not yet reaped by this machine's init) does not. */
function running(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}

describe('the bench harness', () => {
  it('fails a suite that throws, one that measures zero and one that hangs past its bound', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
    const pidFile = join(dir, 'pid');
    try {
      const fixture = (name: string) => join('test', 'fixtures', 'bench', `${name}.ts`);
      const { code, out } = await bench(
        [
          '--quick',
          '--bound',
          '5',
          ...['works', 'throws', 'zero', 'hangs'].flatMap((n) => ['--module', fixture(n)]),
        ],
        { BENCH_FIXTURE_PID_FILE: pidFile },
      );
      assert.equal(code, 1, out);
      assert.match(
        out,
        /# fixture: works\n {2}a figure: 2\.00 ops\/s {2}\| baseline a baseline: 1\.00 ops\/s {2}\| ratio 2\.00x\n/,
      );
      assert.match(out, /# fixture: throws\n {2}failed: threw: Error: deliberately broken suite/);
      assert.match(out, /failed: single-event POST: measured 0 req\/s/);
      assert.match(out, /failed: a latency: measured NaN ms/);
      assert.match(out, /# fixture: hangs\n {2}failed: did not finish within 5 s \(killed\)/);
      assert.match(
        out,
        new RegExp(
          `4 suite\\(s\\) in [\\d.]+ s .*; failed: ${['throws', 'zero', 'hangs'].map((n) => fixture(n).replaceAll('/', '\\/').replace('.ts', '\\.ts')).join(', ')}\\n`,
        ),
      );
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.equal(running(pid), false, 'what the hung suite started was killed with it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
