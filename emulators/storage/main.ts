#!/usr/bin/env node
/**
 * CLI entry point: `npm run emulator:storage -- --port 4443 --data-dir .data/storage`, with
 * `--iam <access-file>` and `--identity <member>=<port>` to enforce IAM (README, "Access control").
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { emulatorCommand, emulatorStart, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { startStorageEmulator } from './server.ts';

const program = emulatorCommand({
  name: 'storage-emulator',
  description: 'Local Cloud Storage emulator: the JSON API on one port, state kept in the data directory',
  port: 4443,
  dataDir: '.data/storage',
  keeps: 'buckets and objects',
  fsync: "'always' (sync object bytes and each batch of records) or 'none'",
}).parse();

await serveUntilSignalled('storage emulator', () => startStorageEmulator(emulatorStart(program)));
