/**
 * The XML API's answers, as far as the emulator serves it (signed URLs and POST policies,
 * docs/storage-emulator.md): errors as Cloud Storage's XML `<Error>` (`<Code>`, `<Message>`, and
 * for a signature that does not verify the `<StringToSign>` the service computed), and a bucket's
 * listing as `<ListBucketResult>`.
 */
import type http from 'node:http';
import { byteOrder, type Catalog } from './catalog.ts';
import { StorageError } from './errors.ts';
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
    404: /bucket/i.test(e.message) ? 'NoSuchBucket' : 'NoSuchKey',
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
  for (const name of c.sortedNames(entry)) {
    if (!name.startsWith(prefix) || (marker !== '' && byteOrder(name, marker) <= 0)) continue;
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
