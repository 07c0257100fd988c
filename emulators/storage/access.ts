/**
 * IAM in the Cloud Storage emulator (`--iam <file>`): who calls (a request's bearer token, else
 * the member of the port it came in on, else the owner: emulators/common/iam-enforce.ts), and the
 * permission each JSON API call needs on which resource, as Cloud Storage checks them ("IAM
 * permissions for JSON methods"; the table is in README.md, "Access control"). Refusals are Cloud
 * Storage's 401 and 403 bodies, the 403 with the ErrorInfo naming permission and resource. A
 * policy set on a bucket (setIamPolicy, bucket-iam.ts) counts with the access file's.
 * Where IAM refuses, the bucket's or object's ACLs may still allow (acl.ts). A caller without
 * credentials is the owner, or with `--anonymous allUsers` the member `allUsers`: refused, it gets
 * Cloud Storage's 401 for an anonymous caller.
 * Without `--iam` a request carries no `access`, and every check here returns at once.
 */
import type http from 'node:http';
import {
  type CheckRequest,
  type Denial,
  denialInfo,
  denialSuffix,
  type Enforcement,
  type IdentityListeners,
  requestAccess,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import type { Catalog } from './catalog.ts';
import { StorageError } from './errors.ts';
import type { Access, Ctx } from './wire.ts';

const BUCKET_TYPE = 'storage.googleapis.com/Bucket';
const OBJECT_TYPE = 'storage.googleapis.com/Object';

export const bucketResource = (bucket: string): string => `projects/_/buckets/${bucket}`;
export const objectResource = (bucket: string, name: string): string =>
  `${bucketResource(bucket)}/objects/${name}`;

/** Who a request is; a token that does not verify is Cloud Storage's 401. */
export const accessOf = (
  enforcement: Enforcement,
  req: http.IncomingMessage,
  identities: IdentityListeners | undefined,
): Access =>
  requestAccess(
    enforcement,
    req,
    identities,
    () => new StorageError('required', UNAUTHENTICATED_MESSAGE, { code: 401, status: 'UNAUTHENTICATED' }),
  );

type Kind = 'object' | 'bucket' | 'project';

const NOUNS: Readonly<Record<Kind, string>> = {
  object: 'Google Cloud Storage object',
  bucket: 'Google Cloud Storage bucket',
  project: 'Google Cloud project',
};

/** The member an anonymous caller is (`--anonymous allUsers`): only public grants reach it. */
export const ANONYMOUS = 'allUsers';

/**
 * Cloud Storage's 403 wording, naming the member by its email, then the permission and resource;
 * for an anonymous caller its 401 (reason `required`), worded as Google words it.
 */
function forbidden(d: Denial, kind: Kind): StorageError {
  if (d.principal === ANONYMOUS)
    return new StorageError(
      'required',
      `Anonymous caller does not have ${d.permission} access to the ${NOUNS[kind]}. Permission '${d.permission}' denied on resource (or it may not exist).`,
      { code: 401, status: 'UNAUTHENTICATED' },
    );
  const who = d.principal.slice(d.principal.indexOf(':') + 1);
  const message = `${who} does not have ${d.permission} access to the ${NOUNS[kind]}. ${denialSuffix(d)}`;
  return new StorageError('forbidden', message, {
    status: 'PERMISSION_DENIED',
    details: [denialInfo('storage.googleapis.com', d)],
  });
}

/**
 * The policies checked besides the access file's: the one set on `bucket`, if any. While the
 * bucket enforces public access prevention, its `allUsers` and `allAuthenticatedUsers` members
 * (bound before it was enforced) grant nothing, to anonymous and signed-in callers alike.
 */
const ownOf = (a: Access, bucket: string | undefined) => {
  const own = bucket === undefined ? undefined : a.bucketPolicy?.(bucket);
  if (!own) return [];
  if (!a.acls?.publicPrevented(bucket as string)) return [own];
  const bindings = own.bindings.map((b) => ({
    ...b,
    members: b.members.filter((m) => !PUBLIC_MEMBERS.has(m)),
  }));
  return [{ ...own, bindings }];
};

const PUBLIC_MEMBERS = new Set(['allUsers', 'allAuthenticatedUsers']);

/**
 * Undefined when IAM or, where it refuses, the ACLs allow the request; nothing is allowed to an
 * anonymous caller in a bucket enforcing public access prevention.
 */
function denial(a: Access, req: CheckRequest, bucket?: string, object?: string): Denial | undefined {
  const p = a.caller.principal;
  const refused = { principal: p, permission: req.permission, resource: req.resource };
  if (p === ANONYMOUS && bucket !== undefined && a.acls?.publicPrevented(bucket)) return refused;
  const d = a.enforcement.check(a.caller, req, ownOf(a, bucket));
  if (d && bucket !== undefined && a.acls?.allows(p, req.permission, bucket, object)) return undefined;
  return d;
}

function enforce(a: Access, req: CheckRequest, kind: Kind, bucket?: string, object?: string): void {
  const d = denial(a, req, bucket, object);
  if (d) throw forbidden(d, kind);
}

const onBucket = (permission: string, bucket: string): CheckRequest => ({
  permission,
  resource: bucketResource(bucket),
  resourceType: BUCKET_TYPE,
});

/** Refused unless the caller holds `permission` on object `name` of `bucket`. */
export function mayObject(ctx: Ctx, permission: string, bucket: string, name: string): void {
  if (ctx.access)
    enforce(
      ctx.access,
      { permission, resource: objectResource(bucket, name), resourceType: OBJECT_TYPE },
      'object',
      bucket,
      name,
    );
}

/** Refused unless the caller holds `permission` on `bucket`. */
export function mayBucket(ctx: Ctx, permission: string, bucket: string): void {
  if (ctx.access) enforce(ctx.access, onBucket(permission, bucket), 'bucket', bucket);
}

/**
 * objects.list: `storage.objects.list` on the bucket, the `prefix` asked for as the list-prefix
 * attribute, so a grant conditioned on object names does not list (as Cloud Storage checks it).
 */
export function mayList(ctx: Ctx, bucket: string): void {
  if (ctx.access)
    enforce(
      ctx.access,
      { ...onBucket('storage.objects.list', bucket), listPrefix: ctx.query.get('prefix') ?? '' },
      'bucket',
      bucket,
    );
}

/** buckets.insert and buckets.list: `permission` on the project the `project` parameter names. */
export function mayProject(ctx: Ctx, permission: string): void {
  if (ctx.access)
    enforce(ctx.access, { permission, resource: `projects/${ctx.query.get('project') ?? '_'}` }, 'project');
}

/**
 * Writing object `name` (an upload, a copy's, compose's or move's destination):
 * `storage.objects.create`, and `storage.objects.delete` too when a live object of that name
 * exists, since overwriting deletes it — unless the write is create-only (`ifGenerationMatch=0`):
 * it cannot overwrite, so an objectCreator gets the precondition's 412 (Google documents the 412
 * of a failed precondition, not which of 412 and 403 such a caller gets first: callers read
 * either as existence, adapters/create-only.ts; docs/storage-emulator.md).
 */
export function mayWrite(c: Catalog, ctx: Ctx, bucket: string, name: string): void {
  if (!ctx.access) return;
  mayObject(ctx, 'storage.objects.create', bucket, name);
  if (ctx.query.get('ifGenerationMatch') !== '0' && c.find(bucket, name) !== undefined)
    mayObject(ctx, 'storage.objects.delete', bucket, name);
}

/** buckets.testIamPermissions: the permissions asked for that the caller holds on `bucket`. */
export function heldOnBucket(ctx: Ctx, bucket: string, permissions: readonly string[]): string[] {
  const a = ctx.access;
  if (!a) return [...permissions];
  return permissions.filter((p) => denial(a, onBucket(p, bucket), bucket) === undefined);
}
