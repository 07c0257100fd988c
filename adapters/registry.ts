/**
 * The registry in its Cloud Storage bucket (docs/registry.md): the one module every reader and
 * writer of runtime resources uses. Google's client, unchanged; locally it finds the Cloud Storage
 * emulator through STORAGE_EMULATOR_HOST.
 *
 * Writers (`RegistryClient.apply`): version objects are created only if absent
 * (`ifGenerationMatch=0`), then the kind's index is replaced only if it is still the generation
 * that was read; a writer that lost a race is refused, naming it. A version object left by a
 * writer that lost at the index step is not history (the index never named it): the next writer
 * of that version replaces it.
 *
 * Readers (`RegistryReader`): refresh on the request path, not from a timer (Cloud Run throttles
 * CPU between requests): a copy older than 30 s is checked with a conditional read of the index
 * (`ifGenerationNotMatch`, a 304 when nothing changed); on a read error the last good copy is
 * served; with no copy at all `RegistryUnavailable` tells the caller to answer 503 rather than
 * accept events unvalidated.
 */
import type { Bucket, File } from '@google-cloud/storage';
import {
  type ApplyPlan,
  emptyIndex,
  indexPath,
  type PlannedChange,
  planApply,
  planDelete,
  type RegistryIndex,
  type RegistryKind,
  type ResourceDoc,
  type ResourceVersion,
  versionPath,
} from '../core/registry.ts';

/** No copy of the registry could be read: the caller answers 503. */
export class RegistryUnavailable extends Error {}

/** Another writer changed the registry between this writer's read and its commit. */
export class RegistryRace extends Error {}

const statusOf = (err: unknown): unknown => (err as { code?: unknown }).code;

async function readJson<T>(file: File, generation?: number): Promise<T> {
  const f = generation === undefined ? file : file.bucket.file(file.name, { generation });
  const [bytes] = await f.download();
  return JSON.parse(bytes.toString('utf8')) as T;
}

/** The index and the generation it was read at (0 when it does not exist yet). */
export interface IndexRead {
  readonly index: RegistryIndex;
  readonly generation: number;
}

export class RegistryClient {
  readonly bucket: Bucket;

  constructor(bucket: Bucket) {
    this.bucket = bucket;
  }

  /** The index; `known` is its current generation when the caller already read it. */
  async readIndex(kind: RegistryKind, known?: number): Promise<IndexRead> {
    const file = this.bucket.file(indexPath(kind));
    try {
      const generation = known ?? Number((await file.getMetadata())[0].generation);
      return { index: await readJson<RegistryIndex>(file, generation), generation };
    } catch (err) {
      // No index yet is an empty registry; no bucket is a registry that cannot be read. A
      // reader granted objects under one prefix only may not ask about the bucket (403): its
      // 404 came from the bucket, so the bucket is there.
      if (statusOf(err) !== 404) throw err;
      const exists = await this.bucket.exists().then(
        ([e]) => e,
        (e: unknown) => (statusOf(e) === 403 ? true : Promise.reject(e)),
      );
      if (exists) return { index: emptyIndex(kind), generation: 0 };
      throw err;
    }
  }

  readVersion(kind: RegistryKind, name: string, version: string): Promise<ResourceVersion> {
    return readJson<ResourceVersion>(this.bucket.file(versionPath(kind, name, version)));
  }

  /** Every committed version of a resource, oldest first. */
  async history(kind: RegistryKind, name: string): Promise<ResourceVersion[]> {
    const { index } = await this.readIndex(kind);
    const current = Object.hasOwn(index.resources, name) ? index.resources[name]?.version : undefined;
    if (!current) return [];
    const [files] = await this.bucket.getFiles({ prefix: `${kind}/${name}/` });
    const order = (v: string) => v.split('.').map(Number) as [number, number];
    const committed = files
      .map((f) => /\/(\d+\.\d+)\.json$/.exec(f.name)?.[1])
      .filter((v): v is string => v !== undefined)
      .filter((v) => {
        const [a, b] = order(v);
        const [c, d] = order(current);
        return a < c || (a === c && b <= d);
      })
      .sort((x, y) => {
        const [a, b] = order(x);
        const [c, d] = order(y);
        return a - c || b - d;
      });
    return Promise.all(committed.map((v) => this.readVersion(kind, name, v)));
  }

  /**
   * Applies documents (any kinds): per kind, one index commit. `dryRun` plans without writing.
   * Throws RegistryRace when another writer committed first.
   */
  async apply(
    docs: readonly ResourceDoc[],
    opts: {
      author: string;
      dryRun?: boolean;
      now?: string;
      breaking?: (from: ResourceDoc, to: ResourceDoc) => readonly string[];
    },
  ): Promise<PlannedChange[]> {
    const now = opts.now ?? new Date().toISOString();
    const out: PlannedChange[] = [];
    for (const kind of [...new Set(docs.map((d) => d.kind))]) {
      const read = await this.readIndex(kind);
      const ofKind = docs.filter((d) => d.kind === kind);
      const current = new Map<string, ResourceDoc>();
      for (const d of ofKind) {
        const entry = Object.hasOwn(read.index.resources, d.name) ? read.index.resources[d.name] : undefined;
        if (entry && !entry.deleted) current.set(d.name, await this.readVersion(kind, d.name, entry.version));
      }
      const plan = planApply({
        index: read.index,
        current,
        docs: ofKind,
        author: opts.author,
        now,
        ...(opts.breaking ? { breaking: opts.breaking } : {}),
      });
      if (!opts.dryRun) await this.commit(kind, read, plan);
      out.push(...plan.changes);
    }
    return out;
  }

  async delete(kind: RegistryKind, name: string, author: string): Promise<PlannedChange[]> {
    const read = await this.readIndex(kind);
    const plan = planDelete(read.index, name, author, new Date().toISOString());
    await this.commit(kind, read, plan);
    return [...plan.changes];
  }

  private async commit(kind: RegistryKind, read: IndexRead, plan: ApplyPlan): Promise<void> {
    if (!plan.index) return;
    for (const v of plan.writes) await this.writeVersion(v, read);
    try {
      await this.bucket.file(indexPath(kind)).save(JSON.stringify(plan.index, null, 2), {
        resumable: false,
        contentType: 'application/json',
        preconditionOpts: { ifGenerationMatch: read.generation },
      });
    } catch (err) {
      if (statusOf(err) !== 412) throw err;
      const now = await this.readIndex(kind);
      throw new RegistryRace(
        `the ${kind} index changed while this apply ran (read at generation ${read.generation}, now ${now.generation}): another apply won; nothing of this one was committed, run it again`,
      );
    }
  }

  /** Creates a version object; replaces one only if it is a loser's leftover the index never named. */
  private async writeVersion(v: ResourceVersion, read: IndexRead): Promise<void> {
    const file = this.bucket.file(versionPath(v.kind, v.name, v.version));
    const body = JSON.stringify(v, null, 2);
    const save = (ifGenerationMatch: number) =>
      file.save(body, {
        resumable: false,
        contentType: 'application/json',
        preconditionOpts: { ifGenerationMatch },
      });
    try {
      await save(0);
    } catch (err) {
      if (statusOf(err) !== 412) throw err;
      const latest = await this.readIndex(v.kind);
      if (latest.generation !== read.generation)
        throw new RegistryRace(
          `${v.kind}/${v.name} ${v.version} was written by another apply that committed first (index generation ${read.generation} → ${latest.generation}); run this one again`,
        );
      const [meta] = await file.getMetadata();
      await save(Number(meta.generation));
    }
  }
}

export interface Snapshot {
  readonly kind: RegistryKind;
  readonly generation: number;
  /** The current version of each resource not deleted. */
  readonly resources: ReadonlyMap<string, ResourceVersion>;
  readonly readAt: number;
  /** True when the last refresh failed and this is the last good copy. */
  readonly stale: boolean;
}

/** A snapshot's current versions with their specs typed as the kind's (checked when applied). */
export function currentSpecs<S>(s: Snapshot): { name: string; version: string; spec: S }[] {
  return [...s.resources.values()].map((r) => ({
    name: r.name,
    version: r.version,
    spec: r.spec as unknown as S,
  }));
}

export class RegistryReader {
  private readonly client: RegistryClient;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;
  private readonly copies = new Map<RegistryKind, Snapshot>();
  private readonly refreshing = new Map<RegistryKind, Promise<Snapshot>>();

  constructor(client: RegistryClient, opts: { maxAgeMs?: number; clock?: () => number } = {}) {
    this.client = client;
    this.maxAgeMs = opts.maxAgeMs ?? 30_000;
    this.clock = opts.clock ?? Date.now;
  }

  /** The kind's resources, refreshed when the copy is older than maxAgeMs (one refresh at a time). */
  async current(kind: RegistryKind): Promise<Snapshot> {
    const copy = this.copies.get(kind);
    if (copy && !copy.stale && this.clock() - copy.readAt < this.maxAgeMs) return copy;
    let run = this.refreshing.get(kind);
    if (!run) {
      run = this.refresh(kind, copy).finally(() => this.refreshing.delete(kind));
      this.refreshing.set(kind, run);
    }
    return run;
  }

  /**
   * The kind's resources as they are now (a conditional read when a copy is held): for a name the
   * copy does not know yet, such as a sync applied a moment ago and run at once.
   */
  async fresh(kind: RegistryKind): Promise<Snapshot> {
    const pending = this.refreshing.get(kind);
    if (pending) await pending.catch(() => undefined);
    const copy = this.copies.get(kind);
    const run = this.refresh(kind, copy).finally(() => this.refreshing.delete(kind));
    this.refreshing.set(kind, run);
    return run;
  }

  private async refresh(kind: RegistryKind, copy: Snapshot | undefined): Promise<Snapshot> {
    try {
      const next = await this.load(kind, copy);
      this.copies.set(kind, next);
      return next;
    } catch (err) {
      if (!copy) {
        throw new RegistryUnavailable(
          `the registry could not be read (${err instanceof Error ? err.message : String(err)}) and no earlier copy is held`,
        );
      }
      // The last good copy, checked again at the next request (not from a timer).
      const kept = { ...copy, stale: true };
      this.copies.set(kind, kept);
      return kept;
    }
  }

  private async load(kind: RegistryKind, copy: Snapshot | undefined): Promise<Snapshot> {
    const file = this.client.bucket.file(indexPath(kind));
    let known: number | undefined;
    if (copy && copy.generation > 0) {
      // Conditional read: unchanged since the copy (a 304 from Cloud Storage).
      const [meta] = await file
        .getMetadata({ ifGenerationNotMatch: copy.generation })
        .catch((err: unknown) => {
          if (statusOf(err) === 304) return [undefined];
          throw err;
        });
      if (meta === undefined) return { ...copy, readAt: this.clock(), stale: false };
      known = Number(meta.generation);
    }
    const read = await this.client.readIndex(kind, known);
    const resources = new Map<string, ResourceVersion>();
    for (const [name, entry] of Object.entries(read.index.resources)) {
      if (entry.deleted) continue;
      const had = copy?.resources.get(name);
      resources.set(
        name,
        had?.version === entry.version ? had : await this.client.readVersion(kind, name, entry.version),
      );
    }
    return { kind, generation: read.generation, resources, readAt: this.clock(), stale: false };
  }
}
