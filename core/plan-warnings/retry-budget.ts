/**
 * How long a subscription keeps retrying before Pub/Sub dead-letters a message: the sum of the
 * backoff delays between its attempts. Pub/Sub documents the backoff as exponential between the
 * policy's minimum and maximum; we model it as doubling from the minimum, capped at the maximum
 * (delay before attempt n+1 = min(maximum, minimum × 2^(n-1))) — the exact multiplier is
 * Pub/Sub's and not published. The time each attempt itself takes (up to the ack deadline) comes
 * on top, so the figure is a lower bound of how long an outage the retries ride out.
 */
import type { Plan, SubscriptionPlan } from '../plan.ts';
import { seconds } from '../settings.ts';

/** An outage the retries should ride out before anything is dead-lettered (our own restarts, a deploy). */
export const RECOMMENDED_BUDGET_SECONDS = 600;

/** The delays between attempts, in seconds. */
export function backoffDelays(minimumSeconds: number, maximumSeconds: number, attempts: number): number[] {
  const delays: number[] = [];
  for (let n = 1; n < attempts; n++) delays.push(Math.min(maximumSeconds, minimumSeconds * 2 ** (n - 1)));
  return delays;
}

/** A subscription's retry budget, or undefined when it has no dead-letter policy (it retries for ever). */
export function retryBudget(sub: SubscriptionPlan): { seconds: number; delays: number[] } | undefined {
  if (!sub.deadLetterPolicy || !sub.retryPolicy) return undefined;
  const delays = backoffDelays(
    seconds(sub.retryPolicy.minimumBackoff),
    seconds(sub.retryPolicy.maximumBackoff),
    sub.deadLetterPolicy.maxDeliveryAttempts,
  );
  return { seconds: delays.reduce((a, b) => a + b, 0), delays };
}

/**
 * One warning per push subscription whose retries cover less than ten minutes, with the
 * arithmetic, naming the settings key to raise.
 */
export function retryBudgetWarnings(plan: Plan): string[] {
  const warnings: string[] = [];
  for (const sub of plan.subscriptions) {
    // Backlogs are pulled; the poison bound of `-ledger` subscriptions is chosen (core/plan.ts).
    if (sub.kind === 'backlog' || sub.kind === 'dead_letter_ledger') continue;
    const budget = retryBudget(sub);
    if (!budget || budget.seconds >= RECOMMENDED_BUDGET_SECONDS) continue;
    const who =
      sub.kind === 'forward'
        ? `destination ${sub.destination}`
        : `events topic ${sub.destination ?? sub.topic}`;
    const key = sub.kind === 'forward' ? `destinations[id=${sub.destination}].retry` : 'retry';
    const attempts = sub.deadLetterPolicy?.maxDeliveryAttempts ?? 0;
    warnings.push(
      `${who}: ${attempts} attempts with backoff ${sub.retryPolicy?.minimumBackoff}–${sub.retryPolicy?.maximumBackoff} ` +
        `retry for ${budget.seconds} s (${budget.delays.join(' + ')}) before dead-lettering, less than ` +
        `${RECOMMENDED_BUDGET_SECONDS / 60} minutes: an outage that long (a restart, a deploy, the platform down) ` +
        `dead-letters its messages. Raise ${key}.max_attempts or maximum_backoff ` +
        `(e.g. 16 attempts with 1s–60s retry for 603 s).`,
    );
  }
  return warnings;
}
