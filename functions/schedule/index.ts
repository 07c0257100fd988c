/**
 * Entry point of the `schedule` function (functions-framework `http` target `schedule`), pushed
 * from `ticks-schedule` (a tick a minute from Cloud Scheduler; locally from the supervisor) and
 * `runs-schedule` (one run message per chunk). Configuration is read once at cold start (one
 * readFunctionConfig call, passed down); the clients load in the background right after the
 * module (no top-level await: bundled as CommonJS).
 */

import type { BigQuery } from '@google-cloud/bigquery';
import { http } from '@google-cloud/functions-framework';
import type { PubSub } from '@google-cloud/pubsub';
import type { Bucket, Storage } from '@google-cloud/storage';
import { type PullSource, pubSubPullSource } from '../../adapters/backlog.ts';
import { bigQueryInsertAll } from '../../adapters/bigquery-writer.ts';
import { createOnly } from '../../adapters/create-only.ts';
import { createDeliveriesPublisher, deliveriesRoute, toTopic } from '../../adapters/deliveries-publisher.ts';
import { createEgressSender, type EgressSender } from '../../adapters/egress.ts';
import { createAccessTokens, tokenEgress } from '../../adapters/google-oauth.ts';
import {
  createLedgerBigQueryWriter,
  createLedgerWriter,
  LEDGER_TABLE,
} from '../../adapters/ledger-writer.ts';
import { loadOnce, warmInBackground } from '../../adapters/load-once.ts';
import { LockStore } from '../../adapters/locks.ts';
import { redactProcessOutput } from '../../adapters/log-redaction.ts';
import { RegistryClient, RegistryReader } from '../../adapters/registry.ts';
import { ReplayStore } from '../../adapters/replays.ts';
import { createSecrets } from '../../adapters/secrets.ts';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { sliceTableMaker } from '../../adapters/slice-table.ts';
import {
  assertSingleSelect,
  DEFAULT_MAX_BYTES_BILLED,
  plainValue,
  selectOnly,
} from '../../adapters/user-sql.ts';
import type { AlertState } from '../../core/alerts/alerts.ts';
import { alertQuery } from '../../core/alerts/alerts.ts';
import { type DefinitionSpec, definedEvent, parseStamp } from '../../core/definitions/defined-events.ts';
import { SESSION_TABLES } from '../../core/models/sessions.ts';
import { ACTIONS_TOPIC, deliveriesTopology, RUNS_TOPIC, registryBucketName } from '../../core/plan.ts';
import { heldMembersSql } from '../../core/privacy/platform-erasure.ts';
import type { RuleVersion } from '../../core/rules/rules.ts';
import { readFunctionConfig } from '../../core/runtime-config.ts';
import { runKey } from '../../core/scheduler/dispatch.ts';
import { syncTables } from '../../core/syncs/sync-sql.ts';
import { PLATFORM_DIAGNOSTICS_TABLE } from '../../core/warehouse/platform-diagnostics.ts';
import { PRIVACY_TABLES } from '../../core/warehouse/privacy-audit.ts';
import { reconciliationRangeSql } from '../../core/warehouse/reconciliation.ts';
import { OPS_TABLES, TABLES, tableRef } from '../../core/warehouse/warehouse.ts';
import type { RuleSpec } from '../../schemas/rule.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import type { ActionDeps } from './actions.ts';
import { type AlertStateRow, alertsJob } from './alerts.ts';
import { apiSunsetJob } from './api-sunset.ts';
import { createPlatformErasure } from './erasure-platforms.ts';
import { erasureRuntime } from './erasure-runtime.ts';
import { erasureJob } from './erasures.ts';
import { googleAdsDiagnosticsJob } from './google-ads-diagnostics.ts';
import { createScheduleHandler, MESSAGE_TYPE_ATTRIBUTE, type ScheduleDeps } from './handler.ts';
import { modelJob } from './models.ts';
import { countsSender, countsWriter, platformCountsJob } from './platform-counts.ts';
import { platformDiagnosticsJob } from './platform-diagnostics.ts';
import { redriveJob } from './redrive.ts';
import { replayJob } from './replays.ts';
import type { Job } from './runner.ts';
import { scheduledRulesJob } from './scheduled-rules.ts';
import { syncJob } from './syncs.ts';

// Every line this function writes leaves through the one redaction (core/privacy/redact-log.ts).
redactProcessOutput();
const config = readFunctionConfig(process.env, readSettingsText);
const secrets = createSecrets({
  env: config.secretEnv,
  secretsDir: config.secretsDir,
  endpoint: config.secretManager,
  project: config.project,
});
/** Every call of the jobs to a platform, a webhook or a connection goes through the egress gate. */
const sender = createEgressSender({ allow: config.egressAllow, component: 'schedule' });
/** OAuth token refreshes (Google's endpoint only) through the same gate. */
const tokens = tokenEgress(config.egressAllow, 'schedule', config.metadataHost);
const timeoutSeconds =
  config.plan.functions.find((f) => f.name === 'schedule')?.sizing.timeout_seconds ?? 300;

/** The actions' dependencies (rules, experimental): registry, once markers, secrets, HTTP, action_runs. */
function actionDeps(
  bucket: Bucket,
  registry: RegistryClient,
  pubsub: PubSub,
  bigquery: BigQuery,
): ActionDeps {
  const versions = new Map<string, Promise<RuleVersion>>();
  const insert = bigQueryInsertAll(bigquery, config.plan.dataset);
  return {
    settings: config.settings,
    readRule: (name, version) => {
      // Versions are immutable: one read per version per instance.
      const key = `${name}@${version}`;
      let v = versions.get(key);
      if (!v) {
        v = registry.readVersion('Rule', name, version).then((r) => ({
          name: r.name,
          version: r.version,
          spec: r.spec as unknown as RuleSpec,
        }));
        v.catch(() => versions.delete(key));
        versions.set(key, v);
      }
      return v;
    },
    claimOnce: async (path, firingId) => {
      const file = bucket.file(path);
      try {
        await file.save(JSON.stringify({ firing_id: firingId }), {
          resumable: false,
          contentType: 'application/json',
          preconditionOpts: { ifGenerationMatch: 0 },
        });
        return 'claimed';
      } catch (err) {
        if ((err as { code?: unknown }).code !== 412) throw err;
        const [bytes] = await file.download();
        return (JSON.parse(bytes.toString('utf8')) as { firing_id?: string }).firing_id === firingId
          ? 'ours'
          : 'taken';
      }
    },
    secret: (name) => secrets.get(name),
    send: sender,
    publish: async (topic, body, attributes) => {
      await pubsub.topic(topic).publishMessage({ data: Buffer.from(JSON.stringify(body)), attributes });
    },
    writeRuns: async (rows) => {
      const refused = await insert(
        TABLES.actionRuns,
        rows.map((r) => ({ insertId: r.insertId, json: r.row as unknown as Record<string, unknown> })),
      );
      if (refused.length > 0) throw new Error(`action_runs refused a row: ${refused[0]?.message}`);
    },
  };
}

/** Scheduled rules: their queries run as people's SQL (a single SELECT, under the bytes cap). */
function scheduledRules(reader: RegistryReader, pubsub: PubSub, bigquery: BigQuery): Job {
  const actions = createDeliveriesPublisher(pubsub, toTopic(ACTIONS_TOPIC));
  const maxBytes = config.settings.warehouse?.max_bytes_billed ?? DEFAULT_MAX_BYTES_BILLED;
  return scheduledRulesJob({
    rules: () => reader.current('Rule'),
    query: async (sql, maxRows) => {
      const rows = await selectOnly(
        bigquery,
        {
          query: sql,
          useLegacySql: false,
          maxResults: maxRows,
          defaultDataset: { datasetId: config.plan.dataset },
        },
        maxBytes,
      );
      return rows.slice(0, maxRows).map((r) => plainValue(r) as Record<string, unknown>);
    },
    publish: (messages) => actions.publish(messages),
    log: (entry) => console.log(JSON.stringify({ component: 'schedule', ...entry })),
  });
}

/** tabledata.list of an ops table (no query, nothing billed): a page of plain rows. */
const opsPage =
  (bigquery: BigQuery) =>
  async (table: string, startIndex: number, maxResults: number): Promise<Record<string, unknown>[]> => {
    const [rows] = await bigquery
      .dataset(config.plan.ops.dataset)
      .table(table)
      .getRows({ startIndex: String(startIndex), maxResults, autoPaginate: false });
    return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
  };

/** Syncs (reverse ETL): their SQL runs under the bytes cap, their state lives in the ops dataset. */
function syncs(reader: RegistryReader, pubsub: PubSub, bigquery: BigQuery, storage: Storage): Job {
  const maxBytes = config.settings.warehouse?.max_bytes_billed ?? DEFAULT_MAX_BYTES_BILLED;
  const defaults = { useLegacySql: false, defaultDataset: { datasetId: config.plan.dataset } };
  const insert = bigQueryInsertAll(bigquery, config.plan.ops.dataset);
  return syncJob({
    settings: config.settings,
    ops: config.plan.ops.dataset,
    syncs: (fresh) => (fresh ? reader.fresh('Sync') : reader.current('Sync')),
    secret: (name) => secrets.get(name),
    send: sender,
    accessToken: createAccessTokens(tokens),
    assertSelect: (sql) => assertSingleSelect(bigquery, { ...defaults, query: sql }),
    run: async (sql) => {
      const [rows] = await bigquery.query({ ...defaults, query: sql, maximumBytesBilled: String(maxBytes) });
      return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
    },
    page: opsPage(bigquery),
    // A files sync's part, created only if absent, with Storage Object Creator on the
    // connection's bucket: a part re-sent after a crash finds its first write (adapters/create-only.ts).
    writeFile: (bucketName, path, body, contentType) =>
      createOnly(storage.bucket(bucketName), path, body, contentType),
    publish: async (topic, body, attributes) => {
      await pubsub.topic(topic).publishMessage({ data: Buffer.from(JSON.stringify(body)), attributes });
    },
    writeRun: async (row, insertId) => {
      const refused = await insert(OPS_TABLES.syncRuns, [{ insertId, json: row }]);
      if (refused.length > 0) throw new Error(`sync_runs refused the run's row: ${refused[0]?.message}`);
    },
    writeFailedRows: async (rows) => {
      const refused = await insert(
        OPS_TABLES.syncFailedRows,
        rows.map((r) => ({ insertId: r.insertId, json: r.row })),
      );
      if (refused.length > 0) throw new Error(`sync_failed_rows refused a row: ${refused[0]?.message}`);
    },
    log: (entry) => console.log(JSON.stringify({ component: 'schedule', ...entry })),
  });
}

/**
 * Alerts: each condition's one-row query under the bytes cap; the incident state is the newest
 * row of the ops table `alert_states`.
 */
function alerts(reader: RegistryReader, bigquery: BigQuery): Job {
  const maxBytes = String(config.settings.warehouse?.max_bytes_billed ?? DEFAULT_MAX_BYTES_BILLED);
  const ref = (dataset: string, table: string) => tableRef(config.project, dataset, table);
  const tables = {
    events: ref(config.plan.dataset, TABLES.events),
    invalidEvents: ref(config.plan.dataset, TABLES.invalidEvents),
    deliveries: ref(config.plan.dataset, TABLES.deliveries),
    erasures: ref(config.plan.ops.dataset, PRIVACY_TABLES.erasures),
    // The view's range form: an evaluation reads its days' partitions only.
    reconciliation: (range: { readonly from: string; readonly to: string }) =>
      `(\n${reconciliationRangeSql(config.settings, (name) => ref(config.plan.dataset, name), range).days}\n) AS reconciliation`,
  };
  const states = ref(config.plan.ops.dataset, OPS_TABLES.alertStates);
  const insert = bigQueryInsertAll(bigquery, config.plan.ops.dataset);
  const run = async (query: string, params: Record<string, string>) => {
    const [rows] = await bigquery.query({ query, params, useLegacySql: false, maximumBytesBilled: maxBytes });
    return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
  };
  return alertsJob({
    settings: config.settings,
    alerts: (fresh) => (fresh ? reader.fresh('Alert') : reader.current('Alert')),
    sql: (spec, now) => alertQuery(spec.condition, now, tables),
    query: async (q) => (await run(q.sql, { ...q.params }))[0] ?? {},
    readState: async (alert) => {
      const [row] = await run(
        `SELECT status, incident, clear_streak FROM ${states} WHERE alert = @alert ORDER BY evaluated_at DESC, recorded_at DESC LIMIT 1`,
        { alert },
      );
      if (!row) return undefined;
      return {
        status: row['status'] === 'firing' ? 'firing' : 'ok',
        incident: typeof row['incident'] === 'string' ? row['incident'] : null,
        clear_streak: Number(row['clear_streak'] ?? 0),
      } satisfies AlertState;
    },
    writeState: async (row: AlertStateRow, insertId) => {
      const refused = await insert(OPS_TABLES.alertStates, [{ insertId, json: { ...row } }]);
      if (refused.length > 0) throw new Error(`alert_states refused a row: ${refused[0]?.message}`);
    },
    secret: (name) => secrets.get(name),
    send: sender,
    log: (entry) => console.log(JSON.stringify({ component: 'schedule', ...entry })),
  });
}

/**
 * The console's replays: dead letters re-published, warehouse slices re-sent through the decision
 * layer, with the CLI's code; a slice is kept in the ops dataset while it is paged out.
 */
function replays(
  registry: RegistryClient,
  bucket: Bucket,
  bigquery: BigQuery,
  source: () => Promise<PullSource>,
  deliveries: ReturnType<typeof createDeliveriesPublisher>,
): Job {
  const maxBytes = String(config.settings.warehouse?.max_bytes_billed ?? DEFAULT_MAX_BYTES_BILLED);
  const store = new ReplayStore(bucket);
  const ledger = createLedgerWriter(createLedgerBigQueryWriter(bigquery, config.plan.dataset));
  return replayJob({
    settings: config.settings,
    project: config.project,
    dataset: config.plan.dataset,
    ops: config.plan.ops.dataset,
    pending: (now) => store.pending(now),
    read: (id) => store.read(id),
    finish: (record) => store.write(record),
    source,
    publish: (messages) => deliveries.publish(messages),
    writeLedger: (entries) => ledger.write(entries),
    assertSelect: (sql, params) => assertSingleSelect(bigquery, { query: sql, params, useLegacySql: false }),
    run: async (sql, params, types) => {
      const [rows] = await bigquery.query({
        query: sql,
        ...(params ? { params } : {}),
        ...(types ? { types } : {}),
        useLegacySql: false,
        maximumBytesBilled: maxBytes,
      });
      return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
    },
    page: opsPage(bigquery),
    createSlice: sliceTableMaker(bigquery, { dataset: config.plan.dataset, ops: config.plan.ops.dataset }),
    definition: async (stamp) => {
      const parsed = parseStamp(stamp);
      if (!parsed) return undefined;
      const doc = await registry
        .readVersion('EventDefinition', parsed.name, parsed.version)
        .catch(() => undefined);
      return doc ? definedEvent(parsed.name, parsed.version, doc.spec as DefinitionSpec) : undefined;
    },
  });
}

/** Erasures (docs/privacy.md): pending requests in the registry bucket, run pass after pass. */
function erasures(reader: RegistryReader, bucket: Bucket, bigquery: BigQuery): Job {
  return erasureJob({
    ...erasureRuntime({ bigquery, bucket, dataset: config.plan.dataset }),
    options: async () => {
      const syncs = await reader.current('Sync');
      return {
        project: config.project,
        dataset: config.plan.dataset,
        ops: config.plan.ops.dataset,
        identityGraph: config.plan.tables.some((t) => t.name === SESSION_TABLES.identityMap),
        actionRuns: config.settings.experimental?.rules === true,
        syncs: [...syncs.resources.values()].map((r) => {
          const spec = r.spec as unknown as SyncSpec;
          return { name: r.name, model: spec.model, primary_key: spec.primary_key };
        }),
      };
    },
    // Platforms with a deletion API are told once per request (core/privacy/platform-erasure.ts).
    notify: createPlatformErasure({
      settings: config.settings,
      syncs: (fresh) => (fresh ? reader.fresh('Sync') : reader.current('Sync')),
      secret: (name) => secrets.get(name),
      send: sender,
      accessToken: createAccessTokens(tokens),
      heldMembers: async (sync, hashes) => {
        const [rows] = await bigquery.query({
          query: heldMembersSql(syncTables(config.plan.ops.dataset, sync).state),
          params: { hashes: [...hashes] },
          types: { hashes: ['STRING'] },
          useLegacySql: false,
        });
        return (rows as { __row?: unknown }[]).flatMap((r) => (typeof r.__row === 'string' ? [r.__row] : []));
      },
    }),
    log: (entry) => console.log(JSON.stringify({ component: 'schedule', ...entry })),
  });
}

async function loadDeps(): Promise<ScheduleDeps> {
  const [{ BigQuery }, { PubSub }, { Storage }] = await Promise.all([
    import('@google-cloud/bigquery'),
    import('@google-cloud/pubsub'),
    import('@google-cloud/storage'),
  ]);
  const bigquery = new BigQuery({ projectId: config.project });
  const pubsub = new PubSub({ projectId: config.project });
  const storage = new Storage({ projectId: config.project });
  const bucket = storage.bucket(registryBucketName(config.project, config.plan.environment));
  // One registry client and one reader (a copy per kind) for every job of this instance.
  const registry = new RegistryClient(bucket);
  const reader = new RegistryReader(registry);
  const runs = createDeliveriesPublisher(pubsub, toTopic(RUNS_TOPIC));
  const deliveries = createDeliveriesPublisher(pubsub, deliveriesRoute(deliveriesTopology(config.settings)));
  const source = loadOnce(() => pubSubPullSource(pubsub, config.project));
  return {
    ...(config.settings.experimental?.rules
      ? { actions: actionDeps(bucket, registry, pubsub, bigquery) }
      : {}),
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
      ...(config.settings.experimental?.rules ? [scheduledRules(reader, pubsub, bigquery)] : []),
      syncs(reader, pubsub, bigquery, storage),
      alerts(reader, bigquery),
      erasures(reader, bucket, bigquery),
      apiSunsetJob({ settings: config.settings, log: (entry) => console.log(JSON.stringify(entry)) }),
      replays(registry, bucket, bigquery, async () => source(), deliveries),
      modelJob({
        settings: config.settings,
        query: async (sql, params, types) => {
          const [rows] = await bigquery.query({ query: sql, params, types, useLegacySql: false });
          return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
        },
      }),
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
      googleAdsDiagnostics(bigquery),
      platformDiagnostics(bigquery),
      platformCounts(bigquery),
    ],
  };
}

/** Google Ads' later diagnostics of accepted conversions, written to the ledger (google-ads-diagnostics.ts). */
function googleAdsDiagnostics(bigquery: BigQuery): Job {
  const ledger = createLedgerWriter(createLedgerBigQueryWriter(bigquery, config.plan.dataset));
  return googleAdsDiagnosticsJob({
    settings: config.settings,
    project: config.project,
    dataset: config.plan.dataset,
    ledgerTable: LEDGER_TABLE,
    query: async (sql, params) => {
      const [rows] = await bigquery.query({ query: sql, params, useLegacySql: false });
      return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
    },
    secret: async (name) => secrets.get(name),
    accessToken: createAccessTokens(tokens),
    get: (url, headers) => gatedGet(sender, url, headers),
    writeLedger: async (entries) => {
      const refused = await ledger.write(entries);
      if (refused.length > 0)
        throw new Error(`deliveries refused a diagnosis row: ${JSON.stringify(refused[0])}`);
    },
  });
}

/** What platforms report per dataset (Meta's dataset quality), into the ops dataset (platform-diagnostics.ts). */
function platformDiagnostics(bigquery: BigQuery): Job {
  const insert = bigQueryInsertAll(bigquery, config.plan.ops.dataset);
  return platformDiagnosticsJob({
    settings: config.settings,
    project: config.project,
    ops: config.plan.ops.dataset,
    query: async (sql, params) => {
      const [rows] = await bigquery.query({ query: sql, params, useLegacySql: false });
      return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
    },
    secret: async (name) => secrets.get(name),
    get: (url) => gatedGet(sender, url),
    write: async (rows) => {
      const refused = await insert(
        PLATFORM_DIAGNOSTICS_TABLE,
        rows.map((r) => ({ insertId: r.insertId, json: { ...r.row } })),
      );
      if (refused.length > 0) throw new Error(`platform_diagnostics refused a row: ${refused[0]?.message}`);
    },
    log: (entry) => console.log(JSON.stringify(entry)),
  });
}

/** What the platforms counted, into the events dataset (platform-counts.ts). */
function platformCounts(bigquery: BigQuery): Job {
  const insert = bigQueryInsertAll(bigquery, config.plan.dataset);
  return platformCountsJob({
    settings: config.settings,
    secret: async (name) => secrets.get(name),
    accessToken: createAccessTokens(tokens),
    send: countsSender(sender),
    write: countsWriter(insert),
    log: (entry) => console.log(JSON.stringify(entry)),
  });
}

/** A diagnostics GET through the gate; a refusal or a network failure throws, as fetch's did. */
async function gatedGet(
  send: EgressSender,
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const res = await send(
    { method: 'GET', url, redactedUrl: `${u.origin}${u.pathname}`, headers, body: '' },
    10_000,
  );
  if (res.kind === 'refused') throw new Error(res.reason);
  if (res.kind === 'network_error') throw new Error(res.message);
  return { status: res.status, body: res.body };
}

const deps = loadOnce(loadDeps);
warmInBackground(deps);

http('schedule', createScheduleHandler(deps));
