/**
 * How the Data Manager API's answers are read (docs/platforms.md §6; §5): Google's
 * error envelope `{"error": {code, status, message, details}}` decides on any status — quota
 * (`RESOURCE_EXHAUSTED`) and the service's own failures (`UNAVAILABLE`, `INTERNAL`,
 * `DEADLINE_EXCEEDED`, `ABORTED`) are sent again; a refused request (`INVALID_ARGUMENT`),
 * refused credentials (`UNAUTHENTICATED`, after the forward function refreshed the token once)
 * or a missing account link (`PERMISSION_DENIED`) are not. A 2xx is delivered with Google's
 * `requestId` (the key to its diagnostics), or as validated in test mode.
 */
import { pick, platformAnswer } from '../platform-answer.ts';
import { httpReason, networkReason, type ResponseTable, throttledOrServerError } from '../responses.ts';

/** Google RPC statuses worth another attempt, by their canonical HTTP code. */
const RETRY_STATUSES = new Set([
  'RESOURCE_EXHAUSTED',
  'UNAVAILABLE',
  'INTERNAL',
  'DEADLINE_EXCEEDED',
  'ABORTED',
]);

interface GoogleError {
  readonly code?: number;
  readonly status?: string;
  readonly message?: string;
  readonly details?: readonly Record<string, unknown>[];
}

/** The fields a `google.rpc.BadRequest` detail names, and the `ErrorInfo` reason, in words. */
function detailsOf(error: GoogleError): string {
  const parts: string[] = [];
  for (const d of error.details ?? []) {
    const violations = d['fieldViolations'];
    if (Array.isArray(violations))
      for (const v of violations as { field?: string; description?: string }[])
        parts.push(`${v.field ?? '?'}: ${v.description ?? ''}`.trim());
    if (typeof d['reason'] === 'string') parts.push(`reason ${d['reason']}`);
  }
  return parts.length > 0 ? ` (${parts.slice(0, 5).join('; ')})` : '';
}

/** Whether an error status is worth another attempt (exported for the forward function's tests). */
export const googleRetryable = (status: string | undefined): boolean => RETRY_STATUSES.has(status ?? '');

/** The field violations and reasons of an error's details, for the ledger's excerpt. */
function violations(error: GoogleError | undefined): Record<string, unknown>[] | undefined {
  const out: Record<string, unknown>[] = [];
  for (const d of error?.details ?? []) {
    const list = d['fieldViolations'];
    if (Array.isArray(list))
      for (const v of list) {
        const kept = pick(v, ['field', 'description', 'reason']);
        if (kept) out.push(kept);
      }
    if (typeof d['reason'] === 'string') out.push({ reason: d['reason'] });
  }
  return out.length > 0 ? out : undefined;
}

export const GOOGLE_ADS_RESPONSES: ResponseTable = {
  network: networkReason,
  // Kept in the ledger: the `requestId` (the key to requestStatus:retrieve, which the scheduler
  // asks later: functions/schedule/google-ads-diagnostics.ts); an error's code, status, message
  // and the fields it names.
  answer({ json }) {
    const body = json as { requestId?: unknown; error?: GoogleError } | undefined;
    const error = body?.error && typeof body.error === 'object' ? body.error : undefined;
    return platformAnswer({
      ref: body?.requestId,
      excerpt: {
        error: error
          ? { ...pick(error, ['code', 'status', 'message']), violations: violations(error) }
          : undefined,
      },
    });
  },
  code: {
    on: 'any',
    read(json) {
      const error = (json as { error?: GoogleError } | undefined)?.error;
      if (error === undefined || typeof error !== 'object') return undefined;
      const code = error.code ?? 0;
      const status = error.status ?? 'UNKNOWN';
      return {
        // The canonical code is an HTTP status; a retryable RPC status keeps its own.
        code: googleRetryable(status) ? 503 : code,
        reason: `google ads ${status} (${code}): ${error.message ?? 'no message'}${detailsOf(error)}`,
      };
    },
    retry: (code) => code === 429 || code >= 500,
  },
  retryStatus: throttledOrServerError,
  retried: httpReason,
  refused: httpReason,
  ok({ json }, ctx) {
    if (ctx.destination.test_mode === true)
      return { status: 'delivered', detail: 'validateOnly: Google checked the request and kept nothing' };
    const requestId = (json as { requestId?: unknown } | undefined)?.requestId;
    return typeof requestId === 'string'
      ? { status: 'delivered', detail: `requestId=${requestId}` }
      : { status: 'delivered' };
  },
};
