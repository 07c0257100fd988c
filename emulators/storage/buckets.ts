/** Bucket methods of the JSON API: insert, get, list, patch/update, delete, testIamPermissions (the policy itself: bucket-iam.ts). */
import { heldOnBucket } from './access.ts';
import { bucketAclChanges, bucketAclFields } from './acl-api.ts';
import type { Catalog } from './catalog.ts';
import { preconditionFailed, StorageError } from './errors.ts';
import { checkBucketName } from './names.ts';
import type { BucketState } from './records.ts';
import { applyBucketBody, renderBucket } from './resources.ts';
import { lockedPolicy, settleRetention } from './retention.ts';
import { type Ctx, intParam, readJson, sendJson } from './wire.ts';

/** A bucket's resource as this request asks for it (`projection=full`: with its ACLs). */
function view(ctx: Ctx, b: BucketState): Record<string, unknown> {
  const resource = renderBucket(b, ctx.base);
  return ctx.query.get('projection') === 'full' ? { ...resource, ...bucketAclFields(b, ctx.base) } : resource;
}

function checkMetageneration(ctx: Ctx, b: BucketState): void {
  const match = ctx.query.get('ifMetagenerationMatch');
  const notMatch = ctx.query.get('ifMetagenerationNotMatch');
  if (match !== null && match !== String(b.metageneration)) throw preconditionFailed();
  if (notMatch !== null && notMatch === String(b.metageneration)) throw preconditionFailed();
}

export async function insertBucket(c: Catalog, ctx: Ctx): Promise<void> {
  const body = await readJson(ctx.req);
  const name = checkBucketName(body.name);
  if (c.buckets.has(name))
    throw new StorageError(
      'conflict',
      'Your previous request to create the named bucket succeeded and you already own it.',
    );
  const now = new Date().toISOString();
  const base: BucketState = {
    name,
    timeCreated: now,
    updated: now,
    metageneration: 1,
    generation: c.nextGeneration(),
    location: typeof body.location === 'string' ? body.location.toUpperCase() : 'US',
    storageClass: 'STANDARD',
    labels: {},
    versioning: false,
    extra: {},
    ...(ctx.query.get('project') ? { project: ctx.query.get('project') as string } : {}),
  };
  const settled = applyBucketBody(base, body);
  const b: BucketState = { ...settled, ...bucketAclChanges(settled, ctx.query, body) };
  // Object retention is chosen when the bucket is created, by a query parameter.
  if (ctx.query.get('enableObjectRetention') === 'true') b.extra.objectRetention = { mode: 'Enabled' };
  await c.putBucket(b);
  sendJson(ctx.res, 200, view(ctx, b));
}

/** `softDeleted=true` addresses a soft-deleted bucket, by its `generation` (required). */
function softGeneration(ctx: Ctx): number | undefined {
  if (ctx.query.get('softDeleted') !== 'true') return undefined;
  const g = intParam(ctx.query, 'generation');
  if (g === undefined) throw new StorageError('required', 'Required parameter: generation');
  return g;
}

export function getBucket(c: Catalog, ctx: Ctx, name: string): void {
  const soft = softGeneration(ctx);
  const b = soft === undefined ? c.bucket(name).state : c.getSoftBucket(name, soft).state;
  checkMetageneration(ctx, b);
  sendJson(ctx.res, 200, view(ctx, b));
}

export function listBuckets(c: Catalog, ctx: Ctx): void {
  const prefix = ctx.query.get('prefix') ?? '';
  const max = Math.min(intParam(ctx.query, 'maxResults') ?? 1000, 1000) || 1000;
  const after = ctx.query.get('pageToken')
    ? Buffer.from(ctx.query.get('pageToken') ?? '', 'base64url').toString()
    : '';
  // softDeleted=true lists the soft-deleted buckets (by name, then generation) instead.
  const all =
    ctx.query.get('softDeleted') === 'true'
      ? c.softBuckets().map((e) => e.state)
      : [...c.buckets.values()].map((e) => e.state);
  const key = (b: BucketState): string => `${b.name}\n${String(b.generation ?? 0).padStart(20, '0')}`;
  const found = all
    .filter((b) => b.name.startsWith(prefix) && key(b) > after)
    .sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const page = found.slice(0, max);
  const last = page.at(-1);
  sendJson(ctx.res, 200, {
    kind: 'storage#buckets',
    ...(page.length > 0 ? { items: page.map((b) => view(ctx, b)) } : {}),
    ...(found.length > max && last ? { nextPageToken: Buffer.from(key(last)).toString('base64url') } : {}),
  });
}

/** PATCH merges the given fields; PUT (update) starts from a bucket with only its name and times. */
export async function patchBucket(c: Catalog, ctx: Ctx, name: string, replace: boolean): Promise<void> {
  const current = c.bucket(name).state;
  checkMetageneration(ctx, current);
  const body = await readJson(ctx.req);
  const start: BucketState = replace ? { ...current, labels: {}, versioning: false, extra: {} } : current;
  const applied = applyBucketBody(start, body);
  const next: BucketState = { ...applied, ...bucketAclChanges(applied, ctx.query, body) };
  settleRetention(current, next);
  next.metageneration = current.metageneration + 1;
  next.updated = new Date().toISOString();
  await c.putBucket(next);
  sendJson(ctx.res, 200, view(ctx, next));
}

/** lockRetentionPolicy: needs `ifMetagenerationMatch`, the bucket's current metageneration. */
export async function lockRetention(c: Catalog, ctx: Ctx, name: string): Promise<void> {
  const current = c.bucket(name).state;
  if (ctx.query.get('ifMetagenerationMatch') === null)
    throw new StorageError('required', 'Required parameter: ifMetagenerationMatch');
  checkMetageneration(ctx, current);
  ctx.req.resume();
  const next: BucketState = {
    ...current,
    extra: { ...current.extra, retentionPolicy: lockedPolicy(current) },
    metageneration: current.metageneration + 1,
    updated: new Date().toISOString(),
  };
  await c.putBucket(next);
  sendJson(ctx.res, 200, view(ctx, next));
}

/** buckets.restore: a soft-deleted bucket back, by its generation. */
export async function restoreBucket(c: Catalog, ctx: Ctx, name: string): Promise<void> {
  const generation = intParam(ctx.query, 'generation');
  if (generation === undefined) throw new StorageError('required', 'Required parameter: generation');
  ctx.req.resume();
  const b = await c.restoreBucket(name, generation);
  sendJson(ctx.res, 200, view(ctx, b));
}

export async function deleteBucket(c: Catalog, ctx: Ctx, name: string): Promise<void> {
  checkMetageneration(ctx, c.bucket(name).state);
  await c.deleteBucket(name);
  ctx.res.writeHead(204);
  ctx.res.end();
}

/** testIamPermissions: which of the permissions asked for the caller holds on the bucket (no permission needed). */
export function testBucketPermissions(c: Catalog, ctx: Ctx, name: string): void {
  c.bucket(name);
  const asked = ctx.query
    .getAll('permissions')
    .flatMap((p) => p.split(','))
    .filter((p) => p !== '');
  if (asked.length === 0) throw new StorageError('required', 'Required parameter: permissions');
  const held = heldOnBucket(ctx, name, asked);
  sendJson(ctx.res, 200, {
    kind: 'storage#testIamPermissionsResponse',
    ...(held.length > 0 ? { permissions: held } : {}),
  });
}
