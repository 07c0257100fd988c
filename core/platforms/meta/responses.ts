/**
 * How Meta's Conversions API answers are read (docs/platforms.md §1): an `error` object decides
 * on any status — throttling and transient codes are sent again, every other code is refused
 * unless the answer was a 5xx; then 429 and 5xx are retried, a 2xx is delivered (with Meta's
 * `events_received` count), and anything else is refused.
 */
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
  ok({ json }) {
    const received = (json as { events_received?: number } | undefined)?.events_received;
    return received !== undefined
      ? { status: 'delivered', detail: `events_received=${received}` }
      : { status: 'delivered' };
  },
};
