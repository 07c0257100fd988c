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
