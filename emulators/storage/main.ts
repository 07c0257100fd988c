#!/usr/bin/env node
/**
 * CLI entry point: `npm run emulator:storage -- --port 4443 --data-dir .data/storage`, with
 * `--iam <access-file>` and `--identity <member>=<port>` to enforce IAM (README, "Access control"),
 * `--anonymous allUsers` to treat a call without credentials as Cloud Storage does, and
 * `--pubsub-endpoint` (default `PUBSUB_EMULATOR_HOST`) for bucket notifications.
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { emulatorCommand, emulatorStart, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { InvalidArgumentError } from 'commander';
import { startStorageEmulator } from './server.ts';

const program = emulatorCommand({
  name: 'storage-emulator',
  description: 'Local Cloud Storage emulator: the JSON API on one port, state kept in the data directory',
  port: 4443,
  dataDir: '.data/storage',
  keeps: 'buckets and objects',
  fsync: "'always' (sync object bytes and each batch of records) or 'none'",
})
  .option(
    '--anonymous <who>',
    "with --iam, who a call without credentials is: 'owner' (the default) or 'allUsers' (as Cloud Storage treats it)",
    anonymousOption,
  )
  .option(
    '--pubsub-endpoint <host:port>',
    "Pub/Sub's endpoint bucket notifications publish to (host:port or a URL; default: PUBSUB_EMULATOR_HOST)",
  )
  .parse();

function anonymousOption(value: string): 'owner' | 'allUsers' {
  if (value === 'owner' || value === 'allUsers') return value;
  throw new InvalidArgumentError("expected 'owner' or 'allUsers'");
}

const { anonymous, pubsubEndpoint } = program.opts<{
  anonymous?: 'owner' | 'allUsers';
  pubsubEndpoint?: string;
}>();
const pubsub = pubsubEndpoint ?? (process.env.PUBSUB_EMULATOR_HOST || undefined);
const start = emulatorStart(program);
if (anonymous !== undefined && !start.iam)
  program.error('--anonymous needs --iam (without it nothing is checked)');
await serveUntilSignalled('storage emulator', () =>
  startStorageEmulator({
    ...start,
    ...(anonymous ? { anonymous } : {}),
    ...(pubsub ? { pubsubEndpoint: pubsub } : {}),
  }),
);
