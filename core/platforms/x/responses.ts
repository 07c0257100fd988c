/**
 * How the X Ads API's answers are read (docs/platforms.md, "X"): a refusal carries
 * `{errors: [{code, message}]}` — 400 (`INVALID_PARAMETER`), 401 (`UNAUTHORIZED_ACCESS`, a bad
 * signature or token) and 403 are not sent again; 429 (100,000 requests per 15 minutes per
 * account) and 5xx are. A 2xx is delivered with X's `conversions_processed`.
 */
import { pickEach, platformAnswer } from '../platform-answer.ts';
import { networkReason, type ResponseTable, snippet, throttledOrServerError } from '../responses.ts';

/** `x HTTP 401 UNAUTHORIZED_ACCESS: …`, or the start of a body without errors. */
function reason(status: number, body: string): string {
  try {
    const errors = (JSON.parse(body) as { errors?: { code?: unknown; message?: unknown }[] }).errors;
    if (Array.isArray(errors) && errors.length > 0)
      return `x HTTP ${status} ${errors.map((e) => `${String(e.code ?? '?')}: ${String(e.message ?? '')}`).join('; ')}`;
  } catch {
    // Not JSON: the start of the body.
  }
  return `x HTTP ${status}: ${snippet(body)}`;
}

export const X_RESPONSES: ResponseTable = {
  network: networkReason,
  retryStatus: throttledOrServerError,
  retried: reason,
  refused: reason,
  // Kept in the ledger: `conversions_processed` and an error's code, message and parameter.
  answer({ json }) {
    const body = json as { data?: { conversions_processed?: unknown }; errors?: unknown } | undefined;
    const processed = body?.data?.conversions_processed;
    return platformAnswer({
      eventsReceived: processed,
      excerpt: {
        conversions_processed: processed,
        errors: pickEach(body?.errors, ['code', 'message', 'parameter']),
      },
    });
  },
  ok({ json }) {
    const processed = (json as { data?: { conversions_processed?: unknown } } | undefined)?.data
      ?.conversions_processed;
    return typeof processed === 'number'
      ? { status: 'delivered', detail: `conversions_processed=${processed}` }
      : { status: 'delivered' };
  },
};
