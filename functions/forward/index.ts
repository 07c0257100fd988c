/**
 * Entry point of the `forward` function (functions-framework target `forward`, an `http`
 * function pushed from each `deliveries-<id>` subscription). Reads its configuration once
 * at cold start; clients are created on the first request. No top-level await (bundled as
 * CommonJS for Cloud Functions).
 */
import { BigQuery } from '@google-cloud/bigquery';
import { http } from '@google-cloud/functions-framework';
import { createHttpSender } from '../adapters/http-sender.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../adapters/ledger-writer.ts';
import { createSecrets } from '../adapters/secrets.ts';
import { readRuntimeConfig } from '../config.ts';
import { createForwardHandler, type ForwardServices } from './handler.ts';

const config = readRuntimeConfig(process.env);
let services: ForwardServices | undefined;

http(
  'forward',
  createForwardHandler(config, () => {
    services ??= {
      ledger: createLedgerWriter(
        createLedgerBigQueryWriter(new BigQuery({ projectId: config.project }), config.plan.dataset),
      ),
      secrets: createSecrets({ env: process.env, secretsDir: config.secretsDir, project: config.project }),
      send: createHttpSender(),
    };
    return services;
  }),
);
