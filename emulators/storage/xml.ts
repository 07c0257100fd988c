/**
 * The XML API's answers, as far as the emulator serves it (signed URLs and POST policies,
 * docs/storage-emulator.md): errors as Cloud Storage's XML `<Error>` (`<Code>`, `<Message>`, and
 * for a signature that does not verify the `<StringToSign>` the service computed), and a bucket's
 * listing as `<ListBucketResult>`.
 */
import type http from 'node:http';
import { byteOrder, type Catalog } from './catalog.ts';
import { NO_SUCH_BUCKET, StorageError } from './errors.ts';
import { lowerBound } from './objects.ts';
import type { ObjectState } from './records.ts';
import { renderObject } from './resources.ts';
import { type Ctx, intParam } from './wire.ts';

export const escapeXml = (text: string): string =>
  text.replace(/[<>&'"]/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', "'": 'apos', '"': 'quot' }[c]};`);

/** An XML API error: the HTTP status, Cloud Storage's code, and what it adds for the caller. */
export class XmlError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Readonly<Record<string, string>>;
  constructor(status: number, code: string, message: string, extra: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
}

/** The XML code of a JSON API error raised by a handler the XML paths share. */
function fromStorageError(e: StorageError): XmlError {
  const byStatus: Record<number, string> = {
    400: 'InvalidArgument',
    401: 'AccessDenied',
    403: 'AccessDenied',
    404: e.message === NO_SUCH_BUCKET ? 'NoSuchBucket' : 'NoSuchKey',
    409: 'Conflict',
    412: 'PreconditionFailed',
    416: 'InvalidRange',
    501: 'NotImplemented',
  };
  // The XML API refuses an anonymous caller with 403, where the JSON API answers 401.
  const status = e.code === 401 ? 403 : e.code;
  return new XmlError(status, byStatus[e.code] ?? 'InternalError', e.message);
}

export function sendXml(res: http.ServerResponse, status: number, body: string): void {
  const text = `<?xml version='1.0' encoding='UTF-8'?>${body}`;
  res.writeHead(status, {
    'content-type': 'application/xml; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Answers any error of an XML API path as Cloud Storage's XML `<Error>`. */
export function sendXmlError(res: http.ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof StorageError && err.code === 304) {
    res.writeHead(304);
    res.end();
    return;
  }
  const e =
    err instanceof XmlError
      ? err
      : err instanceof StorageError
        ? fromStorageError(err)
        : new XmlError(
            500,
            'InternalError',
            `Backend error: ${err instanceof Error ? err.message : String(err)}`,
          );
  const extra = Object.entries(e.extra)
    .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
    .join('');
  sendXml(
    res,
    e.status,
    `<Error><Code>${e.code}</Code><Message>${escapeXml(e.message)}</Message>${extra}</Error>`,
  );
}

const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/**
 * The names the emulator answers the XML API as, lower case, without brackets: the address it
 * listens on, and the loopback names when that address is a loopback or wildcard one.
 */
export function hostnamesOf(listenHost: string): ReadonlySet<string> {
  const own = listenHost.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const local = LOOPBACK.includes(own) || own.startsWith('127.') || own === '0.0.0.0' || own === '::';
  return new Set([own, ...(local ? LOOPBACK : [])]);
}

/**
 * Refuses an XML API request whose `Host` is not the emulator's own: a virtual-hosted
 * (`<bucket>.storage.googleapis.com`) or CNAME form would name the bucket in the host, which the
 * emulator, path style only, would read as the path's first segment. The port is optional (Google's
 * clients sign the hostname alone); when given it must be the port the request came in on.
 */
export function checkXmlHost(req: http.IncomingMessage, served: ReadonlySet<string>): void {
  const host = (req.headers.host ?? '').trim().toLowerCase();
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  const name = m?.[1]?.replace(/^\[(.*)\]$/, '$1');
  const port = m?.[2];
  if (name !== undefined && served.has(name) && (port === undefined || Number(port) === req.socket.localPort))
    return;
  throw new XmlError(
    400,
    'InvalidURI',
    `The local Cloud Storage emulator serves the XML API path style on its own host (${[...served].join(', ')}) only; Host '${host}' (a virtual-hosted or CNAME form, or another host) is not served.`,
  );
}

/** The XML API's query parameters a handler reads (a listing's); the JSON API's are not taken. */
const XML_PARAMS = ['prefix', 'delimiter', 'marker', 'max-keys'];

/** The XML API's headers that stand for a JSON API parameter of the shared handlers. */
const XML_HEADERS: Readonly<Record<string, string>> = {
  'x-goog-acl': 'predefinedAcl',
  'x-goog-if-generation-match': 'ifGenerationMatch',
  'x-goog-if-metageneration-match': 'ifMetagenerationMatch',
};

/**
 * The XML API's canned ACLs (`x-goog-acl`, a POST form's `acl`) → the JSON API's predefined ACL
 * names. `public-read-write` is a bucket's only: refused on an object (acl.ts: predefinedObjectAcl).
 */
const CANNED_ACLS: Readonly<Record<string, string>> = {
  private: 'private',
  'project-private': 'projectPrivate',
  'public-read': 'publicRead',
  'public-read-write': 'publicReadWrite',
  'authenticated-read': 'authenticatedRead',
  'bucket-owner-read': 'bucketOwnerRead',
  'bucket-owner-full-control': 'bucketOwnerFullControl',
};

/** The JSON API's predefined ACL name of an XML canned ACL, or 400 InvalidArgument. */
export function cannedAcl(name: string): string {
  const predefined = CANNED_ACLS[name];
  if (predefined === undefined) throw new XmlError(400, 'InvalidArgument', `Invalid canned ACL: ${name}`);
  return predefined;
}

/**
 * A raw query's parameters, decoded as a signature check reads them: `+` is a plus (signers encode
 * a space as `%20`). `bad` is the error for a parameter that is not valid percent-encoding.
 */
export function rawQueryParams(rawQuery: string, bad: (name: string) => XmlError): [string, string][] {
  const out: [string, string][] = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const i = part.indexOf('=');
    const [k, v] = i < 0 ? [part, ''] : [part.slice(0, i), part.slice(i + 1)];
    try {
      out.push([decodeURIComponent(k), decodeURIComponent(v)]);
    } catch {
      throw bad(k);
    }
  }
  return out;
}

/**
 * The parameters an XML API request gives the handlers it shares with the JSON API: the listing's
 * query parameters (read from the raw query as the signature check reads them), and the XML headers that stand for JSON API parameters (`x-goog-acl`,
 * `x-goog-if-generation-match`, `x-goog-if-metageneration-match`), each only if `covered` (a signed
 * URL's signature covers it; an unsigned request's headers are its caller's own). JSON API query
 * parameters (`predefinedAcl`, `ifGenerationMatch`, …) on an XML path are not read: a V2 signature
 * does not cover the query at all.
 */
export function xmlQuery(
  rawQuery: string,
  req: http.IncomingMessage,
  covered: (header: string) => boolean,
): URLSearchParams {
  const out = new URLSearchParams();
  const bad = (name: string): XmlError =>
    new XmlError(400, 'InvalidArgument', `The query parameter ${name} is not valid percent-encoding.`);
  for (const [name, value] of rawQueryParams(rawQuery, bad))
    if (XML_PARAMS.includes(name) && !out.has(name)) out.set(name, value);
  for (const [header, param] of Object.entries(XML_HEADERS)) {
    const v = req.headers[header];
    if (typeof v !== 'string' || !covered(header)) continue;
    out.set(param, header === 'x-goog-acl' ? cannedAcl(v.trim()) : v.trim());
  }
  return out;
}

const MAX_KEYS = 1000;

/**
 * `GET /<bucket>`: the bucket's live objects as `<ListBucketResult>`, with `prefix`, `delimiter`,
 * `marker` (start after) and `max-keys` (at most 1000; `IsTruncated` and `NextMarker` past it).
 */
export function listBucketXml(c: Catalog, ctx: Ctx, bucket: string): void {
  const entry = c.bucket(bucket);
  const q = ctx.query;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const marker = q.get('marker') ?? '';
  const max = Math.min(intParam(q, 'max-keys') ?? MAX_KEYS, MAX_KEYS);
  const contents: ObjectState[] = [];
  const prefixes: string[] = [];
  let truncated = false;
  let last = '';
  // From the first name at or after both the prefix and the marker (the JSON listing's search):
  // the names under a prefix are one run of the sorted list.
  const names = c.sortedNames(entry);
  for (let i = lowerBound(names, byteOrder(marker, prefix) > 0 ? marker : prefix); i < names.length; i++) {
    const name = names[i] as string;
    if (!name.startsWith(prefix)) break;
    if (marker !== '' && name === marker) continue;
    const cut = delimiter === '' ? -1 : name.indexOf(delimiter, prefix.length);
    const common = cut >= 0 ? name.slice(0, cut + delimiter.length) : undefined;
    if (common !== undefined && prefixes.at(-1) === common) continue;
    const live = entry.objects.get(name)?.live;
    if (common === undefined && !live) continue;
    if (contents.length + prefixes.length >= max) {
      truncated = true;
      break;
    }
    if (common !== undefined) prefixes.push(common);
    else contents.push(live as ObjectState);
    last = name;
  }
  const items = contents
    .map((o) => {
      const etag = renderObject(o, ctx.base).etag;
      return (
        `<Contents><Key>${escapeXml(o.name)}</Key><Generation>${o.generation}</Generation>` +
        `<MetaGeneration>${o.metageneration}</MetaGeneration>` +
        `<LastModified>${new Date(o.updated).toISOString()}</LastModified>` +
        `<ETag>"${escapeXml(String(etag))}"</ETag><Size>${o.size}</Size></Contents>`
      );
    })
    .join('');
  const common = prefixes
    .map((p) => `<CommonPrefixes><Prefix>${escapeXml(p)}</Prefix></CommonPrefixes>`)
    .join('');
  sendXml(
    ctx.res,
    200,
    `<ListBucketResult xmlns='http://doc.s3.amazonaws.com/2006-03-01'><Name>${escapeXml(bucket)}</Name>` +
      `<Prefix>${escapeXml(prefix)}</Prefix><Marker>${escapeXml(marker)}</Marker>` +
      (truncated ? `<NextMarker>${escapeXml(last)}</NextMarker>` : '') +
      `<IsTruncated>${truncated}</IsTruncated>${items}${common}</ListBucketResult>`,
  );
}
