#!/usr/bin/env node
import { fsyncOption, portOption, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { type IdentityPort, iamOf, iamOptions } from '@eventbus/emulator-common/iam-enforce.ts';
/**
 * CLI entry point: `npm run emulator:firestore -- --port 8086 --data-dir .data/firestore`, with
 * `--iam <access-file>` and `--identity <member>=<port>` to enforce IAM (README, "Access control").
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { Command, InvalidArgumentError } from 'commander';
import { startFirestoreEmulator } from './server.ts';

const program = iamOptions(new Command())
  .name('firestore-emulator')
  .description('Local Firestore emulator: the REST API v1 on one port, state kept in the data directory')
  .option('--port <port>', 'port to listen on (0 = any free port)', portOption, 8086)
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'where databases and documents are kept', '.data/firestore')
  .option('--fsync <policy>', "'always' (sync each batch of records) or 'none'", fsyncOption, 'always')
  .option(
    '--ttl-sweep-ms <ms>',
    'how often documents past their TTL are deleted (0 = never)',
    millisecondsOption,
    60_000,
  )
  .parse();

function millisecondsOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number of milliseconds');
  return n;
}

const opts = program.opts<{
  port: number;
  host: string;
  dataDir: string;
  fsync: 'always' | 'none';
  ttlSweepMs: number;
  iam?: string;
  identity?: IdentityPort[];
}>();
const { iam, identity, ...base } = opts;
await serveUntilSignalled('firestore emulator', () =>
  startFirestoreEmulator({ ...base, ...iamOf(program, opts) }),
);
