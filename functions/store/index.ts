/**
 * Entry point of the `store` function (functions-framework `http` target `store`), pushed
 * from each events topic's `<topic>-store` subscription. Thin: configuration is read once, at
 * cold start, by one readFunctionConfig call whose frozen value every part below is given; the
 * BigQuery client loads in the background right after (no top-level await: the bundle is CommonJS).
 */

import { http, type Request, type Response } from '@google-cloud/functions-framework';
import type { BatchingOptions } from '../../adapters/bigquery-writer.ts';
import { registryReaders } from '../../adapters/definitions.ts';
import {
  createWireDeliveriesPublisher,
  deliveriesRoute,
  toTopic,
} from '../../adapters/deliveries-publisher.ts';
import { drainOnStop } from '../../adapters/drain.ts';
import { loadEnricher } from '../../adapters/enrichment.ts';
import { environmentClaims } from '../../adapters/environment-claims.ts';
import { GEO_OBJECT } from '../../adapters/geo-database.ts';
import { createIdentityClaims } from '../../adapters/identity-claims.ts';
import { loadOnce, warmInBackground } from '../../adapters/load-once.ts';
import { redactProcessOutput } from '../../adapters/log-redaction.ts';
import { exitAfterFlush, flushBeforeAnswer } from '../../adapters/metrics.ts';
import { createPublisher } from '../../adapters/publisher.ts';
import { createRuleFirings } from '../../adapters/rule-firings.ts';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { createSkipCheck, skippedRowsQuery } from '../../adapters/skip-check.ts';
import { createStoreFanOut } from '../../adapters/store-fan-out.ts';
import { createStoredCheck, eventsStoredQuery } from '../../adapters/stored-check.ts';
import { erasedList } from '../../adapters/suppression-list.ts';
import { setupProcessTracing } from '../../adapters/tracing.ts';
import type { ClaimStore } from '../../core/claims/claim-store.ts';
import { CATALOGUE_OPTIONS } from '../../core/decision/decision.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import { andThen } from '../../core/maybe-async.ts';
import { ACTIONS_TOPIC, deliveriesTopology, registryBucketName } from '../../core/plan.ts';
import { type FunctionConfig, readFunctionConfig } from '../../core/runtime-config.ts';
import { type AfterStored, storeConfig } from '../../core/store/store.ts';
import type { RowWriter } from '../../core/warehouse/rows.ts';
import { TABLES } from '../../core/warehouse/warehouse.ts';
import { createStoreHandler, guardHooks } from './handler.ts';

/** The function's configuration: the one read of the process environment (functions/serve.ts listens by it). */
// Every line this function writes leaves through the one redaction (core/privacy/redact-log.ts).
redactProcessOutput();
export const runtime = readFunctionConfig(process.env, readSettingsText);
// Once per process, before the first push (docs/observability.md).
const tracing = setupProcessTracing(runtime, 'store');
/**
 * The registry bucket. The enrichment step's data (referrer list, geography database) is read
 * once at cold start; a newer country database uploaded there (`eventbus geo update`) replaces the
 * bundled one within minutes (adapters/geo-database.ts). It also holds the first sightings of
 * events whose time the server stamped (adapters/identity-claims.ts). The Cloud Storage client is
 * loaded by the first use, after the cold start.
 */
const registryBucket = loadOnce(async () => {
  const { Storage } = await import('@google-cloud/storage');
  return new Storage({ projectId: runtime.project }).bucket(
    registryBucketName(runtime.project, runtime.plan.environment),
  );
});
const enrich = loadEnricher(runtime.settings, {
  object: async (generation) =>
    (await registryBucket()).file(GEO_OBJECT, generation === undefined ? {} : { generation }),
  log: (message) => console.log(JSON.stringify({ severity: 'INFO', message, component: 'store' })),
});

/**
 * The erased persons' list (docs/privacy.md "After an erasure"): read before the first event is
 * handled, then kept fresh in the background.
 */
const suppression = erasedList(runtime, registryBucket, 'store');

/** Optional tuning of the micro-batch window (milliseconds); the default suits most loads. */
const batching: BatchingOptions =
  runtime.storeBatchMs !== undefined ? { windowMs: runtime.storeBatchMs } : {};

/**
 * After the rows are written: the decision layer fans out to the destinations (one
 * `deliveries` message per permitted destination, a `skipped` ledger row per refusal).
 * A throw here answers non-2xx, so the push is redelivered (storage stays idempotent).
 */
function fanOutHook(
  runtime: FunctionConfig,
  writer: RowWriter,
  definitions: Definitions,
  claims: ClaimStore,
  skipRecorded: (entry: LedgerEntry, since: number) => Promise<boolean>,
): AfterStored | undefined {
  if ((runtime.settings.destinations ?? []).length === 0) return undefined;
  // The publisher's client loads in the background at cold start (warm): a first fan-out that
  // waited for it held every push of the first second or two. A bus that does not acknowledge
  // within 10 s fails the push, which Pub/Sub redelivers.
  const publisher = createPublisher({
    project: runtime.project,
    totalTimeoutMs: 10_000,
    ...(runtime.pubsubEmulatorHost ? { emulatorHost: runtime.pubsubEmulatorHost } : {}),
  });
  publisher.warm?.().catch(() => {}); // a failed load is tried again by the first publish
  const deliveries = createWireDeliveriesPublisher(
    publisher,
    deliveriesRoute(deliveriesTopology(runtime.settings)),
  );
  return createStoreFanOut({
    settings: runtime.settings,
    publish: (messages) => deliveries.publish(messages),
    rows: writer,
    // Events decided before the consent platform answered wait there for its answer; an erased
    // person's leave the record at its next read (core/delivery/consent-wait.ts).
    claims,
    suppression: () => suppression.current(),
    // A message back after its row was stored asks the ledger before writing its skip rows again.
    skipRecorded,
    options: {
      ...CATALOGUE_OPTIONS,
      // The handler loaded the event's definition version before storing it.
      definitionMaps: (stamp, type) => definitions.peek(stamp)?.spec.mappings?.[type] !== undefined,
    },
  });
}

/**
 * Rules (experimental): the stored events are matched against the registry's event rules and
 * each firing is published on `actions`. The registry's reader answers from its copy and
 * refreshes it in the background (adapters/registry.ts); with no copy at all the push answers
 * non-2xx and comes back.
 */
function rulesHook(runtime: FunctionConfig): AfterStored | undefined {
  if (!runtime.settings.experimental?.rules) return undefined;
  const loaded = loadOnce(async () => {
    const [{ PubSub }, { Storage }, { RegistryClient, RegistryReader }, { createDeliveriesPublisher }] =
      await Promise.all([
        import('@google-cloud/pubsub'),
        import('@google-cloud/storage'),
        import('../../adapters/registry.ts'),
        import('../../adapters/deliveries-publisher.ts'),
      ]);
    const bucket = new Storage({ projectId: runtime.project }).bucket(
      registryBucketName(runtime.project, runtime.plan.environment),
    );
    const reader = new RegistryReader(new RegistryClient(bucket));
    const actions = createDeliveriesPublisher(
      new PubSub({ projectId: runtime.project }),
      toTopic(ACTIONS_TOPIC),
    );
    return createRuleFirings({ rules: () => reader.current('Rule'), publish: (m) => actions.publish(m) });
  });
  warmInBackground(loaded);
  return async (events, messages) => {
    const hook = await loaded();
    return hook(events, messages);
  };
}

/**
 * Both hooks, in parallel and each guarded (handler.ts, guardHooks): the push is answered once
 * both are done; a failure no redelivery can fix is recorded in hook_failures and acknowledged.
 */
function afterStoredHook(
  runtime: FunctionConfig,
  writer: RowWriter,
  definitions: Definitions,
  claims: ClaimStore,
  skipRecorded: (entry: LedgerEntry, since: number) => Promise<boolean>,
): AfterStored | undefined {
  const fanOut = fanOutHook(runtime, writer, definitions, claims, skipRecorded);
  const rules = rulesHook(runtime);
  return guardHooks(
    [
      ...(fanOut ? [{ name: 'fan_out' as const, run: fanOut }] : []),
      ...(rules ? [{ name: 'rules' as const, run: rules }] : []),
    ],
    { writer },
  );
}

/** The registry's event definitions (the Cloud Storage client loads in the background). */
const definitions = registryReaders(
  runtime.project,
  registryBucketName(runtime.project, runtime.plan.environment),
).definitions;
type Definitions = typeof definitions;

type Handler = (req: Request, res: Response) => Promise<void> | undefined;

async function init(): Promise<Handler> {
  const [{ BigQuery }, { createWriteApiWriter }] = await Promise.all([
    import('@google-cloud/bigquery'),
    import('../../adapters/bigquery-write-api.ts'),
  ]);
  // No retries inside the client or the insertAll: waiting only delays the non-2xx that lets
  // Pub/Sub redeliver with the subscription's backoff, which is the retry we configure and observe.
  const bigquery = new BigQuery({ projectId: runtime.project, autoRetry: false });
  // Rows go through the Storage Write API's default streams (adapters/bigquery-write-api.ts): one
  // attempt, as before; the identity claims make a crash's redelivery one row (docs/storage.md).
  const writer = createWriteApiWriter(bigquery, runtime.plan.dataset, batching);
  // `events`' connection opens with the erased list, not on the first push (the client's load and
  // GetWriteStream: ~0.3–2 s every push of a cold instance waited for). A warehouse away is a
  // warning here; the first write tries again and fails its push.
  await Promise.all([
    suppression.ready(),
    writer.open(TABLES.events).catch((err: unknown) =>
      console.log(
        JSON.stringify({
          severity: 'WARNING',
          message: `the events table's connection could not be opened ahead of the first push: ${(err as Error).message}`,
          component: 'store',
        }),
      ),
    ),
  ]);
  // The claims database: first sightings, and the events waiting for a consent platform's answer.
  const claims = environmentClaims(runtime);
  const warn = (message: string) =>
    console.log(JSON.stringify({ severity: 'WARNING', message, component: 'store' }));
  const skipRecorded = createSkipCheck(skippedRowsQuery(bigquery, runtime.plan.dataset), { log: warn });
  const afterStored = afterStoredHook(runtime, writer, definitions, claims, skipRecorded);
  return createStoreHandler({
    config: {
      ...storeConfig(runtime.settings, runtime.plan),
      ...(enrich ? { enrich } : {}),
      suppression: () => suppression.current(),
    },
    writer,
    ...(afterStored ? { afterStored } : {}),
    definitions,
    alreadyStored: createStoredCheck(eventsStoredQuery(bigquery, runtime.plan.dataset), { log: warn }),
    // The first sighting of every event (a claim in the claims database, core/claims/claim-store.ts).
    claim: createIdentityClaims(claims),
  });
}

// The clients load right after the module (not inside the bundle's load, and not on the first
// push): a push that arrives meanwhile waits for the same load, later ones find it done.
const handler = loadOnce(init);
warmInBackground(handler);

// Once loaded, a push runs the handler directly: no async wrapper (each promise in the
// framework's per-request domain costs CPU, see handler.ts).
// A push waits for the erased list only when it is older than its refresh time (adapters/suppression-list.ts).
// A SIGTERM lets the pushes in flight finish their writes (adapters/drain.ts).
http(
  'store',
  drainOnStop(
    (req, res) => andThen(handler(), (ready) => andThen(suppression.ready(), () => ready(req, res))),
    {
      component: 'store',
      exit: exitAfterFlush(tracing),
      beforeAnswer: flushBeforeAnswer(tracing, undefined),
    },
  ),
);
