/**
 * A bucket's IAM policy, as the JSON API serves it: `GET /b/{bucket}/iam` (getIamPolicy,
 * `storage.buckets.getIamPolicy`) and `PUT /b/{bucket}/iam` (setIamPolicy,
 * `storage.buckets.setIamPolicy`), answered as `storage#policy` resources (`resourceId`,
 * `version`, `etag`, `bindings`).
 *
 * - A bucket nobody set a policy on answers Cloud Storage's default: `roles/storage.legacyBucketOwner`
 *   for the project's editors and owners, `roles/storage.legacyBucketReader` for its viewers
 *   (the convenience members `projectOwner:<project>`, … of the project that created it).
 * - A policy set is kept with the bucket (it survives restarts) and is enforced with the access
 *   file's policies (access.ts reads it through `ownPolicy`): a binding on the bucket grants its
 *   role's permissions on the bucket and its objects.
 * - As Cloud Storage refuses them: a binding with a condition unless the policy is version 3 and
 *   the bucket has uniform bucket-level access (400); a read of a conditional policy asking for a
 *   version below 3 (400); an `etag` that is not the current policy's (412); a binding without a
 *   role or members (400); `allUsers` or `allAuthenticatedUsers` in a bucket enforcing public
 *   access prevention (412, acl.ts).
 */
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { bucketResource } from './access.ts';
import { checkPublicGrant, uniformAccess } from './acl.ts';
import type { Catalog } from './catalog.ts';
import { StorageError } from './errors.ts';
import type { BucketState, PolicyBinding, StoredPolicy } from './records.ts';
import { type Ctx, readJson, sendJson } from './wire.ts';

const MEMBER =
  /^(allUsers|allAuthenticatedUsers|(user|serviceAccount|group|domain|projectOwner|projectEditor|projectViewer|principal|principalSet|deleted:user|deleted:serviceAccount|deleted:group):\S+)$/;

/** The policy Cloud Storage gives a new bucket: legacy roles for the project's convenience members. */
function defaultPolicy(b: BucketState): StoredPolicy {
  const project = b.project ?? '_';
  return {
    version: 1,
    serial: 0,
    bindings: [
      {
        role: 'roles/storage.legacyBucketOwner',
        members: [`projectEditor:${project}`, `projectOwner:${project}`],
      },
      { role: 'roles/storage.legacyBucketReader', members: [`projectViewer:${project}`] },
    ],
  };
}

const etagOf = (p: StoredPolicy): string => Buffer.from(`policy/${p.serial}`).toString('base64');

function render(b: BucketState, p: StoredPolicy): Record<string, unknown> {
  return {
    kind: 'storage#policy',
    resourceId: bucketResource(b.name),
    version: p.version,
    etag: etagOf(p),
    bindings: p.bindings,
  };
}

/** The policy set on a bucket through setIamPolicy, as enforcement reads it (none for the default). */
export function ownPolicy(c: Catalog, bucket: string): IamPolicy | undefined {
  const iam = c.buckets.get(bucket)?.state.iam;
  return iam ? { resource: bucketResource(bucket), bindings: iam.bindings } : undefined;
}

/** getIamPolicy: the bucket's policy; a conditional one only to a caller asking for version 3. */
export function getBucketPolicy(c: Catalog, ctx: Ctx, name: string): void {
  const b = c.bucket(name).state;
  const policy = b.iam ?? defaultPolicy(b);
  const asked = Number(ctx.query.get('optionsRequestedPolicyVersion') ?? '1');
  if (policy.bindings.some((x) => x.condition) && asked < 3)
    throw new StorageError(
      'invalid',
      'The policy has conditional role bindings: request it with optionsRequestedPolicyVersion=3.',
    );
  sendJson(ctx.res, 200, render(b, policy));
}

function binding(raw: unknown): PolicyBinding {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r['role'] !== 'string' || !/^(roles|projects|organizations)\/\S+$/.test(r['role']))
    throw new StorageError('invalid', `Invalid role in the policy's bindings: ${String(r['role'])}`);
  const members = r['members'];
  if (!Array.isArray(members) || members.length === 0)
    throw new StorageError('invalid', `A binding of role ${r['role']} needs at least one member.`);
  for (const m of members)
    if (typeof m !== 'string' || !MEMBER.test(m))
      throw new StorageError('invalid', `Invalid member in the binding of ${r['role']}: ${String(m)}`);
  const cond = r['condition'] as Record<string, unknown> | undefined;
  if (cond !== undefined && typeof cond?.['expression'] !== 'string')
    throw new StorageError('invalid', 'A binding condition needs an expression.');
  return {
    role: r['role'],
    members: members as string[],
    ...(cond
      ? {
          condition: {
            expression: cond['expression'] as string,
            ...(typeof cond['title'] === 'string' ? { title: cond['title'] } : {}),
            ...(typeof cond['description'] === 'string' ? { description: cond['description'] } : {}),
          },
        }
      : {}),
  };
}

/** setIamPolicy: replaces the bucket's policy (whole), after the checks in the file's header. */
export async function setBucketPolicy(c: Catalog, ctx: Ctx, name: string): Promise<void> {
  const b = c.bucket(name).state;
  const body = await readJson(ctx.req);
  const current = b.iam ?? defaultPolicy(b);
  if (typeof body['etag'] === 'string' && body['etag'] !== etagOf(current))
    throw new StorageError('conditionNotMet', 'The policy has changed since its etag was read.');
  if (!Array.isArray(body['bindings'])) throw new StorageError('required', 'Required: bindings');
  const bindings = body['bindings'].map(binding);
  const version = body['version'] === undefined ? 1 : Number(body['version']);
  if (![1, 3].includes(version))
    throw new StorageError('invalid', `Invalid policy version: ${String(body['version'])}`);
  if (bindings.some((x) => x.condition)) {
    if (version !== 3)
      throw new StorageError('invalid', 'A policy with conditional role bindings must be version 3.');
    if (!uniformAccess(b))
      throw new StorageError(
        'invalid',
        'IAM conditions can only be set on a bucket with uniform bucket-level access enabled.',
      );
  }
  checkPublicGrant(
    b,
    bindings.flatMap((x) => x.members),
  );
  const next: BucketState = { ...b, iam: { version, bindings, serial: current.serial + 1 } };
  await c.putBucket(next);
  sendJson(ctx.res, 200, render(next, next.iam as StoredPolicy));
}
