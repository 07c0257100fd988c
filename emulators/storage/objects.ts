/**
 * Object methods of the JSON API besides uploads: get (metadata or media, with `Range`), list
 * (prefix, delimiter, offsets, pages, versions), patch/update, delete, copy/rewrite and compose.
 */
import { copyFile, link, open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { mayObject, mayWrite } from './access.ts';
import { objectAclChange, objectAclFields, requestObjectAcl } from './acl-api.ts';
import { concatFiles, newBlobName } from './blobs.ts';
import { byteOrder, type Catalog } from './catalog.ts';
import { checkKey, requestKey, SOURCE_PREFIX } from './csek.ts';
import { noSuchObject, StorageError } from './errors.ts';
import { globToRegExp } from './glob.ts';
import { checkObjectName } from './names.ts';
import type { ObjectState } from './records.ts';
import { objectMeta, renderObject } from './resources.ts';
import { checkRetentionChange } from './retention.ts';
import { type Ctx, checkPreconditions, intParam, preconditions, readJson, sendJson } from './wire.ts';

const MAX_PAGE = 1000;
const MAX_COMPOSE_SOURCES = 32;

function generationParam(ctx: Ctx, key = 'generation'): number | undefined {
  return intParam(ctx.query, key);
}

/** An object's resource as this request sees it (its bucket's retention, the request's key). */
export function resourceOf(c: Catalog, ctx: Ctx, o: ObjectState): Record<string, unknown> {
  const bucket = c.buckets.get(o.bucket)?.state;
  const resource = renderObject(o, ctx.base, { bucket, keySha256: requestKey(ctx.req) });
  return ctx.query.get('projection') === 'full'
    ? { ...resource, ...objectAclFields(o, bucket, ctx.base) }
    : resource;
}

/** The object a read or metadata change addresses, with its preconditions checked. */
function addressed(c: Catalog, ctx: Ctx, bucket: string, name: string, mode: 'read' | 'write'): ObjectState {
  const o = c.get(bucket, name, generationParam(ctx));
  checkPreconditions(o, preconditions(ctx.query), mode);
  return o;
}

export async function getObject(
  c: Catalog,
  ctx: Ctx,
  bucket: string,
  name: string,
  media: boolean,
): Promise<void> {
  if (ctx.query.get('softDeleted') === 'true') {
    // A soft-deleted generation: its metadata only, addressed by its generation.
    const generation = generationParam(ctx);
    if (generation === undefined) throw new StorageError('required', 'Required parameter: generation');
    if (media || ctx.query.get('alt') === 'media')
      throw new StorageError('invalid', 'A soft-deleted object cannot be downloaded; restore it first.');
    return sendJson(ctx.res, 200, resourceOf(c, ctx, c.getSoft(bucket, name, generation)));
  }
  const o = addressed(c, ctx, bucket, name, 'read');
  const key = requestKey(ctx.req);
  if (media || ctx.query.get('alt') === 'media') {
    checkKey(o, key);
    return sendMedia(c, ctx, o);
  }
  // Metadata reads need no key, but a wrong one is refused.
  if (key !== undefined) checkKey(o, key);
  sendJson(ctx.res, 200, resourceOf(c, ctx, o));
}

/** Parses a single `Range: bytes=...` against `size`; undefined = the whole object. */
function byteRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Math.min(Number(m[2]), size);
    return { start: size - n, end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start)
    throw new StorageError('rangeNotSatisfiable', 'The requested range cannot be satisfied.');
  return { start, end };
}

async function sendMedia(c: Catalog, ctx: Ctx, o: ObjectState): Promise<void> {
  const fh = await open(c.blobPath(o.blob), 'r');
  try {
    const stored = typeof o.meta.contentEncoding === 'string' ? o.meta.contentEncoding : 'identity';
    const gunzip = stored === 'gzip' && !/\bgzip\b/.test(String(ctx.req.headers['accept-encoding'] ?? ''));
    const range = gunzip || o.size === 0 ? undefined : byteRange(ctx.req.headers.range, o.size);
    const headers: Record<string, string | number> = {
      'content-type': String(o.meta.contentType ?? 'application/octet-stream'),
      'x-goog-generation': String(o.generation),
      'x-goog-metageneration': String(o.metageneration),
      'x-goog-stored-content-encoding': stored,
      'x-goog-stored-content-length': String(o.size),
      'x-goog-hash': `crc32c=${o.crc32c}${o.md5 ? `,md5=${o.md5}` : ''}`,
      'x-goog-storage-class': 'STANDARD',
      etag: `"${renderObject(o, ctx.base).etag}"`,
      'last-modified': new Date(o.updated).toUTCString(),
      'accept-ranges': 'bytes',
    };
    for (const [key, header] of [
      ['cacheControl', 'cache-control'],
      ['contentDisposition', 'content-disposition'],
      ['contentLanguage', 'content-language'],
    ] as const)
      if (typeof o.meta[key] === 'string') headers[header] = o.meta[key];
    if (stored !== 'identity' && !gunzip) headers['content-encoding'] = stored;
    if (range) {
      headers['content-range'] = `bytes ${range.start}-${range.end}/${o.size}`;
      headers['content-length'] = range.end - range.start + 1;
    } else if (!gunzip) headers['content-length'] = o.size;
    ctx.res.writeHead(range ? 206 : 200, headers);
    if (o.size === 0) {
      ctx.res.end();
      return;
    }
    const body = fh.createReadStream({
      autoClose: false,
      ...(range ? { start: range.start, end: range.end } : {}),
      highWaterMark: 1 << 20,
    });
    if (gunzip) await pipeline(body, createGunzip(), ctx.res);
    else await pipeline(body, ctx.res);
  } finally {
    await fh.close();
  }
}

interface PageToken {
  /** Last name (or prefix) given. */
  k: string;
  /** Last generation given of `k` (listing versions). */
  g?: number;
  /** `k` was a prefix: skip every name under it. */
  p?: true;
}

function readToken(raw: string | null): PageToken | undefined {
  if (!raw) return undefined;
  try {
    const t = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as PageToken;
    if (typeof t.k === 'string') return t;
  } catch {
    // fall through to the error
  }
  throw new StorageError('invalid', 'Invalid page token.');
}

/** First index whose name is not before `key` in byte order. */
export function lowerBound(names: readonly string[], key: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (byteOrder(names[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function listObjects(c: Catalog, ctx: Ctx, bucket: string): void {
  const entry = c.bucket(bucket);
  const q = ctx.query;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const startOffset = q.get('startOffset') ?? '';
  const endOffset = q.get('endOffset') ?? '';
  // softDeleted=true lists the soft-deleted generations instead of the live ones.
  const soft = q.get('softDeleted') === 'true';
  if (soft && q.get('versions') === 'true')
    throw new StorageError('invalid', 'softDeleted and versions cannot both be true.');
  const versions = soft || q.get('versions') === 'true';
  const trailing = q.get('includeTrailingDelimiter') === 'true';
  const max = Math.min(intParam(q, 'maxResults') ?? MAX_PAGE, MAX_PAGE) || MAX_PAGE;
  const token = readToken(q.get('pageToken'));
  const glob = q.get('matchGlob') ? globToRegExp(q.get('matchGlob') as string) : undefined;
  const names = soft ? c.sortedSoftNames(entry) : c.sortedNames(entry);
  let from = prefix;
  if (byteOrder(startOffset, from) > 0) from = startOffset;
  if (token && byteOrder(token.k, from) > 0) from = token.k;
  const items: ObjectState[] = [];
  const prefixes: string[] = [];
  let last: PageToken | undefined;
  let more = false;
  for (let i = lowerBound(names, from); i < names.length; i++) {
    const name = names[i] as string;
    if (!name.startsWith(prefix) || (endOffset !== '' && byteOrder(name, endOffset) >= 0)) break;
    if (token?.p && name.startsWith(token.k)) continue;
    if (token && !token.p && token.g === undefined && name === token.k) continue;
    if (last?.p && name.startsWith(last.k)) continue;
    if (glob && !glob.test(name)) continue;
    const cut = delimiter === '' ? -1 : name.indexOf(delimiter, prefix.length);
    if (cut >= 0) {
      const p = name.slice(0, cut + delimiter.length);
      if (items.length + prefixes.length >= max) {
        more = true;
        break;
      }
      prefixes.push(p);
      last = { k: p, p: true };
      if (!(trailing && name === p)) continue;
    }
    const v = entry.objects.get(name);
    const gens = soft
      ? c.softOf(entry, name)
      : versions
        ? [...(v?.old ?? []), ...(v?.live ? [v.live] : [])]
        : v?.live
          ? [v.live]
          : [];
    for (const o of gens) {
      if (token?.g !== undefined && name === token.k && o.generation <= token.g) continue;
      if (items.length + prefixes.length >= max) {
        more = true;
        break;
      }
      items.push(o);
      last = versions ? { k: name, g: o.generation } : { k: name };
    }
    if (more) break;
  }
  sendJson(ctx.res, 200, {
    kind: 'storage#objects',
    ...(prefixes.length > 0 ? { prefixes } : {}),
    ...(items.length > 0 ? { items: items.map((o) => resourceOf(c, ctx, o)) } : {}),
    ...(more && last ? { nextPageToken: Buffer.from(JSON.stringify(last)).toString('base64url') } : {}),
  });
}

/** PATCH merges metadata; PUT (update) replaces the writable metadata. */
export async function patchObject(
  c: Catalog,
  ctx: Ctx,
  bucket: string,
  name: string,
  replace: boolean,
): Promise<void> {
  const o = addressed(c, ctx, bucket, name, 'write');
  const body = await readJson(ctx.req);
  const meta = objectMeta(body, replace ? {} : o.meta);
  const override = ctx.query.get('overrideUnlockedRetention') === 'true';
  checkRetentionChange(c.bucket(bucket).state, o.meta, meta, override);
  const acl = objectAclChange(c.bucket(bucket).state, ctx, body);
  const next: ObjectState = {
    ...o,
    ...(acl ? { acl } : {}),
    meta,
    metageneration: o.metageneration + 1,
    updated: new Date().toISOString(),
  };
  await c.putObject(next);
  sendJson(ctx.res, 200, resourceOf(c, ctx, next));
}

export async function deleteObject(c: Catalog, ctx: Ctx, bucket: string, name: string): Promise<void> {
  const generation = generationParam(ctx);
  const o = addressed(c, ctx, bucket, name, 'write');
  const keep = generation === undefined && c.bucket(bucket).state.versioning;
  await c.deleteObject(o, keep);
  ctx.res.writeHead(204);
  ctx.res.end();
}

/** objects.restore: a soft-deleted generation made live again, as a new generation. */
export async function restoreObject(c: Catalog, ctx: Ctx, bucket: string, name: string): Promise<void> {
  const generation = generationParam(ctx);
  if (generation === undefined) throw new StorageError('required', 'Required parameter: generation');
  ctx.req.resume();
  const token = ctx.query.get('restoreToken') ?? undefined;
  const o = await c.restoreObject(bucket, name, generation, token, preconditions(ctx.query));
  sendJson(ctx.res, 200, resourceOf(c, ctx, o));
}

/** copyTo and rewriteTo: the source's bytes under a new name, in one call. */
export async function copyObject(
  c: Catalog,
  ctx: Ctx,
  src: { bucket: string; name: string },
  dest: { bucket: string; name: string },
  rewrite: boolean,
): Promise<void> {
  const source = c.get(src.bucket, src.name, generationParam(ctx, 'sourceGeneration'));
  checkPreconditions(source, preconditions(ctx.query, true), 'write');
  checkKey(source, requestKey(ctx.req, SOURCE_PREFIX));
  const keySha256 = requestKey(ctx.req);
  c.bucket(dest.bucket);
  checkObjectName(dest.name);
  const pre = preconditions(ctx.query);
  checkPreconditions(c.find(dest.bucket, dest.name), pre, 'write');
  const body = await readJson(ctx.req);
  const given = objectMeta(body);
  const meta = Object.keys(given).length > 0 ? given : { ...source.meta };
  const acl = requestObjectAcl(c, ctx, dest.bucket, body, 'destinationPredefinedAcl');
  const blob = newBlobName();
  await copyFile(c.blobPath(source.blob), c.blobPath(blob));
  if (c.sync) {
    const fh = await open(c.blobPath(blob), 'r+');
    await fh.datasync().finally(() => fh.close());
  }
  const o = await c.addGeneration({ ...dest, meta, blob, digest: source, pre, keySha256, acl });
  const resource = resourceOf(c, ctx, o);
  if (!rewrite) return sendJson(ctx.res, 200, resource);
  sendJson(ctx.res, 200, {
    kind: 'storage#rewriteResponse',
    totalBytesRewritten: String(o.size),
    objectSize: String(o.size),
    done: true,
    resource,
  });
}

interface ComposeSource {
  name: string;
  generation?: number;
  ifGenerationMatch?: string;
}

function composeSources(body: Record<string, unknown>): ComposeSource[] {
  const list = body.sourceObjects;
  if (!Array.isArray(list) || list.length === 0)
    throw new StorageError('required', 'At least one source object must be specified.');
  if (list.length > MAX_COMPOSE_SOURCES)
    throw new StorageError(
      'invalid',
      `The number of source components provided (${list.length}) exceeds the maximum (32).`,
    );
  return list.map((s: unknown) => {
    const r = (typeof s === 'object' && s !== null ? s : {}) as Record<string, unknown>;
    const pre = (r.objectPreconditions ?? {}) as Record<string, unknown>;
    return {
      name: checkObjectName(r.name),
      ...(r.generation !== undefined ? { generation: Number(r.generation) } : {}),
      ...(pre.ifGenerationMatch !== undefined ? { ifGenerationMatch: String(pre.ifGenerationMatch) } : {}),
    };
  });
}

export async function composeObject(c: Catalog, ctx: Ctx, bucket: string, name: string): Promise<void> {
  c.bucket(bucket);
  checkObjectName(name);
  const body = await readJson(ctx.req);
  const wanted = composeSources(body);
  mayWrite(c, ctx, bucket, name);
  for (const s of wanted) mayObject(ctx, 'storage.objects.get', bucket, s.name);
  // The sources and the result share the request's key (none, or one customer-supplied key).
  const keySha256 = requestKey(ctx.req);
  const sources = wanted.map((s) => {
    const o = c.find(bucket, s.name, s.generation);
    if (!o) throw noSuchObject(bucket, s.name);
    checkKey(o, keySha256);
    if (s.ifGenerationMatch !== undefined)
      checkPreconditions(o, { ifGenerationMatch: s.ifGenerationMatch }, 'write');
    return o;
  });
  const pre = preconditions(ctx.query);
  checkPreconditions(c.find(bucket, name), pre, 'write');
  const destination = (body.destination ?? {}) as Record<string, unknown>;
  const meta = objectMeta(destination);
  if (meta.contentType === undefined && sources[0]?.meta.contentType !== undefined)
    meta.contentType = sources[0].meta.contentType;
  const acl = requestObjectAcl(c, ctx, bucket, destination, 'destinationPredefinedAcl');
  const blob = newBlobName();
  const digest = await concatFiles(
    sources.map((s) => c.blobPath(s.blob)),
    c.blobPath(blob),
    c.sync,
  );
  const componentCount = sources.reduce((n, s) => n + (s.componentCount ?? 1), 0);
  // Composite objects have a CRC32C but no MD5, as in Cloud Storage.
  const digestNoMd5 = { size: digest.size, crc32c: digest.crc32c };
  const o = await c.addGeneration({
    bucket,
    name,
    meta,
    blob,
    digest: digestNoMd5,
    componentCount,
    pre,
    keySha256,
    acl,
  });
  sendJson(ctx.res, 200, resourceOf(c, ctx, o));
}

/**
 * moveTo: the object under a new name in the same bucket, and the old name gone, in one catalog
 * record (atomic, as `moveFileAtomic` promises). The bytes are hard-linked, not copied.
 */
export async function moveObject(
  c: Catalog,
  ctx: Ctx,
  bucket: string,
  from: string,
  to: string,
): Promise<void> {
  const source = c.get(bucket, from);
  checkPreconditions(source, preconditions(ctx.query, true), 'write');
  // The moved object keeps its key, which the request must carry (as for reading its bytes).
  checkKey(source, requestKey(ctx.req));
  checkObjectName(to);
  ctx.req.resume();
  const blob = newBlobName();
  await link(c.blobPath(source.blob), c.blobPath(blob)).catch(() =>
    copyFile(c.blobPath(source.blob), c.blobPath(blob)),
  );
  const pre = preconditions(ctx.query);
  const o = await c.addGeneration({
    bucket,
    name: to,
    meta: { ...source.meta },
    blob,
    digest: source,
    pre,
    moveFrom: source,
    keySha256: source.keySha256,
  });
  sendJson(ctx.res, 200, resourceOf(c, ctx, o));
}
