#!/usr/bin/env node
import { fsyncOption, portOption, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { type IdentityPort, iamOf, iamOptions } from '@eventbus/emulator-common/iam-enforce.ts';
/**
 * CLI entry point: `npm run emulator:storage -- --port 4443 --data-dir .data/storage`, with
 * `--iam <access-file>` and `--identity <member>=<port>` to enforce IAM (README, "Access control").
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { Command } from 'commander';
import { startStorageEmulator } from './server.ts';

const program = iamOptions(new Command())
  .name('storage-emulator')
  .description('Local Cloud Storage emulator: the JSON API on one port, state kept in the data directory')
  .option('--port <port>', 'port to listen on (0 = any free port)', portOption, 4443)
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'where buckets and objects are kept', '.data/storage')
  .option(
    '--fsync <policy>',
    "'always' (sync object bytes and each batch of records) or 'none'",
    fsyncOption,
    'always',
  )
  .parse();

const opts = program.opts<{
  port: number;
  host: string;
  dataDir: string;
  fsync: 'always' | 'none';
  iam?: string;
  identity?: IdentityPort[];
}>();
const { iam, identity, ...base } = opts;
await serveUntilSignalled('storage emulator', () =>
  startStorageEmulator({ ...base, ...iamOf(program, opts) }),
);
