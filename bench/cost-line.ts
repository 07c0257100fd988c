/**
 * The cost line `npm run bench` prints (issue #42): what a million events cost with the shipped
 * defaults (docs/scale.md's model, core/deploy/cost.ts), from the CPU per request the run measured for
 * the hops it ran and core/deploy/cost.ts's recorded figures for the others, each marked.
 */
import { claimCost, claimCounts, claimStorageCost } from '../core/deploy/bill.ts';
import { MEASURED_CPU, type MeasuredCpu } from '../core/deploy/cost.ts';
import { shippedCost } from '../scripts/scale-table.ts';
import type { BenchFigure } from './lib.ts';

/** The line, or undefined when no figure of the run measured a hop's CPU. */
export function costLine(figures: readonly BenchFigure[]): string | undefined {
  const measured = new Map<keyof MeasuredCpu, number>();
  for (const f of figures) if (f.hopCpu) measured.set(f.hopCpu.hop, f.hopCpu.secondsPerRequest);
  if (measured.size === 0) return undefined;
  const cpu: MeasuredCpu = {
    gateway: measured.get('gateway') ?? MEASURED_CPU.gateway,
    store: measured.get('store') ?? MEASURED_CPU.store,
    forward: measured.get('forward') ?? MEASURED_CPU.forward,
  };
  const c = shippedCost(cpu);
  const hops = (['gateway', 'store', 'forward'] as const)
    .map(
      (h) => `${h} ${(cpu[h] * 1e6).toFixed(0)} µs (${measured.has(h) ? 'measured' : 'core/deploy/cost.ts'})`,
    )
    .join(', ');
  const sum = (k: 'compute' | 'requests' | 'logging') => c.hops.reduce((a, h) => a + h[k], 0);
  // The send-once claims at 2 deliveries an event (core/deploy/bill.ts), apart from the pipeline.
  const counted = claimCounts(1e6, 2);
  const claims = claimCost(counted) + claimStorageCost(counted.documents);
  return `cost per million 1 KB events, 2 destinations, shipped defaults (core/deploy/cost.ts): $${c.total.toFixed(2)}, and $${claims.toFixed(2)} of send-once claims (Firestore) — compute $${sum('compute').toFixed(2)}, request fees $${sum('requests').toFixed(2)}, logs $${sum('logging').toFixed(2)}, Pub/Sub $${c.pubsub.toFixed(2)}, BigQuery $${c.bigquery.toFixed(2)}; CPU per request: ${hops}`;
}
