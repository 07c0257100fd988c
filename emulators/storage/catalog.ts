/**
 * The emulator's state: buckets, object generations and open resumable uploads, kept in memory
 * and made durable in `<data-dir>/catalog.log` (the append log with group commit shared with the
 * Pub/Sub emulator). Every change is one JSON record, applied in memory by the same function at
 * run time and on replay, and answered only once the log has it on disk. Object bytes live in
 * their own files (blobs.ts), written and synced before the record that names them.
 *
 * On open the log is replayed and rewritten as a snapshot, and files no record names (deleted
 * generations, uploads cut off by a crash before their record) are removed: that is the
 * compaction of deleted data. The log is compacted again when it has grown to twice its snapshot.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { AppendLog, type FsyncPolicy, frame, readLog } from '@eventbus/emulator-common/append-log.ts';
import { coalesced, fsyncDir } from './blobs.ts';
import { noSuchBucket, noSuchObject, StorageError } from './errors.ts';
import { type ObjectEvent, objectEvents } from './notify-events.ts';
import type { AclEntry, BucketState, ObjectState } from './records.ts';
import { checkRemovable, checkRetentionAllowed } from './retention.ts';
import { bucketSoftMark, expired, type SoftMark, softened, softMark } from './soft-delete.ts';
import { checkPreconditions, type Preconditions } from './wire.ts';

export interface UploadSession {
  id: string;
  bucket: string;
  name: string;
  /** The object resource given when the upload started. */
  meta: Record<string, unknown>;
  /** Total size announced by `X-Upload-Content-Length`, if any. */
  expectedSize?: number;
  /** Preconditions of the start request, checked again when the upload completes. */
  pre: Record<string, string>;
  /** Hashes the resource announced (`md5Hash`, `crc32c`), checked when the upload completes. */
  expected: { md5?: string; crc32c?: string };
  created: string;
  /** SHA-256 of the customer-supplied key the session was started with (csek.ts). */
  keySha256?: string;
  /** The new object's ACL, decided when the upload started (acl.ts). */
  acl?: AclEntry[];
}

/** `sd`: the removed generation (or bucket) is soft-deleted, not gone (soft-delete.ts). */
type CatalogRecord =
  | { t: 'b'; b: BucketState }
  | { t: '-b'; name: string; sd?: SoftMark }
  | { t: 'o'; o: ObjectState; nc?: true; done?: string; sd?: SoftMark }
  | { t: '-o'; bucket: string; name: string; generation: number; keep: boolean; time: string; sd?: SoftMark }
  /** A soft-deleted generation (snapshots), and one leaving the soft-deleted (restored: its file stays). */
  | { t: 'so'; o: ObjectState }
  | { t: '-so'; bucket: string; name: string; generation: number; keepBlob?: true }
  /** A soft-deleted bucket with its soft-deleted objects (snapshots), and its restore. */
  | { t: 'db'; b: BucketState; soft: ObjectState[] }
  | { t: 'rb'; name: string; generation: number }
  | { t: 'u'; s: UploadSession }
  | { t: '-u'; id: string }
  /** Several changes made durable together (a move: the new name and the old one's deletion). */
  | { t: 'all'; recs: CatalogRecord[] };

/** The ACL a new generation gets: the one decided for it, else a move's source's. */
function aclOf(g: NewGeneration): { acl?: AclEntry[] } {
  const acl = g.acl ?? g.moveFrom?.acl;
  return acl ? { acl } : {};
}

/** A new generation whose bytes are written and synced in `blob`. */
export interface NewGeneration {
  bucket: string;
  name: string;
  meta: Record<string, unknown>;
  blob: string;
  digest: { size: number; md5?: string; crc32c: string };
  componentCount?: number;
  pre: Preconditions;
  /** The resumable upload this completes. */
  done?: string;
  /** A `syncBlobNames()` run started after the blob's file was created (overlaps its upload). */
  dirSynced?: Promise<void>;
  /** An object deleted in the same record (a move's source). */
  moveFrom?: ObjectState;
  /** SHA-256 of the customer-supplied key the bytes were written with (csek.ts). */
  keySha256?: string | undefined;
  /** The new object's ACL (acl.ts: newObjectAcl); a move keeps its source's. */
  acl?: AclEntry[] | undefined;
}

export interface Versions {
  live?: ObjectState;
  /** Noncurrent generations, oldest first (only in buckets with versioning). */
  old: ObjectState[];
}

export interface BucketEntry {
  state: BucketState;
  objects: Map<string, Versions>;
  /** Object names in byte order, rebuilt lazily after a name is added or removed. */
  sorted: string[] | undefined;
  /** Soft-deleted generations by name, oldest first (soft-delete.ts). */
  soft: Map<string, ObjectState[]>;
  softSorted: string[] | undefined;
}

const newEntry = (state: BucketState): BucketEntry => ({
  state,
  objects: new Map(),
  sorted: [],
  soft: new Map(),
  softSorted: [],
});

const bucketGeneration = (b: BucketState): number => b.generation ?? Date.parse(b.timeCreated) * 1000;
const deadKey = (name: string, generation: number): string => `${name}\n${generation}`;

const UPLOAD_LIFETIME_MS = 7 * 24 * 3600 * 1000;
const COMPACT_MIN_BYTES = 4 << 20;

/**
 * Compares as Cloud Storage orders names: by UTF-8 bytes. UTF-16 code units order the same way
 * except that surrogates (characters above U+FFFF) must sort after U+E000-U+FFFF, so those two
 * ranges are swapped at the first difference.
 */
export function byteOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x - y;
  }
  return a.length - b.length;
}

export class Catalog {
  readonly dataDir: string;
  readonly blobDir: string;
  readonly uploadDir: string;
  readonly sync: boolean;
  readonly buckets = new Map<string, BucketEntry>();
  readonly sessions = new Map<string, UploadSession>();
  /** Soft-deleted buckets, by name and generation. */
  readonly deadBuckets = new Map<string, BucketEntry>();
  private log!: AppendLog;
  private snapshotBytes = 0;
  private lastGeneration = 0;
  /** Makes the names of new files in `blobs/` durable; one run shared by concurrent writers. */
  readonly syncBlobNames: () => Promise<void>;
  /**
   * Told the object events of each change once it is durable (notify-events.ts); it must not
   * throw or wait: the notifications' queue (notify-publisher.ts) takes them.
   */
  onObjectEvents: ((events: ObjectEvent[]) => void) | undefined = undefined;

  private constructor(dataDir: string, policy: FsyncPolicy) {
    this.dataDir = dataDir;
    this.blobDir = join(dataDir, 'blobs');
    this.uploadDir = join(dataDir, 'uploads');
    this.sync = policy === 'always';
    this.syncBlobNames = coalesced(async () => {
      if (this.sync) await fsyncDir(this.blobDir);
    });
  }

  static async open(dataDir: string, policy: FsyncPolicy): Promise<Catalog> {
    const c = new Catalog(dataDir, policy);
    mkdirSync(c.blobDir, { recursive: true });
    mkdirSync(c.uploadDir, { recursive: true });
    const path = join(dataDir, 'catalog.log');
    for (const payload of readLog(path).records)
      c.apply(JSON.parse(payload.toString('utf8')) as CatalogRecord);
    const now = Date.now();
    for (const s of c.sessions.values()) {
      const expired = now - Date.parse(s.created) > UPLOAD_LIFETIME_MS;
      if (expired || !c.buckets.has(s.bucket) || !existsSync(c.uploadPath(s.id))) c.sessions.delete(s.id);
    }
    c.dropExpired();
    c.removeUnnamedFiles();
    const snapshot = c.snapshot();
    c.snapshotBytes = snapshot.reduce((n, b) => n + b.length, 0);
    c.log = await AppendLog.create(path, policy, snapshot);
    return c;
  }

  /** Generations are microseconds since the epoch, strictly increasing, as in Cloud Storage. */
  nextGeneration(): number {
    this.lastGeneration = Math.max(Date.now() * 1000, this.lastGeneration + 1);
    return this.lastGeneration;
  }

  bucket(name: string): BucketEntry {
    const b = this.buckets.get(name);
    if (!b) throw noSuchBucket();
    return b;
  }

  /** The live generation, or the given one (live or noncurrent); undefined when there is none. */
  find(bucket: string, name: string, generation?: number): ObjectState | undefined {
    const v = this.bucket(bucket).objects.get(name);
    if (!v) return undefined;
    if (generation === undefined) return v.live;
    if (v.live?.generation === generation) return v.live;
    return v.old.find((o) => o.generation === generation);
  }

  get(bucket: string, name: string, generation?: number): ObjectState {
    const o = this.find(bucket, name, generation);
    if (!o) throw noSuchObject(bucket, name);
    return o;
  }

  sortedNames(entry: BucketEntry): string[] {
    entry.sorted ??= [...entry.objects.keys()].sort(byteOrder);
    return entry.sorted;
  }

  sortedSoftNames(entry: BucketEntry): string[] {
    entry.softSorted ??= [...entry.soft.keys()].sort(byteOrder);
    return entry.softSorted;
  }

  /** A name's soft-deleted generations not yet past their hard-delete time. */
  softOf(entry: BucketEntry, name: string): ObjectState[] {
    return (entry.soft.get(name) ?? []).filter((o) => !expired(o.hardDeleteTime));
  }

  /** A soft-deleted generation (404 when there is none, or it is past its hard-delete time). */
  getSoft(bucket: string, name: string, generation: number): ObjectState {
    const o = this.softOf(this.bucket(bucket), name).find((x) => x.generation === generation);
    if (!o) throw noSuchObject(bucket, name);
    return o;
  }

  /** Soft-deleted buckets not yet past their hard-delete time. */
  softBuckets(): BucketEntry[] {
    return [...this.deadBuckets.values()].filter((e) => !expired(e.state.hardDeleteTime));
  }

  getSoftBucket(name: string, generation: number): BucketEntry {
    const e = this.deadBuckets.get(deadKey(name, generation));
    if (!e || expired(e.state.hardDeleteTime)) throw noSuchBucket();
    return e;
  }

  blobPath(blob: string): string {
    return join(this.blobDir, blob);
  }

  uploadPath(id: string): string {
    return join(this.uploadDir, id);
  }

  /** Applies a change in memory, then resolves once it is on disk. */
  async commit(rec: CatalogRecord): Promise<void> {
    const events = this.onObjectEvents ? objectEvents(this, rec) : [];
    const dead = this.apply(rec);
    await this.log.append(frame(Buffer.from(JSON.stringify(rec))));
    if (events.length > 0) this.onObjectEvents?.(events);
    for (const f of dead) await unlink(f).catch(() => undefined);
    if (this.log.size > COMPACT_MIN_BYTES && this.log.size > 2 * this.snapshotBytes) {
      this.log.requestCompaction(() => {
        const snap = this.snapshot();
        this.snapshotBytes = snap.reduce((n, b) => n + b.length, 0);
        return snap;
      });
    }
  }

  putBucket(b: BucketState): Promise<void> {
    return this.commit({ t: 'b', b });
  }

  /** Deletes an empty bucket; with a soft-delete policy it is soft-deleted, with its soft-deleted objects. */
  deleteBucket(name: string): Promise<void> {
    const entry = this.bucket(name);
    if (entry.objects.size > 0)
      throw new StorageError('conflict', 'The bucket you tried to delete is not empty.');
    const sd = bucketSoftMark(entry.state);
    return this.commit(sd ? { t: '-b', name, sd } : { t: '-b', name });
  }

  /** Restores a soft-deleted bucket (409 while a bucket of its name exists). */
  async restoreBucket(name: string, generation: number): Promise<BucketState> {
    this.getSoftBucket(name, generation);
    if (this.buckets.has(name))
      throw new StorageError(
        'conflict',
        `A bucket named ${name} exists: the soft-deleted one cannot be restored.`,
      );
    await this.commit({ t: 'rb', name, generation });
    return this.bucket(name).state;
  }

  /**
   * Restores a soft-deleted generation as a new live generation of the same bytes and metadata.
   * It replaces a live object as any write does (preconditions, holds and retention checked).
   */
  async restoreObject(
    bucket: string,
    name: string,
    generation: number,
    token: string | undefined,
    pre: Preconditions,
  ): Promise<ObjectState> {
    const soft = this.getSoft(bucket, name, generation);
    if (token !== undefined && token !== soft.restoreToken) throw noSuchObject(bucket, name);
    const state = this.bucket(bucket).state;
    const current = this.find(bucket, name);
    checkPreconditions(current, pre, 'write');
    if (current) checkRemovable(state, current);
    const now = new Date().toISOString();
    const { softDeleteTime: _s, hardDeleteTime: _h, restoreToken: _t, ...rest } = soft;
    const o: ObjectState = {
      ...rest,
      generation: this.nextGeneration(),
      metageneration: 1,
      timeCreated: now,
      updated: now,
    };
    await this.commit({
      t: 'all',
      recs: [{ t: '-so', bucket, name, generation, keepBlob: true }, this.replacing(o, current)],
    });
    return o;
  }

  /** The record making `o` live; a live object it replaces for good is soft-deleted when the bucket keeps them. */
  private replacing(o: ObjectState, current: ObjectState | undefined): Extract<CatalogRecord, { t: 'o' }> {
    const state = this.bucket(o.bucket).state;
    const sd = current && !state.versioning ? softMark(state, current) : undefined;
    return sd ? { t: 'o', o, sd } : { t: 'o', o };
  }

  /** New metadata of an existing generation. */
  putObject(o: ObjectState): Promise<void> {
    return this.commit({ t: 'o', o });
  }

  /**
   * Deletes a generation; `keep` turns a live one noncurrent (versioned bucket, no generation
   * given). A held or retained object is refused (retention.ts).
   */
  deleteObject(o: ObjectState, keep: boolean): Promise<void> {
    checkRemovable(this.bucket(o.bucket).state, o);
    return this.commit(this.deletion(o, keep));
  }

  /** `soft`: a deletion for good is soft-deleted when the bucket keeps them (a move's source is not). */
  private deletion(o: ObjectState, keep: boolean, soft = true): CatalogRecord {
    const time = new Date().toISOString();
    const sd = keep || !soft ? undefined : softMark(this.bucket(o.bucket).state, o);
    return {
      t: '-o',
      bucket: o.bucket,
      name: o.name,
      generation: o.generation,
      keep,
      time,
      ...(sd ? { sd } : {}),
    };
  }

  /**
   * Makes a written blob the object's new live generation. The write's preconditions are checked
   * against the object as it is now, and again once the new file's name is synced (another write
   * may have completed meanwhile), and so are holds and retention on the object it replaces and on
   * a move's source (retention.ts); on a refusal the blob is removed. A bucket's
   * `defaultEventBasedHold` puts the hold on the new object.
   */
  async addGeneration(g: NewGeneration): Promise<ObjectState> {
    const bucket = (): BucketState => this.bucket(g.bucket).state;
    try {
      checkPreconditions(this.find(g.bucket, g.name), g.pre, 'write');
      checkRetentionAllowed(bucket(), g.meta);
      await (g.dirSynced ?? this.syncBlobNames());
      const current = this.find(g.bucket, g.name);
      checkPreconditions(current, g.pre, 'write');
      if (current) checkRemovable(bucket(), current);
      if (g.moveFrom) checkRemovable(bucket(), g.moveFrom);
    } catch (err) {
      await unlink(this.blobPath(g.blob)).catch(() => undefined);
      throw err;
    }
    const now = new Date().toISOString();
    const o: ObjectState = {
      bucket: g.bucket,
      name: g.name,
      generation: this.nextGeneration(),
      metageneration: 1,
      size: g.digest.size,
      crc32c: g.digest.crc32c,
      timeCreated: now,
      updated: now,
      meta:
        bucket().extra.defaultEventBasedHold === true && g.meta.eventBasedHold === undefined
          ? { ...g.meta, eventBasedHold: true }
          : g.meta,
      blob: g.blob,
      ...(g.keySha256 ? { keySha256: g.keySha256 } : {}),
      ...(g.digest.md5 ? { md5: g.digest.md5 } : {}),
      ...(g.componentCount ? { componentCount: g.componentCount } : {}),
      ...aclOf(g),
    };
    const replaced = this.replacing(o, this.find(g.bucket, g.name));
    const put: CatalogRecord = g.done ? { ...replaced, done: g.done } : replaced;
    const from = g.moveFrom;
    if (!from) await this.commit(put);
    else {
      const keep = this.bucket(from.bucket).state.versioning;
      await this.commit({ t: 'all', recs: [put, this.deletion(from, keep, false)] });
    }
    return o;
  }

  putSession(s: UploadSession): Promise<void> {
    return this.commit({ t: 'u', s });
  }

  endSession(id: string): Promise<void> {
    return this.commit({ t: '-u', id });
  }

  close(): Promise<void> {
    return this.log.close();
  }

  /** Applies one record to memory; returns the files it leaves unnamed (deleted after the commit). */
  private apply(rec: CatalogRecord): string[] {
    switch (rec.t) {
      case 'b': {
        const entry = this.buckets.get(rec.b.name);
        if (entry) entry.state = rec.b;
        else this.buckets.set(rec.b.name, newEntry(rec.b));
        return [];
      }
      case '-b': {
        const entry = this.buckets.get(rec.name);
        this.buckets.delete(rec.name);
        if (!entry) return [];
        if (!rec.sd) return [...entry.soft.values()].flat().map((o) => this.blobPath(o.blob));
        const state = { ...entry.state, softDeleteTime: rec.sd.time, hardDeleteTime: rec.sd.hard };
        this.deadBuckets.set(deadKey(rec.name, bucketGeneration(state)), { ...entry, state });
        return [];
      }
      case 'db': {
        const entry = newEntry(rec.b);
        for (const o of rec.soft) this.addSoft(entry, o);
        this.deadBuckets.set(deadKey(rec.b.name, bucketGeneration(rec.b)), entry);
        return [];
      }
      case 'rb': {
        const key = deadKey(rec.name, rec.generation);
        const entry = this.deadBuckets.get(key);
        if (!entry) return [];
        this.deadBuckets.delete(key);
        const { softDeleteTime: _s, hardDeleteTime: _h, ...state } = entry.state;
        this.buckets.set(rec.name, { ...entry, state });
        return [];
      }
      case 'o':
        if (rec.done) this.sessions.delete(rec.done);
        return this.applyObject(rec.o, rec.nc === true, rec.sd);
      case '-o':
        return this.applyDelete(rec.bucket, rec.name, rec.generation, rec.keep, rec.time, rec.sd);
      case 'so': {
        const entry = this.buckets.get(rec.o.bucket);
        if (entry) this.addSoft(entry, rec.o);
        return [];
      }
      case '-so': {
        const entry = this.buckets.get(rec.bucket);
        const list = entry?.soft.get(rec.name);
        const i = list ? list.findIndex((o) => o.generation === rec.generation) : -1;
        if (!entry || !list || i < 0) return [];
        const [gone] = list.splice(i, 1);
        if (list.length === 0) {
          entry.soft.delete(rec.name);
          entry.softSorted = undefined;
        }
        return gone && !rec.keepBlob ? [this.blobPath(gone.blob)] : [];
      }
      case 'u':
        this.sessions.set(rec.s.id, rec.s);
        return [];
      case '-u':
        this.sessions.delete(rec.id);
        return [this.uploadPath(rec.id)];
      case 'all':
        return rec.recs.flatMap((r) => this.apply(r));
    }
  }

  private versions(entry: BucketEntry, name: string): Versions {
    let v = entry.objects.get(name);
    if (!v) {
      v = { old: [] };
      entry.objects.set(name, v);
      entry.sorted = undefined;
    }
    return v;
  }

  private addSoft(entry: BucketEntry, o: ObjectState): void {
    const list = entry.soft.get(o.name);
    if (list) list.push(o);
    else {
      entry.soft.set(o.name, [o]);
      entry.softSorted = undefined;
    }
  }

  private applyObject(o: ObjectState, noncurrent: boolean, sd?: SoftMark): string[] {
    const entry = this.buckets.get(o.bucket);
    if (!entry) return [];
    this.lastGeneration = Math.max(this.lastGeneration, o.generation);
    const v = this.versions(entry, o.name);
    if (noncurrent) {
      v.old.push(o);
      return [];
    }
    const i = v.old.findIndex((x) => x.generation === o.generation);
    if (i >= 0) {
      v.old[i] = o;
      return [];
    }
    const prev = v.live;
    v.live = o;
    if (!prev || prev.generation === o.generation) return [];
    if (entry.state.versioning) {
      v.old.push({ ...prev, timeDeleted: o.timeCreated });
      return [];
    }
    if (sd) {
      this.addSoft(entry, softened(prev, sd));
      return [];
    }
    return [this.blobPath(prev.blob)];
  }

  private applyDelete(
    bucket: string,
    name: string,
    generation: number,
    keep: boolean,
    time: string,
    sd?: SoftMark,
  ): string[] {
    const entry = this.buckets.get(bucket);
    const v = entry?.objects.get(name);
    if (!entry || !v) return [];
    let dead: ObjectState | undefined;
    if (v.live?.generation === generation) {
      dead = v.live;
      delete v.live;
      if (keep) {
        v.old.push({ ...dead, timeDeleted: time });
        dead = undefined;
      }
    } else {
      const i = v.old.findIndex((x) => x.generation === generation);
      if (i >= 0) dead = v.old.splice(i, 1)[0];
    }
    if (!v.live && v.old.length === 0) {
      entry.objects.delete(name);
      entry.sorted = undefined;
    }
    if (dead && sd) {
      this.addSoft(entry, softened(dead, sd));
      return [];
    }
    return dead ? [this.blobPath(dead.blob)] : [];
  }

  private snapshot(): Buffer[] {
    const out: Buffer[] = [];
    const push = (rec: CatalogRecord): void => {
      out.push(frame(Buffer.from(JSON.stringify(rec))));
    };
    for (const entry of this.buckets.values()) {
      push({ t: 'b', b: entry.state });
      for (const v of entry.objects.values()) {
        for (const o of v.old) push({ t: 'o', o, nc: true });
        if (v.live) push({ t: 'o', o: v.live });
      }
      for (const list of entry.soft.values()) for (const o of list) push({ t: 'so', o });
    }
    for (const entry of this.deadBuckets.values())
      push({ t: 'db', b: entry.state, soft: [...entry.soft.values()].flat() });
    for (const s of this.sessions.values()) push({ t: 'u', s });
    return out;
  }

  /** Forgets soft-deleted objects and buckets past their hard-delete time (on open). */
  private dropExpired(): void {
    for (const [key, entry] of this.deadBuckets)
      if (expired(entry.state.hardDeleteTime)) this.deadBuckets.delete(key);
    for (const entry of [...this.buckets.values(), ...this.deadBuckets.values()])
      for (const [name, list] of entry.soft) {
        const kept = list.filter((o) => !expired(o.hardDeleteTime));
        if (kept.length > 0) entry.soft.set(name, kept);
        else entry.soft.delete(name);
        entry.softSorted = undefined;
      }
  }

  /** Deletes blob and upload files no record names (compaction of deleted data). */
  private removeUnnamedFiles(): void {
    const named = new Set<string>();
    for (const entry of this.buckets.values())
      for (const v of entry.objects.values()) {
        if (v.live) named.add(v.live.blob);
        for (const o of v.old) named.add(o.blob);
      }
    for (const entry of [...this.buckets.values(), ...this.deadBuckets.values()])
      for (const list of entry.soft.values()) for (const o of list) named.add(o.blob);
    for (const f of readdirSync(this.blobDir))
      if (!named.has(f)) rmSync(join(this.blobDir, f), { force: true });
    for (const f of readdirSync(this.uploadDir))
      if (!this.sessions.has(f)) rmSync(join(this.uploadDir, f), { force: true });
  }
}
