/**
 * Re-publishing one destination's dead-letter backlog on `deliveries` with `replay=true`: what
 * `eventbus replay --destination <id> --dead-letters` does for people and the scheduler's
 * automatic re-drive does once a destination is healthy again (docs/delivery.md).
 */
import type { DeliveryMessage } from '../core/delivery/message.ts';
import { replayFromDeadLetter } from '../core/delivery/replay.ts';
import { backlogSubscriptionName, deadLetterTopicName, forwardSubscriptionName } from '../core/plan.ts';
import { drainBacklog } from './backlog.ts';

/** The few Pub/Sub calls a dead-letter replay makes (same shape as the events replay's). */
export interface BacklogSource {
  pull(
    subscription: string,
    maxMessages: number,
  ): Promise<
    {
      readonly ackId: string;
      readonly message: { readonly data: Uint8Array; readonly attributes: Readonly<Record<string, string>> };
    }[]
  >;
  ack(subscription: string, ackIds: readonly string[]): Promise<void>;
  nack(subscription: string, ackIds: readonly string[]): Promise<void>;
}

export interface DestinationReplayReport {
  destination: string;
  source: string;
  /** Messages pulled from the backlog, or rows read from the warehouse. */
  read: number;
  /** Published on `deliveries` with replay=true. */
  republished: number;
  /** Refused again by the decision layer (slice replays): a skipped row each. */
  skipped: number;
  /** Left where they were (nacked), with the last error. */
  failed: number;
  error?: string;
  /** Slice replays: of those re-sent, events stored before the destination went live (a backfill). */
  backfilled?: number;
  /** Slice replays: when the destination went live (its first ledger row outside a replay). */
  went_live?: string;
  /** Slice replays: the refusals by reason (the age limits named). */
  reasons?: Record<string, number>;
  /** Stopped by the person before the end: what was sent stays sent, a new run folds it. */
  cancelled?: boolean;
}

/** The backlog subscription of a destination's dead-letter topic (plan() names). */
export function destinationBacklog(destination: string): string {
  return backlogSubscriptionName(deadLetterTopicName(forwardSubscriptionName(destination)));
}

/**
 * Re-publishes a destination's dead-letter backlog; each message is acknowledged only after
 * its replay is published. Stops at `limit` or when the backlog answers empty twice.
 */
export async function replayDestinationDeadLetters(input: {
  readonly destination: string;
  readonly source: BacklogSource;
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  readonly limit?: number;
  readonly batchSize?: number;
  readonly onProgress?: (report: DestinationReplayReport) => void;
}): Promise<DestinationReplayReport> {
  const subscription = destinationBacklog(input.destination);
  const report: DestinationReplayReport = {
    destination: input.destination,
    source: subscription,
    read: 0,
    republished: 0,
    skipped: 0,
    failed: 0,
  };
  const batchSize = input.batchSize ?? 500;
  await drainBacklog(input.source, subscription, { limit: input.limit, batchSize }, async (batch) => {
    report.read += batch.length;
    const good: { ackId: string; message: DeliveryMessage }[] = [];
    const bad: string[] = [];
    for (const b of batch) {
      const r = replayFromDeadLetter(b.message, input.destination);
      if (r.ok) good.push({ ackId: b.ackId, message: r.message });
      else {
        bad.push(b.ackId);
        report.error = r.reason;
      }
    }
    // A message that cannot be replayed comes back on the next pull: stop rather than spin.
    let stop = bad.length > 0;
    try {
      if (good.length > 0) await input.publish(good.map((g) => g.message));
      await input.source.ack(
        subscription,
        good.map((g) => g.ackId),
      );
      report.republished += good.length;
    } catch (err) {
      // Not published: those messages stay in the backlog; stop and report why.
      report.failed += good.length;
      report.error = (err as Error).message;
      const unpublished = good.map((g) => g.ackId);
      await input.source.nack(subscription, unpublished).catch(() => undefined);
      stop = true;
    }
    report.failed += bad.length;
    if (bad.length > 0) await input.source.nack(subscription, bad).catch(() => undefined);
    input.onProgress?.({ ...report });
    return stop ? 'stop' : 'continue';
  });
  return report;
}
