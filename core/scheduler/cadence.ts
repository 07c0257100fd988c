/**
 * Schedules of runtime resources and built-in jobs (docs/scheduler.md): an interval
 * (`every: 15m`) or a cron expression read in an IANA time zone. The tick asks, for each
 * scheduled thing, which slot is due: the latest slot at or before now that is later than the
 * last slot that ran. Slots missed while nothing ticked run once (the latest), not once each.
 * Pure.
 */
import { Cron } from 'croner';

export type ScheduleSpec =
  | { readonly every: string }
  | { readonly cron: string; readonly time_zone?: string }
  | { readonly manual: true };

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `15m`, `1h`, `1d` in milliseconds; undefined when it is not such a duration. */
export function durationMs(text: string): number | undefined {
  const m = /^(\d{1,6})(s|m|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** The scheduler ticks once a minute: no schedule runs more often. */
export const MIN_INTERVAL_MS = 60_000;

/** The longest interval: a year (a longer one would run once, at an epoch-aligned slot long past). */
export const MAX_INTERVAL_MS = 366 * 86_400_000;

/** What is wrong with a schedule, or undefined when it is usable. */
export function scheduleProblem(spec: Readonly<Record<string, unknown>>): string | undefined {
  if ('manual' in spec) return spec['manual'] === true ? undefined : 'manual must be true';
  if ('every' in spec) {
    const ms = typeof spec['every'] === 'string' ? durationMs(spec['every']) : undefined;
    if (ms === undefined) return 'every must be a duration such as 30m, 1h or 1d';
    if (ms < MIN_INTERVAL_MS) return 'every must be at least 1m: the scheduler ticks once a minute';
    if (ms > MAX_INTERVAL_MS) return 'every must be at most 366d: use a cron expression for rarer runs';
    return undefined;
  }
  if ('cron' in spec) {
    if (typeof spec['cron'] !== 'string') return 'cron must be a string such as "0 6 * * *"';
    const tz = spec['time_zone'];
    if (tz !== undefined && (typeof tz !== 'string' || !validTimeZone(tz)))
      return `time_zone must be an IANA time zone such as Europe/Berlin`;
    try {
      cronOf(spec['cron'], tz as string | undefined);
    } catch (err) {
      return `cron ${JSON.stringify(spec['cron'])} is not valid: ${(err as Error).message}`;
    }
    return undefined;
  }
  return 'a schedule is one of every (30m), cron ("0 6 * * *" with an optional time_zone) or manual: true';
}

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const crons = new Map<string, Cron>();
function cronOf(pattern: string, tz: string | undefined): Cron {
  const key = `${tz ?? 'UTC'} ${pattern}`;
  let c = crons.get(key);
  if (!c) {
    // Five fields (minutes precision): the tick is once a minute; seconds are refused.
    if (pattern.trim().split(/\s+/).length !== 5)
      throw new Error('use five fields: minute hour day month weekday');
    c = new Cron(pattern, { timezone: tz ?? 'UTC', paused: true });
    crons.set(key, c);
  }
  return c;
}

/** The latest slot at or before `now`, or undefined (manual schedules have none). */
export function latestSlot(spec: ScheduleSpec, now: Date): Date | undefined {
  if ('manual' in spec) return undefined;
  if ('every' in spec) {
    const ms = durationMs(spec.every);
    if (ms === undefined) return undefined;
    // Interval slots are aligned to the Unix epoch, so every instance agrees on them.
    return new Date(Math.floor(now.getTime() / ms) * ms);
  }
  // previousRuns looks strictly before its reference: a slot exactly at `now` counts too.
  const [prev] = cronOf(spec.cron, spec.time_zone).previousRuns(1, new Date(now.getTime() + 1000));
  return prev ?? undefined;
}

/** The slot due now (RFC 3339), or undefined when the latest slot already ran. */
export function dueSlot(spec: ScheduleSpec, lastSlot: string | undefined, now: Date): string | undefined {
  const slot = latestSlot(spec, now);
  if (!slot) return undefined;
  if (lastSlot !== undefined && Date.parse(lastSlot) >= slot.getTime()) return undefined;
  return slot.toISOString();
}

/** The id of one scheduled run: `<kind>/<name>@<slot>`. */
export const runId = (kind: string, name: string, slot: string): string => `${kind}/${name}@${slot}`;
