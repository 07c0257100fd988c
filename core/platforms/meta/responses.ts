/**
 * How Meta's Conversions API answers are read (docs/platforms.md §1): an `error` object decides
 * on any status — throttling and transient codes are sent again, every other code is refused
 * unless the answer was a 5xx; then 429 and 5xx are retried, a 2xx is delivered (with Meta's
 * `events_received` count), and anything else is refused.
 */
import { pick, platformAnswer } from '../platform-answer.ts';
import { httpReason, networkReason, type ResponseTable, throttledOrServerError } from '../responses.ts';

/** Graph API throttling codes (rate limits per app, user, ad account, CAPI). */
const THROTTLED = new Set([4, 17, 32, 613, 80003, 80004]);
/** Transient Graph API errors (unknown error, service unavailable). */
const TRANSIENT = new Set([1, 2]);

/**
 * Whether a Graph API error code is worth another try (throttling or transient): the one list
 * the Conversions API's answers and the custom audiences' answers (audience-answers.ts) share.
 */
export const metaRetryable = (code: number): boolean => THROTTLED.has(code) || TRANSIENT.has(code);

interface MetaError {
  readonly code?: number;
  readonly error_subcode?: number;
  readonly message?: string;
  readonly error_user_msg?: string;
}

export const META_RESPONSES: ResponseTable = {
  network: networkReason,
  code: {
    on: 'any',
    read(json) {
      const error = (json as { error?: MetaError } | undefined)?.error;
      if (error === undefined) return undefined;
      const code = error.code ?? 0;
      const sub = error.error_subcode ? `/${error.error_subcode}` : '';
      // 100/2804003 (too old), 100/33 (pixel), 190 (token): sending again will not help.
      return {
        code,
        reason: `meta error ${code}${sub}: ${error.error_user_msg ?? error.message ?? 'no message'}`,
      };
    },
    retry: metaRetryable,
  },
  retryStatus: throttledOrServerError,
  retried: httpReason,
  refused: httpReason,
  // Kept in the ledger: `events_received`, `messages`, `fbtrace_id` of an answer; an error's codes,
  // type and messages (its `fbtrace_id` too), most telling first (the excerpt is cut at 1 KB).
  answer({ json }) {
    const body = json as { events_received?: unknown; messages?: unknown; fbtrace_id?: unknown } | undefined;
    const error = (json as { error?: { fbtrace_id?: unknown } } | undefined)?.error;
    return platformAnswer({
      ref: body?.fbtrace_id ?? error?.fbtrace_id,
      eventsReceived: body?.events_received,
      excerpt: {
        events_received: body?.events_received,
        error: pick(error, [
          'code',
          'error_subcode',
          'type',
          'message',
          'error_user_msg',
          'error_user_title',
        ]),
        messages: Array.isArray(body?.messages) && body.messages.length > 0 ? body.messages : undefined,
      },
    });
  },
  ok({ json }) {
    const received = (json as { events_received?: number } | undefined)?.events_received;
    return received !== undefined
      ? { status: 'delivered', detail: `events_received=${received}` }
      : { status: 'delivered' };
  },
};
