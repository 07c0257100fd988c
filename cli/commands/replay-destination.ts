/**
 * Replays to one destination (the destination half of `eventbus replay`):
 * `--destination <id> --dead-letters` re-publishes the destination's dead-letter backlog on
 * `deliveries`; `--destination <id> --from <t> --to <t> [--where <sql>]` re-sends a slice of
 * the warehouse (events_dedup) through the decision layer again (consent still applies).
 * Every message carries `replay=true`, so its ledger rows say replay = true; event ids are
 * unchanged, so receivers de-duplicate what they already had.
 */
import { SingleBar } from 'cli-progress';
import {
  type DestinationReplayReport,
  replayDestinationDeadLetters,
} from '../../adapters/dead-letter-replay.ts';
import {
  createDeliveriesPublisher,
  deliveriesRoute,
  runningTopology,
} from '../../adapters/deliveries-publisher.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../../adapters/ledger-writer.ts';
import {
  type DefinedEvent,
  type DefinitionSpec,
  definedEvent,
  parseStamp,
} from '../../core/definitions/defined-events.ts';
import {
  laterConsentParams,
  laterConsentQuery,
  wentLiveOf,
  wentLiveQuery,
} from '../../core/delivery/backfill.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import type { DeliveryMessage } from '../../core/delivery/message.ts';
import { sliceQuery, storedEventFromRow } from '../../core/delivery/replay.ts';
import { sliceSender } from '../../core/delivery/slice-replay.ts';
import type { StoredEvent } from '../../core/event.ts';
import { whereProblem } from '../../core/scheduler/replays.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { loadEnvironment, projectOf, pubsubClient, warehouseClient } from '../environment.ts';
import { CliError, type OutputFormat, renderRows } from '../output.ts';
import { type DestinationReplayOptions, parseLimit, pubSubPullSource } from './backlog.ts';
import { selectOnly } from './sql.ts';

export {
  type BacklogSource,
  type DestinationReplayReport,
  destinationBacklog,
  replayDestinationDeadLetters,
} from '../../adapters/dead-letter-replay.ts';

/** Finds a destination in the settings or says which exist. */
export function findDestination(settings: Readonly<Settings>, id: string): Readonly<Destination> {
  const d = (settings.destinations ?? []).find((x) => x.id === id);
  if (!d) {
    const known = (settings.destinations ?? []).map((x) => x.id).join(', ') || '(none)';
    throw new Error(`unknown destination "${id}" (destinations: ${known})`);
  }
  return d;
}

/**
 * Re-sends a warehouse slice to one destination: the decision layer runs again (a skip is a
 * `skipped` row with replay = true), permitted events are published with replay=true.
 */
export async function replayDestinationSlice(input: {
  readonly settings: Readonly<Settings>;
  readonly project: string;
  readonly dataset: string;
  readonly destination: string;
  readonly from: Date;
  readonly to: Date;
  readonly where?: string;
  readonly query: (
    sql: string,
    params: Record<string, unknown>,
  ) => Promise<readonly Record<string, unknown>[]>;
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  readonly writeLedger: (entries: readonly LedgerEntry[]) => Promise<unknown>;
  readonly batchSize?: number;
  /**
   * A defined event's version (`name@major.minor`): the platforms its definition maps it to
   * take it, as in `store`'s decision. Absent, or undefined for a stamp: only webhooks do.
   */
  readonly definition?: (stamp: string) => Promise<DefinedEvent | undefined>;
  /** `--force`: send again what the destination already has (core/delivery/slice-replay.ts). */
  readonly force?: boolean;
  readonly now?: () => Date;
  /** When the destination went live (core/delivery/backfill.ts): earlier events are a backfill. */
  readonly wentLive?: () => Promise<Date>;
  /** The persons' later events that carry consent (core/delivery/backfill.ts laterConsentQuery). */
  readonly laterConsent?: (events: readonly StoredEvent[]) => Promise<readonly StoredEvent[]>;
  /** Aborted: stop after the page being sent, and say so (Ctrl-C). */
  readonly signal?: AbortSignal;
  readonly onStart?: (total: number) => void;
  readonly onProgress?: (report: DestinationReplayReport) => void;
}): Promise<DestinationReplayReport> {
  const destination = findDestination(input.settings, input.destination);
  if (!(input.from < input.to)) throw new Error('--from must be before --to');
  const rows = await input.query(sliceQuery(input.project, input.dataset, input.where), {
    from: input.from,
    to: input.to,
  });
  const wentLive = await input.wentLive?.();
  input.onStart?.(rows.length);
  const report: DestinationReplayReport = {
    destination: destination.id,
    source: `events_dedup ${input.from.toISOString()} … ${input.to.toISOString()}${input.where ? ` where ${input.where}` : ''}`,
    read: 0,
    republished: 0,
    skipped: 0,
    failed: 0,
    backfilled: 0,
    ...(wentLive ? { went_live: wentLive.toISOString() } : {}),
    reasons: {},
  };
  const batchSize = input.batchSize ?? 500;
  const sender = sliceSender({
    destination,
    publish: input.publish,
    writeLedger: input.writeLedger,
    ...(input.definition ? { definition: input.definition } : {}),
    ...(input.force ? { force: true } : {}),
    ...(input.now ? { now: input.now } : {}),
    ...(wentLive ? { wentLive } : {}),
    ...(input.laterConsent ? { laterConsent: input.laterConsent } : {}),
  });
  for (let i = 0; i < rows.length; i += batchSize) {
    if (input.signal?.aborted) {
      report.cancelled = true;
      break;
    }
    const page = rows.slice(i, i + batchSize);
    try {
      const sent = await sender.page(page);
      report.read += page.length;
      report.republished += sent.republished;
      report.skipped += sent.skipped;
      report.backfilled = (report.backfilled ?? 0) + sent.backfilled;
      for (const [reason, n] of Object.entries(sent.reasons))
        (report.reasons as Record<string, number>)[reason] = (report.reasons?.[reason] ?? 0) + n;
    } catch (err) {
      // A slice replay is idempotent: run it again to finish; say where it stopped.
      report.failed += rows.length - i;
      report.error = (err as Error).message;
      input.onProgress?.({ ...report });
      break;
    }
    input.onProgress?.({ ...report });
  }
  return report;
}

/**
 * The summary of a replay: one row of figures, then (a slice) each reason events were not sent
 * with its count, the platform's age limit named: a table, or the report itself as JSON.
 */
export function replaySummary(report: DestinationReplayReport, format: OutputFormat): string {
  const { reasons, ...figures } = report;
  if (format === 'json') return renderRows([{ ...report, error: report.error ?? '' }], format);
  const head = renderRows([{ ...figures, error: report.error ?? '' }], format);
  const refused = Object.entries(reasons ?? {}).map(([reason, events]) => ({
    events,
    not_sent_because: reason,
  }));
  return refused.length === 0 ? head : `${head}\n${renderRows(refused, format)}`;
}

function parseTime(flag: string, text: string | undefined): Date {
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  if (Number.isNaN(ms))
    throw new CliError(`${flag} needs a time (RFC 3339, e.g. 2026-01-31T00:00:00Z, or YYYY-MM-DD)`);
  return new Date(ms);
}

/** Runs `replay --destination …` with the real clients and a progress bar; prints the report. */
export async function runDestinationReplay(
  options: DestinationReplayOptions,
  write: (text: string) => void,
): Promise<void> {
  const id = options.destination as string;
  const slice = options.from !== undefined || options.to !== undefined;
  if (options.deadLetters === slice)
    throw new CliError('with --destination, give either --dead-letters or --from <t> --to <t>');
  if (options.where !== undefined && !slice) throw new CliError('--where needs --from and --to');
  const unsafe = options.where !== undefined ? whereProblem(options.where) : undefined;
  if (unsafe) throw new CliError(`--where ${unsafe}`);
  if (options.limit !== undefined && slice) throw new CliError('--limit goes with --dead-letters');
  if (options.force && !slice)
    throw new CliError('--force goes with --from/--to (a dead letter was never delivered)');
  const limit = parseLimit(options.limit);
  const from = slice ? parseTime('--from', options.from) : undefined;
  const to = slice ? parseTime('--to', options.to) : undefined;
  const { settings, plan: p } = await loadEnvironment(options.env);
  try {
    findDestination(settings, id);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const env = process.env;
  const project = projectOf(p, env);
  const pubsub = await pubsubClient(p, env, options.dataDir);
  const publisher = createDeliveriesPublisher(
    pubsub,
    deliveriesRoute(await runningTopology(pubsub, settings)),
  );
  const bar = new SingleBar({
    format:
      ' {destination} | {bar} | {read} read | {republished} re-sent | {skipped} skipped | {failed} failed',
    hideCursor: true,
  });
  const progress = (r: DestinationReplayReport) => {
    if (slice) bar.update(r.read, { ...r });
    else {
      bar.setTotal(Math.max(1, r.read));
      bar.update(r.read, { ...r });
    }
  };
  let report: DestinationReplayReport;
  // Ctrl-C cancels: the page being sent finishes, the rest is left, the summary says so.
  const cancel = new AbortController();
  const onInterrupt = () => cancel.abort();
  if (slice) process.once('SIGINT', onInterrupt);
  try {
    if (from && to) {
      const bigquery = await warehouseClient(p, env, options.dataDir);
      const ledger = createLedgerWriter(createLedgerBigQueryWriter(bigquery, p.dataset));
      const rowsOf = async (
        query: string,
        params: Record<string, unknown>,
        types?: Record<string, string[]>,
      ) =>
        (
          await bigquery.query({ query, params, ...(types ? { types } : {}), useLegacySql: false })
        )[0] as Record<string, unknown>[];
      report = await replayDestinationSlice({
        settings,
        project,
        dataset: p.dataset,
        destination: id,
        from,
        to,
        ...(options.where !== undefined ? { where: options.where } : {}),
        ...(options.force ? { force: true } : {}),
        // The operator's --where is SQL inside ours: a single SELECT only, under the bytes cap.
        query: (sql, params) =>
          selectOnly(bigquery, { query: sql, params }, settings.warehouse?.max_bytes_billed),
        publish: (m) => publisher.publish(m),
        writeLedger: (e) => ledger.write(e),
        definition: (stamp) => definitionFromStudio(options, stamp, write),
        wentLive: async () =>
          wentLiveOf(await rowsOf(wentLiveQuery(project, p.dataset), { destination: id }), new Date()),
        laterConsent: async (events) => {
          const params = laterConsentParams(events);
          if (!params) return [];
          const types = { users: ['STRING'], anonymous: ['STRING'] };
          return (await rowsOf(laterConsentQuery(project, p.dataset), params, types)).map(storedEventFromRow);
        },
        signal: cancel.signal,
        onStart: (total) =>
          bar.start(Math.max(1, total), 0, {
            destination: id,
            read: 0,
            republished: 0,
            skipped: 0,
            failed: 0,
          }),
        onProgress: progress,
      });
    } else {
      const source = await pubSubPullSource(pubsub, project);
      bar.start(1, 0, { destination: id, read: 0, republished: 0, skipped: 0, failed: 0 });
      try {
        report = await replayDestinationDeadLetters({
          destination: id,
          source,
          publish: (m) => publisher.publish(m),
          ...(limit !== undefined ? { limit } : {}),
          onProgress: progress,
        });
      } finally {
        await source.close();
      }
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    bar.stop();
    await publisher.close();
    await pubsub.close();
  }
  write(replaySummary(report, options.format));
  if (report.failed > 0)
    throw new CliError(`${report.failed} not re-sent: ${report.error ?? 'unknown error'}`);
  if (report.cancelled)
    throw new CliError(
      `cancelled after ${report.read} rows: run the same replay again to finish (what was sent folds)`,
    );
}

/**
 * A definition version through the studio's admin API (its history holds every version), for a
 * replayed defined event. Without a studio to ask, the event goes to webhooks only, as before,
 * and the command says so.
 */
async function definitionFromStudio(
  o: { dataDir?: string },
  stamp: string,
  warn: (text: string) => void,
): Promise<DefinedEvent | undefined> {
  const parsed = parseStamp(stamp);
  if (!parsed) return undefined;
  try {
    const { studioCall } = await import('./resources.ts');
    const history = (await studioCall(
      o,
      'GET',
      `/v1/admin/resources/EventDefinition/${encodeURIComponent(parsed.name)}/history`,
    )) as { versions: { version: string; spec: unknown }[] };
    const v = history.versions.find((x) => x.version === parsed.version);
    return v ? definedEvent(parsed.name, parsed.version, v.spec as DefinitionSpec) : undefined;
  } catch (err) {
    warn(
      `note: ${stamp} could not be read from the studio (${(err as Error).message}); its platform mappings are not applied\n`,
    );
    return undefined;
  }
}
