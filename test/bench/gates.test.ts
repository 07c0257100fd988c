/**
 * bench/lib.ts's gates and bench/cost-line.ts (issue #42): a full run fails on a missed hard
 * target and only on a hard one; the cost line is the model fed with the CPU the run measured.
 */
import assert from 'node:assert/strict';
import { costLine } from '../../bench/cost-line.ts';
import { type BenchFigure, gateProblems, targetMet } from '../../bench/lib.ts';
import { machineTicks, stealPercent } from '../../bench/proc-cpu.ts';
import { MEASURED_CPU } from '../../core/deploy/cost.ts';
import { shippedCost } from '../../scripts/scale-table.ts';

const figure = (over: Partial<BenchFigure> = {}): BenchFigure => ({
  name: 'x',
  value: 10,
  unit: 'req/s',
  ...over,
});

describe('bench gates and cost line', () => {
  it('checks value and ratio targets', () => {
    assert.equal(targetMet(figure({ target: { op: '>=', value: 10 } })), true);
    assert.equal(targetMet(figure({ target: { op: '<=', value: 9 } })), false);
    const ratio = { op: '>=' as const, value: 0.35, of: 'ratio' as const };
    assert.equal(targetMet(figure({ baseline: { name: 'bare', value: 40 }, target: ratio })), false);
    assert.equal(targetMet(figure({ baseline: { name: 'bare', value: 20 }, target: ratio })), true);
  });

  it('reports a missed hard target as a problem, and a missed soft one not', () => {
    const missedHard = figure({ name: 'gateway CPU', target: { op: '<=', value: 5, hard: true } });
    const missedSoft = figure({ name: 'p99', target: { op: '<=', value: 5 } });
    const metHard = figure({ target: { op: '<=', value: 50, hard: true } });
    assert.deepEqual(gateProblems([missedHard, missedSoft, metHard]), ['gateway CPU: gate <= 5 not met']);
  });

  it('prints no cost line when no figure measured a hop', () => {
    assert.equal(costLine([figure()]), undefined);
  });

  it("prices a million events from the run's measured CPU, the other hops from core/deploy/cost.ts", () => {
    const line = costLine([figure({ hopCpu: { hop: 'gateway', secondsPerRequest: 50e-6 } })]);
    const expected = shippedCost({ ...MEASURED_CPU, gateway: 50e-6 }).total;
    assert.ok(line?.includes(`$${expected.toFixed(2)}`), line);
    const store = (MEASURED_CPU.store * 1e6).toFixed(0);
    assert.ok(line?.includes(`gateway 50 µs (measured), store ${store} µs (core/deploy/cost.ts)`), line);
  });

  it("reads the machine's CPU ticks and the share stolen by the hypervisor from /proc/stat", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice (guest counted in user).
    const before = machineTicks('cpu  100 0 50 800 10 0 5 35 20 0\ncpu0 50 0 25 400 5 0 2 18 10 0\n');
    const after = machineTicks('cpu  200 0 100 1500 20 0 10 170 40 0\n');
    assert.deepEqual(before, { total: 1000, steal: 35 });
    assert.deepEqual(after, { total: 2000, steal: 170 });
    assert.equal(
      stealPercent(before as NonNullable<typeof before>, after as NonNullable<typeof after>),
      13.5,
    );
    assert.equal(machineTicks('intr 1 2 3\n'), undefined);
    assert.equal(machineTicks('cpu  1 2 x 4 5 6 7 8\n'), undefined);
  });
});
