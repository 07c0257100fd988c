/**
 * Who is calling an emulator, and whether IAM would let them: what the three emulators share
 * when they run with `--iam <file>`.
 *
 * - **The access file** (JSON, written by whoever provisions: locally `local/access-file.ts`)
 *   holds the policies on resources' full names (as `pulumi up` binds them) and the secret the
 *   local tokens are signed with. It is re-read when it changes, so a new grant applies without
 *   a restart.
 * - **Who calls**: a `Bearer` token minted for a member (`mintToken`, `eventbus local token --as`),
 *   else the member bound to the port the connection came in on (`--identity <member>=<port>`:
 *   Google's clients send no credentials to an emulator's plaintext endpoint — the Pub/Sub client
 *   switches its gRPC channel to insecure credentials, the BigQuery and Storage clients skip
 *   authentication for a custom endpoint — so a workload's endpoint carries its identity), else
 *   the project's owner, as Google's own emulators treat every caller: Google's client test
 *   suites and ad-hoc clients keep working. A token that does not verify is 401 UNAUTHENTICATED.
 * - **Whether allowed**: iam-policy.ts over the file's policies; the owner may do everything.
 *
 * Without `--iam` nothing is checked: every caller is the owner.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { type Command, InvalidArgumentError } from 'commander';
import { grantingBindings, type IamPolicy } from './iam-policy.ts';

/** What the emulators read from the access file. */
export interface AccessFile {
  /** Hex; signs and verifies local tokens. */
  readonly tokenSecret: string;
  readonly policies: readonly IamPolicy[];
  /** BigQuery column-level security: the policy tags that enforce it and their data policies. */
  readonly policyTags?: readonly PolicyTagEntry[];
}

/**
 * A policy tag whose taxonomy enforces access control (BigQuery's column-level security), as the
 * BigQuery emulator reads it: the tag's name as table schemas carry it (`policyTags.names`), the
 * resource its Fine-Grained Readers are bound on, and its data policies (masking rules), each with
 * the resource its Masked Readers are bound on.
 */
export interface PolicyTagEntry {
  /** `projects/<p>/locations/<l>/taxonomies/<t>/policyTags/<id>`. */
  readonly name: string;
  /** Where `datacatalog.categories.fineGrainedGet` is checked; default `name`. */
  readonly resource?: string;
  readonly dataPolicies: readonly {
    /** `projects/<p>/locations/<l>/dataPolicies/<id>`. */
    readonly name: string;
    /** Where `bigquery.dataPolicies.maskedGet` is checked; default `name`. */
    readonly resource?: string;
    /** BigQuery's predefined masking rule: SHA256, ALWAYS_NULL, DEFAULT_MASKING_VALUE, … */
    readonly predefinedExpression: string;
  }[];
}

/** The member every call without an identity is: the project's owner. */
export const OWNER = 'projectOwner';

export interface Caller {
  /** `serviceAccount:<email>`, `user:<email>`, or OWNER. */
  readonly principal: string;
}

/** A call IAM refuses: what was missing, on what, for whom. */
export interface Denial {
  readonly principal: string;
  readonly permission: string;
  readonly resource: string;
}

export interface CheckRequest {
  readonly permission: string;
  /** The full resource name checked; for a Cloud Storage list, the bucket's. */
  readonly resource: string;
  readonly resourceType?: string;
  readonly listPrefix?: string;
  /** `resource.name` as conditions see it, when not `resource` (iam-policy.ts). */
  readonly conditionName?: string;
}

const TOKEN_PREFIX = 'ya29.local.';

/** A random secret for a new access file. */
export const newTokenSecret = (): string => randomBytes(32).toString('hex');

const sign = (secret: string, payload: string) =>
  createHmac('sha256', Buffer.from(secret, 'hex')).update(payload).digest('base64url');

/** A bearer token the emulators accept as `member` until `ttlSeconds` from now. */
export function mintToken(secret: string, member: string, ttlSeconds = 3600, now = Date.now()): string {
  const payload = Buffer.from(
    JSON.stringify({ m: member, exp: Math.floor(now / 1000) + ttlSeconds }),
  ).toString('base64url');
  return `${TOKEN_PREFIX}${payload}.${sign(secret, payload)}`;
}

/** The member a token was minted for, or why it is not accepted. */
export function verifyToken(
  secret: string,
  token: string,
  now = Date.now(),
): { ok: true; member: string } | { ok: false; reason: string } {
  if (!token.startsWith(TOKEN_PREFIX)) return { ok: false, reason: 'not a token of this environment' };
  const [payload = '', mac = ''] = token.slice(TOKEN_PREFIX.length).split('.');
  const want = Buffer.from(sign(secret, payload));
  const got = Buffer.from(mac);
  if (want.length !== got.length || !timingSafeEqual(want, got))
    return { ok: false, reason: 'bad signature' };
  let claims: { m?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
  if (typeof claims.m !== 'string' || typeof claims.exp !== 'number')
    return { ok: false, reason: 'unreadable' };
  if (claims.exp * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, member: claims.m };
}

/** Google's sentence for a token that does not verify (HTTP 401, gRPC UNAUTHENTICATED). */
export const UNAUTHENTICATED_MESSAGE =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.';

/** The ErrorInfo detail Google attaches to an IAM refusal, naming the permission and resource. */
export function denialInfo(domain: string, d: Denial): Record<string, unknown> {
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'IAM_PERMISSION_DENIED',
    domain,
    metadata: { permission: d.permission, resource: d.resource, principal: d.principal },
  };
}

/** The sentence every emulator appends to its service's own wording, for people debugging. */
export const denialSuffix = (d: Denial): string =>
  `Permission '${d.permission}' denied on resource '${d.resource}' for ${d.principal} (or it may not exist).`;

/**
 * The access file, re-read when its modification time changes (looked at no more than every
 * 200 ms). A file that cannot be read or parsed keeps the last good one; with none ever read,
 * everything is refused (a missing grant must not read as "allowed").
 */
export class Enforcement {
  private file: AccessFile | undefined;
  private mtimeMs = -1;
  private lookedAt = 0;
  readonly path: string;

  constructor(path: string) {
    this.path = path;
    this.reload();
  }

  private reload(): void {
    const now = Date.now();
    if (now - this.lookedAt < 200 && this.file !== undefined) return;
    this.lookedAt = now;
    try {
      const m = statSync(this.path).mtimeMs;
      if (m === this.mtimeMs && this.file !== undefined) return;
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as AccessFile;
      if (typeof parsed.tokenSecret !== 'string' || !Array.isArray(parsed.policies)) return;
      this.file = parsed;
      this.mtimeMs = m;
    } catch {
      // keep the last good file
    }
  }

  /**
   * The caller of a request: its bearer token's member, else the member bound to its
   * connection's port, else the owner; `undefined` for a token that does not verify.
   */
  callerOf(authorization: string | undefined, bound: string | undefined): Caller | undefined {
    const m = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (m) {
      this.reload();
      if (this.file === undefined) return undefined;
      const v = verifyToken(this.file.tokenSecret, m[1] as string);
      return v.ok ? { principal: v.member } : undefined;
    }
    return { principal: bound ?? OWNER };
  }

  /** A token for `member` signed with the access file's secret (none while no file was read). */
  mint(member: string, ttlSeconds: number): string | undefined {
    this.reload();
    return this.file === undefined ? undefined : mintToken(this.file.tokenSecret, member, ttlSeconds);
  }

  /** The policy tags under column-level security (none: no column is restricted). */
  policyTags(): readonly PolicyTagEntry[] {
    this.reload();
    return this.file?.policyTags ?? [];
  }

  /**
   * Undefined when allowed; else what was refused. `own` adds policies the emulator keeps itself
   * (a resource's policy set through the API, as Secret Manager's setIamPolicy).
   */
  check(caller: Caller, req: CheckRequest, own: readonly IamPolicy[] = []): Denial | undefined {
    if (caller.principal === OWNER) return undefined;
    this.reload();
    const policies = [...(this.file?.policies ?? []), ...own];
    const ok =
      grantingBindings(policies, {
        principal: caller.principal,
        permission: req.permission,
        resource: req.resource,
        ...(req.resourceType !== undefined ? { resourceType: req.resourceType } : {}),
        ...(req.listPrefix !== undefined ? { listPrefix: req.listPrefix } : {}),
        ...(req.conditionName !== undefined ? { conditionName: req.conditionName } : {}),
      }).length > 0;
    return ok
      ? undefined
      : { principal: caller.principal, permission: req.permission, resource: req.resource };
  }
}

/** Who an HTTP request is, with the enforcement that decides what it may do. */
export interface RequestAccess {
  readonly enforcement: Enforcement;
  readonly caller: Caller;
}

/**
 * The caller of an HTTP request (its bearer token, else its port's member, else the owner);
 * `unauthenticated()` is thrown for a token that does not verify. An Authorization header
 * matching `ignored` is no credential (Google's Firestore client sends `Bearer owner`).
 */
export function requestAccess(
  enforcement: Enforcement,
  req: { readonly headers: { readonly authorization?: string | undefined }; readonly socket: net.Socket },
  identities: IdentityListeners | undefined,
  unauthenticated: () => Error,
  ignored?: RegExp,
): RequestAccess {
  const auth = req.headers.authorization;
  const token = auth !== undefined && ignored?.test(auth) ? undefined : auth;
  const caller = enforcement.callerOf(token, identities?.memberOfSocket(req.socket));
  if (caller === undefined) throw unauthenticated();
  return { enforcement, caller };
}

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
