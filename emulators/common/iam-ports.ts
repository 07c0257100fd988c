/**
 * The member ports (`--identity <member>=<port>`; iam-enforce.ts tells the whole story): an
 * emulator also listens on one port per bound member, and a connection that came in on it acts
 * as that member (Google's clients send no credentials to an emulator's plaintext endpoint). Also
 * the `--iam` and `--identity` options of each emulator's command.
 */
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { type Command, InvalidArgumentError } from 'commander';

/** `--identity <member>=<port>`, repeatable: accumulates into a list. */
export function identityOption(value: string, previous: IdentityPort[] = []): IdentityPort[] {
  const i = value.lastIndexOf('=');
  const member = value.slice(0, i);
  const port = /^\d+$/.test(value.slice(i + 1)) ? Number(value.slice(i + 1)) : Number.NaN;
  if (
    i <= 0 ||
    !/^(serviceAccount|user|group):\S+$/.test(member) ||
    !Number.isInteger(port) ||
    port < 0 ||
    port > 65535
  )
    throw new InvalidArgumentError(
      'must be <member>=<port>, e.g. serviceAccount:eventbus-store@p.iam.gserviceaccount.com=9101',
    );
  return [...previous, { member, port }];
}

export interface IdentityPort {
  readonly member: string;
  readonly port: number;
}

/** The extra listeners of an emulator, one per bound member, and who each connection is. */
export interface IdentityListeners {
  /** Member → the port actually taken (a requested 0 becomes ephemeral). */
  readonly ports: ReadonlyMap<string, number>;
  /** The member bound to the port this socket came in on. */
  memberOfSocket(socket: net.Socket | undefined): string | undefined;
  /**
   * The same for a gRPC call, by the local port its connection came in on, which
   * `localPortInterceptor` writes into the call's metadata. Never by the remote end: two
   * connections may share a client port when they go to different server ports (Linux picks
   * source ports per destination), so a caller on the plain port could pass for a bound member.
   */
  memberOfCall(call: { readonly metadata: grpc.Metadata }): string | undefined;
  close(): Promise<void>;
}

/** The metadata key under which a call carries the local port its connection came in on. */
const LOCAL_PORT = 'x-emulator-local-port';

/**
 * A grpc-js server interceptor: writes into each call's metadata the local port of the
 * connection it came in on (replacing any value the client sent), for `memberOfCall`.
 */
export const localPortInterceptor: grpc.ServerInterceptor = (_method, call) =>
  new grpc.ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, onward) => {
          metadata.remove(LOCAL_PORT);
          const port = call.getConnectionInfo().localPort;
          if (port !== undefined) metadata.set(LOCAL_PORT, String(port));
          onward(metadata);
        },
      }),
  });

/**
 * Listens on each bound port and hands every accepted socket to `onSocket`, the emulator's own
 * connection handling, after remembering which member its port belongs to.
 */
export async function listenAsIdentities(
  host: string,
  identities: readonly IdentityPort[],
  onSocket: (socket: net.Socket) => void,
): Promise<IdentityListeners> {
  const bySocket = new WeakMap<net.Socket, string>();
  const byPort = new Map<number, string>();
  const servers: net.Server[] = [];
  const ports = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  for (const { member, port } of identities) {
    const server = net.createServer((socket) => {
      bySocket.set(socket, member);
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      onSocket(socket);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      // One port taken: none of them stays open.
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
      throw err;
    }
    servers.push(server);
    const taken = (server.address() as net.AddressInfo).port;
    ports.set(member, taken);
    byPort.set(taken, member);
  }
  return {
    ports,
    memberOfSocket: (socket) => (socket ? bySocket.get(socket) : undefined),
    memberOfCall: (call) => {
      const port = call.metadata.get(LOCAL_PORT)[0];
      return typeof port === 'string' ? byPort.get(Number(port)) : undefined;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}

/** Adds `--iam <file>` and the repeatable `--identity <member>=<port>` to an emulator's command. */
export function iamOptions(program: Command): Command {
  return program
    .option(
      '--iam <file>',
      'enforce IAM: the access file (JSON {tokenSecret, policies}), re-read when it changes',
    )
    .option(
      '--identity <member=port>',
      'also listen on <port>, its callers acting as <member> (repeatable; needs --iam)',
      identityOption,
    );
}

/** The start option those flags give (none without `--iam`); `--identity` alone is an error. */
export function iamOf(
  program: Command,
  opts: { readonly iam?: string; readonly identity?: IdentityPort[] },
): { iam?: { file: string; identities: IdentityPort[] } } {
  if (opts.identity && opts.iam === undefined) program.error('error: --identity needs --iam');
  return opts.iam !== undefined ? { iam: { file: opts.iam, identities: opts.identity ?? [] } } : {};
}
