/**
 * `eventbus sync …` (reverse ETL; docs/syncs.md):
 * - `run <name>`: start a run now (a manual run message on the `runs` topic, which the schedule
 *   function takes like a scheduled one, chunk by chunk); `--wait` follows it with a progress bar
 *   (the run's cursor in its lock, through the studio) and prints its `sync_runs` row;
 *   `--dry-run` sends nothing and writes no table: it prints what the run would plan and the exact
 *   requests of its first rows, from the same code the schedule function sends with;
 * - `runs <name>`: a sync's finished runs from `eventbus_ops.sync_runs`;
 * - `list`: every sync with its mode, destination, schedule and last run;
 * - `request-status <name> --credentials <file>`: what Google's Data Manager made of a Customer
 *   Match run's requests (`requestStatus:retrieve` for each id in its `sync_runs.request_ids`).
 */
import type { Command } from 'commander';
import { plainValue, selectOnly } from '../../adapters/user-sql.ts';
import { RUNS_TOPIC } from '../../core/plan.ts';
import { DATA_MANAGER_SCOPE } from '../../core/platforms/google-ads/driver.ts';
import {
  describeRequestStatus,
  readRequestStatus,
  requestStatusUrl,
} from '../../core/platforms/google-ads/request-status.ts';
import { type RunMessage, runKey } from '../../core/scheduler/dispatch.ts';
import { previewSyncPage } from '../../core/syncs/sync-preview.ts';
import { dryRunQueries, syncTables } from '../../core/syncs/sync-sql.ts';
import { changesOf, destinationLabel, type SyncVersion } from '../../core/syncs/syncs.ts';
import { OPS_TABLES } from '../../core/warehouse/warehouse.ts';
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
  `SELECT run_id, trigger, status, rows_planned, rows_sent, rows_removed, rows_failed, chunks, started_at, finished_at, error, request_ids
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

interface RequestStatusOptions {
  env: string;
  dataDir?: string;
  credentials: string;
  run?: string;
  origin?: string;
}

/**
 * `request-status`: the latest run's (or `--run`'s) Data Manager request ids, each asked of
 * `requestStatus:retrieve` with a token from the credentials file (the connection's secret, or
 * any credentials with access to the account), at the connection's origin.
 */
async function requestStatus(
  name: string,
  o: RequestStatusOptions,
  write: (text: string) => void,
): Promise<void> {
  const sync = await syncVersion(o, name);
  const d = sync.spec.destination;
  if (!('google_ads_audience' in d))
    throw new CliError(
      `Sync/${name} goes to ${destinationLabel(sync.spec)}: only google_ads_audience runs have request ids`,
    );
  const { plan, settings } = await loadEnvironment(o.env);
  const connection = settings.connections?.find((c) => c.id === d.google_ads_audience.connection);
  const bigquery = await warehouseClient(plan, process.env, o.dataDir);
  const [rows] = await bigquery.query({
    query: `SELECT run_id, request_ids FROM \`${plan.ops.dataset}.${OPS_TABLES.syncRuns}\` WHERE sync = @name${o.run ? ' AND run_id = @run' : ''} ORDER BY finished_at DESC LIMIT 1`,
    params: { name, ...(o.run ? { run: o.run } : {}) },
    useLegacySql: false,
  });
  const row = (rows as Record<string, unknown>[])[0];
  if (!row) throw new CliError(`Sync/${name} has no finished run${o.run ? ` ${o.run}` : ''}`);
  const ids = String(row['request_ids'] ?? '')
    .split(' ')
    .filter(Boolean);
  write(`${String(row['run_id'])}: ${ids.length} request(s)\n`);
  if (ids.length === 0) return;
  const { readFileSync } = await import('node:fs');
  const { createAccessTokens, tokenEgress } = await import('../../adapters/google-oauth.ts');
  // The token endpoint is Google's, or the origin this command asks (a local stand-in's).
  const asked = o.origin ?? connection?.url;
  const allow = new Set(asked && URL.canParse(asked) ? [new URL(asked).origin] : []);
  const token = await createAccessTokens(tokenEgress(allow, 'cli'))(
    readFileSync(o.credentials, 'utf8'),
    DATA_MANAGER_SCOPE,
    false,
  );
  for (const id of ids) {
    const res = await fetch(requestStatusUrl(id, o.origin ?? connection?.url), {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const status = res.ok
      ? describeRequestStatus(readRequestStatus(json))
      : `HTTP ${res.status}: ${text.slice(0, 300)}`;
    write(`${id}\n  ${status.replace(/\n/g, '\n  ')}\n`);
  }
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
    .command('request-status')
    .description(
      "What Google's Data Manager made of a Customer Match run's requests (requestStatus:retrieve)",
    )
    .argument('<name>', 'the sync (a google_ads_audience destination)')
    .requiredOption(
      '--credentials <file>',
      'OAuth credentials for the Data Manager API (a service account key or an authorized user file)',
    )
    .option('--run <run_id>', 'that run instead of the latest')
    .option('--origin <url>', "the Data Manager origin (default: the connection's url, else Google's)")
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .option(...DATA_DIR_OPTION)
    .action(async (name: string, o: RequestStatusOptions, cmd: Command) =>
      requestStatus(name, o, writerOf(cmd)),
    );
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
