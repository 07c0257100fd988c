/**
 * What the emulators' command lines share: option parsers, and running a started emulator until
 * SIGINT/SIGTERM (close cleanly, exit 0), printing its one ready line last so that whoever reads
 * it may signal at once and find the handlers in place.
 */
import type net from 'node:net';
import { Command, InvalidArgumentError } from 'commander';
import { type IdentityPort, iamOf, iamOptions } from './iam-enforce.ts';

export function portOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

export function fsyncOption(value: string): 'always' | 'none' {
  if (value !== 'always' && value !== 'none') throw new InvalidArgumentError("must be 'always' or 'none'");
  return value;
}

/** Starts an emulator and serves until a signal; `name` prefixes every line printed. */
export async function serveUntilSignalled(
  name: string,
  start: () => Promise<{ url: string; close(): Promise<void> }>,
): Promise<void> {
  try {
    const emulator = await start();
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      emulator.close().then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`${name}: error while closing: ${String(err)}\n`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.stdout.write(`${name} listening on ${emulator.url}\n`);
  } catch (err) {
    process.stderr.write(`${name}: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

/** Listens on `host:port` (0 = ephemeral); resolves with the port taken, rejects on a bind error. */
export function listenOn(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** `http://host:port`, with an IPv6 host in brackets. */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** What an emulator's command says about itself and its defaults. */
export interface EmulatorCommandSpec {
  readonly name: string;
  readonly description: string;
  readonly port: number;
  readonly dataDir: string;
  /** What the data directory keeps, for `--data-dir`'s help ("topics and messages"). */
  readonly keeps: string;
  /** `--fsync`'s help. */
  readonly fsync: string;
}

/** A command with the options every emulator takes: --port, --host, --data-dir, --fsync, --iam, --identity. */
export function emulatorCommand(spec: EmulatorCommandSpec): Command {
  return iamOptions(new Command())
    .name(spec.name)
    .description(spec.description)
    .option('--port <port>', 'port to listen on (0 = any free port)', portOption, spec.port)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--data-dir <dir>', `where ${spec.keeps} are kept`, spec.dataDir)
    .option('--fsync <policy>', spec.fsync, fsyncOption, 'always');
}

/** The start options those give once parsed (`iam` only with --iam; --identity alone is an error). */
export function emulatorStart(program: Command): {
  port: number;
  host: string;
  dataDir: string;
  fsync: 'always' | 'none';
  iam?: { file: string; identities: IdentityPort[] };
} {
  const o = program.opts<{
    port: number;
    host: string;
    dataDir: string;
    fsync: 'always' | 'none';
    iam?: string;
    identity?: IdentityPort[];
  }>();
  return { port: o.port, host: o.host, dataDir: o.dataDir, fsync: o.fsync, ...iamOf(program, o) };
}
