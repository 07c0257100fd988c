#!/usr/bin/env node
/**
 * The studio service's entry point (docs/studio.md): reads the runtime settings like the
 * functions do (EVENTBUS_SETTINGS), the registry bucket from plan(), the admin token from
 * EVENTBUS_ADMIN_TOKEN_FILE (created with a random value when missing), and serves on HOST:PORT.
 * Google's Cloud Storage client finds the emulator through STORAGE_EMULATOR_HOST locally.
 * EVENTBUS_IAP_AUDIENCE (set by Pulumi) turns on IAP's signed header as a credential, with the
 * settings' `studio` lists as roles (studio/auth.ts). EVENTBUS_STUDIO_ORIGINS (comma-separated)
 * names more origins whose pages may write, for a proxy that rewrites Host (docs/security.md).
 * Traces are read through Cloud Trace API v1, at CLOUD_TRACE_EMULATOR_HOST when it is set (locally
 * the receiver), else Google's (adapters/trace-reader.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { Storage } from '@google-cloud/storage';
import { loadOnce } from '../adapters/load-once.ts';
import { noteSecret, redactProcessOutput } from '../adapters/log-redaction.ts';
import { RegistryClient } from '../adapters/registry.ts';
import { readSettingsText } from '../adapters/settings-file.ts';
import { createTraceReader } from '../adapters/trace-reader.ts';
import {
  assertSingleSelect,
  DEFAULT_MAX_BYTES_BILLED,
  resourceSqlViolations,
  runQuery,
} from '../adapters/user-sql.ts';
import { ensureDefinitionView } from '../adapters/views.ts';
import { readWarehouseSchema } from '../adapters/warehouse-schema.ts';
import { RUNS_TOPIC } from '../core/plan.ts';
import { ENV, readRuntimeConfig } from '../core/runtime-config.ts';
import { runKey } from '../core/scheduler/dispatch.ts';
import { tableRef, VIEWS } from '../core/warehouse/warehouse.ts';
import { openTokenStore } from '../gateway/token-store.ts';
import { buildAssets } from './assets.ts';
import { iapVerifier } from './auth.ts';
import { startStudio } from './server.ts';

function adminToken(file: string | undefined): string {
  if (!file) throw new Error(`${ENV.adminTokenFile} is not set: it names the file holding the admin token`);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const token = readFileSync(file, 'utf8').trim();
  if (token.length < 16) throw new Error(`${file} holds no usable admin token (at least 16 characters)`);
  noteSecret(token);
  return token;
}

// A function, not top-level await: the deployed bundle is CommonJS (scripts/build-functions.ts).
async function main(): Promise<void> {
  const env = process.env;
  const config = readRuntimeConfig(env, readSettingsText);
  const gatewayUrl = env[ENV.gatewayUrl];
  const iapAudience = env[ENV.iapAudience];
  const bucketName = config.plan.buckets.find((b) => b.purpose === 'registry')?.name;
  if (!bucketName) throw new Error('the plan has no registry bucket');
  const storage = new Storage({ projectId: config.project });
  const bigquery = new BigQuery({ projectId: config.project });
  const dataset = bigquery.dataset(config.plan.dataset);
  // Pub/Sub's client (gRPC and its protos, about 0.15 CPU-s) only for the console's replays:
  // loaded on the first one, not on every start.
  const pubsub = loadOnce(async () => {
    const { PubSub } = await import('@google-cloud/pubsub');
    return new PubSub({ projectId: config.project });
  });
  const studio = await startStudio({
    registry: new RegistryClient(storage.bucket(bucketName)),
    adminToken: adminToken(env[ENV.adminTokenFile]),
    connections: config.settings.connections ?? [],
    assets: await buildAssets(),
    ...(gatewayUrl ? { gatewayUrl } : {}),
    settings: config.settings,
    ...(config.tokenStore ? { tokens: openTokenStore(config.tokenStore, config.project) } : {}),
    warehouse: {
      table: (name) => tableRef(config.project, config.plan.dataset, name),
      query: async (sql, params) => {
        const [rows] = await bigquery.query({ query: sql, params, useLegacySql: false });
        return rows as Record<string, unknown>[];
      },
      select: (sql, maxRows) =>
        runQuery(
          bigquery,
          config.plan,
          sql,
          maxRows,
          config.settings.warehouse?.max_bytes_billed ?? DEFAULT_MAX_BYTES_BILLED,
        ),
      // The events dataset only: the studio's account may read nothing else on GCP (infra/studio.ts).
      schema: () => readWarehouseSchema(bigquery, [config.plan.dataset]),
    },
    // The console's replays: a run message for the scheduler, a slice's SQL checked by a dry run.
    runs: {
      start: async (m) => {
        await (await pubsub()).topic(RUNS_TOPIC).publishMessage({
          data: Buffer.from(JSON.stringify(m)),
          attributes: { type: 'run', kind: m.kind, name: m.name, run: runKey(m) },
        });
      },
    },
    checkSelect: (sql, params) => assertSingleSelect(bigquery, { query: sql, params, useLegacySql: false }),
    // Scheduled rules', syncs' and saved queries' SQL: dry-run at apply.
    checkSql: (items) => resourceSqlViolations(bigquery, config.plan, items),
    warehouseRef: { project: config.project, dataset: config.plan.dataset },
    // The waterfall: the traces the workloads export to this project.
    traces: {
      read: createTraceReader({ endpoint: env[ENV.cloudTraceEmulatorHost] }),
      project: config.project,
    },
    opsTable: (name) => tableRef(config.project, config.plan.ops.dataset, name),
    views: {
      source: tableRef(config.project, config.plan.dataset, VIEWS.eventsDedup),
      ensure: (v) => ensureDefinitionView(dataset, v),
    },
    ...(iapAudience
      ? {
          iap: {
            verify: iapVerifier(iapAudience),
            access: config.settings.studio ?? {},
          },
        }
      : {}),
    origins: (env[ENV.studioOrigins] ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    host: env[ENV.host] ?? '127.0.0.1',
    port: Number(env[ENV.port] ?? 8090),
  });
  const stop = (): void => {
    void studio.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.write(`studio listening on ${studio.url} (registry gs://${bucketName})\n`);
}

// Every line this process writes leaves through the one redaction (core/privacy/redact-log.ts).
redactProcessOutput();
main().catch((err: unknown) => {
  process.stderr.write(`studio: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
