#!/usr/bin/env node
/**
 * CLI entry point: `npm run emulator:firestore -- --port 8086 --data-dir .data/firestore`, with
 * `--iam <access-file>` and `--identity <member>=<port>` to enforce IAM (README, "Access control").
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { emulatorCommand, emulatorStart, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { InvalidArgumentError } from 'commander';
import { startFirestoreEmulator } from './server.ts';

const program = emulatorCommand({
  name: 'firestore-emulator',
  description: 'Local Firestore emulator: the REST API v1 on one port, state kept in the data directory',
  port: 8086,
  dataDir: '.data/firestore',
  keeps: 'databases and documents',
  fsync: "'always' (sync each batch of records) or 'none'",
})
  .option(
    '--ttl-sweep-ms <ms>',
    'how often documents past their TTL are deleted (0 = never)',
    millisecondsOption,
    60_000,
  )
  .option(
    '--sequential-writes-per-second <n>',
    "writes a second of increasing values into one indexed field before ABORTED (contention) (Firestore's 500; 0 = no limit)",
    millisecondsOption,
    500,
  )
  .parse();

function millisecondsOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number (0 or more)');
  return n;
}

const { ttlSweepMs, sequentialWritesPerSecond } = program.opts<{
  ttlSweepMs: number;
  sequentialWritesPerSecond: number;
}>();
await serveUntilSignalled('firestore emulator', () =>
  startFirestoreEmulator({ ...emulatorStart(program), ttlSweepMs, sequentialWritesPerSecond }),
);
