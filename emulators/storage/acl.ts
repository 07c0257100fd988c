/**
 * Access control lists, the fine-grained access Cloud Storage keeps besides IAM: a bucket's ACL,
 * its default object ACL (copied onto each new object) and each object's ACL, as entries
 * `{entity, role}`. This file holds the rules on them; the endpoints are in acl-api.ts.
 *
 * - Entities, as Google documents them: `user-<email>`, `group-<email>`, `domain-<domain>`,
 *   `project-(owners|editors|viewers)-<project>`, `allUsers`, `allAuthenticatedUsers` (others 400);
 *   roles `OWNER` and `READER`, and `WRITER` on a bucket (others 400).
 * - A bucket starts `projectPrivate` (the project's owners and editors OWNER, its viewers READER),
 *   and so does its default object ACL; a new object gets the default object ACL plus its creator
 *   as OWNER, or a predefined ACL (`predefinedAcl`, `destinationPredefinedAcl`) or the `acl` of
 *   its resource.
 * - While `iamConfiguration.uniformBucketLevelAccess` is enabled, ACLs are kept but neither read,
 *   written nor counted: every ACL call is 400 `invalid`, as Cloud Storage answers.
 * - While `iamConfiguration.publicAccessPrevention` is `enforced`, granting `allUsers` or
 *   `allAuthenticatedUsers` (an ACL entry, a predefined ACL, an IAM binding) is 412
 *   `conditionNotMet`, and such grants made before count for nothing.
 * - What an entry allows (access.ts asks when IAM alone refuses): on an object, READER reads it
 *   and OWNER also manages its ACL and metadata; on a bucket, READER lists objects and reads the
 *   bucket, WRITER also creates and deletes objects, OWNER also updates the bucket and its ACLs.
 */
import { StorageError } from './errors.ts';
import type { AclEntry, AclRole, BucketState } from './records.ts';

export type { AclEntry, AclRole };

/** The project number every resource of the emulator shows (resources.ts: `projectNumber`). */
export const PROJECT_NUMBER = '0';

const team = (t: 'owners' | 'editors' | 'viewers', role: AclRole): AclEntry => ({
  entity: `project-${t}-${PROJECT_NUMBER}`,
  role,
});

const PROJECT_PRIVATE: readonly AclEntry[] = [
  team('owners', 'OWNER'),
  team('editors', 'OWNER'),
  team('viewers', 'READER'),
];

/** `uniformBucketLevelAccess` / `publicAccessPrevention` as kept in a bucket's `iamConfiguration`. */
interface IamConfiguration {
  uniformBucketLevelAccess?: { enabled?: boolean; lockedTime?: string };
  publicAccessPrevention?: string;
}

const configOf = (b: BucketState): IamConfiguration =>
  (b.extra.iamConfiguration as IamConfiguration | undefined) ?? {};

export const uniformAccess = (b: BucketState): boolean =>
  configOf(b).uniformBucketLevelAccess?.enabled === true;

export const publicAccessPrevented = (b: BucketState): boolean =>
  configOf(b).publicAccessPrevention === 'enforced';

const PAP_VALUES = new Set(['inherited', 'enforced']);
/** What Cloud Storage keeps uniform bucket-level access locked for once enabled (then it can only stay on). */
const UBLA_LOCK_DAYS = 90;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A patch of `iamConfiguration` merged onto the kept one: each part given replaces that part only
 * (changing one leaves the other as it was). `bucketPolicyOnly` is the older name of uniform
 * access. `unspecified` reads back as `inherited`; any other value is 400.
 */
export function mergeIamConfiguration(current: unknown, patch: unknown): IamConfiguration {
  if (!isRecord(patch))
    throw new StorageError('invalid', 'Invalid value for iamConfiguration: expected an object');
  const out: IamConfiguration = { ...(isRecord(current) ? (current as IamConfiguration) : {}) };
  const ubla = isRecord(patch.uniformBucketLevelAccess)
    ? patch.uniformBucketLevelAccess
    : isRecord(patch.bucketPolicyOnly)
      ? patch.bucketPolicyOnly
      : undefined;
  if (ubla && 'enabled' in ubla) {
    const enabled = ubla.enabled === true;
    const was = out.uniformBucketLevelAccess?.enabled === true;
    out.uniformBucketLevelAccess = enabled
      ? {
          enabled,
          lockedTime:
            was && out.uniformBucketLevelAccess?.lockedTime
              ? out.uniformBucketLevelAccess.lockedTime
              : new Date(Date.now() + UBLA_LOCK_DAYS * 86_400_000).toISOString(),
        }
      : { enabled };
  }
  if ('publicAccessPrevention' in patch) {
    const v = patch.publicAccessPrevention;
    const value = v === 'unspecified' ? 'inherited' : v;
    if (typeof value !== 'string' || !PAP_VALUES.has(value))
      throw new StorageError(
        'invalid',
        `Invalid value for iamConfiguration.publicAccessPrevention: ${String(v)}`,
      );
    out.publicAccessPrevention = value;
  }
  return out;
}

/** A bucket's `iamConfiguration` as Cloud Storage renders it (defaults filled in). */
export function renderIamConfiguration(b: BucketState): Record<string, unknown> {
  const c = configOf(b);
  const ubla = c.uniformBucketLevelAccess?.enabled
    ? { enabled: true, lockedTime: c.uniformBucketLevelAccess.lockedTime }
    : { enabled: false };
  return {
    bucketPolicyOnly: ubla,
    uniformBucketLevelAccess: ubla,
    publicAccessPrevention: c.publicAccessPrevention ?? 'inherited',
  };
}

const ENTITY =
  /^(allUsers|allAuthenticatedUsers|(user|group)-\S+|domain-[A-Za-z0-9.-]+|project-(owners|editors|viewers)-[A-Za-z0-9-]+)$/;

export function checkEntity(v: unknown): string {
  if (typeof v !== 'string' || v === '') throw new StorageError('required', 'Required: entity');
  if (!ENTITY.test(v)) throw new StorageError('invalid', `Invalid entity: ${v}`);
  return v;
}

export function checkRole(v: unknown, onBucket: boolean): AclRole {
  if (v === undefined || v === null || v === '') throw new StorageError('required', 'Required: role');
  if (v === 'OWNER' || v === 'READER' || (onBucket && v === 'WRITER')) return v;
  throw new StorageError('invalid', `Invalid role: ${String(v)}`);
}

/** An `acl` array of a request body (a bucket's, a default object ACL, an object's). */
export function parseAcl(v: unknown, onBucket: boolean): AclEntry[] {
  if (!Array.isArray(v)) throw new StorageError('invalid', 'Invalid value for acl: expected a list');
  return dedupe(
    v.map((e) => {
      const r = isRecord(e) ? e : {};
      return { entity: checkEntity(r.entity), role: checkRole(r.role, onBucket) };
    }),
  );
}

/** One entry per entity, the last given winning. */
function dedupe(entries: readonly AclEntry[]): AclEntry[] {
  const m = new Map<string, AclEntry>();
  for (const e of entries) m.set(e.entity, e);
  return [...m.values()];
}

const isPublic = (entity: string): boolean => entity === 'allUsers' || entity === 'allAuthenticatedUsers';

export const PAP_MESSAGE =
  'The member bindings allUsers and allAuthenticatedUsers are not allowed since public access prevention is enforced.';

/** 412 when `entities` include a public one and the bucket enforces public access prevention. */
export function checkPublicGrant(b: BucketState, entities: readonly string[]): void {
  if (publicAccessPrevented(b) && entities.some(isPublic))
    throw new StorageError('conditionNotMet', PAP_MESSAGE);
}

/** 400 while the bucket has uniform bucket-level access: ACLs are neither read nor written. */
export function checkAclsUsable(b: BucketState, verb: string, what: 'bucket' | 'object'): void {
  if (uniformAccess(b))
    throw new StorageError(
      'invalid',
      `Cannot ${verb} legacy ACL for ${what === 'object' ? 'an object' : 'a bucket'} when uniform bucket-level access is enabled. Read more at https://cloud.google.com/storage/docs/uniform-bucket-level-access`,
    );
}

export const bucketAclOf = (b: BucketState): readonly AclEntry[] => b.acl ?? PROJECT_PRIVATE;
export const defaultObjectAclOf = (b: BucketState): readonly AclEntry[] =>
  b.defaultObjectAcl ?? PROJECT_PRIVATE;
export const objectAclOf = (acl: readonly AclEntry[] | undefined): readonly AclEntry[] =>
  acl ?? PROJECT_PRIVATE;

/** The entity a caller is in an ACL: `user-<email>`, or the project's owners for the owner. */
export function callerEntity(principal: string | undefined): string {
  const m = principal === undefined ? null : /^(user|serviceAccount):(.+)$/.exec(principal);
  return m ? `user-${m[2] as string}` : `project-owners-${PROJECT_NUMBER}`;
}

const BUCKET_PREDEFINED: Readonly<Record<string, readonly AclEntry[]>> = {
  private: [team('owners', 'OWNER')],
  projectPrivate: PROJECT_PRIVATE,
  publicRead: [...PROJECT_PRIVATE, { entity: 'allUsers', role: 'READER' }],
  publicReadWrite: [...PROJECT_PRIVATE, { entity: 'allUsers', role: 'WRITER' }],
  authenticatedRead: [...PROJECT_PRIVATE, { entity: 'allAuthenticatedUsers', role: 'READER' }],
};

/** A bucket's predefined ACL (`predefinedAcl` of buckets.insert and patch). */
export function predefinedBucketAcl(name: string): AclEntry[] {
  const acl = BUCKET_PREDEFINED[name];
  if (!acl) throw new StorageError('invalid', `Invalid predefinedAcl: ${name}`);
  return [...acl];
}

/** An object's predefined ACL; `owner` is the object's owner (its creator's entity). */
export function predefinedObjectAcl(name: string, owner: string): AclEntry[] {
  const own: AclEntry = { entity: owner, role: 'OWNER' };
  const table: Readonly<Record<string, readonly AclEntry[]>> = {
    private: [own],
    projectPrivate: [...PROJECT_PRIVATE, own],
    publicRead: [own, { entity: 'allUsers', role: 'READER' }],
    authenticatedRead: [own, { entity: 'allAuthenticatedUsers', role: 'READER' }],
    bucketOwnerRead: [own, team('owners', 'READER')],
    bucketOwnerFullControl: [own, team('owners', 'OWNER')],
  };
  const acl = table[name];
  if (!acl) throw new StorageError('invalid', `Invalid predefinedAcl: ${name}`);
  // The object's owner stays its OWNER, whatever else the list gives its entity.
  return dedupe([...acl, own]);
}

/**
 * The ACL a new object gets: the predefined one named by `param` of the query, else the `acl` of
 * its resource, else the bucket's default object ACL with its creator as OWNER. A predefined or
 * given ACL is 400 under uniform access, and a public one 412 under public access prevention.
 */
export function newObjectAcl(
  b: BucketState,
  query: URLSearchParams,
  resource: Record<string, unknown> | undefined,
  principal: string | undefined,
  param = 'predefinedAcl',
): AclEntry[] {
  const owner = callerEntity(principal);
  const predefined = query.get(param);
  const given = resource?.acl;
  if ((predefined !== null && predefined !== '') || Array.isArray(given)) {
    checkAclsUsable(b, 'insert', 'object');
    const acl = predefined ? predefinedObjectAcl(predefined, owner) : parseAcl(given, false);
    checkPublicGrant(
      b,
      acl.map((e) => e.entity),
    );
    return acl;
  }
  return dedupe([...defaultObjectAclOf(b), { entity: owner, role: 'OWNER' }]);
}

const OBJECT_ROLE_PERMISSIONS: Readonly<Record<AclRole, readonly string[]>> = {
  READER: ['storage.objects.get'],
  WRITER: ['storage.objects.get'],
  OWNER: [
    'storage.objects.get',
    'storage.objects.update',
    'storage.objects.getIamPolicy',
    'storage.objects.setIamPolicy',
  ],
};

const BUCKET_READ = ['storage.objects.list', 'storage.buckets.get'];
const BUCKET_WRITE = [...BUCKET_READ, 'storage.objects.create', 'storage.objects.delete'];
const BUCKET_ROLE_PERMISSIONS: Readonly<Record<AclRole, readonly string[]>> = {
  READER: BUCKET_READ,
  WRITER: BUCKET_WRITE,
  OWNER: [
    ...BUCKET_WRITE,
    'storage.buckets.update',
    'storage.buckets.getIamPolicy',
    'storage.buckets.setIamPolicy',
  ],
};

/** Whether ACL entity `entity` names `principal` (the owner's project teams count as IAM's owner, not here). */
function names(entity: string, principal: string): boolean {
  if (entity === 'allUsers') return true;
  if (entity === 'allAuthenticatedUsers') return principal !== 'allUsers';
  const email = /^(user|serviceAccount|group):(.+)$/.exec(principal)?.[2]?.toLowerCase();
  if (email === undefined) return false;
  if (entity.startsWith('user-') || entity.startsWith('group-'))
    return entity.slice(entity.indexOf('-') + 1).toLowerCase() === email;
  if (entity.startsWith('domain-')) return email.endsWith(`@${entity.slice('domain-'.length).toLowerCase()}`);
  return false;
}

/**
 * Whether the ACLs let `principal` have `permission`: the object's ACL (when the check is on an
 * object) or the bucket's. Never under uniform access; public entries not under public access
 * prevention.
 */
export function aclAllows(
  b: BucketState,
  objectAcl: readonly AclEntry[] | undefined,
  principal: string,
  permission: string,
): boolean {
  if (uniformAccess(b)) return false;
  const counts = (e: AclEntry): boolean =>
    names(e.entity, principal) && !(publicAccessPrevented(b) && isPublic(e.entity));
  if (objectAcl?.some((e) => counts(e) && OBJECT_ROLE_PERMISSIONS[e.role].includes(permission))) return true;
  return bucketAclOf(b).some((e) => counts(e) && BUCKET_ROLE_PERMISSIONS[e.role].includes(permission));
}
