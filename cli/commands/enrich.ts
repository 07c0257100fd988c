/**
 * `eventbus enrich --from <time> --to <time>`: back-fills the `enriched` column of events stored
 * before enrichment existed (docs/enrichment.md, "Back-fill"), one slice of event_time at a time:
 * read the slice's rows with no enrichment (every row with `--all`), derive each one's enrichment
 * with the store function's own code and settings, load the results into a staging table in the
 * ops dataset, and MERGE them into `events`, writing only rows whose enrichment is missing or
 * different. Idempotent: a second run over the same window writes 0 rows.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { Command } from 'commander';
import { loadEnricher } from '../../adapters/enrichment.ts';
import { plainValue } from '../../adapters/user-sql.ts';
import {
  backfillMergeSql,
  backfillQuery,
  backfillRow,
  type StagingRow,
  stagingColumns,
} from '../../core/delivery/enrich-backfill.ts';
import type { Plan } from '../../core/plan.ts';
import { tableRef } from '../../core/warehouse/table-plan.ts';
import type { Settings } from '../../schemas/settings.ts';
import { DATA_DIR_OPTION, LOCAL_ENDPOINT_HELP, loadEnvironment, warehouseClient } from '../environment.ts';
import { CliError, formatOption, type OutputFormat, renderRows, writerOf } from '../output.ts';

/** What one slice of a back-fill did. */
export interface SliceReport {
  readonly from: string;
  readonly to: string;
  /** Rows read (every stored copy without enrichment; every copy with `--all`). */
  readonly read: number;
  /** Rows something could be derived for. */
  readonly derived: number;
  /** Rows whose `enriched` the MERGE wrote: 0 when they already held it. */
  readonly written: number;
}

const INSERT_BATCH = 500;

/** Back-fills [from, to) in slices of `sliceHours`; one report per slice. */
export async function backfillEnrichment(
  bigquery: BigQuery,
  p: Plan,
  settings: Readonly<Settings>,
  window: { readonly from: Date; readonly to: Date; readonly sliceHours: number; readonly all: boolean },
): Promise<SliceReport[]> {
  const enricher = loadEnricher(settings);
  if (!enricher) throw new CliError('every enrichment is switched off in the settings: nothing to derive');
  const pii = { hashInWarehouse: settings.pii?.hash_in_warehouse ?? [], drop: settings.pii?.drop ?? [] };
  const reports: SliceReport[] = [];
  const step = window.sliceHours * 3_600_000;
  for (let start = window.from.getTime(); start < window.to.getTime(); start += step) {
    const from = new Date(start);
    const to = new Date(Math.min(start + step, window.to.getTime()));
    const [rows] = await bigquery.query({
      query: backfillQuery(p.project, p.dataset, window.all),
      params: { from, to },
      useLegacySql: false,
    });
    const staged = (rows as unknown[])
      .map((r) => backfillRow(plainValue(r) as Record<string, unknown>, enricher, pii))
      .filter((r): r is StagingRow => r !== undefined);
    const written = staged.length === 0 ? 0 : await mergeStaged(bigquery, p, staged, { from, to });
    reports.push({
      from: from.toISOString(),
      to: to.toISOString(),
      read: rows.length,
      derived: staged.length,
      written,
    });
  }
  return reports;
}

/** Loads a slice's derived rows into a staging table, MERGEs them, drops the table. */
async function mergeStaged(
  bigquery: BigQuery,
  p: Plan,
  staged: readonly StagingRow[],
  slice: { readonly from: Date; readonly to: Date },
): Promise<number> {
  const name = `enrich_backfill_${slice.from.getTime()}_${process.pid}`;
  // The REST shape (ColumnPlan is TableFieldSchema), as local/provision.ts passes it.
  const resource: Record<string, unknown> = {
    schema: { fields: stagingColumns() },
    // A crashed run leaves nothing behind for long.
    expirationTime: String(Date.now() + 86_400_000),
  };
  const [table] = await bigquery.dataset(p.ops.dataset).createTable(name, resource);
  try {
    for (let i = 0; i < staged.length; i += INSERT_BATCH)
      await table.insert(
        staged.slice(i, i + INSERT_BATCH).map((json) => ({ json })),
        { raw: true },
      );
    const [job] = await bigquery.createQueryJob({
      query: backfillMergeSql(p.project, p.dataset, tableRef(p.project, p.ops.dataset, name)),
      params: slice,
      useLegacySql: false,
    });
    await job.getQueryResults();
    const [meta] = await job.getMetadata();
    return Number(meta.statistics?.query?.numDmlAffectedRows ?? 0);
  } finally {
    await table.delete().catch(() => undefined);
  }
}

interface EnrichOptions {
  env: string;
  from?: string;
  to?: string;
  sliceHours: string;
  all?: boolean;
  format: OutputFormat;
  dataDir?: string;
}

function parseTime(value: string | undefined, flag: string): Date {
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  if (Number.isNaN(ms))
    throw new CliError(`${flag} must be a time such as 2026-01-01 or 2026-01-01T00:00:00Z`);
  return new Date(ms);
}

/**
 * The options of a command that works on an environment's warehouse (`--env`, `--data-dir`,
 * `--format`), and its help's endpoint note and examples. `erase` shares it.
 */
export function warehouseCommand(c: Command, examples: readonly string[]): Command {
  return c
    .option('--env <name>', 'environment name or settings file', 'local')
    .option(...DATA_DIR_OPTION)
    .addOption(formatOption())
    .addHelpText(
      'after',
      ['', LOCAL_ENDPOINT_HELP, '', 'Examples:', ...examples.map((e) => `  ${e}`)].join('\n'),
    );
}

export function register(program: Command): void {
  const command = program
    .command('enrich')
    .description(
      'Back-fill the enriched column of events stored before enrichment existed (idempotent: a second run writes 0 rows)',
    )
    .requiredOption('--from <time>', 'start of the event_time window (inclusive)')
    .requiredOption('--to <time>', 'end of the event_time window (exclusive)')
    .option('--all', 're-derive every row of the window, not only rows without enrichment')
    .option('--slice-hours <n>', 'hours of event_time read and merged at a time', '24');
  warehouseCommand(command, [
    'eventbus enrich --from 2026-01-01 --to 2026-11-01',
    'eventbus enrich --env production --from 2026-10-01 --to 2026-11-01 --all',
  ]).action(async (o: EnrichOptions, cmd: Command) => {
    const from = parseTime(o.from, '--from');
    const to = parseTime(o.to, '--to');
    if (to <= from) throw new CliError('--to must be after --from');
    const sliceHours = Number(o.sliceHours);
    if (!Number.isInteger(sliceHours) || sliceHours < 1 || sliceHours > 24 * 31)
      throw new CliError('--slice-hours must be a whole number of hours between 1 and 744');
    const { plan: p, settings } = await loadEnvironment(o.env);
    const bigquery = await warehouseClient(p, process.env, o.dataDir);
    const reports = await backfillEnrichment(bigquery, p, settings, {
      from,
      to,
      sliceHours,
      all: o.all === true,
    });
    writerOf(cmd)(renderRows(reports as unknown as Record<string, unknown>[], o.format));
  });
}
