#!/usr/bin/env node
/**
 * CLI entry point: `npm run emulator:bigtable -- --port 8087 --data-dir .data/bigtable`, then
 * BIGTABLE_EMULATOR_HOST=127.0.0.1:8087 for Google's clients. Prints exactly one line when ready;
 * SIGINT/SIGTERM close cleanly and exit 0. `--iam <access-file>` and `--identity <member>=<port>`
 * enforce IAM (README, "Access control").
 */
import { emulatorCommand, emulatorStart, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { InvalidArgumentError } from 'commander';
import { startBigtableEmulator } from './server.ts';

const program = emulatorCommand({
  name: 'bigtable-emulator',
  description:
    'Local Cloud Bigtable emulator: the data and table admin APIs over gRPC, state kept in the data directory',
  port: 8087,
  dataDir: '.data/bigtable',
  keeps: 'tables and rows',
  fsync: "'always' (sync each batch of records) or 'none'",
})
  .option(
    '--gc-interval-ms <ms>',
    'how often cells past their column family GC rule are collected (0 = only on start)',
    (value: string) => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number (0 or more)');
      return n;
    },
    60_000,
  )
  .parse();

const start = emulatorStart(program);
const { gcIntervalMs } = program.opts<{ gcIntervalMs: number }>();
await serveUntilSignalled('bigtable emulator', () =>
  startBigtableEmulator({
    host: start.host,
    port: start.port,
    dataDir: start.dataDir,
    fsync: start.fsync,
    gcIntervalMs,
    ...(start.iam ? { iam: start.iam } : {}),
  }),
);
