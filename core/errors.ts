/**
 * The one registry of the error codes producers can see, each with its HTTP status, Google
 * status string and message template, and the builder of Google's REST error envelope
 * (docs/google-wire.md §1). The README's error table is checked against this registry by a test.
 */
import type { FieldViolation } from './validation.ts';

export interface ErrorSpec {
  readonly http: number;
  /** google.rpc.Code name, as Google's REST APIs put it in `error.status`. */
  readonly status: string;
  /** Message template; `{name}` placeholders are filled from the params. */
  readonly message: string;
  /** One line for the docs' error table: when producers see it. */
  readonly when: string;
}

const spec = (http: number, status: string, message: string, when: string): ErrorSpec =>
  Object.freeze({ http, status, message, when });

/** Every error code the gateway (and the functions' HTTP answers) can return. */
export const ERRORS = Object.freeze({
  MALFORMED_JSON: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid JSON payload received. {detail}',
    'The body is not valid JSON (or is truncated, or has trailing bytes).',
  ),
  INVALID_UTF8: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid JSON payload received. The body is not valid UTF-8.',
    'The body has bytes that are not UTF-8.',
  ),
  BAD_ENCODING: spec(
    400,
    'INVALID_ARGUMENT',
    'The gzip body could not be decompressed.',
    'A body sent with `Content-Encoding: gzip` that is not valid gzip.',
  ),
  MALFORMED_REQUEST: spec(
    400,
    'INVALID_ARGUMENT',
    'Malformed HTTP request.',
    'The request line or headers are not valid HTTP/1.1 (answered before any routing).',
  ),
  EMPTY_BODY: spec(
    400,
    'INVALID_ARGUMENT',
    'The request has no body.',
    'The body is empty or only whitespace.',
  ),
  NOT_AN_EVENT: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid JSON payload received. Expected {expected}, got {got}.',
    'The body (or an envelope message) is not an object (or, on /v1/topics, an array of objects).',
  ),
  EMPTY_BATCH: spec(
    400,
    'INVALID_ARGUMENT',
    'The value for message_count is too small. You passed 0 in the request, but the minimum value is 1.',
    'An empty array, or an envelope without messages.',
  ),
  TOO_MANY_EVENTS: spec(
    400,
    'INVALID_ARGUMENT',
    'The value for message_count is too large. You passed {count} in the request, but the maximum value is {max}.',
    'More events (or envelope messages) than the per-request limit (1000).',
  ),
  TOO_DEEP: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid JSON payload received. Nesting is deeper than {max} levels.',
    'Objects and arrays nested deeper than the limit (32), checked before parsing.',
  ),
  INVALID_EVENT: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid event: {count} field(s) failed validation.',
    'Events that break the contract; `fieldViolations` names each field (`[2].content_name`).',
  ),
  INVALID_ROWS: spec(
    400,
    'INVALID_ARGUMENT',
    'Translator {translator}: {count} of {rows} row(s) are invalid; nothing was published. Fix them, or send ?partial=true to publish the valid rows.',
    'A translator payload with invalid rows; `fieldViolations` names each row and field (`rows[3].amount`).',
  ),
  UNREADABLE_PAYLOAD: spec(
    400,
    'INVALID_ARGUMENT',
    'Translator {translator} could not read the payload; nothing was published.',
    "A translator payload that is not in the translator's format (unparseable, no rows, too many rows).",
  ),
  INVALID_ENVELOPE: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid publish request: {detail}',
    'A Pub/Sub envelope with an unknown field, a message that is not an object, or bad attributes.',
  ),
  EMPTY_MESSAGE: spec(
    400,
    'INVALID_ARGUMENT',
    'One or more messages in the publish request is empty. Each message must contain either non-empty data, or at least one attribute.',
    'An envelope message with neither data nor attributes.',
  ),
  BAD_BASE64: spec(
    400,
    'INVALID_ARGUMENT',
    "Invalid value at '{field}' (TYPE_BYTES), Base64 decoding failed.",
    'An envelope message whose `data` is not standard base64.',
  ),
  UNAUTHENTICATED: spec(
    401,
    'UNAUTHENTICATED',
    'Request is missing required authentication credential. Expected a project token, a write key or a Google token.',
    'No credential at all.',
  ),
  INVALID_CREDENTIALS: spec(
    401,
    'UNAUTHENTICATED',
    'Request had invalid authentication credentials. {detail}',
    'An unknown, revoked, expired or malformed token or key, or more than one credential.',
  ),
  PERMISSION_DENIED: spec(
    403,
    'PERMISSION_DENIED',
    'The caller does not have permission: {detail}',
    "The credential's scope does not cover the topic or event.",
  ),
  ORIGIN_NOT_ALLOWED: spec(
    403,
    'PERMISSION_DENIED',
    'The origin {origin} is not allowed for this write key.',
    'A write key used from an origin it is not restricted to (or without an Origin).',
  ),
  NOT_FOUND: spec(
    404,
    'NOT_FOUND',
    'Resource not found (resource={resource}).',
    'An unknown path, project, or a topic that is neither a configured topic nor an event name.',
  ),
  METHOD_NOT_ALLOWED: spec(
    405,
    'UNIMPLEMENTED',
    'Method {method} is not allowed on {path}.',
    'A method the path does not serve (the `Allow` header lists the ones it does).',
  ),
  REQUEST_TIMEOUT: spec(
    408,
    'DEADLINE_EXCEEDED',
    'The request body was not received in time.',
    'The client sent its body too slowly.',
  ),
  EVENT_TOO_LARGE: spec(
    413,
    'INVALID_ARGUMENT',
    'Event {field} is {size} bytes; the limit is {max} bytes.',
    'One event larger than the per-event limit (1 MiB) once normalised.',
  ),
  REQUEST_TOO_LARGE: spec(
    413,
    'INVALID_ARGUMENT',
    'Request payload size exceeds the limit: {max} bytes.',
    'A body (after gzip inflation) over the per-request limit (10 MB).',
  ),
  UNSUPPORTED_MEDIA_TYPE: spec(
    415,
    'INVALID_ARGUMENT',
    'Content-Type {type} is not supported; send {accepted}.',
    'A missing or other content type, a charset the endpoint does not read, or an unknown Content-Encoding.',
  ),
  IDEMPOTENCY_KEY_REUSED: spec(
    422,
    'FAILED_PRECONDITION',
    'Idempotency-Key {key} was used with another body; nothing was published. Use a new key for a new payload.',
    'A translator request whose Idempotency-Key the gateway saw with a different body in the last 24 hours (per gateway instance).',
  ),
  INVALID_RESOURCE: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid resource documents; nothing was applied. {detail}',
    'Studio admin API: a resource document breaks its schema or its name rule (details name each field).',
  ),
  INVALID_REQUEST: spec(
    400,
    'INVALID_ARGUMENT',
    'Invalid request. {detail}',
    'Studio admin API: a field of the request is missing or wrong (details name it).',
  ),
  NOT_CONFIGURED: spec(
    400,
    'FAILED_PRECONDITION',
    'This studio is not set up for that: {detail}',
    'Studio admin API: the action needs what this studio was started without (a token store, the gateway URL, the warehouse).',
  ),
  REGISTRY_RACE: spec(
    409,
    'ABORTED',
    'Another apply changed the registry first; nothing of this one was applied. {detail}',
    "Studio admin API: a concurrent apply committed between this one's read and its commit; run it again.",
  ),
  RATE_LIMITED: spec(
    429,
    'RESOURCE_EXHAUSTED',
    'Quota exceeded for this credential; retry after {retryAfter} s.',
    'The credential sent more than its rate limit; `Retry-After` says when to retry.',
  ),
  INTERNAL: spec(
    500,
    'INTERNAL',
    'Internal error. It has been logged; retry later.',
    'A bug on our side (never a caller mistake; no stack trace is ever returned).',
  ),
  REGISTRY_UNAVAILABLE: spec(
    503,
    'UNAVAILABLE',
    'Event definitions could not be read; custom events are refused rather than accepted unvalidated. Retry after {retryAfter} s.',
    'No copy of the registry could be read yet (a cold start while Cloud Storage fails): catalogue events still pass, other events wait.',
  ),
  UNAVAILABLE: spec(
    503,
    'UNAVAILABLE',
    'The service is currently unavailable; retry after {retryAfter} s.',
    'Pub/Sub did not acknowledge the publish in time, or credentials are not loaded yet; retry.',
  ),
} satisfies Record<string, ErrorSpec>);

export type ErrorCode = keyof typeof ERRORS;

/** Codes only the studio's admin API answers (the gateway's OpenAPI leaves them out). */
export const STUDIO_ONLY_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_RESOURCE',
  'INVALID_REQUEST',
  'NOT_CONFIGURED',
  'REGISTRY_RACE',
]);

/** The wire form of an error, ready to be written by an HTTP adapter. */
export interface ApiError {
  readonly http: number;
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorEnvelope;
}

export interface ErrorEnvelope {
  readonly error: {
    readonly code: number;
    readonly message: string;
    readonly status: string;
    readonly details: readonly ErrorDetail[];
  };
}

export type ErrorDetail =
  | {
      readonly '@type': 'type.googleapis.com/google.rpc.ErrorInfo';
      readonly reason: string;
      readonly domain: string;
    }
  | {
      readonly '@type': 'type.googleapis.com/google.rpc.BadRequest';
      readonly fieldViolations: readonly FieldViolation[];
    };

/** The domain in google.rpc.ErrorInfo: our codes are machine-readable as `reason`. */
export const ERROR_DOMAIN = 'eventbus';

/** At most this many field violations go back in one answer (a 1000-event batch could have 10^5). */
export const MAX_VIOLATIONS = 100;

/** Fills `{name}` placeholders; unknown ones are left visible rather than silently dropped. */
export function formatMessage(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

/**
 * Builds Google's REST error envelope for one of our codes: `{error:{code,message,status,
 * details}}` with a google.rpc.ErrorInfo (reason = our code) and, when given, a
 * google.rpc.BadRequest with the field violations. 429 and 503 carry `Retry-After`.
 */
export function apiError(
  code: ErrorCode,
  params: Readonly<Record<string, string | number>> = {},
  violations: readonly FieldViolation[] = [],
): ApiError {
  const s: ErrorSpec = ERRORS[code];
  const details: ErrorDetail[] = [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: ERROR_DOMAIN },
  ];
  if (violations.length > 0) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: violations.slice(0, MAX_VIOLATIONS),
    });
  }
  const headers: Record<string, string> = {};
  if (params['retryAfter'] !== undefined) headers['retry-after'] = String(params['retryAfter']);
  return {
    http: s.http,
    code,
    headers,
    body: { error: { code: s.http, message: formatMessage(s.message, params), status: s.status, details } },
  };
}

/** The same error with field violations added (e.g. naming the envelope message it came from). */
export function withViolations(e: ApiError, violations: readonly FieldViolation[]): ApiError {
  const details = e.body.error.details.filter(
    (d) => d['@type'] !== 'type.googleapis.com/google.rpc.BadRequest',
  );
  return {
    ...e,
    body: {
      error: {
        ...e.body.error,
        details: [
          ...details,
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: violations.slice(0, MAX_VIOLATIONS),
          },
        ],
      },
    },
  };
}
