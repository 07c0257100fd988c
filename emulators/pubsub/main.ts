#!/usr/bin/env node
import { fsyncOption, portOption, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { type IdentityPort, iamOf, iamOptions } from '@eventbus/emulator-common/iam-enforce.ts';
/**
 * CLI entry point: `npm run emulator:pubsub -- --port 8085 --data-dir .data/pubsub`, with
 * `--iam <access-file>` and `--identity <member>=<port>` to enforce IAM (README, "Access control").
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { Command } from 'commander';
import { startPubSubEmulator } from './server.ts';

const program = iamOptions(new Command())
  .name('pubsub-emulator')
  .description('Local Pub/Sub emulator: gRPC and REST on one port, state kept in the data directory')
  .option('--port <port>', 'port to listen on (0 = any free port)', portOption, 8085)
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'where topics, subscriptions and messages are kept', '.data/pubsub')
  .option('--fsync <policy>', "'always' (fdatasync per batch of writes) or 'none'", fsyncOption, 'always')
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

const opts = program.opts<{
  port: number;
  host: string;
  dataDir: string;
  fsync: 'always' | 'none';
  bigqueryEndpoint?: string;
  storageEndpoint?: string;
  iam?: string;
  identity?: IdentityPort[];
}>();
const { iam, identity, ...rest } = opts;
await serveUntilSignalled('pubsub emulator', () => startPubSubEmulator({ ...rest, ...iamOf(program, opts) }));
