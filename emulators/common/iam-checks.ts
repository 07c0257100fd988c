/**
 * Who is calling and whether IAM lets them (`--iam <file>`; iam-enforce.ts tells the whole
 * story): the caller of a request (its token, else its port's member, else the owner), the
 * access file re-read when it changes, the check over its policies (iam-policy.ts), and the
 * refusal's wording and ErrorInfo as Google gives them.
 */
import { readFileSync, statSync } from 'node:fs';
import type net from 'node:net';
import { type JwtService, looksLikeJwt, type PublishedKey, verifySelfSignedJwt } from './iam-keys.ts';
import { grantingBindings, type IamPolicy } from './iam-policy.ts';
import type { AccessFile, PolicyTagEntry } from './iam-policy-file.ts';
import type { IdentityListeners } from './iam-ports.ts';
import { mintToken, verifyToken } from './iam-tokens.ts';

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

  /** The service a self-signed JWT must address (its scope or audience); any, when undefined. */
  private readonly jwtService: JwtService | undefined;

  constructor(path: string, jwtService?: JwtService) {
    this.path = path;
    this.jwtService = jwtService;
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
      const token = m[1] as string;
      // A self-signed JWT of a service account's key (iam-keys.ts), else a local token.
      const v = looksLikeJwt(token)
        ? verifySelfSignedJwt(this.file.serviceAccountKeys ?? [], token, Date.now(), this.jwtService)
        : verifyToken(this.file.tokenSecret, token);
      return v.ok ? { principal: v.member } : undefined;
    }
    return { principal: bound ?? OWNER };
  }

  /** A token for `member` signed with the access file's secret (none while no file was read). */
  mint(member: string, ttlSeconds: number): string | undefined {
    this.reload();
    return this.file === undefined ? undefined : mintToken(this.file.tokenSecret, member, ttlSeconds);
  }

  /** The published keys of a service account (its email), what its signatures verify with. */
  keysOf(email: string): PublishedKey[] {
    this.reload();
    return (this.file?.serviceAccountKeys ?? []).filter((k) => k.serviceAccount === email);
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
