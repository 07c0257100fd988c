/**
 * The bucket and object records the emulator keeps (catalog.ts), as types only, so that the
 * modules that render them (resources.ts) and the rules that read them (retention.ts,
 * soft-delete.ts) share them without importing each other.
 */
export type AclRole = 'OWNER' | 'WRITER' | 'READER';

/** One entry of a bucket's, a default object or an object's access control list (acl.ts). */
export interface AclEntry {
  readonly entity: string;
  readonly role: AclRole;
}

/** One binding of a bucket's IAM policy, as setIamPolicy takes it. */
export interface PolicyBinding {
  readonly role: string;
  readonly members: readonly string[];
  readonly condition?: {
    readonly title?: string;
    readonly description?: string;
    readonly expression: string;
  };
}

/** The IAM policy set on a bucket (bucket-iam.ts); `serial` counts the sets (its etag). */
export interface StoredPolicy {
  readonly version: number;
  readonly bindings: readonly PolicyBinding[];
  readonly serial: number;
}

/** The events a notification configuration may ask for (notifications.ts). */
export type NotificationEvent =
  | 'OBJECT_FINALIZE'
  | 'OBJECT_METADATA_UPDATE'
  | 'OBJECT_DELETE'
  | 'OBJECT_ARCHIVE';

/** A bucket's Pub/Sub notification configuration, as notifications.insert took it. */
export interface NotificationConfig {
  readonly id: string;
  /** `//pubsub.googleapis.com/projects/<p>/topics/<t>`. */
  readonly topic: string;
  readonly payloadFormat: 'JSON_API_V1' | 'NONE';
  /** Empty: every event. */
  readonly eventTypes: readonly NotificationEvent[];
  readonly objectNamePrefix?: string;
  readonly customAttributes?: Readonly<Record<string, string>>;
}

export interface BucketState {
  name: string;
  timeCreated: string;
  updated: string;
  metageneration: number;
  location: string;
  storageClass: string;
  labels: Record<string, string>;
  versioning: boolean;
  /** Other configuration a user set (cors, lifecycle, website, ...), echoed back unchanged. */
  extra: Record<string, unknown>;
  /** The project that created it (`?project=` of buckets.insert): its default IAM policy names it. */
  project?: string;
  /** The IAM policy set on it (bucket-iam.ts); none: Cloud Storage's default. */
  iam?: StoredPolicy;
  /** Its ACL and default object ACL (acl.ts); none: `projectPrivate`, as a new bucket's. */
  acl?: AclEntry[];
  defaultObjectAcl?: AclEntry[];
  /** Its Pub/Sub notification configurations (notifications.ts), and the last id given. */
  notifications?: NotificationConfig[];
  notificationSerial?: number;
  /** Set when created (buckets of older data directories derive it from timeCreated). */
  generation?: number;
  /** Set while the bucket is soft-deleted (soft-delete.ts). */
  softDeleteTime?: string;
  hardDeleteTime?: string;
}

export interface ObjectState {
  bucket: string;
  name: string;
  generation: number;
  metageneration: number;
  size: number;
  /** Base64 MD5; composite objects have none, as in Cloud Storage. */
  md5?: string;
  /** Base64 of the big-endian CRC32C. */
  crc32c: string;
  timeCreated: string;
  updated: string;
  /** Set once the generation is no longer live (versioned buckets keep it). */
  timeDeleted?: string;
  componentCount?: number;
  /** Writable metadata: contentType, contentEncoding, cacheControl, metadata, ... */
  meta: Record<string, unknown>;
  /** File under the data directory's `blobs/` holding the bytes. */
  blob: string;
  /** SHA-256 (base64) of the customer-supplied key it was written with (csek.ts). */
  keySha256?: string;
  /** Its ACL (acl.ts); none (older data directories): `projectPrivate`. */
  acl?: AclEntry[];
  /** Set while the generation is soft-deleted (soft-delete.ts). */
  softDeleteTime?: string;
  hardDeleteTime?: string;
  /** A soft-deleted object's token in a bucket with a hierarchical namespace. */
  restoreToken?: string;
}
