/**
 * CPU time of benchmarked processes, for the "CPU per event" details: throughput on two shared
 * cores is noisy, and which process spends the CPU says which one to work on.
 */
import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, ms) process `pid` has used so far, from /proc (Linux); undefined
 * elsewhere, or once the process is gone.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** `processCpuMs` of each service that has a figure, by name. */
export function childCpu(
  services: readonly { readonly name: string; readonly pid: number }[],
): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of services) {
    const ms = processCpuMs(s.pid);
    if (ms !== undefined) out.set(s.name, ms);
  }
  return out;
}

/** The machine's CPU time so far (Linux /proc/stat, clock ticks): all of it and the part stolen by the hypervisor. */
export interface MachineTicks {
  readonly total: number;
  readonly steal: number;
}

/**
 * Reads the aggregate `cpu` line of /proc/stat (`user nice system idle iowait irq softirq steal
 * …`); undefined where there is none (not Linux). `text` is for tests.
 */
export function machineTicks(text?: string): MachineTicks | undefined {
  let stat = text;
  if (stat === undefined) {
    try {
      stat = readFileSync('/proc/stat', 'utf8');
    } catch {
      return undefined;
    }
  }
  const line = stat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  // guest and guest_nice (fields 9 and 10) are already counted in user and nice.
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 8 || ticks.some((n) => !Number.isFinite(n))) return undefined;
  return { total: ticks.reduce((a, b) => a + b, 0), steal: ticks[7] as number };
}

/** The share of the machine's CPU time the hypervisor took between two readings, in %. */
export function stealPercent(before: MachineTicks, after: MachineTicks): number {
  const total = after.total - before.total;
  return total > 0 ? (100 * (after.steal - before.steal)) / total : 0;
}
