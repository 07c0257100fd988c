/**
 * How LinkedIn's answers are read (docs/platforms.md, LinkedIn). Errors come as Rest.li's
 * `{status, serviceErrorCode, code, message}`: throttling (429) and LinkedIn's own failures (5xx)
 * are sent again; a refused token (401), a missing scope or ad account role (403) and a refused
 * event (400, 422: a wrong URN, seconds for milliseconds, a missing `userIds`) are not. A single
 * event is created with 201; a batch answers 200 with one status per element.
 */
import { pick, pickEach, platformAnswer } from '../platform-answer.ts';
import {
  httpReason,
  networkReason,
  parseJson,
  type ResponseTable,
  throttledOrServerError,
} from '../responses.ts';

interface LinkedInError {
  readonly status?: number;
  readonly serviceErrorCode?: number;
  readonly code?: string;
  readonly message?: string;
}

/** LinkedIn's words for a refused answer, or the status and body when it sent none. */
function reason(status: number, body: string): string {
  const e = parseJson(body) as LinkedInError | undefined;
  if (e === undefined || typeof e !== 'object' || (e.message === undefined && e.code === undefined))
    return httpReason(status, body);
  const code = [e.code, e.serviceErrorCode].filter((c) => c !== undefined).join(' ');
  return `linkedin ${e.status ?? status}${code ? ` ${code}` : ''}: ${e.message ?? 'no message'}`;
}

export const LINKEDIN_RESPONSES: ResponseTable = {
  network: networkReason,
  retryStatus: throttledOrServerError,
  retried: reason,
  refused: reason,
  // Kept in the ledger: a refusal's status, codes and message; a batch's per-element status and message.
  answer: ({ json }) =>
    platformAnswer({
      excerpt: {
        error: pick(json, ['status', 'serviceErrorCode', 'code', 'message']),
        elements: pickEach((json as { elements?: unknown } | undefined)?.elements, ['status', 'message']),
      },
    }),
  ok({ json }) {
    const elements = (json as { elements?: { status?: number; message?: string }[] } | undefined)?.elements;
    if (!Array.isArray(elements)) return { status: 'delivered' };
    const failed = elements.flatMap((e, i) =>
      (e.status ?? 201) >= 300 ? [`[${i}] ${e.status} ${e.message ?? ''}`.trim()] : [],
    );
    if (failed.length === elements.length && failed.length > 0)
      return {
        status: 'rejected',
        reason: `linkedin refused every element: ${failed.slice(0, 5).join('; ')}`,
      };
    return failed.length > 0
      ? {
          status: 'delivered',
          detail: `${elements.length - failed.length} of ${elements.length} created; refused ${failed.slice(0, 5).join('; ')}`,
        }
      : { status: 'delivered', detail: `${elements.length} created` };
  },
};
