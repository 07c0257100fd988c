/**
 * Resumable uploads (docs/storage-emulator.md): a session per upload, kept in the catalog so it
 * survives a restart, its bytes in `<data-dir>/uploads/<id>`. `Content-Range` forms:
 * - `bytes F-L/T`, `bytes F-L/*`: a chunk; bytes the session already holds are skipped, so a
 *   client that re-sends from an older offset is not a problem;
 * - `bytes F-*\/T`, `bytes F-*\/*`: the rest of the object in one request (the client's default);
 *   with `*` as total the end of the body completes the upload;
 * - `bytes *\/T`, `bytes *\/*`: a status query, answered `308` with `Range: bytes=0-N` (no `Range`
 *   when nothing is held), or with the object once complete.
 * A chunk is synced to disk before the `308` that acknowledges it; a body cut off mid-way keeps the
 * bytes that arrived, which the next status query reports after syncing them.
 */
import { createHash, type Hash, randomBytes } from 'node:crypto';
import { rename, stat, writeFile } from 'node:fs/promises';
import { mayWrite } from './access.ts';
import { requestObjectAcl } from './acl-api.ts';
import { BlobWriter, crcBase64, type Digest, digestFile, fsyncDir, newBlobName } from './blobs.ts';
import type { Catalog, UploadSession } from './catalog.ts';
import { requestKey } from './csek.ts';
import { StorageError } from './errors.ts';
import type { ObjectState } from './records.ts';
import { enc, objectMeta, renderObject } from './resources.ts';
import { commitUpload, expectedHashes, objectName } from './uploads.ts';
import { type Ctx, preconditions, readJson, sendJson } from './wire.ts';

interface Progress {
  size: number;
  /** Running hashes while this process has seen every byte since the session began. */
  hash?: { crc: number; md5: Hash };
  /** Bytes written since the last sync. */
  dirty: boolean;
  /** Requests on one session run one after the other. */
  queue: Promise<void>;
}

interface Range {
  first?: number;
  last?: number;
  total?: number;
}

const RANGE = /^bytes (?:\*|(\d+)-(\d+|\*))\/(\*|\d+)$/;

function parseRange(header: string | undefined): Range {
  if (header === undefined) return { first: 0 };
  const m = RANGE.exec(header.trim());
  if (!m) throw new StorageError('invalid', `Invalid Content-Range header: ${header}`);
  const out: Range = {};
  if (m[1] !== undefined) out.first = Number(m[1]);
  if (m[2] !== undefined && m[2] !== '*') out.last = Number(m[2]);
  if (m[3] !== undefined && m[3] !== '*') out.total = Number(m[3]);
  return out;
}

export class ResumableUploads {
  private readonly c: Catalog;
  private readonly progress = new Map<string, Progress>();
  /** Completed sessions of this process, so a status query after completion gets the object. */
  private readonly completed = new Map<string, { bucket: string; name: string; generation: number }>();

  constructor(c: Catalog) {
    this.c = c;
  }

  async start(ctx: Ctx, bucket: string): Promise<void> {
    this.c.bucket(bucket);
    const resource = await readJson(ctx.req);
    const name = objectName(ctx, resource);
    mayWrite(this.c, ctx, bucket, name);
    // Preconditions are checked when the upload completes (a 412 then), as Cloud Storage does.
    const pre = preconditions(ctx.query);
    const meta = objectMeta(resource);
    const announcedType = ctx.req.headers['x-upload-content-type'];
    if (meta.contentType === undefined && typeof announcedType === 'string') meta.contentType = announcedType;
    const acl = requestObjectAcl(this.c, ctx, bucket, resource);
    const announcedSize = Number(ctx.req.headers['x-upload-content-length']);
    const keySha256 = requestKey(ctx.req);
    const id = randomBytes(18).toString('base64url');
    const session: UploadSession = {
      id,
      bucket,
      name,
      meta,
      pre,
      expected: expectedHashes(ctx.req, resource),
      created: new Date().toISOString(),
      acl,
      ...(keySha256 ? { keySha256 } : {}),
      ...(Number.isSafeInteger(announcedSize) && announcedSize >= 0 ? { expectedSize: announcedSize } : {}),
    };
    await writeFile(this.c.uploadPath(id), '');
    if (this.c.sync) await fsyncDir(this.c.uploadDir);
    await this.c.putSession(session);
    const location = `${ctx.base}/upload/storage/v1/b/${enc(bucket)}/o?uploadType=resumable&name=${enc(name)}&upload_id=${id}`;
    ctx.res.writeHead(200, { location, 'x-guploader-uploadid': id, 'content-length': 0 });
    ctx.res.end();
  }

  /** A PUT on a session URI: a chunk, the rest of the object, or a status query. */
  put(ctx: Ctx, id: string): Promise<void> {
    const p = this.progressOf(id);
    const run = p.then((prog) => {
      const next = prog.queue.then(() => this.putInOrder(ctx, id, prog));
      prog.queue = next.catch(() => undefined);
      return next;
    });
    return run;
  }

  async cancel(id: string): Promise<void> {
    if (!this.c.sessions.has(id)) throw new StorageError('notFound', 'No such upload session.');
    await this.c.endSession(id);
    this.progress.delete(id);
    throw new StorageError('uploadCancelled', 'The upload was cancelled.');
  }

  private async progressOf(id: string): Promise<Progress> {
    let p = this.progress.get(id);
    if (p) return p;
    const size = this.c.sessions.has(id)
      ? (await stat(this.c.uploadPath(id)).catch(() => ({ size: 0 }))).size
      : 0;
    p = this.progress.get(id);
    if (p) return p;
    p = {
      size,
      dirty: false,
      queue: Promise.resolve(),
      ...(size === 0 ? { hash: { crc: 0, md5: createHash('md5') } } : {}),
    };
    this.progress.set(id, p);
    return p;
  }

  private async putInOrder(ctx: Ctx, id: string, prog: Progress): Promise<void> {
    const session = this.c.sessions.get(id);
    if (!session) return this.answerEnded(ctx, id);
    const range = parseRange(ctx.req.headers['content-range']);
    if (range.first === undefined) {
      ctx.req.resume();
      if (range.total !== undefined && range.total === prog.size) return this.complete(ctx, session, prog);
      return this.answerIncomplete(ctx, prog);
    }
    if (range.first > prog.size)
      throw new StorageError(
        'invalid',
        `The upload offset ${range.first} is past the ${prog.size} bytes already received.`,
      );
    await this.receive(ctx, prog, range.first);
    if (range.total !== undefined && prog.size > range.total)
      throw new StorageError(
        'invalid',
        `Received ${prog.size} bytes, more than the ${range.total} announced.`,
      );
    const final = range.total !== undefined ? prog.size === range.total : range.last === undefined;
    if (final) return this.complete(ctx, session, prog);
    return this.answerIncomplete(ctx, prog);
  }

  /** Appends the body's new bytes; keeps what arrived even when the body is cut off. */
  private async receive(ctx: Ctx, prog: Progress, first: number): Promise<void> {
    const w = await BlobWriter.append(this.c.uploadPath(this.sessionId(ctx)), prog.size, prog.hash);
    let skip = prog.size - first;
    try {
      for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
        const fresh = skip >= chunk.length ? undefined : chunk.subarray(skip);
        skip = Math.max(0, skip - chunk.length);
        if (!fresh) continue;
        await w.write(fresh);
        prog.size = w.size;
        prog.dirty = true;
      }
    } finally {
      const state = w.hashState();
      if (state) prog.hash = state;
      else delete prog.hash;
      await w.finish(false);
    }
  }

  private sessionId(ctx: Ctx): string {
    return ctx.query.get('upload_id') ?? '';
  }

  private async syncProgress(id: string, prog: Progress): Promise<void> {
    if (!prog.dirty || !this.c.sync) return;
    const w = await BlobWriter.append(this.c.uploadPath(id), prog.size);
    await w.finish(true);
    prog.dirty = false;
  }

  private async answerIncomplete(ctx: Ctx, prog: Progress): Promise<void> {
    await this.syncProgress(this.sessionId(ctx), prog);
    const headers: Record<string, string | number> = { 'content-length': 0 };
    if (prog.size > 0) headers.range = `bytes=0-${prog.size - 1}`;
    ctx.res.writeHead(308, headers);
    ctx.res.end();
  }

  /** The uploaded object's resource, as its uploader (who holds its key, if any) sees it. */
  private resource(ctx: Ctx, o: ObjectState): Record<string, unknown> {
    return renderObject(o, ctx.base, { bucket: this.c.buckets.get(o.bucket)?.state, keySha256: o.keySha256 });
  }

  private answerEnded(ctx: Ctx, id: string): void {
    ctx.req.resume();
    const done = this.completed.get(id);
    const o = done ? this.c.find(done.bucket, done.name, done.generation) : undefined;
    if (!o) throw new StorageError('notFound', 'No such upload session.');
    sendJson(ctx.res, 200, this.resource(ctx, o));
  }

  private async complete(ctx: Ctx, session: UploadSession, prog: Progress): Promise<void> {
    if (session.expectedSize !== undefined && prog.size !== session.expectedSize)
      throw new StorageError(
        'invalid',
        `The upload has ${prog.size} bytes, not the ${session.expectedSize} announced in X-Upload-Content-Length.`,
      );
    await this.syncProgress(session.id, prog);
    const blob = newBlobName();
    await rename(this.c.uploadPath(session.id), this.c.blobPath(blob));
    const digest: Digest = prog.hash
      ? { size: prog.size, md5: prog.hash.md5.copy().digest('base64'), crc32c: crcBase64(prog.hash.crc) }
      : await digestFile(this.c.blobPath(blob));
    const expected = { ...session.expected, ...expectedHashes(ctx.req, {}) };
    this.progress.delete(session.id);
    try {
      const o = await commitUpload(
        this.c,
        {
          bucket: session.bucket,
          name: session.name,
          meta: session.meta,
          digest,
          blob,
          pre: session.pre,
          done: session.id,
          keySha256: session.keySha256,
          acl: session.acl,
        },
        expected,
      );
      this.completed.set(session.id, { bucket: o.bucket, name: o.name, generation: o.generation });
      sendJson(ctx.res, 200, this.resource(ctx, o));
    } catch (err) {
      await this.c.endSession(session.id);
      throw err;
    }
  }
}
