/**
 * `eventbus reconcile [--day D] [--destination NAME]` (docs/delivery.md, "Sent, accepted,
 * counted"): runs the platforms' counting reads now, as the scheduler's daily PlatformCounts job
 * does (a manual run per destination with `config.counts: true`, on the schedule function, with
 * the destination's own credentials and behind the egress gate), waits for them, prints one line
 * per destination on its count (read, or why not), then the day's `reconciliation` rows and the top reasons behind each gap (`reconciliation_gaps`), read
 * in the views' range form so that only the day's partitions are scanned.
 */
import type { Command } from 'commander';
import { LockStore } from '../../adapters/locks.ts';
import { plainValue } from '../../adapters/user-sql.ts';
import { RUNS_TOPIC, registryBucketName } from '../../core/plan.ts';
import {
  countedDestinations,
  countsNotRead,
  countsRunName,
  PLATFORM_COUNTS_KIND,
} from '../../core/platforms/counted.ts';
import { type LockState, type RunMessage, runKey } from '../../core/scheduler/dispatch.ts';
import { type ReconciliationSettings, reconciliationRangeSql } from '../../core/warehouse/reconciliation.ts';
import type { Destination } from '../../schemas/settings.ts';
import {
  DATA_DIR_OPTION,
  loadEnvironment,
  pubsubClient,
  storageClient,
  warehouseClient,
} from '../environment.ts';
import { CliError, formatOption, type OutputFormat, renderRows, section, writerOf } from '../output.ts';

interface ReconcileOptions {
  readonly env: string;
  readonly dataDir?: string;
  readonly day?: string;
  readonly destination?: string;
  readonly format: OutputFormat;
  readonly wait: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The columns printed, in order. */
const COLUMNS = [
  'destination',
  'platform',
  'permitted',
  'sent',
  'accepted',
  'counted',
  'counted_source',
  'skipped',
  'refused',
  'refused_later',
  'unsent',
  'sent_ratio',
  'counted_ratio',
] as const;

/**
 * The day's two queries (@day, YYYY-MM-DD): the reconciliation views' range form, reading that
 * day's partitions only (core/warehouse/reconciliation.ts), in the dataset named.
 */
export function reconcileDaySql(
  settings: ReconciliationSettings,
  dataset: string,
): { readonly days: string; readonly gaps: string } {
  return reconciliationRangeSql(settings, (name) => `${dataset}.${name}`, { from: 'day', to: 'day' });
}

/** A finished PlatformCounts run's line: what it read, why not, or why it was given up. */
export function runOutcome(state: Pick<LockState, 'last_error' | 'last_outcome'>): string {
  if (state.last_error) return `not read: ${state.last_error}`;
  return state.last_outcome ?? 'not read: the run said nothing';
}

/**
 * One line per destination on its count: the run's outcome (read, or why not: missing
 * credentials, the platform's refusal with its status, unreachable), or why none is asked for
 * (the platform reports none, the destination is off, config.counts is not on).
 */
export function countsReadLines(
  destinations: readonly Readonly<Destination>[],
  outcomes: ReadonlyMap<string, string>,
): { readonly destination: string; readonly outcome: string }[] {
  return destinations.map((d) => {
    const none = countsNotRead(d);
    return {
      destination: d.id,
      outcome: none !== undefined ? `not read: ${none}` : (outcomes.get(d.id) ?? 'not read: no run'),
    };
  });
}

/** The day a command names, checked; today (UTC) when none. */
export function reconcileDay(day: string | undefined, now: Date): string {
  if (day === undefined) return now.toISOString().slice(0, 10);
  if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)))
    throw new CliError(`--day must be a date YYYY-MM-DD, got "${day}"`);
  return day;
}

async function reconcile(o: ReconcileOptions, write: (text: string) => void): Promise<void> {
  const day = reconcileDay(o.day, new Date());
  const { plan, settings } = await loadEnvironment(o.env);
  const ids = (settings.destinations ?? []).map((d) => d.id);
  if (o.destination !== undefined && !ids.includes(o.destination))
    throw new CliError(`unknown destination "${o.destination}" (settings: ${ids.join(', ') || 'none'})`);
  const targets = countedDestinations(settings).filter(
    (t) => o.destination === undefined || t.destination.id === o.destination,
  );
  const messages: RunMessage[] = targets.map((t) => ({
    kind: PLATFORM_COUNTS_KIND,
    name: countsRunName(t.destination.id, day),
    slot: new Date().toISOString(),
    trigger: 'manual',
  }));
  const outcomes = new Map<string, string>();
  if (messages.length > 0) {
    const pubsub = await pubsubClient(plan, process.env, o.dataDir);
    try {
      for (const m of messages)
        await pubsub.topic(RUNS_TOPIC).publishMessage({
          data: Buffer.from(JSON.stringify(m)),
          attributes: { type: 'run', kind: m.kind, name: m.name, run: runKey(m) },
        });
    } finally {
      await pubsub.close();
    }
    // Each run's lock names it as its last run once it is done (or given up), with its outcome.
    const storage = await storageClient(plan, process.env, o.dataDir);
    const locks = new LockStore(storage.bucket(registryBucketName(plan.project, plan.environment)));
    const deadline = Date.now() + Number(o.wait) * 1000;
    for (const [i, m] of messages.entries()) {
      const id = targets[i]?.destination.id ?? m.name;
      for (;;) {
        const { state } = await locks.read(m.kind, m.name);
        if (state.last_run === runKey(m)) {
          outcomes.set(id, runOutcome(state));
          break;
        }
        if (Date.now() > deadline) {
          outcomes.set(id, `not read yet: still running after ${o.wait}s; its counts come later`);
          break;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }
  const reads = countsReadLines(
    (settings.destinations ?? []).filter((d) => o.destination === undefined || d.id === o.destination),
    outcomes,
  );

  const bigquery = await warehouseClient(plan, process.env, o.dataDir);
  const where = o.destination === undefined ? '' : ' AND destination = @destination';
  const params = { day, ...(o.destination === undefined ? {} : { destination: o.destination }) };
  const query = async (sql: string) =>
    ((await bigquery.query({ query: sql, params }))[0] as unknown[]).map(
      (r) => plainValue(r) as Record<string, unknown>,
    );
  const ratio = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 10);
  // The views' range form for the one day: only that day's partitions are read.
  const range = reconcileDaySql(settings, plan.dataset);
  const rows = (
    await query(
      `SELECT ${COLUMNS.join(', ')} FROM (\n${range.days}\n) AS r WHERE TRUE${where} ORDER BY destination`,
    )
  ).map((r) => ({ ...r, sent_ratio: ratio(r['sent_ratio']), counted_ratio: ratio(r['counted_ratio']) }));
  const gaps = await query(
    `SELECT destination, stage, reason, events, sample_event_id FROM (\n${range.gaps}\n) AS g WHERE TRUE${where} ORDER BY destination, events DESC, stage, reason LIMIT 20`,
  );
  if (o.format === 'json') {
    write(`${JSON.stringify({ day, counts: reads, reconciliation: rows, gaps }, null, 2)}\n`);
    return;
  }
  write(`the platforms' counts of ${day}:\n`);
  for (const r of reads) write(`  ${r.destination}: ${r.outcome}\n`);
  write(section(`reconciliation ${day} (ratios in %)`, renderRows(rows, o.format)));
  if (gaps.length > 0) write(section('top gaps', renderRows(gaps, o.format)));
}

export function register(program: Command): void {
  program
    .command('reconcile')
    .description(
      "Read the platforms' own counts now and print a day's reconciliation: permitted, sent, accepted, counted",
    )
    .option('--day <YYYY-MM-DD>', 'the day (UTC) to read and print (default: today)')
    .option('--destination <name>', 'only this destination')
    .option('--wait <seconds>', 'how long to wait for the reads', '120')
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .addOption(formatOption())
    .option(...DATA_DIR_OPTION)
    .action(async (o: ReconcileOptions, cmd: Command) => reconcile(o, writerOf(cmd)));
}
