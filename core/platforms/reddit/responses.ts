/**
 * How Reddit's Conversions API answers are read (docs/platforms.md, Reddit): a refused request
 * is a 400 whose message names the field (`invalid action_source: web`), not sent again, as a
 * refused token (401, 403) is not; throttling (429) and Reddit's own failures (5xx) are.
 */
import { pick, platformAnswer } from '../platform-answer.ts';
import {
  httpReason,
  networkReason,
  parseJson,
  type ResponseTable,
  throttledOrServerError,
} from '../responses.ts';

/** Reddit's message for an answer (its exact error shape is unconfirmed: `message` or `error.message`). */
function reason(status: number, body: string): string {
  const json = parseJson(body) as
    | { message?: unknown; error?: { message?: unknown; code?: unknown } }
    | undefined;
  const message = json?.error?.message ?? json?.message;
  if (typeof message !== 'string') return httpReason(status, body);
  const code = json?.error?.code;
  return `reddit ${status}${typeof code === 'string' ? ` ${code}` : ''}: ${message}`;
}

export const REDDIT_RESPONSES: ResponseTable = {
  network: networkReason,
  retryStatus: throttledOrServerError,
  retried: reason,
  refused: reason,
  // Kept in the ledger: a refusal's message and code (either shape).
  answer: ({ json }) =>
    platformAnswer({
      excerpt: {
        message: (json as { message?: unknown } | undefined)?.message,
        error: pick((json as { error?: unknown } | undefined)?.error, ['code', 'message']),
      },
    }),
};
