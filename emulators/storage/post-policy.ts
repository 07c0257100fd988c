/**
 * POST policies (`POST /<bucket>`, an HTML form's `multipart/form-data`): an object uploaded by
 * whoever holds a policy document a service account signed (`generateSignedPostPolicyV4` and
 * `…V2`), as Cloud Storage documents the XML API's POST Object.
 *
 * - The form: `key` (`${filename}` becomes the file's name), the `policy` (base64 JSON), its
 *   signature (V4: `x-goog-algorithm` GOOG4-RSA-SHA256, `x-goog-credential`, `x-goog-date`,
 *   `x-goog-signature` in hex; V2: `GoogleAccessId`, `signature` in base64) over the base64 policy
 *   as sent, `Content-Type`, `x-goog-meta-*` (the object's metadata), `success_action_status`
 *   (200, 201 or 204, the default), and last the `file`. Field names are matched in any case.
 * - The policy: `expiration` (ISO 8601) not passed, and every condition met: `{"field": value}`
 *   and `["eq", "$field", value]` exactly, `["starts-with", "$field", prefix]`,
 *   `["content-length-range", min, max]` on the file's size, `bucket` against the URL's; every
 *   form field but `policy`, the signature (`signature`, `x-goog-signature`), `GoogleAccessId`,
 *   `bucket`, `file` and `x-ignore-*` must be named by a condition; `acl` (a canned ACL) sets the
 *   object's ACL.
 * - The upload acts as the signing service account (IAM decides, `storage.objects.create`); a
 *   refusal is the XML API's `<Error>`. The body is read whole and bounded in size
 *   (MAX_FORM_BYTES, 400 `EntityTooLarge`, chunked or not) and in idle time (FORM_BODY_TIMEOUT_MS,
 *   408 `RequestTimeout`); the server answers either and then closes the connection.
 */
import type http from 'node:http';
import type { Catalog } from './catalog.ts';
import { renderObject } from './resources.ts';
import { type KeysOf, verifyPolicySignature } from './signed.ts';
import { storeMedia, xmlResource } from './uploads.ts';
import type { Ctx } from './wire.ts';
import { cannedAcl, escapeXml, sendXml, XmlError } from './xml.ts';

/** The largest form accepted (the file with its fields): POST uploads are for browsers' small files. */
export const MAX_FORM_BYTES = 32 << 20;
const MAX_FIELDS = 100;
/** How long a form's body may go without a byte (the XML API answers a stalled one 408). */
export const FORM_BODY_TIMEOUT_MS = 120_000;

const tooLarge = (): XmlError =>
  new XmlError(
    400,
    'EntityTooLarge',
    `Your proposed upload exceeds the maximum allowed size (${MAX_FORM_BYTES} bytes).`,
  );

/**
 * The form's body, or an XmlError once it passes MAX_FORM_BYTES or nothing has come for
 * `timeoutMs` (an idle bound, as Google's message says: "not read from or written to within the
 * timeout period"; a large form still arriving is not cut for its length). The request is left
 * readable (not destroyed), so the refusal can still be answered.
 */
function readForm(req: http.IncomingMessage, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err?: XmlError): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (err) {
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        settle(tooLarge());
        return;
      }
      chunks.push(chunk);
      timer.refresh();
    };
    const onEnd = (): void => settle();
    const onClose = (): void =>
      settle(new XmlError(400, 'IncompleteBody', 'The request body ended before its declared end.'));
    const timer = setTimeout(
      () =>
        settle(
          new XmlError(
            408,
            'RequestTimeout',
            `Your socket connection to the server was not read from or written to within the timeout period (${timeoutMs} ms).`,
          ),
        ),
      timeoutMs,
    );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}
/** What a `key` field may hold for the file's own name. */
const FILENAME = ['$', '{filename}'].join('');

interface FormPart {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
  readonly body: Buffer;
}

const invalidPolicy = (message: string): XmlError =>
  new XmlError(400, 'InvalidPolicyDocument', `Invalid according to Policy: ${message}`);

/** Splits a `multipart/form-data` body into its parts. */
export function parseForm(contentType: string | undefined, body: Buffer): FormPart[] {
  const m = /^multipart\/form-data;.*\bboundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary)
    throw new XmlError(
      400,
      'InvalidArgument',
      'A POST to a bucket must be multipart/form-data with a boundary.',
    );
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0)
    throw new XmlError(
      400,
      'MalformedPOSTRequest',
      'The body of your POST request is not well-formed multipart/form-data.',
    );
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    const headEnd = body.indexOf('\r\n\r\n', at);
    const next = headEnd < 0 ? -1 : body.indexOf(Buffer.from(`\r\n--${boundary}`), headEnd + 4);
    if (next < 0 || parts.length >= MAX_FIELDS)
      throw new XmlError(
        400,
        'MalformedPOSTRequest',
        'The body of your POST request is not well-formed multipart/form-data.',
      );
    const head = body.subarray(at, headEnd).toString('utf8');
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(head)?.[1] ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined)
      throw new XmlError(400, 'MalformedPOSTRequest', 'A part of your POST request has no form-data name.');
    const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
    const contentType = /^content-type:\s*(.+)$/im.exec(head)?.[1]?.trim();
    parts.push({
      name,
      ...(filename !== undefined ? { filename } : {}),
      ...(contentType !== undefined ? { contentType } : {}),
      body: body.subarray(headEnd + 4, next),
    });
    at = next + 2;
  }
}

/** The fields the signature covers itself, and those no condition needs to name. */
const UNCONDITIONED = new Set(['policy', 'signature', 'x-goog-signature', 'file', 'googleaccessid']);

type Condition =
  | { kind: 'eq' | 'starts-with'; field: string; value: string }
  | { kind: 'range'; min: number; max: number };

function conditionsOf(policy: Record<string, unknown>): Condition[] {
  const list = policy.conditions;
  if (!Array.isArray(list)) throw invalidPolicy('conditions must be a list.');
  return list.map((c): Condition => {
    if (Array.isArray(c)) {
      const [op, a, b] = c as unknown[];
      const opName = String(op).toLowerCase();
      if (opName === 'content-length-range' && Number.isInteger(a) && Number.isInteger(b))
        return { kind: 'range', min: a as number, max: b as number };
      if (
        (opName === 'eq' || opName === 'starts-with') &&
        typeof a === 'string' &&
        a.startsWith('$') &&
        typeof b === 'string'
      )
        return { kind: opName, field: a.slice(1).toLowerCase(), value: b };
      throw invalidPolicy(`unknown condition ${JSON.stringify(c)}.`);
    }
    if (typeof c === 'object' && c !== null) {
      const entries = Object.entries(c);
      const [field, value] = entries[0] ?? [];
      if (entries.length === 1 && typeof field === 'string' && typeof value === 'string')
        return { kind: 'eq', field: field.toLowerCase(), value };
    }
    throw invalidPolicy(`unknown condition ${JSON.stringify(c)}.`);
  });
}

/** Answers a POST policy's upload to `bucket`; `actAs` makes the request the signer's. */
export async function postPolicyUpload(
  c: Catalog,
  ctx: Ctx,
  bucket: string,
  keysOf: KeysOf,
  actAs: (member: string) => void,
  bodyTimeoutMs = FORM_BODY_TIMEOUT_MS,
  now = Date.now(),
): Promise<void> {
  const length = Number(ctx.req.headers['content-length'] ?? 0);
  if (length > MAX_FORM_BYTES) throw tooLarge();
  const raw = await readForm(ctx.req, bodyTimeoutMs);
  const parts = parseForm(ctx.req.headers['content-type'], raw);
  const fileAt = parts.findIndex((p) => p.name.toLowerCase() === 'file');
  if (fileAt < 0) throw new XmlError(400, 'InvalidArgument', 'The POST request has no file field.');
  const file = parts[fileAt] as FormPart;
  const fields = new Map<string, string>();
  for (const p of parts.slice(0, fileAt)) fields.set(p.name.toLowerCase(), p.body.toString('utf8'));
  // A form's own bucket field must be the URL's (Cloud Storage's POST Object docs); a policy that
  // names no bucket is good for any bucket its signer may write to, as documented.
  const formBucket = fields.get('bucket');
  if (formBucket !== undefined && formBucket !== bucket)
    throw new XmlError(
      400,
      'InvalidArgument',
      `The form's bucket field (${formBucket}) is not the bucket posted to (${bucket}).`,
    );
  fields.set('bucket', bucket);
  const policyText = fields.get('policy');
  if (policyText === undefined)
    throw new XmlError(400, 'InvalidArgument', 'The POST request has no policy field.');

  const member = verifyPolicySignature(fields, policyText, keysOf);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(policyText, 'base64').toString('utf8'));
  } catch {
    throw invalidPolicy('the policy is not base64-encoded JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidPolicy('the policy must be a JSON object.');
  const policy = parsed as Record<string, unknown>;
  const expiration = typeof policy.expiration === 'string' ? Date.parse(policy.expiration) : Number.NaN;
  if (Number.isNaN(expiration)) throw invalidPolicy('expiration must be an ISO 8601 date and time.');
  if (now >= expiration) throw invalidPolicy('Policy expired.');

  // Literal substitution: replace() would expand $&, $` and $' in the file's name.
  const key = (fields.get('key') ?? '').split(FILENAME).join(file.filename ?? '');
  if (key === '') throw new XmlError(400, 'InvalidArgument', 'The POST request has no key field.');
  fields.set('key', key);
  const named = new Set<string>();
  for (const cond of conditionsOf(policy)) {
    if (cond.kind === 'range') {
      if (file.body.length < cond.min || file.body.length > cond.max)
        throw new XmlError(
          400,
          'EntityTooLarge',
          `Your proposed upload is ${file.body.length} bytes, outside the policy's content-length-range ${cond.min}-${cond.max}.`,
        );
      continue;
    }
    named.add(cond.field);
    const got = fields.get(cond.field) ?? '';
    const ok = cond.kind === 'eq' ? got === cond.value : got.startsWith(cond.value);
    if (!ok)
      throw invalidPolicy(`Policy did not reference these fields or they did not match: ${cond.field}`);
  }
  const missing = [...fields.keys()].filter(
    (f) => f !== 'bucket' && !named.has(f) && !UNCONDITIONED.has(f) && !f.startsWith('x-ignore-'),
  );
  if (missing.length > 0) throw invalidPolicy(`Policy did not reference these fields: ${missing.join(', ')}`);

  actAs(member);
  // The policy names the `acl` field (checked above) or the form has none.
  const acl = fields.get('acl');
  if (acl !== undefined) ctx.query.set('predefinedAcl', cannedAcl(acl.trim()));
  const resource = xmlResource(fields);
  if (resource.contentType === undefined && file.contentType !== undefined)
    resource.contentType = file.contentType;
  const o = await storeMedia(c, ctx, bucket, key, resource, [file.body]);
  const etag = String(renderObject(o, ctx.base).etag);
  const status = fields.get('success_action_status') ?? '204';
  if (status === '201')
    return sendXml(
      ctx.res,
      201,
      `<PostResponse><Bucket>${escapeXml(bucket)}</Bucket><Key>${escapeXml(o.name)}</Key><ETag>"${etag}"</ETag></PostResponse>`,
    );
  ctx.res.writeHead(status === '200' ? 200 : 204, {
    etag: `"${etag}"`,
    'x-goog-generation': String(o.generation),
  });
  ctx.res.end();
}
