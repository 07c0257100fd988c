/**
 * Append-only log with group commit. Callers append encoded records and await durability: all
 * records that arrive while one write is in flight go out together in the next write, followed
 * by one fdatasync (policy 'always') or none (policy 'none': the bytes are in the OS page cache,
 * which survives `kill -9` of the process but not a power cut).
 *
 * Frame: u32 payload length, u32 CRC-32 of the payload, payload. A torn tail (crash in the middle
 * of a write) fails its length or CRC check and is cut off on open.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

export type FsyncPolicy = 'always' | 'none';

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

export function frame(payload: Buffer): Buffer {
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
  head.writeUInt32LE(len, 0);
  head.writeUInt32LE(sum, 4);
  return [head, ...parts];
}

/** Reads every intact record of a log file; stops at the first torn or corrupt frame. */
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
    if (off + 8 + len > buf.length) break;
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

export class AppendLog {
  private readonly path: string;
  private readonly policy: FsyncPolicy;
  private fh: FileHandle;
  private pending: Buffer[] = [];
  private pendingWaiters: Waiter[] = [];
  private flushing = false;
  private closed = false;
  private compactRequest: (() => Buffer[]) | undefined;
  private idle: (() => void)[] = [];
  /** Bytes in the current file, for the caller's compaction decision. */
  size: number;

  private constructor(path: string, policy: FsyncPolicy, fh: FileHandle, size: number) {
    this.path = path;
    this.policy = policy;
    this.fh = fh;
    this.size = size;
  }

  /** Replaces the log with `snapshot` (already framed records) and opens it for appending. */
  static async create(path: string, policy: FsyncPolicy, snapshot: readonly Buffer[]): Promise<AppendLog> {
    replaceFile(path, snapshot);
    const fh = await open(path, 'a');
    const size = snapshot.reduce((n, b) => n + b.length, 0);
    return new AppendLog(path, policy, fh, size);
  }

  /**
   * Queues a framed record (one buffer, or the parts of one in order); the promise settles once
   * it is written (and synced, per policy).
   */
  append(record: Buffer | readonly Buffer[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('log closed'));
    return new Promise<void>((resolve, reject) => {
      if (Buffer.isBuffer(record)) this.pending.push(record);
      else for (const part of record) this.pending.push(part);
      this.pendingWaiters.push({ resolve, reject });
      if (!this.flushing) void this.flushLoop();
    });
  }

  /**
   * Asks for a compaction at the next batch boundary. `snapshot` is called synchronously then and
   * must describe the whole in-memory state, which already includes the records still queued.
   */
  requestCompaction(snapshot: () => Buffer[]): void {
    this.compactRequest = snapshot;
    if (!this.flushing) void this.flushLoop();
  }

  private async flushLoop(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0 || this.compactRequest) {
        const batch = this.pending;
        const waiters = this.pendingWaiters;
        this.pending = [];
        this.pendingWaiters = [];
        try {
          const compact = this.compactRequest;
          this.compactRequest = undefined;
          if (compact) {
            // The snapshot covers the queued records too, so they are not written separately.
            const snapshot = compact();
            await this.fh.close();
            replaceFile(this.path, snapshot);
            this.fh = await open(this.path, 'a');
            this.size = snapshot.reduce((n, b) => n + b.length, 0);
          } else {
            const data = batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch);
            let off = 0;
            while (off < data.length) {
              const { bytesWritten } = await this.fh.write(data, off, data.length - off);
              off += bytesWritten;
            }
            this.size += data.length;
            if (this.policy === 'always') await this.fh.datasync();
          }
          for (const w of waiters) w.resolve();
        } catch (err) {
          for (const w of waiters) w.reject(err as Error);
        }
      }
    } finally {
      this.flushing = false;
      const idle = this.idle;
      this.idle = [];
      for (const f of idle) f();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.flushing) await new Promise<void>((resolve) => this.idle.push(resolve));
    this.closed = true;
    await this.fh.close();
  }
}
