/**
 * The registry of runtime resources (docs/registry.md), as data: where its objects live in the
 * environment's bucket, what an index holds, and what an `apply` changes. Pure; the Cloud
 * Storage reads and writes are in adapters/registry.ts.
 *
 * Layout: every version of a resource is its own immutable object,
 * `<kind>/<name>/<major>.<minor>.json`; one index object per kind, `<kind>/index.json`, is the
 * commit point, naming each resource's current version (or that it was deleted).
 */

import type { RegistryKind } from '../../schemas/resource.ts';
import { canonicalJson } from '../identity.ts';

export { REGISTRY_KINDS, type RegistryKind } from '../../schemas/resource.ts';

/** A resource as a user writes it (one YAML document of a resource file). */
export interface ResourceDoc {
  readonly kind: RegistryKind;
  readonly name: string;
  readonly description?: string;
  /** Declared only; the author of each version is the authenticated caller. */
  readonly owner?: string;
  readonly spec: unknown;
}

/** One stored version: the document, its version and who wrote it when. */
export interface ResourceVersion extends ResourceDoc {
  readonly version: string;
  readonly author: string;
  readonly created: string;
  /**
   * The last version of the previous major, once there is one (`1.3` in every 2.x): what an
   * EventDefinition's `accept_previous_major_until` keeps accepting (docs/versioning.md).
   */
  readonly previous_major?: string;
}

export interface IndexEntry {
  readonly version: string;
  readonly updated: string;
  readonly author: string;
  readonly deleted?: true;
}

export interface RegistryIndex {
  readonly kind: RegistryKind;
  readonly resources: Readonly<Record<string, IndexEntry>>;
}

export const indexPath = (kind: RegistryKind): string => `${kind}/index.json`;
export const versionPath = (kind: RegistryKind, name: string, version: string): string =>
  `${kind}/${name}/${version}.json`;

export const emptyIndex = (kind: RegistryKind): RegistryIndex => ({ kind, resources: {} });

/** What of a document makes a new version when it changes. */
export function content(doc: ResourceDoc): string {
  // Stable JSON (keys sorted): equal documents compare equal whatever their key order.
  return canonicalJson({ description: doc.description, owner: doc.owner, spec: doc.spec });
}

export type ChangeKind = 'created' | 'updated' | 'unchanged' | 'deleted';

export interface PlannedChange {
  readonly kind: RegistryKind;
  readonly name: string;
  readonly change: ChangeKind;
  /** The version the index names after the apply (the current one when unchanged or deleted). */
  readonly version: string;
  readonly previous?: string;
  /** Why this is a new major version (what breaks the previous version's readers). */
  readonly breaking?: readonly string[];
}

/**
 * The next version of a resource: 1.0 when new; a new major when `breaking` says the change
 * breaks readers of the previous version (for definitions: a field removed, retyped or made
 * required), else a new minor.
 */
export function nextVersion(previous: string | undefined, breaking: boolean): string {
  if (!previous) return '1.0';
  const [major, minor] = previous.split('.').map(Number) as [number, number];
  return breaking ? `${major + 1}.0` : `${major}.${minor + 1}`;
}

export interface ApplyInput {
  readonly index: RegistryIndex;
  /** The current version's document of each named resource that has one (for the comparison). */
  readonly current: ReadonlyMap<string, ResourceDoc>;
  readonly docs: readonly ResourceDoc[];
  readonly author: string;
  readonly now: string;
  /** What in changing `from` into `to` breaks its readers (empty: a minor version). */
  readonly breaking?: (from: ResourceDoc, to: ResourceDoc) => readonly string[];
}

export interface ApplyPlan {
  readonly changes: readonly PlannedChange[];
  /** Version objects to create (only if absent). */
  readonly writes: readonly ResourceVersion[];
  /** The index to commit, or undefined when nothing changed. */
  readonly index: RegistryIndex | undefined;
}

/** Plans an apply of documents of one kind against the index read. */
export function planApply(input: ApplyInput): ApplyPlan {
  // Names are users' (`constructor` is a valid one): no lookup may reach Object.prototype.
  const resources: Record<string, IndexEntry> = Object.assign(Object.create(null), input.index.resources);
  const changes: PlannedChange[] = [];
  const writes: ResourceVersion[] = [];
  for (const doc of input.docs) {
    if (doc.kind !== input.index.kind)
      throw new Error(`a ${doc.kind} given to the ${input.index.kind} index`);
    const entry = Object.hasOwn(resources, doc.name) ? resources[doc.name] : undefined;
    const live = entry && !entry.deleted ? entry : undefined;
    const before = input.current.get(doc.name);
    if (live && before && content(before) === content(doc)) {
      changes.push({ kind: doc.kind, name: doc.name, change: 'unchanged', version: live.version });
      continue;
    }
    const breaking = live && before ? (input.breaking?.(before, doc) ?? []) : [];
    // A deleted resource that comes back continues its numbering rather than reusing a version.
    const version = nextVersion(entry?.version, breaking.length > 0);
    const carried = (before as Partial<ResourceVersion> | undefined)?.previous_major;
    const previousMajor = breaking.length > 0 ? entry?.version : carried;
    writes.push({
      ...doc,
      version,
      author: input.author,
      created: input.now,
      ...(previousMajor ? { previous_major: previousMajor } : {}),
    });
    resources[doc.name] = { version, updated: input.now, author: input.author };
    changes.push({
      kind: doc.kind,
      name: doc.name,
      change: live ? 'updated' : 'created',
      version,
      ...(entry ? { previous: entry.version } : {}),
      ...(breaking.length > 0 ? { breaking } : {}),
    });
  }
  const changed = changes.some((c) => c.change !== 'unchanged');
  return { changes, writes, index: changed ? { kind: input.index.kind, resources } : undefined };
}

/** Plans the deletion of a resource: the index marks it deleted; its versions stay as history. */
export function planDelete(index: RegistryIndex, name: string, author: string, now: string): ApplyPlan {
  const entry = Object.hasOwn(index.resources, name) ? index.resources[name] : undefined;
  if (!entry || entry.deleted) return { changes: [], writes: [], index: undefined };
  return {
    changes: [{ kind: index.kind, name, change: 'deleted', version: entry.version }],
    writes: [],
    index: {
      kind: index.kind,
      resources: {
        ...index.resources,
        [name]: { version: entry.version, updated: now, author, deleted: true },
      },
    },
  };
}
