/**
 * Object uploads, as the client sends them to `/upload/storage/v1/b/{bucket}/o`:
 * - `uploadType=media`: the body is the object;
 * - `uploadType=multipart`: a `multipart/related` body, the object resource (JSON) then the bytes,
 *   parsed as a stream so large bodies are never held in memory;
 * - `uploadType=resumable`: a POST opens a session (its URI in `Location`), PUTs with
 *   `Content-Range` send chunks; each chunk is on disk before its `308` names the bytes held
 *   (`Range: bytes=0-N`), so an upload cut off by a network error or a `kill -9` resumes where the
 *   emulator says it stands. The request that brings the last byte completes the object.
 * Every path ends in `commitUpload`: hashes checked against those the client sent, preconditions
 * checked against the object as it is at that moment, the bytes and the names synced, then one
 * catalog record.
 */
import { unlink } from 'node:fs/promises';
import type http from 'node:http';
import { mayWrite } from './access.ts';
import { requestObjectAcl } from './acl-api.ts';
import { BlobWriter, type Digest, newBlobName } from './blobs.ts';
import type { Catalog, NewGeneration } from './catalog.ts';
import { requestKey } from './csek.ts';
import { StorageError } from './errors.ts';
import { checkObjectName } from './names.ts';
import { resourceOf } from './objects.ts';
import type { ObjectState } from './records.ts';
import { objectMeta } from './resources.ts';
import { type Ctx, checkPreconditions, parseJson, preconditions, sendJson } from './wire.ts';

const MAX_MULTIPART_HEAD = 2 << 20;

export interface Expected {
  md5?: string;
  crc32c?: string;
}

/** Hashes the client asks us to check: `x-goog-hash` and the resource's `md5Hash`/`crc32c`. */
export function expectedHashes(req: http.IncomingMessage, resource: Record<string, unknown>): Expected {
  const out: Expected = {};
  if (typeof resource.md5Hash === 'string') out.md5 = resource.md5Hash;
  if (typeof resource.crc32c === 'string') out.crc32c = resource.crc32c;
  const header = req.headers['x-goog-hash'];
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const key = part.slice(0, i).trim().toLowerCase();
    const value = part.slice(i + 1).trim();
    if (key === 'md5') out.md5 = value;
    if (key === 'crc32c') out.crc32c = value;
  }
  return out;
}

function checkHashes(digest: Digest, expected: Expected): void {
  if (expected.md5 !== undefined && expected.md5 !== digest.md5)
    throw new StorageError(
      'invalid',
      `Provided MD5 hash "${expected.md5}" doesn't match calculated MD5 hash "${digest.md5}".`,
    );
  if (expected.crc32c !== undefined && expected.crc32c !== digest.crc32c)
    throw new StorageError(
      'invalid',
      `Provided CRC32C "${expected.crc32c}" doesn't match calculated CRC32C "${digest.crc32c}".`,
    );
}

/** Checks the hashes the client sent, then adds the generation (catalog.addGeneration). */
export async function commitUpload(c: Catalog, g: NewGeneration, expected: Expected): Promise<ObjectState> {
  try {
    checkHashes(g.digest as Digest, expected);
  } catch (err) {
    await unlink(c.blobPath(g.blob)).catch(() => undefined);
    throw err;
  }
  return c.addGeneration(g);
}

/** Streams `source` into a new blob; `write` may hold back bytes (the multipart trailer). */
async function receive(
  c: Catalog,
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  transform?: (chunk: Buffer | undefined) => Buffer,
): Promise<{ blob: string; digest: Digest; dirSynced: Promise<void> }> {
  const blob = newBlobName();
  const w = await BlobWriter.create(c.blobPath(blob));
  // The file's name is synced while its bytes arrive.
  const dirSynced = c.syncBlobNames();
  dirSynced.catch(() => undefined);
  try {
    for await (const chunk of chunks) await w.write(transform ? transform(chunk) : chunk);
    if (transform) await w.write(transform(undefined));
    return { blob, digest: (await w.finish(c.sync)) as Digest, dirSynced };
  } catch (err) {
    await w.abort();
    throw err;
  }
}

function contentTypeOf(req: http.IncomingMessage): string | undefined {
  const t = req.headers['content-type'];
  return t && t.length > 0 ? t : undefined;
}

export function objectName(ctx: Ctx, resource: Record<string, unknown>): string {
  return checkObjectName(ctx.query.get('name') ?? resource.name);
}

export async function mediaUpload(c: Catalog, ctx: Ctx, bucket: string): Promise<void> {
  const name = objectName(ctx, {});
  const o = await storeMedia(c, ctx, bucket, name, { contentType: contentTypeOf(ctx.req) }, ctx.req);
  sendJson(ctx.res, 200, resourceOf(c, ctx, o));
}

/**
 * The object resource the XML API's headers (a PUT's) or a POST form's fields give: `content-type`,
 * `cache-control`, `content-disposition`, and `x-goog-meta-<key>` as custom metadata.
 */
export function xmlResource(given: Iterable<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const metadata: Record<string, string> = {};
  const fields: Record<string, string> = {
    'content-type': 'contentType',
    'cache-control': 'cacheControl',
    'content-disposition': 'contentDisposition',
  };
  for (const [name, value] of given) {
    if (typeof value !== 'string') continue;
    const n = name.toLowerCase();
    if (n.startsWith('x-goog-meta-')) metadata[n.slice('x-goog-meta-'.length)] = value;
    else if (fields[n] !== undefined && value !== '') out[fields[n]] = value;
  }
  if (Object.keys(metadata).length > 0) out.metadata = metadata;
  return out;
}

/**
 * Writes object `name` from `source` with the metadata of `resource` (JSON API fields): the
 * caller's write permission, the request's preconditions, predefined ACL, customer-supplied key
 * and hashes. A media upload, the XML API's PUT (a signed URL's) and a POST policy's form share it.
 */
export async function storeMedia(
  c: Catalog,
  ctx: Ctx,
  bucket: string,
  name: string,
  resource: Record<string, unknown>,
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
): Promise<ObjectState> {
  c.bucket(bucket);
  checkObjectName(name);
  mayWrite(c, ctx, bucket, name);
  const pre = preconditions(ctx.query);
  checkPreconditions(c.find(bucket, name), pre, 'write');
  const meta = objectMeta(resource);
  const acl = requestObjectAcl(c, ctx, bucket, undefined);
  const keySha256 = requestKey(ctx.req);
  const { blob, digest, dirSynced } = await receive(c, source);
  const expected = expectedHashes(ctx.req, {});
  return commitUpload(c, { bucket, name, meta, digest, blob, pre, dirSynced, keySha256, acl }, expected);
}

/**
 * Splits a `multipart/related` body: reads the head (first part, the JSON resource, and the
 * second part's headers), then streams the media, holding back the closing delimiter.
 */
class MultipartSplitter {
  private readonly delimiter: Buffer;
  private held = Buffer.alloc(0);

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  static boundary(contentType: string | undefined): string {
    const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
    const b = m?.[1] ?? m?.[2];
    if (!/^multipart\/related/i.test(contentType ?? '') || !b)
      throw new StorageError(
        'invalid',
        'A multipart upload needs Content-Type: multipart/related with a boundary.',
      );
    return b.trim();
  }

  /** Reads until the media starts; returns the resource, the media part's headers and the first bytes. */
  async head(
    it: AsyncIterator<Buffer>,
  ): Promise<{ resource: Record<string, unknown>; mediaType?: string; rest: Buffer }> {
    let buf = Buffer.alloc(0);
    const open = this.delimiter.subarray(2);
    for (;;) {
      const start = buf.indexOf(open);
      const h1 = start < 0 ? -1 : buf.indexOf('\r\n\r\n', start);
      const end1 = h1 < 0 ? -1 : buf.indexOf(this.delimiter, h1 + 4);
      const h2 = end1 < 0 ? -1 : buf.indexOf('\r\n\r\n', end1 + this.delimiter.length);
      if (h2 >= 0) {
        const value = parseJson(buf.subarray(h1 + 4, end1));
        const resource =
          typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
        const headers = buf.subarray(end1 + this.delimiter.length, h2).toString('latin1');
        const mediaType = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim();
        return { resource, ...(mediaType ? { mediaType } : {}), rest: buf.subarray(h2 + 4) };
      }
      if (buf.length > MAX_MULTIPART_HEAD) throw new StorageError('invalid', 'Metadata part is too large.');
      const next = await it.next();
      if (next.done) throw new StorageError('invalid', 'The multipart body ends before its media part.');
      buf = Buffer.concat([buf, next.value]);
    }
  }

  /** Media bytes of `chunk` that are surely not the closing delimiter; undefined = end of body. */
  take = (chunk: Buffer | undefined): Buffer => {
    if (chunk === undefined) {
      const end = this.held.lastIndexOf(this.delimiter);
      if (end < 0) throw new StorageError('invalid', 'The multipart body has no closing boundary.');
      return this.held.subarray(0, end);
    }
    const all = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const keep = Math.min(all.length, this.delimiter.length + 4);
    this.held = Buffer.from(all.subarray(all.length - keep));
    return all.subarray(0, all.length - keep);
  };
}

export async function multipartUpload(c: Catalog, ctx: Ctx, bucket: string): Promise<void> {
  c.bucket(bucket);
  const splitter = new MultipartSplitter(MultipartSplitter.boundary(contentTypeOf(ctx.req)));
  const it = (ctx.req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const { resource, mediaType, rest } = await splitter.head(it);
  const name = objectName(ctx, resource);
  mayWrite(c, ctx, bucket, name);
  const pre = preconditions(ctx.query);
  checkPreconditions(c.find(bucket, name), pre, 'write');
  const meta = objectMeta(resource);
  if (meta.contentType === undefined && mediaType) meta.contentType = mediaType;
  const acl = requestObjectAcl(c, ctx, bucket, resource);
  const keySha256 = requestKey(ctx.req);
  const remaining: AsyncIterable<Buffer> = {
    async *[Symbol.asyncIterator]() {
      if (rest.length > 0) yield rest;
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        yield n.value;
      }
    },
  };
  const { blob, digest, dirSynced } = await receive(c, remaining, splitter.take);
  const expected = expectedHashes(ctx.req, resource);
  const o = await commitUpload(
    c,
    { bucket, name, meta, digest, blob, pre, dirSynced, keySha256, acl },
    expected,
  );
  sendJson(ctx.res, 200, resourceOf(c, ctx, o));
}
