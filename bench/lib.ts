/**
 * Shared shape of benchmark results. Every suite measures its subject and a baseline
 * in the same run, so the ratio means something on a shared, noisy machine.
 */
export interface BenchFigure {
  /** What was measured, e.g. "publish 1000-message calls (raw v1.PublisherClient)". */
  readonly name: string;
  readonly value: number;
  /** Unit of `value`, e.g. "msg/s", "ms", "rows/s", "KiB". */
  readonly unit: string;
  /** The same-run baseline this figure is compared against, when there is one. */
  readonly baseline?: { readonly name: string; readonly value: number };
  /**
   * The target from the issue, e.g. { op: '>=', value: 100000 } or a ratio target. A `hard` one is
   * a gate: a full run whose figure misses it fails (a quick run checks that it works, never speed).
   */
  readonly target?: {
    readonly op: '>=' | '<=';
    readonly value: number;
    readonly of?: 'value' | 'ratio';
    readonly hard?: boolean;
  };
  /**
   * CPU seconds one request costs a hop of the cost model (core/deploy/cost.ts): bench/run.ts prints a
   * cost per million events from the hops a run measured, the others from core/deploy/cost.ts.
   */
  readonly hopCpu?: { readonly hop: 'gateway' | 'store' | 'forward'; readonly secondsPerRequest: number };
  /** Extra detail printed under the figure (p50/p99, sizes...). */
  readonly detail?: string;
}

/** How a suite runs: measured in full, or `quick` (a few seconds: checks it works, never a speed). */
export interface BenchOptions {
  readonly quick: boolean;
}

export interface BenchSuite {
  readonly name: string;
  run(options: BenchOptions): Promise<BenchFigure[]>;
}

/**
 * What is wrong with a suite's figures, if anything: none at all, or a value or baseline that is
 * zero, negative or not a number (a bench that measured nothing, such as 0.00 req/s).
 */
export function figureProblems(figures: readonly BenchFigure[]): string[] {
  if (figures.length === 0) return ['no figures'];
  const bad = (n: number) => !Number.isFinite(n) || n <= 0;
  const out: string[] = [];
  for (const f of figures) {
    if (bad(f.value)) out.push(`${f.name}: measured ${f.value} ${f.unit}`);
    if (f.baseline && bad(f.baseline.value))
      out.push(`${f.name}: baseline ${f.baseline.name} measured ${f.baseline.value} ${f.unit}`);
  }
  return out;
}

/** Whether a figure meets its target (true when it has none). */
export function targetMet(f: BenchFigure): boolean {
  if (!f.target) return true;
  const ratio = f.baseline ? f.value / f.baseline.value : undefined;
  const subject = f.target.of === 'ratio' ? ratio : f.value;
  return (
    subject !== undefined && (f.target.op === '>=' ? subject >= f.target.value : subject <= f.target.value)
  );
}

/** The hard targets a full run's figures miss, as problems that fail the suite. */
export function gateProblems(figures: readonly BenchFigure[]): string[] {
  return figures
    .filter((f) => f.target?.hard && !targetMet(f))
    .map(
      (f) =>
        `${f.name}: gate ${f.target?.of === 'ratio' ? 'ratio ' : ''}${f.target?.op} ${f.target?.value} not met`,
    );
}

/** Formats one figure as a line: value, baseline, ratio and whether the target is met. */
export function formatFigure(f: BenchFigure): string {
  const num = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));
  let line = `  ${f.name}: ${num(f.value)} ${f.unit}`;
  if (f.baseline) {
    const ratio = f.baseline.value === 0 ? Number.NaN : f.value / f.baseline.value;
    line += `  | baseline ${f.baseline.name}: ${num(f.baseline.value)} ${f.unit}  | ratio ${ratio.toFixed(2)}x`;
  }
  if (f.target) {
    line += `  | ${f.target.hard ? 'gate' : 'target'} ${f.target.of === 'ratio' ? 'ratio ' : ''}${f.target.op} ${f.target.value}: ${targetMet(f) ? 'met' : 'NOT met'}`;
  }
  if (f.detail) line += `\n      ${f.detail}`;
  return line;
}

/** Percentile of an unsorted list of numbers (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** One suite's outcome: its figures, and what failed (empty when it worked). */
export interface SuiteOutcome {
  readonly suite: string;
  readonly title: string;
  readonly figures: readonly BenchFigure[];
  readonly problems: readonly string[];
  readonly seconds: number;
}
