#!/usr/bin/env node
/**
 * CLI entry point: `npm run emulator:pubsub -- --port 8085 --data-dir .data/pubsub`.
 * Prints exactly one line when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { Command, InvalidArgumentError } from 'commander';
import { startPubSubEmulator } from './server.ts';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

function fsyncPolicy(value: string): 'always' | 'none' {
  if (value !== 'always' && value !== 'none') throw new InvalidArgumentError("must be 'always' or 'none'");
  return value;
}

const program = new Command()
  .name('pubsub-emulator')
  .description('Local Pub/Sub emulator: gRPC and REST on one port, state kept in the data directory')
  .option('--port <port>', 'port to listen on (0 = any free port)', port, 8085)
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'where topics, subscriptions and messages are kept', '.data/pubsub')
  .option('--fsync <policy>', "'always' (fdatasync per batch of writes) or 'none'", fsyncPolicy, 'always')
  .parse();

const opts = program.opts<{ port: number; host: string; dataDir: string; fsync: 'always' | 'none' }>();

try {
  const emulator = await startPubSubEmulator({
    host: opts.host,
    port: opts.port,
    dataDir: opts.dataDir,
    fsync: opts.fsync,
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    emulator.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`pubsub emulator: error while closing: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // The ready line comes last: whoever reads it may signal at once, and must find the handlers.
  process.stdout.write(`pubsub emulator listening on ${emulator.url}\n`);
} catch (err) {
  process.stderr.write(
    `pubsub emulator: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
}
