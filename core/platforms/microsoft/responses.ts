/**
 * How the UET Conversions API's answers are read (docs/platforms.md, Microsoft): the body is
 * `{eventsReceived, error {code, message, details[] {index, propertyName, errorMessage}}, traceId}`.
 * Throttling (429) and Microsoft's own failures (5xx) are sent again; a refused token (401, 403)
 * and a refused event (400) are not, with Microsoft's message and the fields it names. A 2xx
 * that still carries an error (events refused while others were taken) is refused with it.
 */
import { pick, pickEach, platformAnswer } from '../platform-answer.ts';
import {
  httpReason,
  networkReason,
  parseJson,
  type ResponseTable,
  throttledOrServerError,
} from '../responses.ts';

interface UetError {
  readonly code?: string;
  readonly message?: string;
  readonly details?: readonly { index?: number; propertyName?: string; errorMessage?: string }[];
}

function describe(error: UetError): string {
  const details = (error.details ?? [])
    .slice(0, 5)
    .map((d) => `[${d.index ?? '?'}] ${d.propertyName ?? '?'}: ${d.errorMessage ?? ''}`.trim());
  return `microsoft ${error.code ?? 'error'}: ${error.message ?? 'no message'}${details.length > 0 ? ` (${details.join('; ')})` : ''}`;
}

function reason(status: number, body: string): string {
  const error = (parseJson(body) as { error?: UetError } | undefined)?.error;
  return error !== undefined && typeof error === 'object'
    ? `HTTP ${status} ${describe(error)}`
    : httpReason(status, body);
}

export const MICROSOFT_RESPONSES: ResponseTable = {
  network: networkReason,
  retryStatus: throttledOrServerError,
  retried: reason,
  refused: reason,
  // Kept in the ledger: `traceId`, `eventsReceived`, an error's code, message and the fields it names.
  answer({ json }) {
    const body = json as { eventsReceived?: unknown; traceId?: unknown; error?: UetError } | undefined;
    const error = pick(body?.error, ['code', 'message']);
    return platformAnswer({
      ref: body?.traceId,
      eventsReceived: body?.eventsReceived,
      excerpt: {
        eventsReceived: body?.eventsReceived,
        error: error
          ? { ...error, details: pickEach(body?.error?.details, ['index', 'propertyName', 'errorMessage']) }
          : undefined,
      },
    });
  },
  ok({ json }) {
    const body = json as { eventsReceived?: number; error?: UetError; traceId?: string } | undefined;
    if (body?.error && typeof body.error === 'object')
      return { status: 'rejected', reason: describe(body.error) };
    const parts = [
      body?.eventsReceived !== undefined ? `eventsReceived=${body.eventsReceived}` : undefined,
      body?.traceId ? `traceId=${body.traceId}` : undefined,
    ].filter(Boolean);
    return parts.length > 0 ? { status: 'delivered', detail: parts.join(' ') } : { status: 'delivered' };
  },
};
