/**
 * Entry point of the `store` function (functions-framework `http` target `store`), pushed
 * from each events topic's `<topic>-store` subscription. Thin: configuration is read once,
 * at cold start, from process.env; the BigQuery client is loaded on the first request
 * (no top-level await: the bundle is CommonJS).
 */
import { http, type Request, type Response } from '@google-cloud/functions-framework';
import type { BatchingOptions } from '../adapters/bigquery-writer.ts';
import { type RuntimeConfig, readRuntimeConfig } from '../config.ts';
import type { RowWriter } from '../core/rows.ts';
import { type AfterStored, storeConfig } from '../core/store.ts';
import { createStoreHandler } from './handler.ts';

const runtime = readRuntimeConfig(process.env);

/** Optional tuning of the micro-batch window (milliseconds); the default suits most loads. */
const batching: BatchingOptions = process.env['EVENTBUS_STORE_BATCH_MS']
  ? { windowMs: Number(process.env['EVENTBUS_STORE_BATCH_MS']) }
  : {};

/** After the rows are written: where the decision layer runs (issue 7). */
function afterStoredHook(_runtime: RuntimeConfig, _writer: RowWriter): AfterStored | undefined {
  return undefined;
}

type Handler = (req: Request, res: Response) => Promise<void>;
let ready: Promise<Handler> | undefined;

async function init(): Promise<Handler> {
  const [{ BigQuery }, { createBigQueryWriter }] = await Promise.all([
    import('@google-cloud/bigquery'),
    import('../adapters/bigquery-writer.ts'),
  ]);
  // One retry inside the client at most: a longer wait only delays the non-2xx that lets
  // Pub/Sub redeliver with the subscription's backoff.
  const bigquery = new BigQuery({ projectId: runtime.project, maxRetries: 1 });
  const writer = createBigQueryWriter(bigquery, runtime.plan.dataset, batching);
  const afterStored = afterStoredHook(runtime, writer);
  return createStoreHandler({
    config: storeConfig(runtime.settings, runtime.plan),
    writer,
    ...(afterStored ? { afterStored } : {}),
  });
}

http('store', async (req, res) => {
  ready ??= init().catch((err: unknown) => {
    ready = undefined; // a failed load is retried on the next request
    throw err;
  });
  const handler = await ready;
  await handler(req, res);
});
