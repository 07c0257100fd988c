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
 * Readers (`RegistryReader`): stale-while-revalidate. A request that finds the copy older than
 * 30 s starts a refresh and is answered from the copy at once: no request waits on Cloud Storage
 * while a copy is held (`recent()` alone waits for that refresh, briefly: for translators). The
 * refresh is started by requests, not by a timer (Cloud Run throttles CPU between requests), and
 * is a conditional read of the index (`ifGenerationNotMatch`, a 304 when nothing changed). A failed read is remembered for a moment (1 s, doubling to 10 s) instead of
 * being retried by every request; meanwhile the last good copy is served, marked stale. With no
 * copy at all a request waits for the first read at most 500 ms, then `RegistryUnavailable` tells
 * the caller to answer 503 rather than accept events unvalidated; the next read after the pause
 * recovers without a restart.
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
} from '../core/registry/registry.ts';

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

  /**
   * The index's generation when it is no longer `generation`; undefined when it still is (a
   * conditional read: a 304 from Cloud Storage, nothing downloaded).
   */
  async indexChanged(kind: RegistryKind, generation: number): Promise<number | undefined> {
    const [meta] = await this.bucket
      .file(indexPath(kind))
      .getMetadata({ ifGenerationNotMatch: generation })
      .catch((err: unknown) => {
        if (statusOf(err) === 304) return [undefined];
        throw err;
      });
    return meta === undefined ? undefined : Number(meta.generation);
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

/** How a reader refreshes; every field has a default suited to the gateway and the functions. */
export interface ReaderOptions {
  /** A copy older than this is refreshed (in the background) by the next request. Default 30 s. */
  readonly maxAgeMs?: number;
  /** The clock ages and pauses are measured on (tests move it). Default Date.now. */
  readonly clock?: () => number;
  /**
   * With no copy at all, how long a request waits for a read that is under way (counted from
   * when the read started) before it is told RegistryUnavailable. Default 500 ms.
   */
  readonly coldWaitMs?: number;
  /** A read that has not finished after this long counts as failed (a hung connection). Default 20 s. */
  readonly readTimeoutMs?: number;
  /** The pause after a failed read: `firstMs`, doubling per failure in a row up to `maxMs`. */
  readonly retry?: { readonly firstMs: number; readonly maxMs: number };
}

/** What `read` settles with, or undefined once `ms` have passed without it. */
async function atMost<T>(read: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      read,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a reader knows about one kind: its copy, the read under way, the last failure. */
interface KindState {
  copy: Snapshot | undefined;
  reading: { readonly done: Promise<Snapshot | undefined>; readonly startedAt: number } | undefined;
  failure: { readonly failures: number; readonly retryAt: number; readonly message: string } | undefined;
}

export class RegistryReader {
  private readonly client: RegistryClient;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;
  private readonly coldWaitMs: number;
  private readonly readTimeoutMs: number;
  private readonly retry: { readonly firstMs: number; readonly maxMs: number };
  private readonly kinds = new Map<RegistryKind, KindState>();

  constructor(client: RegistryClient, opts: ReaderOptions = {}) {
    this.client = client;
    this.maxAgeMs = opts.maxAgeMs ?? 30_000;
    this.clock = opts.clock ?? Date.now;
    this.coldWaitMs = opts.coldWaitMs ?? 500;
    this.readTimeoutMs = opts.readTimeoutMs ?? 20_000;
    this.retry = opts.retry ?? { firstMs: 1000, maxMs: 10_000 };
  }

  private state(kind: RegistryKind): KindState {
    let s = this.kinds.get(kind);
    if (!s) {
      s = { copy: undefined, reading: undefined, failure: undefined };
      this.kinds.set(kind, s);
    }
    return s;
  }

  /**
   * The copy held now, without waiting (undefined when none was ever read); starts a background
   * refresh when the copy is old, or the first read, unless one is under way or a failure is
   * still being remembered.
   */
  cached(kind: RegistryKind): Snapshot | undefined {
    const s = this.state(kind);
    if (this.due(s)) this.startRead(kind, s);
    return s.copy;
  }

  /**
   * The kind's resources: the copy when one is held (never waiting on Cloud Storage). With none,
   * the first read is waited for at most `coldWaitMs`; then, or while a failed read is remembered,
   * it rejects with RegistryUnavailable.
   */
  async current(kind: RegistryKind): Promise<Snapshot> {
    const copy = this.cached(kind);
    if (copy) return copy;
    const s = this.state(kind);
    const left = s.reading ? s.reading.startedAt + this.coldWaitMs - performance.now() : 0;
    if (s.reading && left > 0) {
      const waited = await atMost(s.reading.done, left);
      if (waited) return waited;
    }
    throw this.unavailable(s);
  }

  /**
   * The kind's resources, no older than `maxAgeMs` when Cloud Storage answers in time: like
   * `current`, but when the copy is due for a refresh (or one is under way) the read is waited for
   * at most `waitMs`, counted from when it started; then, or when it fails, the copy held. For a
   * caller that can afford one conditional read in `maxAgeMs` (a translator's request, a batch
   * of rows): an edit reaches the first request after the copy's age runs out, not the one after
   * it, however sparse the requests.
   */
  async recent(kind: RegistryKind, waitMs: number): Promise<Snapshot> {
    const copy = this.cached(kind);
    const reading = this.state(kind).reading;
    if (!copy || !reading) return this.current(kind);
    const left = reading.startedAt + waitMs - performance.now();
    if (left <= 0) return copy;
    return (await atMost(reading.done, left)) ?? this.state(kind).copy ?? copy;
  }

  /**
   * The kind's resources as they are now, waiting for a read (a conditional one when a copy is
   * held): for a name the copy does not know yet, such as a sync applied a moment ago and run at
   * once. While a failed read is remembered, the copy (stale) or RegistryUnavailable, at once.
   */
  async fresh(kind: RegistryKind): Promise<Snapshot> {
    const s = this.state(kind);
    if (s.reading) await s.reading.done;
    if (!s.failure || this.clock() >= s.failure.retryAt) {
      const read = await this.startRead(kind, s);
      if (read) return read;
    }
    if (s.copy) return s.copy;
    throw this.unavailable(s);
  }

  /** Settles once no read of the kind is under way (tests, and a clean stop). */
  async idle(kind: RegistryKind): Promise<void> {
    await this.state(kind).reading?.done;
  }

  private due(s: KindState): boolean {
    if (s.reading) return false;
    if (s.failure) return this.clock() >= s.failure.retryAt;
    return !s.copy || this.clock() - s.copy.readAt >= this.maxAgeMs;
  }

  private unavailable(s: KindState): RegistryUnavailable {
    const why = s.failure
      ? s.failure.message
      : `no answer from Cloud Storage within ${this.coldWaitMs} ms; still reading`;
    return new RegistryUnavailable(`the registry could not be read (${why}) and no earlier copy is held`);
  }

  /** Starts one read of the kind; it never rejects: a failure is remembered in the kind's state. */
  private startRead(kind: RegistryKind, s: KindState): Promise<Snapshot | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from Cloud Storage within ${this.readTimeoutMs} ms`)),
        this.readTimeoutMs,
      );
      timer.unref();
    });
    const done = Promise.race([this.load(kind, s.copy), timeout]).then(
      (next) => {
        s.copy = next;
        s.failure = undefined;
        return next;
      },
      (err: unknown) => {
        const failures = (s.failure?.failures ?? 0) + 1;
        const pause = Math.min(this.retry.firstMs * 2 ** (failures - 1), this.retry.maxMs);
        const message = err instanceof Error ? err.message : String(err);
        s.failure = { failures, retryAt: this.clock() + pause, message };
        // The last good copy keeps serving, marked stale until a read succeeds.
        if (s.copy && !s.copy.stale) s.copy = { ...s.copy, stale: true };
        return undefined;
      },
    );
    const reading = {
      startedAt: performance.now(),
      done: done.finally(() => {
        clearTimeout(timer);
        if (s.reading === reading) s.reading = undefined;
      }),
    };
    s.reading = reading;
    return reading.done;
  }

  private async load(kind: RegistryKind, copy: Snapshot | undefined): Promise<Snapshot> {
    let known: number | undefined;
    if (copy && copy.generation > 0) {
      known = await this.client.indexChanged(kind, copy.generation);
      if (known === undefined) return { ...copy, readAt: this.clock(), stale: false };
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
