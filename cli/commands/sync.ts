/**
 * `eventbus sync …` (reverse ETL; docs/syncs.md):
 * - `run <name>`: start a run now (a manual run message on the `runs` topic, which the schedule
 *   function takes like a scheduled one, chunk by chunk); `--wait` follows it with a progress bar
 *   (the run's cursor in its lock, through the studio) and prints its `sync_runs` row;
 *   `--dry-run` sends nothing and writes no table: it prints what the run would plan and the exact
 *   requests of its first rows, from the same code the schedule function sends with;
 * - `runs <name>`: a sync's finished runs from `eventbus_ops.sync_runs`;
 * - `list`: every sync with its mode, destination, schedule and last run.
 */
import type { Command } from 'commander';
import { plainValue, selectOnly } from '../../adapters/user-sql.ts';
import { RUNS_TOPIC } from '../../core/plan.ts';
import { type RunMessage, runKey } from '../../core/scheduler.ts';
import { previewSyncPage } from '../../core/sync-preview.ts';
import {
  changesOf,
  destinationLabel,
  dryRunQueries,
  type SyncVersion,
  syncTables,
} from '../../core/syncs.ts';
import { OPS_TABLES } from '../../core/warehouse.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { DATA_DIR_OPTION, loadEnvironment, pubsubClient, warehouseClient } from '../environment.ts';
import { CliError, formatOption, type OutputFormat, renderRows, writerOf } from '../output.ts';
import { registerHistory } from './history-table.ts';
import { studioCall } from './resources.ts';

interface RunOptions {
  env: string;
  dataDir?: string;
  dryRun?: boolean;
  rows: string;
  wait?: boolean;
}

interface SyncStatus {
  run: string | null;
  chunk: number;
  cursor: { planned?: number; done?: number; sent?: number; removed?: number; failed?: number } | null;
  last_run: string | null;
  last_error: string | null;
}

const runsQuery = (ops: string) =>
  `SELECT run_id, trigger, status, rows_planned, rows_sent, rows_removed, rows_failed, chunks, started_at, finished_at, error
FROM \`${ops}.${OPS_TABLES.syncRuns}\``;

async function syncVersion(o: { dataDir?: string }, name: string): Promise<SyncVersion> {
  // Refused here, with the studio's words, when no such sync exists.
  const doc = (await studioCall(o, 'GET', `/v1/admin/resources/Sync/${encodeURIComponent(name)}`)) as {
    name: string;
    version: string;
    spec: SyncSpec;
  };
  return { name: doc.name, version: doc.version, spec: doc.spec };
}

/** `--dry-run`: the plan's counts and the first rows' requests; no table written, nothing sent. */
async function dryRun(name: string, o: RunOptions, write: (text: string) => void): Promise<void> {
  const sync = await syncVersion(o, name);
  const { plan, settings } = await loadEnvironment(o.env);
  const bigquery = await warehouseClient(plan, process.env, o.dataDir);
  const ops = bigquery.dataset(plan.ops.dataset);
  const t = syncTables(plan.ops.dataset, name);
  const [[state], [cursor]] = await Promise.all([
    ops.table(t.state.split('.')[1] as string).exists(),
    ops.table(t.cursor.split('.')[1] as string).exists(),
  ]);
  const rows = Math.max(1, Math.min(1000, Number(o.rows) || 3));
  const q = dryRunQueries(sync.spec, plan.ops.dataset, name, { state, cursor }, rows);
  // The model is SQL someone wrote: a single SELECT under the bytes cap, as a run reads it.
  const run = async (sql: string) =>
    (
      await selectOnly(
        bigquery,
        { query: sql, useLegacySql: false, defaultDataset: { datasetId: plan.dataset } },
        settings.warehouse?.max_bytes_billed,
      )
    ).map((r) => plainValue(r) as Record<string, unknown>);
  const [counts] = await run(q.counts);
  const planned = Number(counts?.['planned'] ?? 0);
  const removals = Number(counts?.['removals'] ?? 0);
  write(
    `dry run of Sync/${name} ${sync.version} (${sync.spec.mode} to ${destinationLabel(sync.spec)}): nothing is sent, no table is written\n`,
  );
  write(
    `would send ${planned} row(s): ${planned - removals} upsert(s), ${removals} deletion(s)` +
      (sync.spec.cursor
        ? `; cursor ${sync.spec.cursor} from ${counts?.['cursor_from'] ?? '(the start)'} to ${counts?.['cursor_to'] ?? '(nothing new)'}`
        : '') +
      '\n',
  );
  if (planned === 0) return;
  const slot = new Date().toISOString();
  const key = runKey({ kind: 'Sync', name, slot });
  const preview = previewSyncPage({
    sync,
    connections: settings.connections ?? [],
    runKey: key,
    slot,
    planned,
    changes: changesOf(sync.spec, await run(q.first)),
  });
  write(`\nthe first ${Math.min(rows, planned)} row(s) as the destination would receive them:\n`);
  for (const r of preview.requests) {
    write(`\n${r.title}\n`);
    for (const [k, v] of Object.entries(r.headers ?? {})) write(`${k}: ${v}\n`);
    write(`\n${r.body}${r.body.endsWith('\n') ? '' : '\n'}`);
  }
  for (const n of preview.notSent) write(`\nnot sent ${JSON.stringify(n.key)}: ${n.reason}\n`);
}

/** `--wait`: the run's progress from its lock until it is done, then its sync_runs row. */
async function follow(name: string, id: string, o: RunOptions, write: (text: string) => void): Promise<void> {
  const { SingleBar } = await import('cli-progress');
  const bar = new SingleBar({
    format: ' {name} | {bar} | {value}/{total} rows | {sent} sent | {removed} removed | {failed} failed',
    hideCursor: true,
  });
  const { plan } = await loadEnvironment(o.env);
  bar.start(1, 0, { name, sent: 0, removed: 0, failed: 0 });
  let status: SyncStatus;
  const deadline = Date.now() + 6 * 3600_000;
  try {
    for (;;) {
      status = (await studioCall(o, 'POST', '/v1/admin/sync-status', { name })) as SyncStatus;
      const c = status.cursor;
      if (status.run === id && c) {
        bar.setTotal(Math.max(1, c.planned ?? 1));
        bar.update(c.done ?? 0, { sent: c.sent ?? 0, removed: c.removed ?? 0, failed: c.failed ?? 0 });
      }
      if (status.run !== id && status.last_run === id) break;
      if (Date.now() > deadline)
        throw new CliError(`${id} is still running; see: eventbus sync runs ${name}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    bar.stop();
  }
  if (status.last_error) throw new CliError(`${id} was given up: ${status.last_error}`);
  const bigquery = await warehouseClient(plan, process.env, o.dataDir);
  // The run's row is written just before its lock lets go: a short wait covers a slow insert.
  for (let i = 0; i < 20; i++) {
    const [rows] = await bigquery.query({
      query: `${runsQuery(plan.ops.dataset)} WHERE run_id = @id`,
      params: { id },
      useLegacySql: false,
    });
    if ((rows as unknown[]).length > 0) {
      write(
        renderRows(
          (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>),
          'table',
        ),
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  write(`${id} finished; its row is not in sync_runs yet: eventbus sync runs ${name}\n`);
}

export function register(program: Command): void {
  const sync = program
    .command('sync')
    .description('Syncs (reverse ETL): run one now, list them and their runs');
  sync
    .command('run')
    .description('Start a run of a sync now; it goes chunk by chunk on the schedule function')
    .argument('<name>', 'the sync')
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .option('--dry-run', 'send nothing: print what the run would plan and the requests of its first rows')
    .option('--rows <n>', 'with --dry-run: how many rows to show as requests', '3')
    .option('--wait', 'follow the run with a progress bar until it is done, then print its row')
    .option(...DATA_DIR_OPTION)
    .action(async (name: string, o: RunOptions, cmd: Command) => {
      const write = writerOf(cmd);
      if (o.dryRun) return dryRun(name, o, write);
      await syncVersion(o, name);
      const { plan } = await loadEnvironment(o.env);
      const pubsub = await pubsubClient(plan, process.env, o.dataDir);
      const message: RunMessage = { kind: 'Sync', name, slot: new Date().toISOString(), trigger: 'manual' };
      try {
        await pubsub.topic(RUNS_TOPIC).publishMessage({
          data: Buffer.from(JSON.stringify(message)),
          attributes: { type: 'run', kind: message.kind, name, run: runKey(message) },
        });
      } finally {
        await pubsub.close();
      }
      write(`started ${runKey(message)}${o.wait ? '' : `; see it with: eventbus sync runs ${name}`}\n`);
      if (o.wait) await follow(name, runKey(message), o, write);
    });
  registerHistory(sync, {
    description: "List a sync's finished runs, newest first",
    what: 'the sync',
    defaultLimit: 20,
    query: (plan) =>
      `${runsQuery(plan.ops.dataset)} WHERE sync = @name ORDER BY finished_at DESC LIMIT @limit`,
  });
  sync
    .command('list')
    .description('List the syncs: mode, destination, schedule, on or off, and the last run')
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .addOption(formatOption())
    .option(...DATA_DIR_OPTION)
    .action(async (o: { env: string; format: OutputFormat; dataDir?: string }, cmd: Command) => {
      const index = (await studioCall(o, 'GET', '/v1/admin/resources/Sync')) as {
        resources: { name: string; version: string; deleted?: boolean }[];
      };
      const live = index.resources.filter((r) => !r.deleted);
      const { plan } = await loadEnvironment(o.env);
      const bigquery = await warehouseClient(plan, process.env, o.dataDir);
      const [last] = await bigquery.query({
        query: `SELECT sync, status, finished_at FROM \`${plan.ops.dataset}.${OPS_TABLES.syncRuns}\` QUALIFY ROW_NUMBER() OVER (PARTITION BY sync ORDER BY finished_at DESC) = 1`,
        useLegacySql: false,
      });
      const lastBy = new Map(
        (last as unknown[]).map((r) => {
          const row = plainValue(r) as Record<string, unknown>;
          return [String(row['sync']), row];
        }),
      );
      const rows = await Promise.all(
        live.map(async (r) => {
          const v = await syncVersion(o, r.name);
          const s = v.spec.schedule;
          const run = lastBy.get(r.name);
          return {
            name: r.name,
            version: v.version,
            mode: v.spec.mode,
            destination: destinationLabel(v.spec),
            schedule: 'every' in s ? `every ${s.every}` : 'cron' in s ? `cron ${s.cron}` : 'manual',
            enabled: v.spec.enabled !== false,
            last_status: run?.['status'] ?? '',
            last_finished_at: run?.['finished_at'] ?? '',
          };
        }),
      );
      writerOf(cmd)(renderRows(rows, o.format));
    });
}
