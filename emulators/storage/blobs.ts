/**
 * Object bytes on disk: one immutable file per object generation under `<data-dir>/blobs/`, and
 * one growing file per resumable upload under `<data-dir>/uploads/`. A writer hashes what it
 * writes (MD5 and CRC32C, the two hashes Cloud Storage reports) so no second pass is needed.
 */
import { createHash, type Hash, randomBytes } from 'node:crypto';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { crc32c } from '@node-rs/crc32';

const WRITE_BATCH = 1 << 20;

export interface Digest {
  size: number;
  md5: string;
  crc32c: string;
}

/** Base64 of the big-endian 32-bit value, as Cloud Storage writes `crc32c`. */
export function crcBase64(value: number): string {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(value >>> 0, 0);
  return b.toString('base64');
}

export function newBlobName(): string {
  return `${Date.now().toString(36)}-${randomBytes(9).toString('hex')}`;
}

/** Appends bytes to a file while hashing them. */
export class BlobWriter {
  readonly path: string;
  private readonly fh: FileHandle;
  private md5: Hash | undefined;
  private crc = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes on disk (the file's size once the pending chunks are written). */
  private written: number;
  /** Bytes given to `write`, on disk or pending. */
  size: number;

  private constructor(path: string, fh: FileHandle, size: number, hashing: boolean) {
    this.path = path;
    this.fh = fh;
    this.size = size;
    this.written = size;
    this.md5 = hashing ? createHash('md5') : undefined;
  }

  /** A new, empty file. */
  static async create(path: string): Promise<BlobWriter> {
    return new BlobWriter(path, await open(path, 'wx'), 0, true);
  }

  /**
   * Appends to an upload's file at `size`. Hashing continues only from an empty file; otherwise
   * `digestFile` hashes the whole file when the upload completes.
   */
  static async append(path: string, size: number, hash?: { crc: number; md5: Hash }): Promise<BlobWriter> {
    const fh = await open(path, 'r+');
    await fh.truncate(size);
    const w = new BlobWriter(path, fh, size, false);
    if (hash) {
      w.md5 = hash.md5;
      w.crc = hash.crc;
    }
    return w;
  }

  /**
   * Hashes `chunk` and queues it; queued chunks go to the file in one `writev` once 1 MiB has
   * gathered (the request's 64 KiB chunks one by one cost a system call and a thread-pool round
   * trip each). The chunk must not be reused by the caller afterwards.
   */
  async write(chunk: Buffer): Promise<void> {
    this.size += chunk.length;
    this.md5?.update(chunk);
    this.crc = crc32c(chunk, this.crc);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= WRITE_BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    let parts = this.pending;
    let left = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    while (left > 0) {
      const { bytesWritten } = await this.fh.writev(parts, this.written);
      this.written += bytesWritten;
      left -= bytesWritten;
      if (left > 0) parts = [Buffer.concat(parts).subarray(bytesWritten)];
    }
  }

  /** The running hash state, when this writer has seen every byte of the file. */
  hashState(): { crc: number; md5: Hash } | undefined {
    return this.md5 ? { crc: this.crc, md5: this.md5.copy() } : undefined;
  }

  /** Makes the bytes durable (per `sync`) and closes; the digest when every byte was seen. */
  async finish(sync: boolean): Promise<Digest | undefined> {
    try {
      await this.flush();
      if (sync) await this.fh.datasync();
    } finally {
      await this.fh.close();
    }
    if (!this.md5) return undefined;
    return { size: this.size, md5: this.md5.digest('base64'), crc32c: crcBase64(this.crc) };
  }

  async abort(): Promise<void> {
    await this.fh.close().catch(() => undefined);
    await unlink(this.path).catch(() => undefined);
  }
}

/** Hashes a whole file (an upload resumed after a restart, whose running hash was lost). */
export async function digestFile(path: string): Promise<Digest> {
  const fh = await open(path, 'r');
  try {
    const md5 = createHash('md5');
    let crc = 0;
    let size = 0;
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, size);
      if (bytesRead === 0) break;
      const part = buf.subarray(0, bytesRead);
      md5.update(part);
      crc = crc32c(part, crc);
      size += bytesRead;
    }
    return { size, md5: md5.digest('base64'), crc32c: crcBase64(crc) };
  } finally {
    await fh.close();
  }
}

/** Concatenates files into a new one (compose), returning its size and CRC32C. */
export async function concatFiles(
  sources: readonly string[],
  target: string,
  sync: boolean,
): Promise<Digest> {
  const w = await BlobWriter.create(target);
  try {
    for (const src of sources) {
      const fh = await open(src, 'r');
      try {
        let pos = 0;
        for (;;) {
          // A new buffer per read: the writer keeps the chunks it is given until it writes them.
          const buf = Buffer.allocUnsafe(1 << 20);
          const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
          if (bytesRead === 0) break;
          await w.write(buf.subarray(0, bytesRead));
          pos += bytesRead;
        }
      } finally {
        await fh.close();
      }
    }
    return (await w.finish(sync)) as Digest;
  } catch (err) {
    await w.abort();
    throw err;
  }
}

/** fsync of a directory, so the files created in it keep their names after a power cut. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Wraps an async action so that concurrent callers share runs: a caller gets a run that starts
 * after its call, and all callers arriving while one run is in flight share the next one.
 */
export function coalesced(action: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const run = action().finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };
  return () => {
    if (!running) return start();
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}
