/**
 * The `Redrive` job of the scheduler: one instance per destination with re-drive on, every
 * minute. Each run first looks whether the destination's dead-letter backlog holds anything
 * (a pull from Pub/Sub, the message handed straight back): nearly always it holds nothing, and
 * the run ends there, without a BigQuery query (docs/scale.md: a ledger query a minute per
 * destination was most of an idle environment's BigQuery bill). Otherwise it asks the ledger how
 * the destination fares (core/delivery/redrive.ts) and re-publishes up to that minute's budget of
 * the backlog with `replay=true`, with the same code as `eventbus replay --destination <id>
 * --dead-letters`.
 */
import type { PullSource } from '../../adapters/backlog.ts';
import { destinationBacklog, replayDestinationDeadLetters } from '../../adapters/dead-letter-replay.ts';
import type { DeliveryMessage } from '../../core/delivery/message.ts';
import {
  recentAttemptsFromRows,
  recentAttemptsQuery,
  redriveBudget,
  redriveEnabled,
} from '../../core/delivery/redrive.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { Job } from './runner.ts';

export const REDRIVE_KIND = 'Redrive';

export interface RedriveDeps {
  readonly settings: Readonly<Settings>;
  readonly project: string;
  readonly dataset: string;
  readonly ledgerTable: string;
  readonly query: (
    sql: string,
    params: Readonly<Record<string, string>>,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  readonly source: () => Promise<PullSource>;
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
}

/**
 * Whether a backlog subscription holds a message: a unary pull of one, twice (a pull may come
 * back empty while messages remain), and a message found is handed back at once (nack).
 */
export async function holdsMessages(source: PullSource, subscription: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const pulled = await source.pull(subscription, 1);
    if (pulled.length > 0) {
      await source.nack(
        subscription,
        pulled.map((p) => p.ackId),
      );
      return true;
    }
  }
  return false;
}

export function redriveJob(deps: RedriveDeps): Job {
  const destinations = (deps.settings.destinations ?? []).filter(redriveEnabled);
  return {
    kind: REDRIVE_KIND,
    scheduled: () =>
      Promise.resolve(
        destinations.map((d) => ({ kind: REDRIVE_KIND, name: d.id, schedule: { every: '1m' } })),
      ),
    async chunk(ctx) {
      const d = destinations.find((x) => x.id === ctx.run.name);
      if (!d) return { done: true, summary: { skipped: 'no such destination with re-drive on' } };
      if (!(await holdsMessages(await deps.source(), destinationBacklog(d.id))))
        return { done: true, summary: { backlog: 'empty' } };
      const rows = await deps.query(recentAttemptsQuery(deps.project, deps.dataset, deps.ledgerTable), {
        destination: d.id,
      });
      const budget = redriveBudget(d, recentAttemptsFromRows(rows, ctx.now));
      if (budget.budget === 0)
        return { done: true, summary: { health: budget.health, reason: budget.reason } };
      await ctx.fence();
      const report = await replayDestinationDeadLetters({
        destination: d.id,
        source: await deps.source(),
        publish: deps.publish,
        limit: budget.budget,
        batchSize: Math.min(budget.budget, 500),
      });
      return {
        done: true,
        summary: {
          health: budget.health,
          budget: budget.budget,
          redriven: report.republished,
          failed: report.failed,
          ...(report.error ? { error: report.error } : {}),
        },
      };
    },
  };
}
