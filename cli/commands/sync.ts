/**
 * `eventbus sync run <name>` and `eventbus sync runs <name>` (reverse ETL; docs/syncs.md): start
 * a run now (a manual run message on the `runs` topic, which the schedule function takes like a
 * scheduled one, chunk by chunk), and list a sync's finished runs from `eventbus_ops.sync_runs`.
 */
import type { Command } from 'commander';
import { RUNS_TOPIC } from '../../core/plan.ts';
import { type RunMessage, runKey } from '../../core/scheduler.ts';
import { OPS_TABLES } from '../../core/warehouse.ts';
import { DATA_DIR_OPTION, loadEnvironment, pubsubClient } from '../environment.ts';
import { writerOf } from '../output.ts';
import { registerHistory } from './history-table.ts';
import { studioCall } from './resources.ts';

export function register(program: Command): void {
  const sync = program.command('sync').description('Syncs (reverse ETL): run one now, list its runs');
  sync
    .command('run')
    .description('Start a run of a sync now; it goes chunk by chunk on the schedule function')
    .argument('<name>', 'the sync')
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .option(...DATA_DIR_OPTION)
    .action(async (name: string, o: { env: string; dataDir?: string }, cmd: Command) => {
      // Refused here, with the studio's words, when no such sync exists.
      await studioCall(o, 'GET', `/v1/admin/resources/Sync/${encodeURIComponent(name)}`);
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
      writerOf(cmd)(`started ${runKey(message)}; see it with: eventbus sync runs ${name}\n`);
    });
  registerHistory(sync, {
    description: "List a sync's finished runs, newest first",
    what: 'the sync',
    defaultLimit: 20,
    query: (
      plan,
    ) => `SELECT run_id, trigger, status, rows_planned, rows_sent, rows_removed, chunks, started_at, finished_at
FROM \`${plan.ops.dataset}.${OPS_TABLES.syncRuns}\` WHERE sync = @name ORDER BY finished_at DESC LIMIT @limit`,
  });
}
