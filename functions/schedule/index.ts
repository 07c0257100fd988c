/**
 * Entry point of the `schedule` function (functions-framework `http` target `schedule`), pushed
 * from `ticks-schedule` (a tick a minute from Cloud Scheduler; locally from the supervisor) and
 * `runs-schedule` (one run message per chunk). Configuration is read once at cold start; the
 * clients load in the background right after the module (no top-level await: bundled as CommonJS).
 */
import { http } from '@google-cloud/functions-framework';
import { pubSubPullSource } from '../../adapters/backlog.ts';
import { createDeliveriesPublisher, DELIVERIES_TOPIC } from '../../adapters/deliveries-publisher.ts';
import { LEDGER_TABLE } from '../../adapters/ledger-writer.ts';
import { loadOnce, warmInBackground } from '../../adapters/load-once.ts';
import { LockStore } from '../../adapters/locks.ts';
import { RUNS_TOPIC, registryBucketName } from '../../core/plan.ts';
import { readRuntimeConfig } from '../../core/runtime-config.ts';
import { runKey } from '../../core/scheduler.ts';
import { createScheduleHandler, MESSAGE_TYPE_ATTRIBUTE } from './handler.ts';
import { redriveJob } from './redrive.ts';
import type { RunnerDeps } from './runner.ts';

const config = readRuntimeConfig(process.env);
const timeoutSeconds =
  config.plan.functions.find((f) => f.name === 'schedule')?.sizing.timeout_seconds ?? 300;

async function loadDeps(): Promise<RunnerDeps> {
  const [{ BigQuery }, { PubSub }, { Storage }] = await Promise.all([
    import('@google-cloud/bigquery'),
    import('@google-cloud/pubsub'),
    import('@google-cloud/storage'),
  ]);
  const bigquery = new BigQuery({ projectId: config.project });
  const pubsub = new PubSub({ projectId: config.project });
  const bucket = new Storage({ projectId: config.project }).bucket(
    registryBucketName(config.project, config.plan.environment),
  );
  const runs = createDeliveriesPublisher(pubsub, RUNS_TOPIC);
  const deliveries = createDeliveriesPublisher(pubsub, DELIVERIES_TOPIC);
  const source = loadOnce(() => pubSubPullSource(pubsub, config.project));
  return {
    locks: new LockStore(bucket),
    // A lease outlives the function's timeout, so a chunk still running is never taken over.
    leaseMs: (timeoutSeconds + 60) * 1000,
    publish: async (messages) => {
      await runs.publish(
        messages.map((m) => ({
          data: JSON.stringify(m),
          attributes: { [MESSAGE_TYPE_ATTRIBUTE]: 'run', kind: m.kind, name: m.name, run: runKey(m) },
        })),
      );
    },
    log: (entry) => console.log(JSON.stringify({ component: 'schedule', ...entry })),
    jobs: [
      redriveJob({
        settings: config.settings,
        project: config.project,
        dataset: config.plan.dataset,
        ledgerTable: LEDGER_TABLE,
        query: async (sql, params) => {
          const [rows] = await bigquery.query({ query: sql, params, useLegacySql: false });
          return rows as Record<string, unknown>[];
        },
        source: async () => source(),
        publish: (messages) => deliveries.publish(messages),
      }),
    ],
  };
}

const deps = loadOnce(loadDeps);
warmInBackground(deps);

http('schedule', createScheduleHandler(deps));
