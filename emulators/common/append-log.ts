/**
 * Append-only log with group commit. Callers append encoded records and await durability: all
 * records appended in one event-loop turn, or while a batch's fdatasync is in flight, go out
 * together in the next write, followed by one fdatasync (policy 'always') or none (policy 'none':
 * the bytes are in the OS page cache, which survives `kill -9` of the process but not a power
 * cut). A caller hears only after the fdatasync that followed its own bytes' write.
 *
 * Frame: u32 payload length, u32 CRC-32 of the payload, payload. A torn tail (crash in the middle
 * of a write) fails its length or CRC check and is cut off on open.
 *
 * The file is grown ahead of the records in zero-filled steps, and records are written over the
 * zeros at the log's end. An fdatasync after an append that grows the file must also commit the
 * new size to the file system's journal; after a write inside the file's length it only flushes
 * the data: on ext4 in this VM, 100 µs and ~57 µs of CPU against 270 µs and ~117 µs for an 8 KB
 * batch (databases preallocate their write-ahead logs for the same reason). Zeros end the log: a
 * frame of length 0 is never written (no record is empty), so reading stops at the first one.
 */
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
  writevSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

export type FsyncPolicy = 'always' | 'none';

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

/** The first step a log file grows by; each step is the file's size, up to MAX_GROW_BYTES. */
const MIN_GROW_BYTES = 64 * 1024;
const MAX_GROW_BYTES = 4 * 1024 * 1024;
let zeros: Buffer | undefined;
/** Average fdatasync duration (ms) under which it runs on the loop rather than in libuv's pool. */
export const INLINE_SYNC_MS = 1;
/** The weight of the latest fdatasync in the average (about the last ten count). */
const SYNC_WEIGHT = 0.2;

export function frame(payload: Buffer): Buffer {
  if (payload.length === 0) throw new Error('an empty record cannot be logged: zeros end the log');
  const out = Buffer.allocUnsafe(8 + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  payload.copy(out, 8);
  return out;
}

/** Frames a record given in parts (no copy of the parts): the frame header, then the parts. */
export function frameParts(parts: readonly Buffer[]): Buffer[] {
  const head = Buffer.allocUnsafe(8);
  let len = 0;
  let sum = 0;
  for (const p of parts) {
    len += p.length;
    sum = crc32(p, sum);
  }
  if (len === 0) throw new Error('an empty record cannot be logged: zeros end the log');
  head.writeUInt32LE(len, 0);
  head.writeUInt32LE(sum, 4);
  return [head, ...parts];
}

/**
 * Reads every intact record of a log file; stops at the zeros the file was grown by, or at the
 * first torn or corrupt frame.
 */
export function readLog(path: string): { records: Buffer[]; validBytes: number } {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], validBytes: 0 };
    throw err;
  }
  const records: Buffer[] = [];
  let off = 0;
  while (off + 8 <= buf.length) {
    const len = buf.readUInt32LE(off);
    const sum = buf.readUInt32LE(off + 4);
    if (len === 0 || off + 8 + len > buf.length) break;
    const payload = buf.subarray(off + 8, off + 8 + len);
    if (crc32(payload) !== sum) break;
    records.push(payload);
    off += 8 + len;
  }
  return { records, validBytes: off };
}

/** Writes a whole file durably and atomically replaces `path` with it. */
function replaceFile(path: string, chunks: readonly Buffer[]): void {
  const tmp = `${path}.compact`;
  const fd = openSync(tmp, 'w');
  try {
    for (const c of chunks) {
      let off = 0;
      while (off < c.length) off += writeSync(fd, c, off);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** The recent fdatasyncs' average (ms) once one more took `latestMs`. */
export const syncAverage = (average: number, latestMs: number): number =>
  average + (latestMs - average) * SYNC_WEIGHT;

export class AppendLog {
  private readonly path: string;
  private readonly policy: FsyncPolicy;
  private fd: number;
  /** The recent fdatasyncs' average duration (ms), which decides where the next one runs. */
  private syncMs = 0;
  /** Average fdatasync duration (ms) under which it runs on the loop (INLINE_SYNC_MS). */
  private readonly inlineSyncMs: number;
  /** The file's length: the records (`size` bytes), then zeros. */
  private allocated: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingWaiters: Waiter[] = [];
  /** A flush is scheduled or running (writing, or waiting for its fdatasync). */
  private flushing = false;
  private closed = false;
  private compactRequest: (() => Buffer[]) | undefined;
  private idle: (() => void)[] = [];
  /** Bytes in the current file, for the caller's compaction decision. */
  size: number;

  private constructor(path: string, policy: FsyncPolicy, fd: number, size: number, inlineSyncMs: number) {
    this.path = path;
    this.policy = policy;
    this.inlineSyncMs = inlineSyncMs;
    this.fd = fd;
    this.size = size;
    this.allocated = size;
  }

  /**
   * Replaces the log with `snapshot` (already framed records) and opens it for appending.
   * `inlineSyncMs` moves the loop/pool threshold (tests: 0 always uses the pool).
   */
  static async create(
    path: string,
    policy: FsyncPolicy,
    snapshot: readonly Buffer[],
    inlineSyncMs = INLINE_SYNC_MS,
  ): Promise<AppendLog> {
    replaceFile(path, snapshot);
    const size = snapshot.reduce((n, b) => n + b.length, 0);
    // Not 'a': O_APPEND would put every write at the file's end, after the zeros.
    return new AppendLog(path, policy, openSync(path, 'r+'), size, inlineSyncMs);
  }

  /**
   * Queues a framed record (one buffer, or the parts of one in order); the promise settles once
   * it is written (and synced, per policy).
   */
  append(record: Buffer | readonly Buffer[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('log closed'));
    return new Promise<void>((resolve, reject) => {
      if (Buffer.isBuffer(record)) this.queue(record);
      else for (const part of record) this.queue(part);
      this.pendingWaiters.push({ resolve, reject });
      this.schedule();
    });
  }

  private queue(part: Buffer): void {
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  /**
   * Asks for a compaction at the next batch boundary. `snapshot` is called synchronously then and
   * must describe the whole in-memory state, which already includes the records still queued.
   */
  requestCompaction(snapshot: () => Buffer[]): void {
    this.compactRequest = snapshot;
    this.schedule();
  }

  /**
   * Starts a flush at the end of this event-loop turn, unless one is under way (it takes what
   * is queued when it ends). Waiting for the turn's end lets every record appended in the turn
   * (the calls of one socket read) share the write and the fdatasync.
   */
  private schedule(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  /**
   * Writes what is queued with one synchronous writev, then (policy 'always') one fdatasync, and
   * settles the batch's waiters once it is done; then the next batch.
   *
   * Why the write is synchronous: on this kind of machine (a VM, 2 cores) each hop to the
   * thread pool and back costs ~30–60 µs of CPU (waking a thread, then the loop), more than
   * copying a batch into the page cache (~10 µs for a few KB). The bytes are in the page cache
   * when the write returns (they survive `kill -9`), and a batch's waiters still hear only after
   * its own fdatasync, which started after its write.
   *
   * The fdatasync runs on the loop too while the disk is quick (the recent ones averaged under
   * INLINE_SYNC_MS): a ~100 µs wait costs less than the hop, and the loop has nothing to do
   * meanwhile that the next batch would not take anyway (Redis's `appendfsync always` works the
   * same way). With the file grown ahead (above), it took the emulator's CPU per published
   * message under the gateway bench from 17–22 to 15–20 µs (docs/pubsub-emulator.md). A slow
   * disk (an average above it) moves the fdatasync to libuv's pool, so that the loop serves
   * reads, pulls and pushes meanwhile; each fdatasync there is timed too, and a quick disk
   * brings it back.
   */
  private flush(): void {
    const compact = this.compactRequest;
    if (compact) {
      this.compactRequest = undefined;
      this.settle(this.takeBatch(), () => this.compact(compact));
      return;
    }
    if (this.pending.length === 0) {
      this.finish();
      return;
    }
    const batch = this.takeBatch();
    const length = this.allocated;
    try {
      this.write(batch.parts, batch.bytes);
    } catch (err) {
      this.settle(batch, () => {
        throw err;
      });
      return;
    }
    if (this.policy !== 'always') {
      this.settle(batch, undefined);
      return;
    }
    // A batch that grew the file flushes the zeros too (~1.3 ms for 4 MB here): not the disk's pace.
    const paced = this.allocated === length;
    const started = performance.now();
    if (this.syncsOnLoop) {
      this.settle(batch, () => {
        fdatasyncSync(this.fd);
        if (paced) this.timed(started);
      });
      return;
    }
    fdatasync(this.fd, (err) => {
      if (paced) this.timed(started);
      this.settle(batch, () => {
        if (err) throw err;
      });
    });
  }

  /** Whether the next fdatasync runs on the loop (the recent ones were quick) or in the pool. */
  get syncsOnLoop(): boolean {
    return this.syncMs < this.inlineSyncMs;
  }

  /** The file's length on disk: the records, then the zeros it was grown by. */
  get fileBytes(): number {
    return this.allocated;
  }

  /** Folds one fdatasync's duration (from `started`) into the recent average. */
  private timed(started: number): void {
    this.syncMs = syncAverage(this.syncMs, performance.now() - started);
  }

  private takeBatch(): { parts: Buffer[]; bytes: number; waiters: Waiter[] } {
    const batch = { parts: this.pending, bytes: this.pendingBytes, waiters: this.pendingWaiters };
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingWaiters = [];
    return batch;
  }

  /** Runs `step` (a throw fails the batch), settles the batch's waiters, then flushes again. */
  private settle(batch: { waiters: Waiter[] }, step: (() => void) | undefined): void {
    let failure: Error | undefined;
    try {
      step?.();
    } catch (err) {
      failure = err as Error;
    }
    for (const w of batch.waiters) {
      if (failure) w.reject(failure);
      else w.resolve();
    }
    if (this.pending.length > 0 || this.compactRequest) this.flush();
    else this.finish();
  }

  /** Writes `parts` (`bytes` in all) whole at the end of the log, over the zeros it grew by. */
  private write(parts: Buffer[], bytes: number): void {
    const at = this.size;
    if (at + bytes > this.allocated) this.grow(at + bytes);
    try {
      let done =
        parts.length === 1
          ? writeSync(this.fd, parts[0] as Buffer, 0, bytes, at)
          : writevSync(this.fd, parts, at);
      if (done < bytes) {
        // libuv's writev writes everything or fails; a short count is finished by hand.
        const rest = Buffer.concat(parts, bytes);
        while (done < bytes) done += writeSync(this.fd, rest, done, bytes - done, at + done);
      }
    } catch (err) {
      // Whole frames of a refused batch left past the log's end would read as records once a
      // shorter batch lands on part of them: zeros go back over them now if they can, and in
      // any case before the next write (from `at`, the file counts as not grown).
      this.allocated = at;
      try {
        this.fill(at, at + bytes);
        this.allocated = at + bytes;
      } catch {
        // The next write's grow() fills from `at`.
      }
      throw err;
    }
    this.size += bytes;
  }

  /**
   * Lengthens the file with zeros to hold at least `needed` bytes: by its own size (64 KB to
   * 4 MB at a time), so a small log stays small and a busy one grows rarely. Near a full disk
   * or a file-size limit, where a whole step does not fit, by what the batch needs. The batch's
   * fdatasync, which follows, makes the new length durable with the batch.
   */
  private grow(needed: number): void {
    const step = Math.min(MAX_GROW_BYTES, Math.max(MIN_GROW_BYTES, this.allocated));
    const to = Math.max(needed, this.allocated + step);
    try {
      this.fill(this.allocated, to);
      this.allocated = to;
    } catch (err) {
      if (to === needed) throw err;
      this.fill(this.allocated, needed);
      this.allocated = needed;
    }
  }

  /** Writes zeros over [from, to). */
  private fill(from: number, to: number): void {
    zeros ??= Buffer.alloc(1024 * 1024);
    for (let at = from; at < to; ) at += writeSync(this.fd, zeros, 0, Math.min(zeros.length, to - at), at);
  }

  /**
   * The snapshot covers the queued records too, so they are not written separately. The old
   * file stays open until the new one is in place: a failed compaction leaves the log as it was.
   */
  private compact(snapshot: () => Buffer[]): void {
    const chunks = snapshot();
    replaceFile(this.path, chunks);
    const old = this.fd;
    this.fd = openSync(this.path, 'r+');
    closeSync(old);
    this.size = chunks.reduce((n, b) => n + b.length, 0);
    this.allocated = this.size;
  }

  private finish(): void {
    this.flushing = false;
    const idle = this.idle;
    this.idle = [];
    for (const f of idle) f();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.flushing) await new Promise<void>((resolve) => this.idle.push(resolve));
    this.closed = true;
    closeSync(this.fd);
  }
}
