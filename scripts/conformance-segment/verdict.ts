/**
 * Whether a conformance run (scripts/conformance-segment.ts) holds against the committed results:
 * every case that passed there passes now, every destination run that had results has them now,
 * and each reason a case is not runnable is one of the reviewed reasons
 * (scripts/conformance-segment/not-runnable.json, reason → count), within its count. Pure.
 */
import type { DestinationFigure } from './classify.ts';

/** The committed results as the verdict reads them (older results have no `passed` list, no batch figures). */
export type CommittedFigure = Omit<DestinationFigure, 'passed' | 'batch'> & {
  readonly passed?: readonly string[];
  readonly batch?: DestinationFigure['batch'];
};

/**
 * Why the run fails, one line each; empty when it holds. `run` are the destinations this run meant
 * to run (all of them, or those of `--only`); `now` what it gave.
 */
export function verdict(
  committed: readonly CommittedFigure[],
  now: readonly DestinationFigure[],
  run: readonly string[],
  reviewed: Readonly<Record<string, number>>,
): string[] {
  const problems: string[] = [];
  const nowBySlug = new Map(now.map((d) => [d.slug, d]));
  for (const before of committed) {
    if (!run.includes(before.slug) || before.passing === 0) continue;
    const d = nowBySlug.get(before.slug);
    if (!d) {
      problems.push(`${before.slug}: ${before.passing} cases passed in the committed results, none ran now`);
      continue;
    }
    if (before.passed === undefined) {
      if (d.passing < before.passing)
        problems.push(`${before.slug}: ${d.passing} cases pass, ${before.passing} in the committed results`);
      continue;
    }
    const passing = new Set(d.passed);
    for (const id of before.passed)
      if (!passing.has(id)) problems.push(`${before.slug}: "${id}" passed in the committed results, not now`);
  }
  const reasons: Record<string, number> = {};
  for (const d of now)
    for (const [reason, n] of Object.entries(d.notRunnable)) reasons[reason] = (reasons[reason] ?? 0) + n;
  for (const [reason, n] of Object.entries(reasons).sort(([a], [b]) => a.localeCompare(b))) {
    const allowed = reviewed[reason];
    if (allowed === undefined) problems.push(`${n} cases not runnable for a reason not reviewed: ${reason}`);
    else if (n > allowed) problems.push(`${n} cases not runnable (${allowed} reviewed): ${reason}`);
  }
  return problems;
}
