/**
 * Entry point of the `forward` function (functions-framework target `forward`, an `http`
 * function pushed from each `deliveries-<id>` subscription). Reads its configuration once
 * at cold start; clients are loaded and created on the first request. No top-level await (bundled as
 * CommonJS for Cloud Functions).
 */
import { http } from '@google-cloud/functions-framework';
import { createHttpSender } from '../adapters/http-sender.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../adapters/ledger-writer.ts';
import { createSecrets } from '../adapters/secrets.ts';
import { readRuntimeConfig } from '../config.ts';
import { createForwardHandler, type ForwardServices } from './handler.ts';

const config = readRuntimeConfig(process.env);
let ready: ForwardServices | undefined;
let loading: Promise<ForwardServices> | undefined;

/**
 * The BigQuery client (and with it google-auth-library) is loaded on the first push, not at
 * cold start: it was ~100 ms of the bundle's load. A failed load is retried on the next push.
 */
async function loadServices(): Promise<ForwardServices> {
  const { BigQuery } = await import('@google-cloud/bigquery');
  return {
    ledger: createLedgerWriter(
      createLedgerBigQueryWriter(new BigQuery({ projectId: config.project }), config.plan.dataset),
    ),
    secrets: createSecrets({ env: process.env, secretsDir: config.secretsDir, project: config.project }),
    send: createHttpSender(),
  };
}

http(
  'forward',
  createForwardHandler(config, () => {
    if (ready) return ready;
    loading ??= loadServices().then(
      (s) => {
        ready = s;
        return s;
      },
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    );
    return loading;
  }),
);
