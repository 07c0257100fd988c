/**
 * Entry point of the `forward` function (functions-framework target `forward`, an `http`
 * function pushed from each `deliveries-<id>` subscription). Reads its configuration once at
 * cold start (one readFunctionConfig call, passed down); clients load in the background right after the module. No top-level await (bundled as
 * CommonJS for Cloud Functions).
 */

import { http } from '@google-cloud/functions-framework';
import { registryReaders } from '../../adapters/definitions.ts';
import { deliveryServices } from '../../adapters/delivery-services.ts';
import { tracedSend } from '../../adapters/delivery-tracing.ts';
import { drainOnStop } from '../../adapters/drain.ts';
import { createEgressSender } from '../../adapters/egress.ts';
import { createAccessTokens, tokenEgress } from '../../adapters/google-oauth.ts';
import { loadOnce, warmInBackground } from '../../adapters/load-once.ts';
import { redactProcessOutput } from '../../adapters/log-redaction.ts';
import { exitAfterFlush, flushBeforeAnswer, setupProcessMetrics } from '../../adapters/metrics.ts';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { registryErasedList } from '../../adapters/suppression-list.ts';
import { setupProcessTracing } from '../../adapters/tracing.ts';
import { andThen } from '../../core/maybe-async.ts';
import { registryBucketName } from '../../core/plan.ts';
import { readFunctionConfig } from '../../core/runtime-config.ts';
import { createForwardHandler, type ForwardServices } from './handler.ts';

/** The function's configuration: the one read of the process environment (functions/serve.ts listens by it). */
// Every line this function writes leaves through the one redaction (core/privacy/redact-log.ts).
redactProcessOutput();
export const config = readFunctionConfig(process.env, readSettingsText);
// Once per process, before the first push (docs/observability.md).
const tracing = setupProcessTracing(config, 'forward');
// Its delivery metrics, to the same OTLP endpoint (adapters/metrics.ts).
const metrics = setupProcessMetrics(config, 'forward');

/** The delivery services, then forward's own: its sender, OAuth tokens and definitions. A failed load is retried on the next push. */
async function loadServices(): Promise<ForwardServices> {
  return {
    ...(await deliveryServices(config, 'forward', erased)),
    send: tracedSend(createEgressSender({ allow: config.egressAllow, component: 'forward' })),
    accessToken: createAccessTokens(tokenEgress(config.egressAllow, 'forward', config.metadataHost)),
    definitionFor: (stamp) => andThen(definitions.get(stamp), (d) => d.exact(stamp)),
  };
}

/** Defined events' mappings, read by the version each event was stored with (immutable). */
const definitions = registryReaders(
  config.project,
  registryBucketName(config.project, config.plan.environment),
).definitions;

/** The erased persons' list (docs/privacy.md), in the registry bucket; read before the first push. */
const erased = registryErasedList(config, 'forward');

// The clients load right after the module, in the background (not inside the bundle's load,
// and not on the first push, which used to wait for them along with every push behind it).
const services = loadOnce(loadServices);
warmInBackground(services);

// A push waits for the erased list only when it is older than its refresh time (adapters/suppression-list.ts).
// A SIGTERM lets the pushes in flight finish, their ledger rows included (adapters/drain.ts).
http(
  'forward',
  drainOnStop(
    createForwardHandler(config, () => andThen(erased.ready(), () => services())),
    {
      component: 'forward',
      exit: exitAfterFlush([metrics, tracing]),
      beforeAnswer: flushBeforeAnswer(tracing, metrics),
    },
  ),
);
