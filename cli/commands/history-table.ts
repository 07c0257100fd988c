/**
 * The `runs` subcommand syncs and rules share: a resource's rows of a history table in the
 * warehouse (`sync_runs`, `action_runs`), newest first, as a table or JSON.
 */
import type { Command } from 'commander';
import { plainValue } from '../../adapters/user-sql.ts';
import type { Plan } from '../../core/plan.ts';
import { DATA_DIR_OPTION, loadEnvironment, warehouseClient } from '../environment.ts';
import { formatOption, type OutputFormat, renderRows, writerOf } from '../output.ts';

export function registerHistory(
  parent: Command,
  spec: {
    readonly description: string;
    readonly what: string;
    readonly defaultLimit: number;
    /** The SELECT of one resource's rows (`@name`, `@limit`), given the plan. */
    readonly query: (plan: Plan) => string;
  },
): void {
  parent
    .command('runs')
    .description(spec.description)
    .argument('<name>', spec.what)
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .option('--limit <n>', 'how many rows', String(spec.defaultLimit))
    .addOption(formatOption())
    .option(...DATA_DIR_OPTION)
    .action(
      async (
        name: string,
        o: { env: string; limit: string; format: OutputFormat; dataDir?: string },
        cmd: Command,
      ) => {
        const { plan } = await loadEnvironment(o.env);
        const bigquery = await warehouseClient(plan, process.env, o.dataDir);
        const [rows] = await bigquery.query({
          query: spec.query(plan),
          params: { name, limit: Math.max(1, Math.min(1000, Number(o.limit) || spec.defaultLimit)) },
          useLegacySql: false,
        });
        writerOf(cmd)(
          renderRows(
            (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>),
            o.format,
          ),
        );
      },
    );
}
