#!/usr/bin/env node
/**
 * CLI entry point: `npm run emulator:pubsub -- --port 8085 --data-dir .data/pubsub`, with
 * `--iam <access-file>` and `--identity <member>=<port>` to enforce IAM (README, "Access control").
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { emulatorCommand, emulatorStart, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { startPubSubEmulator } from './server.ts';

const program = emulatorCommand({
  name: 'pubsub-emulator',
  description: 'Local Pub/Sub emulator: gRPC and REST on one port, state kept in the data directory',
  port: 8085,
  dataDir: '.data/pubsub',
  keeps: 'topics, subscriptions and messages',
  fsync: "'always' (fdatasync per batch of writes) or 'none'",
})
  .option(
    '--bigquery-endpoint <url>',
    'the BigQuery emulator BigQuery subscriptions write into (default: BIGQUERY_EMULATOR_HOST)',
    process.env['BIGQUERY_EMULATOR_HOST'],
  )
  .option(
    '--storage-endpoint <url>',
    'the Storage emulator Cloud Storage subscriptions write into (default: STORAGE_EMULATOR_HOST)',
    process.env['STORAGE_EMULATOR_HOST'],
  )
  .parse();

const { bigqueryEndpoint, storageEndpoint } = program.opts<{
  bigqueryEndpoint?: string;
  storageEndpoint?: string;
}>();
await serveUntilSignalled('pubsub emulator', () =>
  startPubSubEmulator({
    ...emulatorStart(program),
    ...(bigqueryEndpoint !== undefined ? { bigqueryEndpoint } : {}),
    ...(storageEndpoint !== undefined ? { storageEndpoint } : {}),
  }),
);
