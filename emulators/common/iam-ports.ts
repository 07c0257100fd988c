/**
 * The member ports (`--identity <member>=<port>`; iam-enforce.ts tells the whole story): an
 * emulator also listens on one port per bound member, and a connection that came in on it acts
 * as that member (Google's clients send no credentials to an emulator's plaintext endpoint). Also
 * the `--iam` and `--identity` options of each emulator's command.
 */
import net from 'node:net';
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
  /** The same, by a gRPC peer string (`host:port` of the remote end, IPv6 in brackets). */
  memberOfPeer(peer: string): string | undefined;
  close(): Promise<void>;
}

const peerKey = (address: string | undefined, port: number | undefined) =>
  address?.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;

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
  const byPeer = new Map<string, string>();
  const servers: net.Server[] = [];
  const ports = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  for (const { member, port } of identities) {
    const server = net.createServer((socket) => {
      const key = peerKey(socket.remoteAddress, socket.remotePort);
      bySocket.set(socket, member);
      byPeer.set(key, member);
      sockets.add(socket);
      socket.once('close', () => {
        byPeer.delete(key);
        sockets.delete(socket);
      });
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
    ports.set(member, (server.address() as net.AddressInfo).port);
  }
  return {
    ports,
    memberOfSocket: (socket) => (socket ? bySocket.get(socket) : undefined),
    // grpc-js writes an IPv6 peer without brackets: `::1:5000` → `[::1]:5000`.
    memberOfPeer: (peer) => {
      const bare = peer.replace(/^ipv[46]:/, '');
      const i = bare.lastIndexOf(':');
      const host = bare.slice(0, i);
      return byPeer.get(host.includes(':') && !host.startsWith('[') ? `[${host}]${bare.slice(i)}` : bare);
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
