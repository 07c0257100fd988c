/**
 * `eventbus sql "<query>"`: runs GoogleSQL through the configured BigQuery endpoint with
 * the real client (the local emulator, or BigQuery itself) and prints the rows as a table,
 * JSON or CSV. Unqualified table names resolve in the environment's dataset.
 */
import { BigQuery, type Query } from '@google-cloud/bigquery';
import type { Command } from 'commander';
import { type Plan, plan } from '../../functions/core/plan.ts';
import { emulatorBigQuery } from '../../local/provision.ts';
import { DEFAULT_PORTS, LOCAL_HOST } from '../../local/services.ts';
import { environmentFile, readSettingsFile, SettingsFileError } from '../../local/settings-file.ts';
import type { Settings } from '../../schemas/settings.ts';
import { CliError, formatOption, type OutputFormat, renderRows } from '../output.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The environment's settings and plan, for commands that take `--env`. */
export function loadEnvironment(nameOrPath: string): { settings: Readonly<Settings>; plan: Plan } {
  try {
    const settings = readSettingsFile(environmentFile(nameOrPath));
    return { settings, plan: plan(settings) };
  } catch (err) {
    if (err instanceof SettingsFileError) throw new CliError(err.message);
    throw err;
  }
}

/**
 * Where BigQuery is: BIGQUERY_EMULATOR_HOST when set; the local emulator's default port for
 * the `local` environment; otherwise BigQuery itself (Application Default Credentials).
 */
export function warehouseEndpoint(p: Plan, env: Env): string | undefined {
  const host = env['BIGQUERY_EMULATOR_HOST'];
  if (host) return host;
  return p.environment === 'local' ? `http://${LOCAL_HOST}:${DEFAULT_PORTS.bigquery}` : undefined;
}

/** A BigQuery client for the environment's project and endpoint. */
export function warehouseClient(p: Plan, env: Env): BigQuery {
  const project = env['GOOGLE_CLOUD_PROJECT'] || p.project;
  const endpoint = warehouseEndpoint(p, env);
  return endpoint ? emulatorBigQuery(project, endpoint) : new BigQuery({ projectId: project });
}

/** Turns the client's typed values (timestamps, big numbers, bytes, JSON) into printable ones. */
export function plainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(plainValue);
  if (typeof value === 'object') {
    const v = value as { value?: unknown; constructor?: { name?: string } };
    // BigQueryTimestamp / BigQueryDate / BigQueryInt / Big: wrappers with a `value`, or toString.
    if ('value' in v && Object.keys(v).length === 1) return plainValue(v.value);
    if (v.constructor?.name === 'Big') return String(value);
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, plainValue(x)]));
  }
  return value;
}

interface SqlOptions {
  readonly env: string;
  readonly format: OutputFormat;
  readonly maxRows: string;
}

/** Runs one query and returns its rows as plain objects (exported for tests and dashboards docs). */
export async function runQuery(
  bigquery: BigQuery,
  p: Plan,
  query: string,
  maxRows: number,
): Promise<Record<string, unknown>[]> {
  const options: Query = {
    query,
    useLegacySql: false,
    defaultDataset: { projectId: bigquery.projectId, datasetId: p.dataset },
    location: p.location,
    maxResults: maxRows,
  };
  const [rows] = await bigquery.query(options);
  return (rows as Record<string, unknown>[])
    .slice(0, maxRows)
    .map((r) => plainValue(r) as Record<string, unknown>);
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
    .addOption(formatOption())
    .option('--max-rows <n>', 'print at most this many rows', '1000')
    .addHelpText(
      'after',
      [
        '',
        'Endpoint: BIGQUERY_EMULATOR_HOST when set; for --env local, the emulator on 127.0.0.1:9050;',
        'otherwise BigQuery with Application Default Credentials.',
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
      const p = loadEnvironment(options.env).plan;
      const bigquery = warehouseClient(p, process.env);
      let rows: Record<string, unknown>[];
      try {
        rows = await runQuery(bigquery, p, query, maxRows);
      } catch (err) {
        const e = err as { message?: string; code?: unknown };
        if (/ECONNREFUSED/.test(String(e.message))) {
          throw new CliError(
            `cannot reach BigQuery at ${warehouseEndpoint(p, process.env)}: is the local environment running (npm start)?`,
          );
        }
        throw new CliError(e.message ?? String(err));
      }
      const write = command.configureOutput().writeOut ?? ((t: string) => process.stdout.write(t));
      write(renderRows(rows, options.format));
    });
}
