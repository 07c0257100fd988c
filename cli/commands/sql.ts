/**
 * `eventbus sql "<query>"`: runs GoogleSQL through the configured BigQuery endpoint with
 * the real client (the local emulator, or BigQuery itself) and prints the rows as a table,
 * JSON or CSV. Unqualified table names resolve in the environment's dataset; like the studio's
 * `/sql`, it reads only the environment's own datasets (adapters/user-sql.ts runQuery): another
 * dataset or project, or a region's INFORMATION_SCHEMA, is refused before anything runs.
 */
import type { Command } from 'commander';
import {
  DEFAULT_MAX_BYTES_BILLED,
  NotASelectError,
  plainValue,
  runQuery,
  selectOnly,
} from '../../adapters/user-sql.ts';
import {
  DATA_DIR_OPTION,
  LOCAL_ENDPOINT_HELP,
  loadEnvironment,
  warehouseClient,
  warehouseEndpoint,
} from '../environment.ts';
import { CliError, formatOption, type OutputFormat, renderRows, writerOf } from '../output.ts';

export { DEFAULT_MAX_BYTES_BILLED, NotASelectError, plainValue, runQuery, selectOnly };

interface SqlOptions {
  readonly env: string;
  readonly dataDir?: string;
  readonly format: OutputFormat;
  readonly maxRows: string;
}

export function register(program: Command): void {
  program
    .command('sql')
    .description(
      "Run GoogleSQL on the environment's warehouse (the local emulator, or BigQuery) and print the rows",
    )
    .argument(
      '<query>',
      'the query; unqualified tables are in the environment dataset (events_dedup, view_content…)',
    )
    .option('--env <name>', 'environment name or settings file', 'local')
    .option(...DATA_DIR_OPTION)
    .addOption(formatOption())
    .option('--max-rows <n>', 'print at most this many rows', '1000')
    .addHelpText(
      'after',
      [
        '',
        LOCAL_ENDPOINT_HELP,
        'Any other environment: BigQuery with Application Default Credentials.',
        '',
        "Only the environment's datasets are read (its events dataset and eventbus_ops, with their",
        "<dataset>.INFORMATION_SCHEMA): another dataset or project, or a region's INFORMATION_SCHEMA,",
        'is refused before anything runs.',
        '',
        'Examples:',
        '  eventbus sql "SELECT event_name, COUNT(*) AS n FROM events_dedup GROUP BY event_name"',
        '  eventbus sql --format csv "SELECT * FROM view_content WHERE event_time > TIMESTAMP \'2026-01-01\'"',
      ].join('\n'),
    )
    .action(async (query: string, options: SqlOptions, command: Command) => {
      const maxRows = Number(options.maxRows);
      if (!Number.isInteger(maxRows) || maxRows < 1)
        throw new CliError('--max-rows must be a positive integer');
      const { plan: p, settings } = await loadEnvironment(options.env);
      const endpoint = await warehouseEndpoint(p, process.env, options.dataDir);
      const bigquery = await warehouseClient(p, process.env, options.dataDir);
      let rows: Record<string, unknown>[];
      try {
        rows = await runQuery(bigquery, p, query, maxRows, settings.warehouse?.max_bytes_billed);
      } catch (err) {
        const e = err as { message?: string; code?: unknown };
        if (/ECONNREFUSED/.test(String(e.message))) {
          throw new CliError(
            `cannot reach BigQuery at ${endpoint}: is the local environment running (npm start)?`,
          );
        }
        throw new CliError(e.message ?? String(err));
      }
      writerOf(command)(renderRows(rows, options.format));
    });
}
