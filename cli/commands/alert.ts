/**
 * `eventbus alert …` (docs/alerts.md):
 * - `test <name>`: a test fire: the studio starts a manual run of the alert, on which the
 *   scheduler evaluates its condition and sends a `test` message through its connection (the
 *   incident state is left alone);
 * - `runs <name>`: the alert's evaluations from `eventbus_ops.alert_states`, newest first (its
 *   state after each, and which ones fired or resolved).
 */
import type { Command } from 'commander';
import { OPS_TABLES } from '../../core/warehouse/warehouse.ts';
import { DATA_DIR_OPTION } from '../environment.ts';
import { writerOf } from '../output.ts';
import { registerHistory } from './history-table.ts';
import { studioCall } from './resources.ts';

export function register(program: Command): void {
  const alert = program.command('alert').description('Alerts: send a test message, list evaluations');
  alert
    .command('test')
    .description("Send a test message through an alert's connection (by the scheduler, within a minute)")
    .argument('<name>', 'the alert')
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .option(...DATA_DIR_OPTION)
    .action(async (name: string, o: { env: string; dataDir?: string }, cmd: Command) => {
      // Refused by the studio, with its words, when no such alert exists.
      const r = (await studioCall(o, 'POST', '/v1/admin/alert-test', { name })) as {
        started: string;
        version: string;
      };
      writerOf(cmd)(
        `started ${r.started} (Alert/${name} ${r.version}): a test message goes to its connection\n`,
      );
    });
  registerHistory(alert, {
    description: "List an alert's evaluations, newest first",
    what: 'the alert',
    defaultLimit: 20,
    query: (plan) =>
      `SELECT evaluated_at, status, notice, incident, breached, value, summary FROM \`${plan.ops.dataset}.${OPS_TABLES.alertStates}\` WHERE alert = @name ORDER BY evaluated_at DESC, recorded_at DESC LIMIT @limit`,
  });
}
