/**
 * Which destinations have their platform's count read (docs/delivery.md, "Counted by the
 * platform"), and what a PlatformCounts run reads: the schedule function's job and `eventbus
 * reconcile` share these. Pure.
 */
import type { Destination, Settings } from '../../schemas/settings.ts';
import { COUNTS_CONFIG, type CountReads, countsEnabled } from './counts.ts';
import { PLATFORMS } from './platforms.ts';

/** The scheduler job's kind. */
export const PLATFORM_COUNTS_KIND = 'PlatformCounts';

/** The destinations whose counts are read, each with its platform's reads. */
export function countedDestinations(
  s: Readonly<Settings>,
): { readonly destination: Readonly<Destination>; readonly reads: CountReads }[] {
  return (s.destinations ?? []).flatMap((d) => {
    const reads = PLATFORMS[d.type].countReads;
    return reads && countsEnabled(d) ? [{ destination: d, reads }] : [];
  });
}

/**
 * Why a destination's count is not read at all, or undefined when the PlatformCounts job reads it:
 * its platform reports none (the platform's own words), it is off, or its `config.counts` is not on.
 */
export function countsNotRead(d: Readonly<Destination>): string | undefined {
  const platform = PLATFORMS[d.type];
  if (!platform.countReads) {
    const counts = platform.counts;
    return 'none' in counts ? counts.none : 'the platform reports no counts';
  }
  if (d.enabled === false) return 'the destination is off (enabled: false)';
  if (!countsEnabled(d)) return `config.${COUNTS_CONFIG} is not true: its count is not asked for`;
  return undefined;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** A manual run's name: the destination and the day it reads. */
export function countsRunName(destination: string, day: string): string {
  return `${destination}@${day}`;
}

/** The destination and days a run reads: a named day, else yesterday and today (UTC). */
export function runDays(name: string, now: Date): { readonly destination: string; readonly days: string[] } {
  const at = name.lastIndexOf('@');
  const day = at > 0 ? name.slice(at + 1) : '';
  if (at > 0 && DAY.test(day)) return { destination: name.slice(0, at), days: [day] };
  const today = now.toISOString().slice(0, 10);
  return { destination: name, days: [new Date(now.getTime() - DAY_MS).toISOString().slice(0, 10), today] };
}
