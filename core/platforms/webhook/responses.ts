/**
 * How a webhook receiver's answers are read: 2xx is delivered; timeouts, throttling and the
 * server's own failures (408, 425, 429, 5xx) are sent again; anything else, redirects included
 * (a signed body must not go elsewhere), is refused. The body is not read beyond a snippet.
 */
import type { ResponseTable } from '../responses.ts';

/** Status codes worth another attempt: timeouts, throttling, and the server's own failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** `HTTP <status>` and the start of the body as the receiver wrote it. */
function statusReason(status: number, body: string): string {
  const snippet = body.slice(0, 300).trim();
  return `HTTP ${status}${snippet ? `: ${snippet}` : ''}`;
}

export const WEBHOOK_RESPONSES: ResponseTable = {
  network: (message) => message,
  retryStatus: isRetryableStatus,
  retried: statusReason,
  refused: statusReason,
};
