/**
 * The emulator's state: databases, TTL policies and documents, each change one JSON record in
 * the append-only log (a commit, however many writes, is one record: atomic across a crash).
 * Document times are microseconds since the epoch from one clock that never repeats or goes
 * back, so a document's updateTime strictly increases with each change; a write that leaves a
 * document as it was keeps its updateTime (Firestore reports the stored version for a no-op).
 */
import { join } from 'node:path';
import type { FsyncPolicy } from '@eventbus/emulator-common/append-log.ts';
import { JsonLog } from '@eventbus/emulator-common/json-log.ts';
import { FirestoreError } from './errors.ts';
import { HotspotMeter } from './limits.ts';
import { type Fields, formatTime, parseFieldPath, parseTime, sameValue, valueAt } from './values.ts';

export interface DatabaseState {
  /** `projects/{p}/databases/{d}`. */
  readonly name: string;
  readonly uid: string;
  readonly locationId: string;
  readonly type: string;
  readonly deleteProtectionState: string;
  readonly createTime: string;
}

export interface StoredDoc {
  readonly fields: Fields;
  readonly createTime: bigint;
  readonly updateTime: bigint;
}

/** A write as committed: the whole document after it, or a delete. */
export type AppliedWrite =
  | {
      readonly name: string;
      readonly fields: Fields;
      readonly createTime: string;
      readonly updateTime: string;
    }
  | { readonly name: string; readonly deleted: true };

type LogRecord =
  | { readonly t: 'db'; readonly db: DatabaseState }
  | { readonly t: 'ttl'; readonly group: string; readonly field: string | null }
  | { readonly t: 'idx'; readonly group: string; readonly field: string; readonly exempt: boolean }
  | { readonly t: 'w'; readonly writes: readonly AppliedWrite[] }
  | { readonly t: 'clock'; readonly at: string };

/** `projects/{p}/databases/{d}` of a document name (`.../documents/...`). */
export const databaseOf = (docName: string): string => docName.slice(0, docName.indexOf('/documents/'));

/** The collection group (the last collection id) of a document name. */
export function groupOf(docName: string): string {
  const segs = docName.split('/');
  return segs[segs.length - 2] as string;
}

export class FirestoreState {
  readonly databases = new Map<string, DatabaseState>();
  readonly docs = new Map<string, StoredDoc>();
  /** `projects/{p}/databases/{d}/collectionGroups/{c}` → the TTL field's path. */
  readonly ttl = new Map<string, string>();
  /** `projects/{p}/databases/{d}/collectionGroups/{c}` → its fields exempt from indexing. */
  readonly exempt = new Map<string, Set<string>>();
  /** Sequential writes into indexed fields (limits.ts); in memory, like Firestore's own load. */
  hotspots = new HotspotMeter();
  private last = 0n;
  private log!: JsonLog<LogRecord>;

  static async open(dataDir: string, policy: FsyncPolicy): Promise<FirestoreState> {
    const s = new FirestoreState();
    s.log = await JsonLog.open<LogRecord>(join(dataDir, 'firestore.log'), policy, s);
    return s;
  }

  /** The next time of the clock: now in microseconds, or one past the last one handed out. */
  tick(): bigint {
    const now = BigInt(Date.now()) * 1000n;
    this.last = now > this.last ? now : this.last + 1n;
    return this.last;
  }

  apply(rec: LogRecord): void {
    if (rec.t === 'db') this.databases.set(rec.db.name, rec.db);
    else if (rec.t === 'ttl') {
      if (rec.field === null) this.ttl.delete(rec.group);
      else this.ttl.set(rec.group, rec.field);
    } else if (rec.t === 'idx') {
      const fields = this.exempt.get(rec.group) ?? new Set<string>();
      if (rec.exempt) fields.add(rec.field);
      else fields.delete(rec.field);
      this.exempt.set(rec.group, fields);
    } else if (rec.t === 'clock') this.seen(parseTime(rec.at, 'clock'));
    else
      for (const w of rec.writes) {
        if ('deleted' in w) this.docs.delete(w.name);
        else {
          const updateTime = parseTime(w.updateTime, 'updateTime');
          this.docs.set(w.name, {
            fields: w.fields,
            createTime: parseTime(w.createTime, 'createTime'),
            updateTime,
          });
          this.seen(updateTime);
        }
      }
  }

  private seen(t: bigint): void {
    if (t > this.last) this.last = t;
  }

  snapshot(): LogRecord[] {
    const out: LogRecord[] = [...this.databases.values()].map((db) => ({ t: 'db', db }));
    for (const [group, field] of this.ttl) out.push({ t: 'ttl', group, field });
    for (const [group, fields] of this.exempt)
      for (const field of fields) out.push({ t: 'idx', group, field, exempt: true });
    const writes: AppliedWrite[] = [];
    for (const [name, d] of this.docs)
      writes.push({
        name,
        fields: d.fields,
        createTime: formatTime(d.createTime),
        updateTime: formatTime(d.updateTime),
      });
    if (writes.length) out.push({ t: 'w', writes });
    // Deleted documents' times are gone from the snapshot: the clock's own record keeps it ahead.
    if (this.last > 0n) out.push({ t: 'clock', at: formatTime(this.last) });
    return out;
  }

  database(name: string): DatabaseState {
    const db = this.databases.get(name);
    if (!db) {
      const [, project, , id] = name.split('/');
      throw new FirestoreError('NOT_FOUND', `The database ${id} does not exist for project ${project}.`);
    }
    return db;
  }

  putDatabase(db: DatabaseState): Promise<void> {
    return this.log.commit({ t: 'db', db });
  }

  setTtl(group: string, field: string | null): Promise<void> {
    return this.log.commit({ t: 'ttl', group, field });
  }

  /** Exempts a field of a collection group from single-field indexing, or indexes it again. */
  setExempt(group: string, field: string, exempt: boolean): Promise<void> {
    return this.log.commit({ t: 'idx', group, field, exempt });
  }

  /** Commits writes computed against the current state, in one record. */
  commitWrites(writes: readonly AppliedWrite[]): Promise<void> {
    return this.log.commit({ t: 'w', writes });
  }

  /**
   * The documents whose TTL field (a timestamp) is before `now` (microseconds): deleted in one
   * record. Firestore deletes such documents eventually (typically within a day), never at once,
   * so until a sweep an expired document reads as any other.
   */
  async sweep(now = BigInt(Date.now()) * 1000n): Promise<string[]> {
    const gone: string[] = [];
    for (const [name, d] of this.docs) {
      const field = this.ttl.get(`${databaseOf(name)}/collectionGroups/${groupOf(name)}`);
      if (field === undefined) continue;
      const v = valueAt(d.fields, parseFieldPath(field));
      if (typeof v?.timestampValue === 'string' && parseTime(v.timestampValue, field) < now) gone.push(name);
    }
    if (gone.length) await this.commitWrites(gone.map((name) => ({ name, deleted: true })));
    return gone;
  }

  close(): Promise<void> {
    return this.log.close();
  }
}

/** Whether a write's result is the document as stored (then its updateTime is kept). */
export const unchanged = (before: StoredDoc | undefined, fields: Fields): boolean =>
  before !== undefined && sameValue(before.fields, fields);
