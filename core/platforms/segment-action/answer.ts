/**
 * What the ledger keeps of a catalogue destination's answer (`platform_ref`,
 * `platform_events_received`, `platform_response`; docs/delivery.md "What the platform answered"),
 * for any of the 170 platforms without a table of its own: the request (method and URL without its
 * query), the status, the platform's request id from the headers or the body where it gives one,
 * the count of events it says it took, and an allow-list of the body's fields that carry codes,
 * messages and counts — never the rest, which may echo what was sent. platform-answer.ts bounds and
 * scrubs it (identifiers and the request's secrets) before it reaches the warehouse. Pure.
 */
import { type PlatformAnswer, scrubText } from '../platform-answer.ts';
import { parseJson } from '../responses.ts';

/** Answer headers that carry the platform's id for the request, most specific first. */
const REF_HEADERS = [
  'x-request-id',
  'request-id',
  'x-amzn-requestid',
  'x-amz-request-id',
  'x-correlation-id',
  'x-trace-id',
  'x-cloud-trace-context',
] as const;

/** Body fields that carry the platform's id for the request (HubSpot's `correlationId`, Iterable's none…). */
const REF_FIELDS = [
  'requestId',
  'request_id',
  'correlationId',
  'correlation_id',
  'traceId',
  'trace_id',
] as const;

/** Body fields that count the events the platform took (Amplitude's `events_ingested`, Mixpanel's `num_records_imported`). */
const COUNT_FIELDS = [
  'events_ingested',
  'num_records_imported',
  'eventsReceived',
  'events_received',
] as const;

/**
 * Body fields kept, at the top and inside `error`, `errors`, `details` and the like: codes,
 * statuses, messages, titles, counts. Matched by name whatever the platform nests them under.
 */
const KEPT = new Set(
  [
    'code',
    'status',
    'statusCode',
    'status_code',
    'error',
    'errors',
    'error_code',
    'errorCode',
    'error_type',
    'errorType',
    'error_description',
    'message',
    'msg',
    'title',
    'detail',
    'details',
    'reason',
    'type',
    'category',
    'subCode',
    'success',
    'ok',
    'failed',
    'failures',
    'warnings',
    'events_ingested',
    'num_records_imported',
    'payload_size_bytes',
    'server_upload_time',
    'pointer',
    'source',
  ].map((k) => k.toLowerCase()),
);

/** The body reduced to the kept fields, nested ones included (three levels). */
function kept(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 3) return undefined;
  if (Array.isArray(value)) {
    const items = value.slice(0, 5).map((v) => kept(v, depth + 1));
    return items.filter((v) => v !== undefined);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!KEPT.has(k.toLowerCase())) continue;
    const inner = kept(v, depth + 1);
    if (inner !== undefined) out[k] = inner;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The URL with each path segment scrubbed on its own (HubSpot addresses a contact by its e-mail:
 * `/contacts/ada@example.com` → `/contacts/[email]`), so the scrub of the whole text cannot read
 * the host and path as the e-mail's local part.
 */
function bySegment(url: string): string {
  const at = url.indexOf('/', url.indexOf('//') + 2);
  if (at < 0) return url;
  const path = url
    .slice(at)
    .split('/')
    .map((segment) => {
      if (!segment.includes('@') && !segment.includes('%40')) return segment;
      let text = segment;
      try {
        text = decodeURIComponent(segment);
      } catch {
        // Not percent-encoded as it should be: scrubbed as it is.
      }
      return scrubText(text);
    });
  return `${url.slice(0, at)}${path.join('/')}`;
}

/** One answer of a catalogue request as the ledger keeps it (before platform-answer.ts bounds and scrubs it). */
export function catalogAnswer(
  request: { readonly method: string; readonly url: string },
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string,
): PlatformAnswer {
  const parsed = parseJson(body);
  const json =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  const fromHeader = REF_HEADERS.map((h) => headers[h]).find((v) => v !== undefined && v !== '');
  const fromBody = json
    ? REF_FIELDS.map((f) => json[f]).find((v) => typeof v === 'string' && v !== '')
    : undefined;
  const count = json ? COUNT_FIELDS.map((f) => json[f]).find((v) => typeof v === 'number') : undefined;
  const excerpt = json ? kept(json, 0) : undefined;
  const ref = fromHeader ?? (fromBody as string | undefined);
  return {
    ...(ref !== undefined ? { ref } : {}),
    ...(typeof count === 'number' ? { eventsReceived: count } : {}),
    excerpt: {
      status,
      request: `${request.method} ${bySegment(request.url)}`,
      ...(excerpt !== undefined ? { body: excerpt } : {}),
    },
  };
}
