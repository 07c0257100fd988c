/**
 * The ACL endpoints of the JSON API (the rules are acl.ts's), each list, get, insert, update,
 * patch and delete:
 * - bucketAccessControls, `/b/{bucket}/acl[/{entity}]`: `storage.buckets.getIamPolicy` to read,
 *   `storage.buckets.setIamPolicy` to change;
 * - defaultObjectAccessControls, `/b/{bucket}/defaultObjectAcl[/{entity}]`: the same, and
 *   `storage.buckets.update` to change;
 * - objectAccessControls, `/b/{bucket}/o/{object}/acl[/{entity}]` (`generation=` addresses one):
 *   `storage.objects.getIamPolicy` / `storage.objects.setIamPolicy`.
 * An insert, update or patch of an entity already there replaces its role; update and patch of an
 * entity not there add it. A change is a new metageneration of the bucket or object, one catalog
 * record. Also here: the ACL of a new object from its request, and the ACL changes a bucket or
 * object patch carries (`predefinedAcl`, `predefinedDefaultObjectAcl`, `acl`, `defaultObjectAcl`).
 */
import { mayBucket, mayObject } from './access.ts';
import {
  type AclEntry,
  bucketAclOf,
  callerEntity,
  checkAclsUsable,
  checkEntity,
  checkPublicGrant,
  checkRole,
  defaultObjectAclOf,
  newObjectAcl,
  objectAclOf,
  parseAcl,
  predefinedBucketAcl,
  predefinedObjectAcl,
  uniformAccess,
} from './acl.ts';
import type { Catalog } from './catalog.ts';
import { StorageError } from './errors.ts';
import type { BucketState, ObjectState } from './records.ts';
import { enc } from './resources.ts';
import { type Ctx, intParam, readJson, sendJson } from './wire.ts';

export type AclKind = 'bucket' | 'default' | 'object';

const principalOf = (ctx: Ctx): string | undefined => ctx.access?.caller.principal;

/** The ACL a new object in `bucket` gets from this request (acl.ts: newObjectAcl). */
export function requestObjectAcl(
  c: Catalog,
  ctx: Ctx,
  bucket: string,
  resource: Record<string, unknown> | undefined,
  param = 'predefinedAcl',
): AclEntry[] {
  return newObjectAcl(c.bucket(bucket).state, ctx.query, resource, principalOf(ctx), param);
}

const given = (v: string | null): v is string => v !== null && v !== '';

/** The ACLs a bucket insert or patch sets: `predefinedAcl` / `acl`, `predefinedDefaultObjectAcl` / `defaultObjectAcl`. */
export function bucketAclChanges(
  b: BucketState,
  query: URLSearchParams,
  body: Record<string, unknown>,
): Pick<BucketState, 'acl' | 'defaultObjectAcl'> {
  const out: Pick<BucketState, 'acl' | 'defaultObjectAcl'> = {};
  const predefined = query.get('predefinedAcl');
  const predefinedDefault = query.get('predefinedDefaultObjectAcl');
  if (given(predefined)) out.acl = predefinedBucketAcl(predefined);
  else if (Array.isArray(body.acl)) out.acl = parseAcl(body.acl, true);
  if (given(predefinedDefault))
    out.defaultObjectAcl = predefinedObjectAcl(predefinedDefault, callerEntity(undefined));
  else if (Array.isArray(body.defaultObjectAcl))
    out.defaultObjectAcl = parseAcl(body.defaultObjectAcl, false);
  if (out.acl || out.defaultObjectAcl) {
    checkAclsUsable(b, 'set', 'bucket');
    checkPublicGrant(
      b,
      [...(out.acl ?? []), ...(out.defaultObjectAcl ?? [])].map((e) => e.entity),
    );
  }
  return out;
}

/** The ACL an object patch sets (`predefinedAcl`, or an `acl` list), if any. */
export function objectAclChange(
  b: BucketState,
  ctx: Ctx,
  body: Record<string, unknown>,
): AclEntry[] | undefined {
  const predefined = ctx.query.get('predefinedAcl');
  if (!given(predefined) && !Array.isArray(body.acl)) return undefined;
  return newObjectAcl(b, ctx.query, body, principalOf(ctx));
}

function entityFields(entity: string): Record<string, unknown> {
  const team = /^project-(owners|editors|viewers)-(.+)$/.exec(entity);
  if (team) return { projectTeam: { projectNumber: team[2], team: team[1] } };
  if (entity.startsWith('domain-')) return { domain: entity.slice('domain-'.length) };
  const email = /^(user|group)-(.+@.+)$/.exec(entity);
  return email ? { email: email[2] } : {};
}

const etagOf = (metageneration: number): string => Buffer.from(`acl/${metageneration}`).toString('base64');

/** One ACL entry as the JSON API renders it, for a bucket's ACL or an object's (or a default one). */
export function renderAclEntry(
  base: string,
  e: AclEntry,
  bucket: string,
  metageneration: number,
  object?: ObjectState,
): Record<string, unknown> {
  const path = object
    ? `b/${enc(bucket)}/o/${enc(object.name)}/acl/${enc(e.entity)}`
    : `b/${enc(bucket)}/acl/${enc(e.entity)}`;
  return {
    kind: object ? 'storage#objectAccessControl' : 'storage#bucketAccessControl',
    id: object ? `${bucket}/${object.name}/${object.generation}/${e.entity}` : `${bucket}/${e.entity}`,
    selfLink: `${base}/storage/v1/${path}`,
    bucket,
    ...(object ? { object: object.name, generation: String(object.generation) } : {}),
    entity: e.entity,
    role: e.role,
    ...entityFields(e.entity),
    etag: etagOf(metageneration),
  };
}

/** A default object ACL's entry: an object ACL entry of no object. */
function renderDefaultEntry(base: string, e: AclEntry, bucket: string, metageneration: number) {
  return {
    kind: 'storage#objectAccessControl',
    bucket,
    entity: e.entity,
    role: e.role,
    ...entityFields(e.entity),
    etag: etagOf(metageneration),
    selfLink: `${base}/storage/v1/b/${enc(bucket)}/defaultObjectAcl/${enc(e.entity)}`,
  };
}

/** The list with `e` in it (replacing the entity's entry) or, with `role` undefined, without it. */
function withEntry(
  list: readonly AclEntry[],
  entity: string,
  role: AclEntry['role'] | undefined,
): AclEntry[] {
  const at = list.findIndex((x) => x.entity === entity);
  if (role === undefined) return list.filter((x) => x.entity !== entity);
  if (at < 0) return [...list, { entity, role }];
  return list.map((x, i) => (i === at ? { entity, role } : x));
}

const VERBS: Readonly<Record<string, string>> = {
  GET: 'get',
  POST: 'insert',
  PUT: 'update',
  PATCH: 'update',
  DELETE: 'delete',
};

const notInAcl = (entity: string): StorageError =>
  new StorageError('notFound', `Entity ${entity} is not in the access control list.`);

/** Checks the caller may do `method` to this kind of ACL. */
function mayAcl(ctx: Ctx, kind: AclKind, method: string, bucket: string, object: string | undefined): void {
  const read = method === 'GET';
  if (kind === 'object') {
    mayObject(
      ctx,
      read ? 'storage.objects.getIamPolicy' : 'storage.objects.setIamPolicy',
      bucket,
      object as string,
    );
    return;
  }
  mayBucket(ctx, read ? 'storage.buckets.getIamPolicy' : 'storage.buckets.setIamPolicy', bucket);
  if (kind === 'default' && !read) mayBucket(ctx, 'storage.buckets.update', bucket);
}

/** The entity and role a write names: the path's entity (update, patch) or the body's (insert). */
async function wanted(
  ctx: Ctx,
  method: string,
  entity: string | undefined,
  onBucket: boolean,
): Promise<{ entity: string; role: AclEntry['role'] }> {
  const body = await readJson(ctx.req);
  const e = checkEntity(method === 'POST' ? body.entity : entity);
  return { entity: e, role: checkRole(body.role, onBucket) };
}

/** Serves one ACL call: `entity` undefined for a list or an insert. */
export async function aclCall(
  c: Catalog,
  ctx: Ctx,
  kind: AclKind,
  method: string,
  at: { bucket: string; object?: string; entity?: string },
): Promise<void> {
  const verb = VERBS[method];
  const single = at.entity !== undefined;
  const fits = single ? method !== 'POST' : method === 'GET' || method === 'POST';
  if (verb === undefined || !fits) throw new StorageError('notFound', `Not found: ${method} ${ctx.req.url}`);
  mayAcl(ctx, kind, method, at.bucket, at.object);
  const b = c.bucket(at.bucket).state;
  checkAclsUsable(b, verb, kind === 'object' ? 'object' : 'bucket');
  if (kind === 'object') return objectAcl(c, ctx, method, b, at);
  const list = kind === 'bucket' ? bucketAclOf(b) : defaultObjectAclOf(b);
  const render = (e: AclEntry, mg: number) =>
    kind === 'bucket' ? renderAclEntry(ctx.base, e, b.name, mg) : renderDefaultEntry(ctx.base, e, b.name, mg);
  if (method === 'GET') return answer(ctx, list, at.entity, (e) => render(e, b.metageneration), kind);
  const change = method === 'DELETE' ? undefined : await wanted(ctx, method, at.entity, kind === 'bucket');
  const entity = change?.entity ?? (at.entity as string);
  if (!change && !list.some((e) => e.entity === entity)) throw notInAcl(entity);
  if (change) checkPublicGrant(b, [entity]);
  const next: BucketState = {
    ...b,
    [kind === 'bucket' ? 'acl' : 'defaultObjectAcl']: withEntry(list, entity, change?.role),
    metageneration: b.metageneration + 1,
    updated: new Date().toISOString(),
  };
  await c.putBucket(next);
  if (!change) return noContent(ctx);
  sendJson(ctx.res, 200, render(change, next.metageneration));
}

function noContent(ctx: Ctx): void {
  ctx.res.writeHead(204);
  ctx.res.end();
}

function answer(
  ctx: Ctx,
  list: readonly AclEntry[],
  entity: string | undefined,
  render: (e: AclEntry) => Record<string, unknown>,
  kind: AclKind,
): void {
  if (entity === undefined) {
    sendJson(ctx.res, 200, {
      kind: kind === 'bucket' ? 'storage#bucketAccessControls' : 'storage#objectAccessControls',
      items: list.map(render),
    });
    return;
  }
  const e = list.find((x) => x.entity === entity);
  if (!e) throw notInAcl(entity);
  sendJson(ctx.res, 200, render(e));
}

async function objectAcl(
  c: Catalog,
  ctx: Ctx,
  method: string,
  b: BucketState,
  at: { bucket: string; object?: string; entity?: string },
): Promise<void> {
  const o = c.get(at.bucket, at.object as string, intParam(ctx.query, 'generation'));
  const list = objectAclOf(o.acl);
  if (method === 'GET')
    return answer(
      ctx,
      list,
      at.entity,
      (e) => renderAclEntry(ctx.base, e, b.name, o.metageneration, o),
      'object',
    );
  const change = method === 'DELETE' ? undefined : await wanted(ctx, method, at.entity, false);
  const entity = change?.entity ?? (at.entity as string);
  if (!change && !list.some((e) => e.entity === entity)) throw notInAcl(entity);
  if (change) checkPublicGrant(b, [entity]);
  const next: ObjectState = {
    ...o,
    acl: withEntry(list, entity, change?.role),
    metageneration: o.metageneration + 1,
    updated: new Date().toISOString(),
  };
  await c.putObject(next);
  if (!change) return noContent(ctx);
  sendJson(ctx.res, 200, renderAclEntry(ctx.base, change, b.name, next.metageneration, next));
}

/** `acl`, `defaultObjectAcl` and `owner` of a bucket resource with `projection=full` (none under uniform access). */
export function bucketAclFields(b: BucketState, base: string): Record<string, unknown> {
  if (uniformAccess(b)) return {};
  return {
    acl: bucketAclOf(b).map((e) => renderAclEntry(base, e, b.name, b.metageneration)),
    defaultObjectAcl: defaultObjectAclOf(b).map((e) => renderDefaultEntry(base, e, b.name, b.metageneration)),
    owner: { entity: callerEntity(undefined) },
  };
}

/** `acl` and `owner` of an object resource with `projection=full` (none under uniform access). */
export function objectAclFields(
  o: ObjectState,
  b: BucketState | undefined,
  base: string,
): Record<string, unknown> {
  if (!b || uniformAccess(b)) return {};
  const acl = objectAclOf(o.acl);
  const owner =
    acl.find((e) => e.role === 'OWNER' && e.entity.startsWith('user-')) ??
    acl.find((e) => e.role === 'OWNER');
  return {
    acl: acl.map((e) => renderAclEntry(base, e, b.name, o.metageneration, o)),
    ...(owner ? { owner: { entity: owner.entity } } : {}),
  };
}
