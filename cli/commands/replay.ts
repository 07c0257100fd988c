/**
 * `eventbus replay`: nothing lost. `--events-dead-letters` pulls the backlogs of the events
 * subscriptions' dead-letter topics (`<topic>-store-dead-letter-backlog`) and stores them
 * the way the store function does (idempotent by event_id), then fans the stored events out
 * as store does after its write (the decision layer: `deliveries` messages and `skipped`
 * ledger rows), acknowledging only what was written and fanned out, and reporting what
 * still fails and why. (Destination replays join this command.)
 */
import type { Command } from 'commander';
import type { Plan } from '../../core/plan.ts';
import type { AlreadyStored, ClaimIdentity } from '../../core/store/copies.ts';
import type { AfterStored, StoreConfig } from '../../core/store/store.ts';
import type { RowWriter } from '../../core/warehouse/rows.ts';
import {
  bigtableEndpoint,
  DATA_DIR_OPTION,
  firestoreEndpoint,
  LOCAL_ENDPOINT_HELP,
  loadEnvironment,
  projectOf,
  pubsubClient,
  warehouseClient,
} from '../environment.ts';
import { CliError, formatOption, type OutputFormat, renderRows, writerOf } from '../output.ts';
import {
  type DestinationReplayOptions,
  drainBacklog,
  type PullSource,
  parseLimit,
  pubSubPullSource,
} from './backlog.ts';

/** The dead-letter backlogs of the events topics' store subscriptions, from plan(). */
export function eventDeadLetterBacklogs(p: Plan, topic?: string): string[] {
  const deadLetterTopics = p.subscriptions
    .filter((s) => s.kind === 'store' && (topic === undefined || s.topic === topic))
    .flatMap((s) => (s.deadLetterPolicy ? [s.deadLetterPolicy.deadLetterTopic] : []));
  // The plan lists each dead-letter topic's backlog subscription: take its name from there.
  return deadLetterTopics.flatMap((t) =>
    p.subscriptions.filter((s) => s.kind === 'backlog' && s.topic === t).map((s) => s.name),
  );
}

/** One backlog's result. */
export interface BacklogReport {
  subscription: string;
  pulled: number;
  /** Written to `events`. */
  stored: number;
  /** Written to `invalid_events` (they were not valid events: acknowledged, nothing lost). */
  invalid: number;
  /** Still in the backlog (nacked), with why. */
  failed: number;
  error?: string;
}

/**
 * Stores every message of the given backlogs, then runs `afterStored` (the store function's
 * fan-out) on what was stored. A batch the warehouse refuses, or whose fan-out fails, is
 * nacked (it stays in the backlog) and ends that backlog's replay with the reason; a batch is
 * acknowledged only once written and fanned out. Replaying a batch again is harmless: rows
 * are inserted by event_id, skip rows have deterministic insertIds, and receivers
 * de-duplicate deliveries by event_id. `limit` bounds the messages taken per backlog.
 */
export async function replayEventDeadLetters(input: {
  readonly source: PullSource;
  readonly writer: RowWriter;
  readonly config: StoreConfig;
  /** The fan-out after the write (absent: no destinations, store only). */
  readonly afterStored?: AfterStored;
  readonly backlogs: readonly string[];
  readonly limit?: number;
  readonly batchSize?: number;
  readonly onProgress?: (report: BacklogReport) => void;
  readonly now?: () => number;
  /** As store claims them (core/store/store.ts): a dead letter whose row is there is not written twice. */
  readonly claim?: ClaimIdentity;
  readonly alreadyStored?: AlreadyStored;
}): Promise<BacklogReport[]> {
  const { storeMessages } = await import('../../core/store/store.ts');
  const batchSize = input.batchSize ?? 500;
  const reports: BacklogReport[] = [];
  for (const subscription of input.backlogs) {
    const report: BacklogReport = { subscription, pulled: 0, stored: 0, invalid: 0, failed: 0 };
    reports.push(report);
    await drainBacklog(input.source, subscription, { limit: input.limit, batchSize }, async (batch) => {
      report.pulled += batch.length;
      const ackIds = batch.map((b) => b.ackId);
      try {
        const outcome = await storeMessages(
          batch.map((b) => b.message),
          {
            writer: input.writer,
            config: input.config,
            now: input.now ?? Date.now,
            ...(input.claim ? { claim: input.claim } : {}),
            ...(input.alreadyStored ? { alreadyStored: input.alreadyStored } : {}),
          },
        );
        if (input.afterStored && outcome.stored.length > 0)
          await input.afterStored(outcome.stored, outcome.storedMessages);
        await input.source.ack(subscription, ackIds);
        report.stored += outcome.stored.length;
        report.invalid += outcome.invalid;
      } catch (err) {
        report.failed += batch.length;
        report.error = (err as Error).message;
        await input.source.nack(subscription, ackIds).catch(() => undefined);
        input.onProgress?.(report);
        return 'stop';
      }
      input.onProgress?.(report);
      return 'continue';
    });
  }
  return reports;
}

interface ReplayOptions {
  readonly env: string;
  readonly dataDir?: string;
  readonly eventsDeadLetters?: boolean;
  readonly topic?: string;
  readonly limit?: string;
  readonly format: OutputFormat;
}

/** Adds the destination options to the replay command. */
function addDestinationOptions(command: Command): Command {
  return command
    .option('--destination <id>', 're-deliver to this destination (with --dead-letters, or --from/--to)')
    .option('--dead-letters', "with --destination: re-publish the destination's dead-letter backlog")
    .option(
      '--from <time>',
      'with --destination: start of a warehouse slice (RFC 3339 or YYYY-MM-DD, inclusive)',
    )
    .option('--to <time>', 'with --destination: end of the slice (exclusive)')
    .option('--where <sql>', 'with --from/--to: extra BigQuery SQL condition on events_dedup columns')
    .option(
      '--force',
      'with --from/--to: send again what the destination already has (a changed mapping); without it, delivered events are folded',
    );
}

export function register(program: Command): void {
  const replay = program
    .command('replay')
    .description('Replay dead letters: nothing that reached the bus is lost')
    .option('--env <name>', 'environment name or settings file', 'local')
    .option(...DATA_DIR_OPTION)
    .option(
      '--events-dead-letters',
      'store the backlog of the events dead-letter topics into the warehouse and fan it out to the destinations (idempotent by event_id)',
    )
    .option('--topic <topic>', 'only this events topic (default: every events topic)')
    .option('--limit <n>', 'at most this many messages per backlog')
    .addOption(formatOption(['table', 'json']));
  addDestinationOptions(replay)
    .addHelpText(
      'after',
      [
        '',
        LOCAL_ENDPOINT_HELP,
        '',
        'Stored events are fanned out to the destinations as the store function does (deliveries',
        'messages, skipped ledger rows). What was stored (events, or invalid_events for messages',
        'that are not valid events) and fanned out is acknowledged; a batch the warehouse or the',
        'fan-out refuses stays in the backlog and is reported.',
        '',
        'Examples:',
        '  eventbus replay --events-dead-letters',
        '  eventbus replay --events-dead-letters --env production --topic events --limit 10000',
        '  eventbus replay --destination webhook --dead-letters',
        '  eventbus replay --destination meta --from 2026-01-01 --to 2026-01-02 --where "event_name = \'purchase\'"',
        '  eventbus replay --destination meta --from 2026-01-01 --to 2026-01-02 --force   # after a mapping change',
        '',
        'A slice of events stored before the destination went live (its first ledger row outside a',
        "replay) is a backfill: its rows say backfill = true, and what the platform's age limit refuses",
        'is skipped and named in the summary. Ctrl-C stops after the page being sent; run it again to',
        'finish: what was sent folds.',
      ].join('\n'),
    )
    .action(async (options: ReplayOptions & DestinationReplayOptions, command: Command) => {
      if (options.destination !== undefined) {
        if (options.eventsDeadLetters)
          throw new CliError('--events-dead-letters and --destination are separate replays');
        const { runDestinationReplay } = await import('./replay-destination.ts');
        return runDestinationReplay(options, writerOf(command));
      }
      if (!options.eventsDeadLetters)
        throw new CliError(
          'say what to replay: --events-dead-letters, or --destination <id> (--dead-letters | --from <t> --to <t>)',
        );
      const limit = parseLimit(options.limit);
      const { settings, plan: p } = await loadEnvironment(options.env);
      if (options.topic && !p.topics.some((t) => t.kind === 'events' && t.name === options.topic))
        throw new CliError(`${options.topic} is not an events topic of ${p.environment}`);
      const [
        { SingleBar },
        { createWriteApiWriter },
        { createDeliveriesPublisher, deliveriesRoute, runningTopology },
        { createStoreFanOut },
        { storeConfig },
      ] = await Promise.all([
        import('cli-progress'),
        import('../../adapters/bigquery-write-api.ts'),
        import('../../adapters/deliveries-publisher.ts'),
        import('../../adapters/store-fan-out.ts'),
        import('../../core/store/store.ts'),
      ]);
      const bigquery = await warehouseClient(p, process.env, options.dataDir);
      // events, invalid_events and the ledger through the Storage Write API, as store writes them.
      const writer = createWriteApiWriter(bigquery, p.dataset);
      // The first sightings store keeps: the replayed event is claimed and fanned out as store does.
      const firestore = await firestoreEndpoint(p, process.env, options.dataDir);
      const bigtable =
        p.claims.store === 'bigtable' ? await bigtableEndpoint(p, process.env, options.dataDir) : undefined;
      const [{ createIdentityClaims }, { environmentClaims }, { createStoredCheck, eventsStoredQuery }] =
        await Promise.all([
          import('../../adapters/identity-claims.ts'),
          import('../../adapters/environment-claims.ts'),
          import('../../adapters/stored-check.ts'),
        ]);
      const claims = environmentClaims({
        project: projectOf(p, process.env),
        plan: p,
        ...(firestore ? { firestoreEmulatorHost: firestore } : {}),
        ...(bigtable ? { bigtableEmulatorHost: bigtable } : {}),
      });
      const pubsub = await pubsubClient(p, process.env, options.dataDir);
      const source = await pubSubPullSource(pubsub, projectOf(p, process.env));
      // The store function's fan-out, on the same deliveries topics and ledger.
      const publisher = createDeliveriesPublisher(
        pubsub,
        deliveriesRoute(await runningTopology(pubsub, settings)),
      );
      const afterStored = createStoreFanOut({
        settings,
        publish: (m) => publisher.publish(m),
        rows: writer,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const bar = new SingleBar({
        format: ' {subscription} | {pulled} pulled | {stored} stored | {invalid} invalid | {failed} failed',
        hideCursor: true,
      });
      bar.start(1, 0, { subscription: '', pulled: 0, stored: 0, invalid: 0, failed: 0 });
      let reports: BacklogReport[];
      try {
        reports = await replayEventDeadLetters({
          source,
          writer,
          config: storeConfig(settings, p),
          ...(afterStored ? { afterStored } : {}),
          claim: createIdentityClaims(claims),
          alreadyStored: createStoredCheck(eventsStoredQuery(bigquery, p.dataset)),
          backlogs: eventDeadLetterBacklogs(p, options.topic),
          ...(limit !== undefined ? { limit } : {}),
          onProgress: (r) => {
            bar.setTotal(Math.max(1, r.pulled));
            bar.update(r.pulled, { ...r });
          },
        });
      } finally {
        bar.stop();
        await source.close();
        await publisher.close();
        await pubsub.close();
        await claims.close();
      }
      writerOf(command)(
        renderRows(
          reports.map((r) => ({ ...r, error: r.error ?? '' })),
          options.format,
        ),
      );
      const failed = reports.filter((r) => r.failed > 0);
      if (failed.length > 0) {
        throw new CliError(
          `${failed.reduce((n, r) => n + r.failed, 0)} message(s) are still in the backlog: ${failed
            .map((r) => `${r.subscription}: ${r.error}`)
            .join('; ')}`,
        );
      }
    });
}
