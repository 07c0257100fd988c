/**
 * `eventbus erase <identifier>`: removes a person from the warehouse's models for good
 * (docs/sessions.md, "Erasure"): their rows of `identity_map`, `identity_merges` and `sessions`,
 * with their identifiers' hashes kept in `identity_erasures` so no later run brings them back.
 * The stored events are not touched (docs/sessions.md says how to delete them).
 */
import type { Command } from 'commander';
import { plainValue } from '../../adapters/user-sql.ts';
import { eraseSql, erasureIdentifier } from '../../core/models/identity-graph.ts';
import { loadEnvironment, warehouseClient } from '../environment.ts';
import { CliError, type OutputFormat, renderRows, writerOf } from '../output.ts';
import { warehouseCommand } from './enrich.ts';

export function register(program: Command): void {
  const command = program
    .command('erase')
    .description('Erase a person from sessions and identity_map, for good (the events themselves stay)')
    .argument(
      '<identifier>',
      'anonymous_id:…, user_id:…, email:… or phone:… (plain or SHA-256; hashed here), or a person id',
    );
  warehouseCommand(command, ['eventbus erase user_id:u-1', 'eventbus erase email:ann@example.com']).action(
    async (given: string, o: { env: string; dataDir?: string; format: OutputFormat }, cmd: Command) => {
      const identifier = erasureIdentifier(given);
      if (!identifier)
        throw new CliError(
          'the identifier must be kind:value (anonymous_id, user_id, email or phone) or a person id (64 hex characters)',
        );
      const { plan: p } = await loadEnvironment(o.env);
      const bigquery = await warehouseClient(p, process.env, o.dataDir);
      const [rows] = await bigquery.query({
        query: eraseSql({ project: p.project, dataset: p.dataset }),
        params: { identifier },
        useLegacySql: false,
      });
      writerOf(cmd)(
        renderRows(
          (rows as unknown[]).map((r) => ({ identifier, ...(plainValue(r) as Record<string, unknown>) })),
          o.format,
        ),
      );
    },
  );
}
