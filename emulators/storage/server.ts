/**
 * The Cloud Storage emulator: the JSON API on one HTTP port, as `@google-cloud/storage` calls it
 * when `STORAGE_EMULATOR_HOST` is set (docs/storage-emulator.md). The client uses that value as
 * the API's base URL itself, so every path is served both bare (`/b/...`) and under
 * `/storage/v1`; uploads come to `/upload/storage/v1/...`, downloads may come to
 * `/download/storage/v1/...`. One emulator per data directory (owner lock). With `iam`, each call
 * is authorized first (access.ts), and each identity port's connections act as its member.
 */
import type http from 'node:http';
import { type EmulatorOptions, serveEmulator } from '@eventbus/emulator-common/http-serve.ts';
import { STORAGE_JWT_SERVICE } from '@eventbus/emulator-common/iam-enforce.ts';
import { exchangeToken, STS_PATH } from '@eventbus/emulator-common/local-sts.ts';
import { ANONYMOUS, accessOf, mayBucket, mayList, mayObject, mayProject, mayWrite } from './access.ts';
import { aclAllows, publicAccessPrevented } from './acl.ts';
import { type AclKind, aclCall } from './acl-api.ts';
import { getBucketPolicy, ownPolicy, setBucketPolicy } from './bucket-iam.ts';
import {
  deleteBucket,
  getBucket,
  insertBucket,
  listBuckets,
  lockRetention,
  patchBucket,
  restoreBucket,
  testBucketPermissions,
} from './buckets.ts';
import { Catalog } from './catalog.ts';
import { StorageError } from './errors.ts';
import { notificationCall, notifier } from './notifications.ts';
import { NotificationPublisher, type PublisherCounts, STORAGE_SERVICE_AGENT } from './notify-publisher.ts';
import {
  composeObject,
  copyObject,
  deleteObject,
  getObject,
  listObjects,
  moveObject,
  patchObject,
  restoreObject,
} from './objects.ts';
import { postPolicyUpload } from './post-policy.ts';
import { renderObject } from './resources.ts';
import { ResumableUploads } from './resumable.ts';
import { isSignedQuery, type KeysOf, verifySignedUrl } from './signed.ts';
import { mediaUpload, multipartUpload, storeMedia, xmlResource } from './uploads.ts';
import { type Ctx, readBody, readJson, requestedFields, sendError, sendJson } from './wire.ts';
import { checkXmlHost, hostnamesOf, listBucketXml, sendXmlError, XmlError, xmlQuery } from './xml.ts';

/** An Authorization header that carries a bearer token (what `callerOf` verifies). */
const BEARER = /^Bearer\s+\S+\s*$/i;

export interface StorageEmulatorOptions extends EmulatorOptions {
  /**
   * Who a call without credentials (no token, not on an identity port) is, with `iam`: the
   * project's owner (the default, as on Google's own emulators), or `allUsers`, as Cloud Storage
   * treats an anonymous caller: only public grants (IAM or ACL) reach it.
   */
  anonymous?: 'owner' | 'allUsers';
  /** How long a POST policy's form may take to arrive (post-policy.ts: FORM_BODY_TIMEOUT_MS). */
  formBodyTimeoutMs?: number;
  /** How long a refused request's unread body is read and dropped before the connection is cut. */
  drainMs?: number;
  /**
   * Pub/Sub's endpoint (`host:port`, as `PUBSUB_EMULATOR_HOST` gives it, or a URL) that bucket
   * notifications publish to (notifications.ts); none: notification configurations are refused.
   */
  pubsubEndpoint?: string | undefined;
}

/** How long a refused request's unread body is drained before its connection is cut. */
const DRAIN_MS = 10_000;

/**
 * After an answer to a request whose body is not read in full: the rest of the body is read and
 * dropped (the client, still sending, gets to read the answer), for `drainMs` at most; then the
 * connection is cut, so a body that never ends is not held open. A body that does end in time
 * leaves the connection to its next request.
 */
function drainThenClose(req: http.IncomingMessage, res: http.ServerResponse, drainMs: number): void {
  if (req.complete) return;
  const cut = setTimeout(() => req.socket.destroy(), drainMs);
  cut.unref();
  const stop = (): void => clearTimeout(cut);
  req.once('end', stop);
  req.socket.once('close', stop);
  req.resume();
  res.on('error', () => undefined);
}

export interface StorageEmulator {
  readonly port: number;
  readonly url: string;
  /** Member → the identity port it took (empty without `iam`). */
  readonly identityPorts: ReadonlyMap<string, number>;
  /** What the notifications' publisher did: published, dropped, retried, queued (none without Pub/Sub). */
  notifications(): PublisherCounts | undefined;
  /** Resolves once no notification waits to be published. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

type Area = 'json' | 'upload' | 'download' | 'xml';

interface Route {
  area: Area;
  /** Path segments after the API prefix, e.g. ['b', 'bucket', 'o', 'name'] (decoded once routed). */
  segs: string[];
}

function decode(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    throw new StorageError('invalid', `Invalid percent-encoding in the path: ${seg}`);
  }
}

/**
 * First segments of the JSON API's paths; any other path is the XML API's `/<bucket>` or
 * `/<bucket>/<object>` (xml.ts, what `file.isPublic()`, signed URLs and POST policies use).
 */
const JSON_ROOTS = new Set(['b', 'storage', 'upload', 'download', 'channels', 'health']);

/**
 * The route of a request's path as sent (no dot-segment normalisation: a signature covers the path
 * as sent, and `a/../b` is that object's name). A trailing `/` is dropped on the JSON API's paths;
 * on the XML API's it is part of the object's name (`/<bucket>/dir/` is object `dir/`), but
 * `/<bucket>/` is the bucket.
 */
function route(pathname: string): Route {
  const raw = pathname.split('/').slice(1);
  let area: Area = 'json';
  if ((raw[0] === 'upload' || raw[0] === 'download') && raw[1] === 'storage' && raw[2] === 'v1') {
    area = raw[0];
    raw.splice(0, 3);
  } else if (raw[0] === 'storage' && raw[1] === 'v1') raw.splice(0, 2);
  else if (raw.length >= 1 && raw[0] !== '' && !JSON_ROOTS.has(raw[0] as string)) area = 'xml';
  if (raw.at(-1) === '' && (area !== 'xml' || raw.length === 2)) raw.pop();
  return { area, segs: raw };
}

const notSupported = (what: string): StorageError =>
  new StorageError('notImplemented', `${what} is not supported by the local Cloud Storage emulator.`);

/**
 * Splits `o/<name...>[/compose | /restore | /copyTo|rewriteTo/b/<bucket>/o/<name...>]`; `compose`
 * and `restore` are actions only on a POST (a GET of `a/restore` reads that object).
 */
function objectPath(
  rest: string[],
  method: string,
): {
  name: string;
  action?: string;
  dest?: { bucket: string; name: string };
  /** moveTo's new name. */
  to?: string;
  /** An object ACL's entity. */
  entity?: string;
} {
  const copyAt = rest.findIndex(
    (s, i) => (s === 'copyTo' || s === 'rewriteTo') && rest[i + 1] === 'b' && rest[i + 3] === 'o',
  );
  if (copyAt > 0)
    return {
      name: rest.slice(0, copyAt).join('/'),
      action: rest[copyAt] as string,
      dest: { bucket: rest[copyAt + 2] as string, name: rest.slice(copyAt + 4).join('/') },
    };
  const moveAt = rest.findIndex((s, i) => s === 'moveTo' && rest[i + 1] === 'o' && i > 0);
  if (moveAt > 0)
    return { name: rest.slice(0, moveAt).join('/'), action: 'moveTo', to: rest.slice(moveAt + 2).join('/') };
  const tail = rest.at(-1);
  const posted = method === 'POST' && (tail === 'compose' || tail === 'restore');
  if (rest.length > 1 && (posted || tail === 'acl' || tail === 'iam'))
    return { name: rest.slice(0, -1).join('/'), action: tail };
  // An object ACL's entry: `o/<name>/acl/<entity>` (the client sends the name as one segment).
  if (rest.length > 2 && rest.at(-2) === 'acl')
    return { name: rest.slice(0, -2).join('/'), action: 'acl', entity: tail as string };
  return { name: rest.join('/') };
}

const BUCKET_ACLS: Readonly<Record<string, AclKind>> = { acl: 'bucket', defaultObjectAcl: 'default' };

/**
 * The XML API's paths, path style, as signed URLs (signed.ts) and POST policies (post-policy.ts)
 * use them and `file.isPublic()` reads: `GET /<bucket>` lists (`<ListBucketResult>`), `POST
 * /<bucket>` is a POST policy's form; `GET` (and `HEAD`), `PUT` and `DELETE /<bucket>/<object>`
 * read, write and delete the object, each with the permission its JSON API method needs. Errors are XML (xml.ts).
 */
function xmlCall(
  c: Catalog,
  ctx: Ctx,
  method: string,
  segs: string[],
  post: () => Promise<void>,
): Promise<void> | void {
  const [bucket, ...rest] = segs as [string, ...string[]];
  if (rest.length === 0) {
    if (method === 'GET') {
      mayList(ctx, bucket);
      return listBucketXml(c, ctx, bucket);
    }
    if (method === 'POST') return post();
    throw notSupported(`The XML API's ${method} of a bucket`);
  }
  const name = rest.join('/');
  // HEAD: GET's answer without its body (Node's server sends no body to a HEAD).
  if (method === 'GET' || method === 'HEAD') {
    mayObject(ctx, 'storage.objects.get', bucket, name);
    return getObject(c, ctx, bucket, name, true);
  }
  if (method === 'PUT') return xmlPut(c, ctx, bucket, name);
  if (method === 'DELETE') {
    mayObject(ctx, 'storage.objects.delete', bucket, name);
    return deleteObject(c, ctx, bucket, name);
  }
  throw notSupported(`The XML API's ${method} of an object`);
}

/** `PUT /<bucket>/<object>`: the body is the object, its `Content-Type` and `x-goog-meta-*` its metadata. */
async function xmlPut(c: Catalog, ctx: Ctx, bucket: string, name: string): Promise<void> {
  const o = await storeMedia(c, ctx, bucket, name, xmlResource(Object.entries(ctx.req.headers)), ctx.req);
  ctx.res.writeHead(200, {
    etag: `"${String(renderObject(o, ctx.base).etag)}"`,
    'x-goog-generation': String(o.generation),
    'x-goog-metageneration': String(o.metageneration),
    'x-goog-hash': `crc32c=${o.crc32c}${o.md5 ? `,md5=${o.md5}` : ''}`,
    'content-length': 0,
  });
  ctx.res.end();
}

async function dispatch(
  c: Catalog,
  uploads: ResumableUploads,
  ctx: Ctx,
  r: Route,
  post: () => Promise<void>,
  publisher: NotificationPublisher | undefined,
): Promise<void> {
  const method = ctx.req.method ?? 'GET';
  const { segs } = r;
  if ((segs.length === 0 || (segs.length === 1 && segs[0] === 'health')) && method === 'GET')
    return sendJson(ctx.res, 200, { status: 'ok' });
  if (segs[0] === 'channels' && segs[1] === 'stop' && segs.length === 2 && method === 'POST') {
    // Channels are opened by objects.watchAll, which is not served: no channel exists to stop.
    const body = await readJson(ctx.req);
    throw new StorageError('notFound', `Channel '${String(body.id ?? '')}' not found`);
  }
  if (r.area === 'xml') return xmlCall(c, ctx, method, segs, post);
  if (segs[0] !== 'b') throw new StorageError('notFound', `Not found: ${method} /${segs.join('/')}`);
  // Each branch checks the caller's permission first (README, "Access control"); uploads and
  // compose check in their handlers, once the names in the body are read.
  if (segs.length === 1) {
    if (method === 'GET') {
      mayProject(ctx, 'storage.buckets.list');
      return listBuckets(c, ctx);
    }
    if (method === 'POST') {
      mayProject(ctx, 'storage.buckets.create');
      return insertBucket(c, ctx);
    }
  }
  const bucket = segs[1] as string;
  if (segs.length === 2 && r.area === 'json') {
    if (method === 'GET') {
      mayBucket(ctx, 'storage.buckets.get', bucket);
      return getBucket(c, ctx, bucket);
    }
    if (method === 'PATCH' || method === 'PUT') {
      mayBucket(ctx, 'storage.buckets.update', bucket);
      return patchBucket(c, ctx, bucket, method === 'PUT');
    }
    if (method === 'DELETE') {
      mayBucket(ctx, 'storage.buckets.delete', bucket);
      return deleteBucket(c, ctx, bucket);
    }
  }
  if (segs[2] !== 'o') {
    const kind = BUCKET_ACLS[segs[2] as string];
    if (kind && segs.length <= 4 && r.area === 'json')
      return aclCall(c, ctx, kind, method, { bucket, ...(segs[3] !== undefined ? { entity: segs[3] } : {}) });
    if (segs[2] === 'iam' && segs[3] === 'testPermissions' && segs.length === 4 && method === 'GET')
      return testBucketPermissions(c, ctx, bucket);
    if (segs[2] === 'iam' && segs.length === 3 && method === 'GET') {
      mayBucket(ctx, 'storage.buckets.getIamPolicy', bucket);
      return getBucketPolicy(c, ctx, bucket);
    }
    if (segs[2] === 'iam' && segs.length === 3 && method === 'PUT') {
      mayBucket(ctx, 'storage.buckets.setIamPolicy', bucket);
      return setBucketPolicy(c, ctx, bucket);
    }
    if (segs[2] === 'restore' && segs.length === 3 && method === 'POST') {
      mayBucket(ctx, 'storage.buckets.restore', bucket);
      return restoreBucket(c, ctx, bucket);
    }
    if (segs[2] === 'lockRetentionPolicy' && segs.length === 3 && method === 'POST') {
      mayBucket(ctx, 'storage.buckets.update', bucket);
      return lockRetention(c, ctx, bucket);
    }
    if (segs[2] === 'notificationConfigs' && segs.length <= 4 && r.area === 'json') {
      const served = notificationCall(c, ctx, method, bucket, segs[3], publisher);
      if (served) return served;
    }
    if (segs.length >= 3) throw notSupported(`/b/{bucket}/${segs[2]}`);
    throw new StorageError('notFound', `Not found: ${method} ${ctx.req.url}`);
  }
  if (segs.length === 3) {
    if (r.area === 'upload') return upload(c, uploads, ctx, bucket, method);
    if (method === 'GET' && r.area === 'json') {
      mayList(ctx, bucket);
      return listObjects(c, ctx, bucket);
    }
    if (method === 'POST')
      throw new StorageError('invalid', 'Objects are created at /upload/storage/v1/b/{bucket}/o.');
  }
  const o = objectPath(segs.slice(3), method);
  const may = (permission: string): void => mayObject(ctx, permission, bucket, o.name);
  if (r.area === 'download') {
    if (method === 'GET') {
      may('storage.objects.get');
      return getObject(c, ctx, bucket, o.name, true);
    }
  } else if (o.action === 'compose' && method === 'POST') return composeObject(c, ctx, bucket, o.name);
  else if (o.action === 'restore' && method === 'POST') {
    may('storage.objects.restore');
    mayWrite(c, ctx, bucket, o.name);
    return restoreObject(c, ctx, bucket, o.name);
  } else if (o.to !== undefined && method === 'POST') {
    may('storage.objects.move');
    mayWrite(c, ctx, bucket, o.to);
    return moveObject(c, ctx, bucket, o.name, o.to);
  } else if (o.dest && method === 'POST') {
    may('storage.objects.get');
    mayWrite(c, ctx, o.dest.bucket, o.dest.name);
    return copyObject(c, ctx, { bucket, name: o.name }, o.dest, o.action === 'rewriteTo');
  } else if (o.action === 'acl')
    return aclCall(c, ctx, 'object', method, {
      bucket,
      object: o.name,
      ...(o.entity !== undefined ? { entity: o.entity } : {}),
    });
  else if (o.action === 'iam') throw notSupported(`Object ${o.action}`);
  else if (method === 'GET') {
    may('storage.objects.get');
    return getObject(c, ctx, bucket, o.name, false);
  } else if (method === 'PATCH' || method === 'PUT') {
    may('storage.objects.update');
    return patchObject(c, ctx, bucket, o.name, method === 'PUT');
  } else if (method === 'DELETE') {
    may('storage.objects.delete');
    return deleteObject(c, ctx, bucket, o.name);
  }
  throw new StorageError('notFound', `Not found: ${method} ${ctx.req.url}`);
}

function upload(
  c: Catalog,
  uploads: ResumableUploads,
  ctx: Ctx,
  bucket: string,
  method: string,
): Promise<void> {
  const id = ctx.query.get('upload_id');
  if (id !== null) {
    if (method === 'PUT' || method === 'POST') return uploads.put(ctx, id);
    if (method === 'DELETE') return uploads.cancel(id);
  }
  if (method !== 'POST') throw new StorageError('notFound', `Not found: ${method} ${ctx.req.url}`);
  const type = ctx.query.get('uploadType') ?? 'media';
  if (type === 'resumable') return uploads.start(ctx, bucket);
  if (type === 'multipart') return multipartUpload(c, ctx, bucket);
  if (type === 'media') return mediaUpload(c, ctx, bucket);
  throw new StorageError('invalid', `Invalid uploadType: ${type}`);
}

/** Starts the emulator on `host:port` (port 0 = ephemeral) with its state under `dataDir`. */
export async function startStorageEmulator(opts: StorageEmulatorOptions): Promise<StorageEmulator> {
  let publisher: NotificationPublisher | undefined;
  let selfUrl = '';
  const served = await serveEmulator(opts, {
    open: (dataDir, fsync) => Catalog.open(dataDir, fsync),
    closeState: (catalog) => catalog.close(),
    jwtService: STORAGE_JWT_SERVICE,
    handler: (catalog, { host, enforcement, identities }) => {
      const acls = {
        allows: (principal: string, permission: string, bucket: string, object?: string): boolean => {
          const b = catalog.buckets.get(bucket)?.state;
          if (!b) return false;
          const o = object === undefined ? undefined : catalog.find(bucket, object);
          return aclAllows(b, o ? (o.acl ?? []) : undefined, principal, permission);
        },
        publicPrevented: (bucket: string): boolean => {
          const b = catalog.buckets.get(bucket)?.state;
          return b !== undefined && publicAccessPrevented(b);
        },
      };
      const uploads = new ResumableUploads(catalog);
      const servedHosts = hostnamesOf(host);
      // Signatures are verified with the keys the access file publishes; without IAM, not at all.
      const keysOf: KeysOf = enforcement ? (email) => enforcement.keysOf(email) : undefined;
      if (opts.pubsubEndpoint) {
        // As Cloud Storage's service agent: with IAM on, a token minted for it (Pub/Sub decides).
        publisher = new NotificationPublisher({
          endpoint: opts.pubsubEndpoint,
          token: () => enforcement?.mint(STORAGE_SERVICE_AGENT, 3600),
        });
        catalog.onObjectEvents = notifier(catalog, publisher, () => selfUrl);
      }
      return (req, res) => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const ctx: Ctx = {
          req,
          res,
          query: url.searchParams,
          base: `http://${req.headers.host ?? `${host}`}`,
        };
        req.on('error', () => undefined);
        let xml = false;
        // A signed URL's or POST policy's request acts as the service account that signed it.
        const actAs = (member: string): void => {
          if (ctx.access) ctx.access = { ...ctx.access, caller: { principal: member } };
        };
        const fields = url.searchParams.get('fields');
        if (fields) requestedFields.set(res, fields);
        Promise.resolve()
          .then(async () => {
            if (url.pathname === STS_PATH && req.method === 'POST') {
              // The token exchange of a local credentials file (common/local-sts.ts): no caller yet.
              const form = new URLSearchParams((await readBody(req, 64 * 1024)).toString('utf8'));
              const [status, out] = exchangeToken(enforcement, form);
              return sendJson(res, status, out);
            }
            // Known first, so that every refusal on an XML path (a bad token, a bad path) is XML.
            const target = req.url ?? '/';
            const routed = route(target.startsWith('/') ? (target.split('?', 1)[0] as string) : url.pathname);
            xml = routed.area === 'xml';
            if (enforcement) {
              const access = accessOf(enforcement, req, identities());
              // Anonymous: no bearer token (an Authorization header of another form, or a bare
              // `Bearer`, carries no credentials either, and must never make the caller the owner)
              // and no member bound to the connection's port.
              const anonymous =
                opts.anonymous === 'allUsers' &&
                !BEARER.test(req.headers.authorization ?? '') &&
                identities()?.memberOfSocket(req.socket) === undefined;
              ctx.access = {
                ...access,
                ...(anonymous ? { caller: { principal: ANONYMOUS } } : {}),
                bucketPolicy: (bucket) => ownPolicy(catalog, bucket),
                acls,
              };
            }
            const r: Route = { area: routed.area, segs: routed.segs.map(decode) };
            if (xml) {
              checkXmlHost(req, servedHosts);
              let covers = (_header: string): boolean => true;
              const [rawPath = '/', rawQuery = ''] = target.split('?', 2);
              if (isSignedQuery(url.searchParams)) {
                const signed = verifySignedUrl(req, rawPath, rawQuery, keysOf);
                actAs(signed.member);
                covers = signed.covers;
              }
              // A POST policy's form covers none of the request's headers (post-policy.ts).
              ctx.query = xmlQuery(rawQuery, req, req.method === 'POST' ? () => false : covers);
            }
            const post = () =>
              postPolicyUpload(catalog, ctx, r.segs[0] as string, keysOf, actAs, opts.formBodyTimeoutMs);
            return dispatch(catalog, uploads, ctx, r, post, publisher);
          })
          .catch((err: unknown) => {
            // A body cut off by the client (the request destroyed under a handler): no one to answer.
            const refusal = err instanceof StorageError || err instanceof XmlError;
            if (!refusal && !req.complete && req.destroyed) return;
            if (xml) sendXmlError(res, err);
            else sendError(res, err);
            drainThenClose(req, res, opts.drainMs ?? DRAIN_MS);
          });
      };
    },
  });
  selfUrl = served.url;
  return {
    port: served.port,
    url: served.url,
    identityPorts: served.identityPorts,
    notifications: () => publisher?.counts,
    settled: () => publisher?.settled() ?? Promise.resolve(),
    close: async () => {
      await served.close();
      publisher?.close();
    },
  };
}
