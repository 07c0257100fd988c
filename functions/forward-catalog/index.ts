/**
 * Entry point of the `forward-catalog` function (functions-framework target `forwardCatalog`, an
 * `http` function pushed from each segment_action destination's `deliveries-<id>` subscription;
 * deployed only when such a destination exists: core/deploy/catalog-function.ts). Segment's
 * runtime and the destinations the settings use load with the first delivery to each, never in
 * `forward`. Reads its configuration once at cold start; no top-level await (bundled as CommonJS).
 */

import { http } from '@google-cloud/functions-framework';
import { deliveryServices } from '../../adapters/delivery-services.ts';
import { drainOnStop } from '../../adapters/drain.ts';
import { createEgressSender, egressFetch } from '../../adapters/egress.ts';
import { loadOnce, warmInBackground } from '../../adapters/load-once.ts';
import { redactProcessOutput } from '../../adapters/log-redaction.ts';
import { exitAfterFlush, flushBeforeAnswer, setupProcessMetrics } from '../../adapters/metrics.ts';
import { refreshTokenStore } from '../../adapters/secret-versions.ts';
import { runEnvironment } from '../../adapters/segment-actions/run-context.ts';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { registryErasedList } from '../../adapters/suppression-list.ts';
import { setupProcessTracing } from '../../adapters/tracing.ts';
import { CATALOG_ENTRY_POINT } from '../../core/deploy/catalog-function.ts';
import { andThen } from '../../core/maybe-async.ts';
import { readFunctionConfig } from '../../core/runtime-config.ts';
import { createForwardCatalogHandler, type ForwardCatalogServices } from './handler.ts';

/** The gate's bound on one action's call; each destination's own `timeout_ms` (at most this) applies in the driver. */
const CATALOG_CALL_TIMEOUT_MS = 60_000;

/** The function's configuration: the one read of the process environment. */
// Every line this function writes leaves through the one redaction (core/privacy/redact-log.ts).
redactProcessOutput();
// What Segment's destinations read from Segment's environment answers each delivery's own settings
// (adapters/segment-actions/run-context.ts; core/platforms/segment-action/environment.ts).
process.env = runEnvironment(process.env);
export const config = readFunctionConfig(process.env, readSettingsText);
// Once per process, before the first push, as forward does (docs/observability.md).
const tracing = setupProcessTracing(config, 'forward-catalog');
// Its delivery metrics, to the same OTLP endpoint (adapters/metrics.ts).
const metrics = setupProcessMetrics(config, 'forward-catalog');

/**
 * The delivery services, and the fetch Segment's actions send through (run.ts; each destination's
 * base_url applies there): the egress gate, following at most 5 redirects, each one checked.
 */
async function loadServices(): Promise<ForwardCatalogServices> {
  const gate = createEgressSender({
    allow: config.egressAllow,
    component: 'forward-catalog',
    maxRedirects: 5,
    // Locally: judged as in the cloud, then received by the capturing stand-in (docs/local.md).
    ...(config.captureUrl ? { capture: config.captureUrl } : {}),
  });
  // A rotated OAuth refresh token is written back as a new version of its secret (issue #100).
  const refreshTokens = refreshTokenStore(config);
  return {
    ...(await deliveryServices(config, 'forward-catalog', erased)),
    fetch: egressFetch(gate, CATALOG_CALL_TIMEOUT_MS),
    ...(refreshTokens ? { refreshTokens } : {}),
  };
}

/** The erased persons' list (docs/privacy.md), as forward reads it. */
const erased = registryErasedList(config, 'forward-catalog');

const services = loadOnce(loadServices);
warmInBackground(services);

// A SIGTERM lets the pushes in flight finish, their ledger rows included (adapters/drain.ts).
http(
  CATALOG_ENTRY_POINT,
  drainOnStop(
    createForwardCatalogHandler(config, () => andThen(erased.ready(), () => services())),
    {
      component: CATALOG_ENTRY_POINT,
      exit: exitAfterFlush([metrics, tracing]),
      beforeAnswer: flushBeforeAnswer(tracing, metrics),
    },
  ),
);
