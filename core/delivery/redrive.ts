/**
 * Automatic re-drive of dead letters (docs/delivery.md): once a minute the scheduler asks each
 * destination's ledger whether the destination is healthy again and, if so, re-publishes up to
 * a budget of its dead-letter backlog with `replay=true`. Pure: the rule and its query.
 *
 * Healthy means the last HEALTHY_STREAK attempts within 5 minutes were all delivered. A
 * destination with little traffic may never have that many, so a quiet one (no `failed` attempt
 * in 10 minutes) gets a small canary batch; the canary's own outcomes decide the next minute.
 * A destination that still fails gets nothing: re-driving into an outage only spends attempts.
 * Attempts our send-once claim held (`held: …`: another holder's lease, a claim store away) are
 * not the destination's answer: they count neither way.
 */
import type { Destination } from '../../schemas/settings.ts';
import { CLAIM_HOLD_PREFIX } from '../claims/send-once.ts';

export const HEALTHY_STREAK = 20;
export const CANARY_BATCH = 10;
export const DEFAULT_REDRIVE_PER_MINUTE = 600;

/** What the ledger says of a destination's recent attempts. */
export interface RecentAttempts {
  /** Outcomes of attempts in the last 5 minutes, newest first, at most HEALTHY_STREAK. */
  readonly recent: readonly ('delivered' | 'failed')[];
  /** `failed` attempts in the last 10 minutes. */
  readonly failedLast10m: number;
}

export interface RedriveBudget {
  readonly budget: number;
  readonly health: 'healthy' | 'quiet' | 'failing' | 'off';
  readonly reason: string;
}

export function redriveEnabled(d: Readonly<Destination>): boolean {
  return d.enabled !== false && d.redrive?.enabled !== false;
}

/** How many dead letters may be re-driven this minute, and why. */
export function redriveBudget(d: Readonly<Destination>, attempts: RecentAttempts): RedriveBudget {
  if (!redriveEnabled(d)) return { budget: 0, health: 'off', reason: 'redrive.enabled is false' };
  const perMinute = d.redrive?.per_minute ?? DEFAULT_REDRIVE_PER_MINUTE;
  const streak = attempts.recent.length === HEALTHY_STREAK && attempts.recent.every((s) => s === 'delivered');
  if (streak)
    return {
      budget: perMinute,
      health: 'healthy',
      reason: `the last ${HEALTHY_STREAK} attempts within 5 minutes were delivered`,
    };
  if (attempts.failedLast10m === 0)
    return {
      budget: Math.min(CANARY_BATCH, perMinute),
      health: 'quiet',
      reason: 'no failed attempt in 10 minutes: a canary batch',
    };
  return {
    budget: 0,
    health: 'failing',
    reason: `${attempts.failedLast10m} failed attempts in the last 10 minutes`,
  };
}

/**
 * The ledger query behind RecentAttempts (@destination): the attempts of the last 10 minutes,
 * newest first (bounded: a busy destination's figures need no more than this).
 */
export function recentAttemptsQuery(project: string, dataset: string, table: string): string {
  return `SELECT status, recorded_at, reason FROM \`${project}.${dataset}.${table}\`
WHERE destination = @destination AND status IN ('delivered', 'failed')
  AND NOT STARTS_WITH(IFNULL(reason, ''), '${CLAIM_HOLD_PREFIX}')
  AND recorded_at >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 10 MINUTE)
ORDER BY recorded_at DESC
LIMIT 5000`;
}

/** RecentAttempts from the query's rows (newest first) as seen at `now`. */
export function recentAttemptsFromRows(
  rows: readonly Readonly<Record<string, unknown>>[],
  now: Date,
): RecentAttempts {
  const fiveMinutesAgo = now.getTime() - 5 * 60_000;
  const recent: ('delivered' | 'failed')[] = [];
  let failedLast10m = 0;
  for (const row of rows) {
    const status = row['status'];
    if (status !== 'delivered' && status !== 'failed') continue;
    // Held by our own claim: not the destination's answer.
    if (typeof row['reason'] === 'string' && row['reason'].startsWith(CLAIM_HOLD_PREFIX)) continue;
    if (status === 'failed') failedLast10m++;
    const at = timeOf(row['recorded_at']);
    if (recent.length < HEALTHY_STREAK && at >= fiveMinutesAgo) recent.push(status);
  }
  return { recent, failedLast10m };
}

/** BigQuery's client answers TIMESTAMP columns as `{ value }` objects; strings and dates pass. */
function timeOf(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string') return Date.parse(v);
  if (v && typeof v === 'object' && 'value' in v) return Date.parse(String((v as { value: unknown }).value));
  return Number.NaN;
}
