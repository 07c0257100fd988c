/**
 * The driver `forward-catalog` runs `segment_action` destinations with: the platform's driver
 * (index.ts) with `perform`, which runs the event through the destination's actions (run.ts)
 * and gives the forward core one outcome for the attempt (outcome.ts); the actions Segment
 * batches send it in a batch with the other deliveries in flight to the same destination. Loaded only by
 * forward-catalog: it pulls in actions-core and the destinations.
 */
import type { Driver, Outcome, Performed } from '../../core/platforms/driver.ts';
import { answerColumns } from '../../core/platforms/platform-answer.ts';
import { SEGMENT_ACTION_PLATFORM } from '../../core/platforms/segment-action/index.ts';
import { combineOutcomes } from '../../core/platforms/segment-action/outcome.ts';
import { segmentEventOf } from '../../core/platforms/segment-action/segment-event.ts';
import { createBatches } from './batches.ts';
import { type RefreshTokenStore, runSegmentAction } from './run.ts';

/** A platform call's time limit unless the destination sets `timeout_ms` (as forward's). */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The segment_action driver, sending through `send` (the function's fetch, or a test's), with
 * OAuth refresh tokens kept in `refreshTokens` when given (run.ts).
 */
export function segmentActionDriver(send: typeof fetch, refreshTokens?: RefreshTokenStore): Driver {
  // The actions Segment batches gather the deliveries in flight here into batches (batches.ts).
  const batches = createBatches();
  return Object.freeze({
    ...SEGMENT_ACTION_PLATFORM.driver,
    perform: (event, ctx): Promise<Performed> => {
      const timeoutMs = ctx.destination.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const timed: typeof fetch = (input, init) =>
        send(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      const io = {
        fetch: timed,
        now: ctx.now,
        batches,
        timeoutMs,
        ...(refreshTokens ? { refreshTokens } : {}),
      };
      return runSegmentAction(event, ctx.destination, ctx.secrets, io).then((r) => ({
        outcome:
          r.outcomes.length > 0 ? combineOutcomes(r.outcomes) : notTaken(ctx.destination.destination, event),
        sent: r.bodies,
        // For the breaker and the limiter (none made: nothing to learn), and a throttle's hold.
        ...(r.requests.length > 0 ? { answered: r.requests.every((q) => q.status !== undefined) } : {}),
        ...withRetryAfter(r.requests.findLast((q) => q.retryAfter !== undefined)?.retryAfter),
        // What the platform said, bounded and scrubbed of identifiers and the secrets' values.
        ...(r.answer
          ? { answer: answerColumns(r.answer, [...Object.values(ctx.secrets), ...(r.tokens ?? [])]) }
          : {}),
      }));
    },
  } satisfies Driver);
}

/** No configured action's subscription takes the event: nothing was sent, and the row says why. */
function notTaken(slug: string | undefined, event: Parameters<typeof segmentEventOf>[0]): Outcome {
  const e = segmentEventOf(event);
  const what = e.type === 'track' ? `track "${String(e['event'])}"` : e.type;
  return {
    status: 'rejected',
    reason: `not sent: no action of ${slug ?? 'the destination'} takes ${event.event_name} (a Segment ${what} call); its events.allow or deny keeps such events from it`,
  };
}

function withRetryAfter(retryAfter: string | undefined): { retryAfter?: string } {
  return retryAfter === undefined ? {} : { retryAfter };
}
