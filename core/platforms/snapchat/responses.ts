/**
 * How the Snapchat Conversions API's answers are read (docs/platforms.md, "Snapchat"): a refusal carries
 * `{status: "INVALID", reason, param?}` — 400 (a required field, unhashed or insufficient personal
 * data, a time out of range) and 401/403 (the token) are not sent again; 429 and 5xx are. A 2xx is
 * delivered, in test mode as validated by the Test Event Tool.
 */
import { pick, platformAnswer } from '../platform-answer.ts';
import { networkReason, type ResponseTable, snippet, throttledOrServerError } from '../responses.ts';

/** `snapchat HTTP 400 INVALID: <reason> (param <param>)`, or the start of a body without a reason. */
function reason(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { status?: unknown; reason?: unknown; param?: unknown };
    if (typeof parsed.reason === 'string')
      return `snapchat HTTP ${status} ${typeof parsed.status === 'string' ? parsed.status : ''}: ${parsed.reason}${typeof parsed.param === 'string' ? ` (param ${parsed.param})` : ''}`;
  } catch {
    // Not JSON: the start of the body.
  }
  return `snapchat HTTP ${status}: ${snippet(body)}`;
}

export const SNAPCHAT_RESPONSES: ResponseTable = {
  network: networkReason,
  retryStatus: throttledOrServerError,
  retried: reason,
  refused: reason,
  // Kept in the ledger: Snap's `status`, `reason` and the `param` it names.
  answer: ({ json }) => platformAnswer({ excerpt: pick(json, ['status', 'reason', 'param']) ?? {} }),
  ok({ json }, ctx) {
    const status = (json as { status?: unknown } | undefined)?.status;
    const said = typeof status === 'string' ? `status=${status}` : undefined;
    if (ctx.destination.test_mode === true)
      return {
        status: 'delivered',
        detail: `validate: Snap checked the events and recorded none${said ? ` (${said})` : ''}`,
      };
    return said ? { status: 'delivered', detail: said } : { status: 'delivered' };
  },
};
