/**
 * How Meta answers a custom audience's `/users` request (docs/syncs.md#meta-custom-audience): a
 * 2xx took the page; a Graph API error whose code is throttling or transient (the Conversions
 * API's list, responses.ts), a 5xx, a 408, a 429 or any other non-4xx status is worth another try;
 * any other 4xx refuses the request's rows for good, with Meta's message.
 */
import { metaRetryable } from './responses.ts';

/** What one `/users` answer means for the rows it carried. */
export type AudienceAnswer =
  | { readonly verdict: 'sent' }
  /** Try the page again later; `reason` names the status and Meta's message. */
  | { readonly verdict: 'retry'; readonly reason: string }
  /** The rows fail (sync_failed_rows), with `reason`; the run goes on. */
  | { readonly verdict: 'refused'; readonly reason: string };

/** A Graph API error answer's code and message; the body's start when it carries none. */
export function graphError(body: string): { readonly code?: number; readonly message: string } {
  try {
    const e = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    if (e && typeof e.message === 'string')
      return { ...(typeof e.code === 'number' ? { code: e.code } : {}), message: e.message };
  } catch {}
  return { message: body.slice(0, 200) };
}

/** Reads the HTTP answer to one audience request (a network error is the caller's: always a retry). */
export function audienceAnswer(status: number, body: string): AudienceAnswer {
  if (status >= 200 && status < 300) return { verdict: 'sent' };
  const error = graphError(body);
  const refusal = status >= 400 && status < 500 && status !== 408 && status !== 429;
  if (!refusal || (error.code !== undefined && metaRetryable(error.code)))
    return { verdict: 'retry', reason: `HTTP ${status} ${error.message}` };
  return { verdict: 'refused', reason: `Meta: ${error.message}` };
}
