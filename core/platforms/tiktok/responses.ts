/**
 * How TikTok's Events API answers are read (docs/platforms.md §3): 429 and 5xx are sent again;
 * a 2xx answer carries TikTok's `code` — 0 is delivered, rate limiting (40100) and the 5xxxx
 * server-side codes are retried, any other code is refused; an answer without a code is refused.
 */
import { platformAnswer } from '../platform-answer.ts';
import {
  httpReason,
  networkReason,
  type ResponseTable,
  snippet,
  throttledOrServerError,
} from '../responses.ts';

/** Rate limited; TikTok's 5xxxx codes are server-side errors. */
const RETRY_CODES = new Set([40100]);

const withoutCode = (status: number, body: string) =>
  `HTTP ${status} without a TikTok code: ${snippet(body)}`;

export const TIKTOK_RESPONSES: ResponseTable = {
  network: networkReason,
  code: {
    on: 'ok',
    read(json) {
      const parsed = json as { code?: unknown; message?: string } | undefined;
      if (typeof parsed?.code !== 'number') return undefined;
      return { code: parsed.code, reason: `tiktok code ${parsed.code}: ${parsed.message ?? 'no message'}` };
    },
    delivered: 0,
    retry: (code) => RETRY_CODES.has(code) || code >= 50000,
  },
  retryStatus: throttledOrServerError,
  retried: httpReason,
  refused: withoutCode,
  // Kept in the ledger: TikTok's `code`, `message` and `request_id` (its `data` is not).
  answer({ json }) {
    const body = json as { code?: unknown; message?: unknown; request_id?: unknown } | undefined;
    return platformAnswer({ ref: body?.request_id, excerpt: { code: body?.code, message: body?.message } });
  },
  ok: ({ status, body }) => ({ status: 'rejected', reason: withoutCode(status, body) }),
};
