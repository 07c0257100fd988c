/**
 * Entry point: `node gateway/main.ts` (npm start runs it through the supervisor on 8080; Cloud
 * Run runs its bundle). Reads env once, wires the real adapters, listens on 127.0.0.1 unless
 * HOST says otherwise, and stops cleanly on SIGTERM/SIGINT.
 */
import type { AddressInfo } from 'node:net';
import { registryReaders } from '../adapters/definitions.ts';
import { createEgressSender, egressFetch } from '../adapters/egress.ts';
import { redactProcessOutput } from '../adapters/log-redaction.ts';
import { createPublisher } from '../adapters/publisher.ts';
import { createRefusalRecorder, restInsertAll } from '../adapters/refusal-recorder.ts';
import { createSecrets } from '../adapters/secrets.ts';
import { readSettingsText } from '../adapters/settings-file.ts';
import { setupProcessTracing } from '../adapters/tracing.ts';
import { parseAllowList } from '../core/egress/policy.ts';
import { ENV, readRuntimeConfig } from '../core/runtime-config.ts';
import { startCredentialCache } from './auth.ts';
import { createGoogleIdentity } from './google-identity.ts';
import { uuidv7 } from './ids.ts';
import { openapiDocument } from './openapi.ts';
import { createGateway } from './server.ts';
import { certificatesAt } from './signing-certificates.ts';
import { openTokenStore } from './token-store.ts';

/** Starts the gateway from an explicit env; resolves once it listens. */
export async function startGatewayFromEnv(env: Readonly<Record<string, string | undefined>>) {
  const config = readRuntimeConfig(env, readSettingsText);
  // Once per process, before the first request: a trace per request (docs/observability.md).
  const tracing = setupProcessTracing(config, 'gateway');
  const log = (entry: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(entry)}\n`);
  const store = openTokenStore(
    env[ENV.tokenStore] ?? `secret:${config.plan.gateway.tokenSecret}`,
    config.project,
  );
  // Without CPU between requests (plan.gateway.cpuIdle) a timer would not run: re-read on demand.
  const credentials = await startCredentialCache(
    store,
    log,
    Date.now,
    store.onDemandMinMs,
    config.plan.gateway.cpuIdle ? 'on-demand' : 'background',
  );
  const emulatorHost = env[ENV.pubsubEmulatorHost];
  const publisher = createPublisher({
    project: config.project,
    ...(emulatorHost ? { emulatorHost } : {}),
    // Documented in docs/gateway.md; it was never read before.
    ...(env[ENV.publishInFlight] ? { maxInFlight: Number(env[ENV.publishInFlight]) } : {}),
    ...(env[ENV.publishTimeoutMs] ? { totalTimeoutMs: Number(env[ENV.publishTimeoutMs]) } : {}),
    ...(env[ENV.publishHoldMs] && Number(env[ENV.publishHoldMs]) >= 0
      ? { holdMs: Number(env[ENV.publishHoldMs]) }
      : {}),
  });
  const audience = env[ENV.gatewayAudience];
  const bucket = config.plan.buckets.find((b) => b.purpose === 'registry')?.name;
  const maxAgeMs = Number(env[ENV.registryMaxAgeMs]);
  const registry = bucket
    ? registryReaders(config.project, bucket, Number.isFinite(maxAgeMs) && maxAgeMs > 0 ? { maxAgeMs } : {})
    : undefined;
  // Live events: refused requests, sampled, in the ops dataset (docs/console.md#live-events).
  const refusals =
    env[ENV.liveEvents] === 'off'
      ? undefined
      : createRefusalRecorder({
          insertAll: restInsertAll({
            project: config.project,
            dataset: config.plan.ops.dataset,
            emulatorHost: env[ENV.bigqueryEmulatorHost],
          }),
          instance: env[ENV.cloudRunService] ?? 'gateway',
          log,
        });
  const CERTIFICATE_FETCH_MS = 5000;
  const server = createGateway(
    {
      settings: config.settings,
      project: config.project,
      topics: config.plan.gateway.topics,
      trustProxy: env[ENV.cloudRunService] !== undefined || env[ENV.trustProxy] === '1',
      edgeSecret: env[ENV.edgeSecret] || undefined,
      sessionSalt: env[ENV.sessionSalt] || undefined,
      openapi: openapiDocument(),
    },
    {
      publisher,
      credentials,
      google: createGoogleIdentity(audience ? { audience } : {}),
      newId: () => uuidv7(),
      log,
      // Translators' signing secrets, read like destinations' (a secrets dir locally).
      secrets: createSecrets({
        env,
        secretsDir: config.secretsDir,
        endpoint: config.secretManager,
        project: config.project,
      }),
      ...(registry ? { definitions: registry.definitions, translators: registry.translators } : {}),
      ...(refusals ? { refusals } : {}),
      // Signing certificates (SNS's, PayPal's) leave through the egress gate like every other
      // call out: the URL was already pinned to the vendor's hosts, the gate checks the address.
      // EVENTBUS_CERTIFICATE_ORIGIN (unset on Google Cloud) is where they are fetched from.
      fetch: certificatesAt(
        egressFetch(
          createEgressSender({
            allow: parseAllowList(env[ENV.egressAllow], ENV.egressAllow),
            component: 'gateway-certificates',
          }),
          CERTIFICATE_FETCH_MS,
        ),
        env[ENV.certificateOrigin],
      ),
    },
  );
  const port = Number(env[ENV.port] ?? 8080);
  const host = env[ENV.host] ?? (env[ENV.cloudRunService] ? '0.0.0.0' : '127.0.0.1');
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const actual = (server.address() as AddressInfo).port;
  log({
    severity: 'INFO',
    message: `gateway listening on http://${host}:${actual}`,
    tokenStore: store.where,
  });
  // Load the Pub/Sub client now that we listen, so the first publish does not wait for it.
  publisher
    .warm?.()
    .catch((err: unknown) =>
      log({ severity: 'WARNING', message: `Pub/Sub client not loaded yet: ${(err as Error).message}` }),
    );
  const stop = () => {
    server.close();
    server.closeIdleConnections();
    credentials.close();
    // The spans still queued leave too: an instance scaled down keeps its last requests' traces.
    void Promise.all([publisher.close(), refusals?.close(), tracing?.flush()]).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return server;
}

if (import.meta.main) {
  // Every line this process writes leaves through the one redaction (core/privacy/redact-log.ts).
  redactProcessOutput();
  startGatewayFromEnv(process.env).catch((err: unknown) => {
    process.stderr.write(`gateway failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
