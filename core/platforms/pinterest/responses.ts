/**
 * How the Pinterest Conversions API's answers are read (docs/platforms.md, "Pinterest"): a refusal is a
 * non-2xx status with `{code, message}` — 429 (over 5,000 calls a minute for the ad account) and
 * 5xx are sent again, anything else (401 token, 403 ad account role, 400 body) is not. A 200
 * reports each event: delivered when Pinterest processed them, refused (with Pinterest's message)
 * when it processed none, and delivered with the failures named when only some failed.
 */
import { pickEach, platformAnswer } from '../platform-answer.ts';
import {
  type Answer,
  networkReason,
  type ResponseTable,
  snippet,
  throttledOrServerError,
} from '../responses.ts';

/** `pinterest HTTP 401 (code 2): Authentication failed.`, or the start of a body without `message`. */
function reason(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (typeof parsed.message === 'string')
      return `pinterest HTTP ${status}${typeof parsed.code === 'number' ? ` (code ${parsed.code})` : ''}: ${parsed.message}`;
  } catch {
    // Not JSON (a proxy's HTML page): the start of it.
  }
  return `pinterest HTTP ${status}: ${snippet(body)}`;
}

interface EventResult {
  readonly status?: string;
  readonly error_message?: string | null;
  readonly warning_message?: string | null;
}

function perEvent({ json }: Answer, testMode: boolean) {
  const r = json as { num_events_received?: number; num_events_processed?: number; events?: EventResult[] };
  const events = Array.isArray(r?.events) ? r.events : [];
  const failed = events.flatMap((e, i) =>
    e.status === 'failed' ? [`data[${i}]: ${e.error_message ?? 'failed'}`] : [],
  );
  const warnings = events.flatMap((e, i) => (e.warning_message ? [`data[${i}]: ${e.warning_message}`] : []));
  const counts = `num_events_processed=${r?.num_events_processed ?? '?'} of ${r?.num_events_received ?? '?'}`;
  return { events, failed, warnings, counts: testMode ? `test=true (not recorded): ${counts}` : counts };
}

export const PINTEREST_RESPONSES: ResponseTable = {
  network: networkReason,
  retryStatus: throttledOrServerError,
  retried: reason,
  refused: reason,
  // Kept in the ledger: the counts, each event's status and messages, a refusal's code and message.
  answer({ json }) {
    const body = json as
      | {
          num_events_received?: unknown;
          num_events_processed?: unknown;
          events?: unknown;
          code?: unknown;
          message?: unknown;
        }
      | undefined;
    return platformAnswer({
      eventsReceived: body?.num_events_received,
      excerpt: {
        num_events_received: body?.num_events_received,
        num_events_processed: body?.num_events_processed,
        events: pickEach(body?.events, ['status', 'error_message', 'warning_message']),
        code: body?.code,
        message: body?.message,
      },
    });
  },
  ok(answer, ctx) {
    const { events, failed, warnings, counts } = perEvent(answer, ctx.destination.test_mode === true);
    if (events.length > 0 && failed.length === events.length)
      return { status: 'rejected', reason: `pinterest refused every event: ${failed.join('; ')}` };
    const notes = [counts, ...failed.map((f) => `failed ${f}`), ...warnings.map((w) => `warning ${w}`)];
    return { status: 'delivered', detail: notes.join('; ') };
  },
};
