/**
 * docs/bench.md is written by `npm run bench`, never by hand: each suite a full run measures
 * replaces that suite's section (between `<!-- bench:<suite> -->` and `<!-- /bench:<suite> -->`),
 * stamped with the date and the machine it ran on; suites not run keep their last section. A
 * quick run (`--quick`, `npm run bench:quick`) or a run of extra `--module` suites writes nothing:
 * its figures say that the benches work, not how fast anything is.
 */
import { formatFigure, type SuiteOutcome } from './lib.ts';

export const BENCH_DOC_HEAD = `# Benchmarks

Written by \`npm run bench\` (bench/run.ts): each suite's last full run, with the machine it ran
on. Read the same-run ratios (a figure against its baseline measured in the same turns) before
absolute figures: a shared 2-core machine's absolute figures move with its neighbours, and the
CPU steal line says by how much. Gates (hard targets) fail the run; targets are reported.
\`npm run bench gateway store\` re-measures some suites and rewrites only their sections.
`;

/** One suite's section, as the doc holds it. */
export function suiteSection(outcome: SuiteOutcome, stamp: string): string {
  const lines = outcome.figures.map((f) => formatFigure(f).replace(/^ {2}/, ''));
  const failed = outcome.problems.map((p) => `failed: ${p}`);
  return [
    `<!-- bench:${outcome.suite} -->`,
    `## ${outcome.title}`,
    '',
    stamp,
    '',
    '```',
    ...lines,
    ...failed,
    `(${outcome.seconds.toFixed(1)} s)`,
    '```',
    `<!-- /bench:${outcome.suite} -->`,
  ].join('\n');
}

/**
 * The doc after a run: `previous` (the file as it was, or '' when there is none) with the run's
 * suites' sections replaced, in `order` (the harness's suite order); suites the run did not
 * measure keep their section.
 */
export function benchDoc(
  previous: string,
  outcomes: readonly SuiteOutcome[],
  stamp: string,
  order: readonly string[],
): string {
  const sections = new Map<string, string>();
  for (const m of previous.matchAll(/<!-- bench:([a-z0-9-]+) -->[\s\S]*?<!-- \/bench:\1 -->/g))
    sections.set(m[1] as string, m[0]);
  for (const o of outcomes) sections.set(o.suite, suiteSection(o, stamp));
  const known = order.filter((s) => sections.has(s));
  const others = [...sections.keys()].filter((s) => !order.includes(s)).sort();
  return `${BENCH_DOC_HEAD}\n${[...known, ...others].map((s) => sections.get(s)).join('\n\n')}\n`;
}
