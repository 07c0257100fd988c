/**
 * Reading a producer's request body: content type and encoding checks, the body read with a
 * hard cap and a timeout, gzip or deflate inflated under the same cap, then UTF-8, nesting depth (on the
 * raw bytes, before JSON.parse builds anything) and JSON, each failure with its own code.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { gunzip, inflate, inflateRaw } from 'node:zlib';
import { exceedsDepth, type Limits } from '../core/json-limits.ts';
import { andThen, type MaybePromise } from '../core/maybe-async.ts';
import { fail, type Step } from '../core/step.ts';
import { truncate } from './step.ts';

/** A request body as received (inflated), with its media type and declared charset. */
export interface RawBody {
  readonly bytes: Buffer;
  /** The bytes as they arrived, before any inflating: what a sender's signature covers. */
  readonly received: Buffer;
  readonly media: string;
  readonly charset: string | undefined;
}

const JSON_MEDIA = ['application/json', 'text/plain'] as const;
const JSON_CHARSETS = ['utf-8', 'utf8'] as const;

/**
 * Content type and encoding checks, then the body read with its caps, inflated and parsed. A
 * plain body that has already arrived (nearly every publish) is answered at once.
 */
export function readRequest(
  req: IncomingMessage,
  limits: Limits,
  timeoutMs: number,
): MaybePromise<Step<unknown>> {
  return andThen(receiveBody(req, limits, timeoutMs, JSON_MEDIA, JSON_CHARSETS), (received) => {
    if (!received.ok) return received;
    // A plain body is decoded as it arrived, without another promise.
    if (received.value.encoding === 'identity') return decodeJson(received.value.received, limits.maxDepth);
    return inflateBody(received.value, limits).then((raw) =>
      raw.ok ? decodeJson(raw.value.bytes, limits.maxDepth) : raw,
    );
  });
}

/**
 * Whether a media type (lower case, without parameters) is one of `media`. An entry `+json`
 * stands for every structured-syntax type with that suffix (`application/merge-patch+json`,
 * RFC 6839), which the studio's admin API takes as JSON.
 */
export function mediaAccepted(given: string, media: readonly string[]): boolean {
  return media.some((m) =>
    m.startsWith('+') ? /^[a-z0-9.-]+\/[a-z0-9.+-]+$/.test(given) && given.endsWith(m) : m === given,
  );
}

/**
 * Content type and encoding checks (one of `media`, a charset among `charsets` when one is
 * declared), then the body read with a hard cap and a timeout, and gzip or deflate inflated
 * under the same cap.
 */
export async function readRawBody(
  req: IncomingMessage,
  limits: Pick<Limits, 'maxRequestBytes'>,
  timeoutMs: number,
  media: readonly string[],
  charsets: readonly string[],
): Promise<Step<RawBody>> {
  const received = await receiveBody(req, limits, timeoutMs, media, charsets);
  return received.ok ? inflateBody(received.value, limits) : received;
}

/** The accepted media types as a refusal names them (a `+json` suffix as any type with it). */
const acceptedText = (media: readonly string[]) =>
  media.map((m) => (m.startsWith('+') ? `*/*${m}` : m)).join(' or ');

/** A body as it arrived, not inflated yet: what a signature is checked on before anything else. */
export interface ReceivedBody {
  readonly received: Buffer;
  readonly encoding: 'identity' | 'gzip' | 'deflate';
  readonly media: string;
  readonly charset: string | undefined;
}

/** The checks of readRawBody and the capped read, without inflating. */
export function receiveBody(
  req: IncomingMessage,
  limits: Pick<Limits, 'maxRequestBytes'>,
  timeoutMs: number,
  media: readonly string[],
  charsets: readonly string[],
): MaybePromise<Step<ReceivedBody>> {
  const header = req.headers['content-type'] ?? '';
  let given: string;
  let charset: string | undefined;
  // The common case, exactly an accepted media type without parameters, needs no parsing.
  if (header[0] !== '+' && media.includes(header)) given = header;
  else {
    const type = header.toLowerCase();
    const [first = '', ...params] = type.split(';').map((s) => s.trim());
    given = first;
    charset = params
      .find((p) => p.startsWith('charset='))
      ?.slice(8)
      .replace(/"/g, '');
    if (!mediaAccepted(given, media) || (charset && !charsets.includes(charset))) {
      return fail('UNSUPPORTED_MEDIA_TYPE', {
        type: type === '' ? '(none)' : truncate(type),
        accepted: acceptedText(media),
      });
    }
  }
  const encodingHeader = req.headers['content-encoding'];
  const encoding = encodingHeader === undefined ? 'identity' : encodingHeader.toLowerCase().trim();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'deflate') {
    return fail('UNSUPPORTED_MEDIA_TYPE', {
      type: `${given} with Content-Encoding ${truncate(encoding)}`,
      accepted: `${acceptedText(media)}, plain, gzip or deflate`,
    });
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limits.maxRequestBytes) return fail('REQUEST_TOO_LARGE', { max: limits.maxRequestBytes });

  return andThen(
    readCapped(req, limits.maxRequestBytes, timeoutMs),
    (raw): Step<ReceivedBody> =>
      raw.ok ? { ok: true, value: { received: raw.value, encoding, media: given, charset } } : raw,
  );
}

/** Inflates a received body under the request cap: a small bomb stops at the cap with 413. */
export async function inflateBody(
  body: ReceivedBody,
  limits: Pick<Limits, 'maxRequestBytes'>,
): Promise<Step<RawBody>> {
  const { received, encoding, media, charset } = body;
  if (encoding === 'identity') return { ok: true, value: { bytes: received, received, media, charset } };
  const options = { maxOutputLength: limits.maxRequestBytes };
  const inflateWith = (fn: typeof gunzip) =>
    new Promise<Buffer>((resolve, reject) =>
      fn(received, options, (err, out) => (err ? reject(err) : resolve(out))),
    );
  try {
    // `deflate` is zlib-wrapped by the standard; some senders send the raw stream (0x78 starts zlib's).
    const bytes = await inflateWith(
      encoding === 'gzip' ? gunzip : received[0] === 0x78 ? inflate : inflateRaw,
    );
    return { ok: true, value: { bytes, received, media, charset } };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      return fail('REQUEST_TOO_LARGE', { max: limits.maxRequestBytes });
    }
    return fail('BAD_ENCODING');
  }
}

/** An empty body, shared (read only). */
const EMPTY = Buffer.alloc(0);

function readCapped(
  req: IncomingMessage,
  max: number,
  timeoutMs: number,
  /** Whether to look once more after the parser's current chunk (see below). */
  again = true,
): MaybePromise<Step<Buffer>> {
  // A small body usually arrives with its headers: once the parser has all of it (and nothing
  // has read from the stream yet), it is taken from the stream's buffer at once, with no
  // listeners, timer or promise. The stream then ends by itself, which keeps the connection.
  if (req.readableFlowing === null && !req.readableEnded) {
    if (req.complete) {
      if (req.readableLength > max) return fail('REQUEST_TOO_LARGE', { max });
      const all = req.readableLength === 0 ? null : (req.read() as Buffer | null);
      return { ok: true, value: all ?? EMPTY };
    }
    // The parser hands the body over before it marks the message complete, and a microtask can
    // run in between: a body of exactly its declared length (never more than the cap, checked
    // before) is all there is, so it is taken now, without listeners, timer or promise.
    if (req.readableLength > 0 && req.readableLength <= max && req.readableLength === declaredLength(req)) {
      return { ok: true, value: req.read() as Buffer };
    }
    // A request handled synchronously from its headers is read before the parser has gone on
    // to the body in the same chunk; one microtask later it has.
    if (again)
      return new Promise((resolve) => queueMicrotask(() => resolve(readCapped(req, max, timeoutMs, false))));
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: Step<Buffer>) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      req.off('data', onData);
      if (!r.ok) req.pause();
      resolve(r);
    };
    // When the parser already has all of it, there is nothing to wait for and no timer to arm.
    const timer = req.complete ? undefined : setTimeout(() => finish(fail('REQUEST_TIMEOUT')), timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) finish(fail('REQUEST_TOO_LARGE', { max }));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      finish({ ok: true, value: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) }),
    );
    req.once('error', () => finish(fail('REQUEST_TIMEOUT')));
    req.once('aborted', () => finish(fail('REQUEST_TIMEOUT')));
  });
}

/**
 * The body's length as its Content-Length declares it; undefined when the body is chunked (a
 * request with Transfer-Encoding ignores Content-Length, RFC 9112 §6.3) or the header is absent.
 */
function declaredLength(req: IncomingMessage): number | undefined {
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const text = req.headers['content-length'];
  return text === undefined ? undefined : Number(text);
}

/** UTF-8 check, nesting depth on the raw bytes, then JSON.parse; each failure has its own code. */
export function decodeJson(bytes: Buffer, maxDepth: number): Step<unknown> {
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3; // a UTF-8 BOM
  const body = start ? bytes.subarray(start) : bytes;
  if (!isUtf8(body)) return fail('INVALID_UTF8');
  const text = body.toString('utf8');
  if (exceedsDepth(body, maxDepth)) return fail('TOO_DEEP', { max: maxDepth });
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    // Only a body that did not parse can be empty (or all white space): no copy of every body.
    if (text.trim() === '') return fail('EMPTY_BODY');
    return fail('MALFORMED_JSON', { detail: truncate((err as Error).message, 200) });
  }
}
