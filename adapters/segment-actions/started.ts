/**
 * The requests an action starts during a delivery, awaited or not (docs/catalog-destinations.md,
 * "Outcomes"). Some of Segment's actions fire a request without waiting for it (Iterable Lists
 * collects its subscribe calls and awaits something else), so `perform` resolves before the
 * platform has answered: a refusal would never be seen, and the function could finish with the
 * request still in flight. Every request client actions-core makes for an action is wrapped here,
 * so each request it starts is listed on the run in progress; once the action has finished, the
 * run waits for those still in flight, bounded by the delivery's time limit, and judges them as if
 * the action had awaited them: the first failure is thrown as the request client threw it.
 */
import { outcomeOfError } from '../../core/platforms/segment-action/outcome.ts';
import { current, type RunContext, type StartedRequest } from './run-context.ts';

/** What actions-core's `Action` class offers to wrap: the request client it makes per call. */
interface ActionClass {
  readonly prototype: { createRequestClient(data: unknown): RequestClient };
}
type RequestClient = (url: string, options?: unknown) => Promise<unknown>;

const WRAPPED = Symbol.for('eventbus.segment-action.started');

/**
 * Wraps actions-core's request clients once: each request started inside a run is listed on it,
 * and its rejection is observed here (an action that never awaits it leaves no unhandled rejection).
 */
export function trackRequestClients(Action: ActionClass): void {
  const proto = Action.prototype as ActionClass['prototype'] & { [WRAPPED]?: true };
  if (proto[WRAPPED]) return;
  const make = proto.createRequestClient;
  proto.createRequestClient = function (this: unknown, data: unknown): RequestClient {
    const client = make.call(this, data);
    return (url, options) => {
      const request = client(url, options);
      const run = current.getStore();
      if (run) run.started.push(startedOf(request));
      return request;
    };
  };
  proto[WRAPPED] = true;
}

function startedOf(request: Promise<unknown>): StartedRequest {
  const started: { done: boolean; failure?: unknown; ended: Promise<void> } = {
    done: false,
    ended: Promise.resolve(),
  };
  started.ended = request.then(
    () => {
      started.done = true;
    },
    (err: unknown) => {
      started.done = true;
      started.failure = err ?? new Error('the request failed');
    },
  );
  return started;
}

/** Thrown when requests the action left in flight are not answered within the delivery's time limit. */
export class UnansweredRequestsError extends Error {
  constructor(count: number, boundMs: number) {
    super(
      `${count} request${count === 1 ? '' : 's'} the action started without waiting got no answer within ${boundMs} ms`,
    );
    this.name = 'TimeoutError';
  }
}

/**
 * Runs `perform` (one action's call, or one batch's) in `run`, then waits for every request it
 * started that is still in flight, at most `boundMs`. Resolves with what `perform` gave when they
 * were all answered; throws what `perform` threw, else the failure of a request left in flight
 * (a retryable one first, so an event is not given up while part of it may still be sent), else
 * UnansweredRequestsError when the bound passed first.
 */
export async function performAnswered<T>(
  run: RunContext,
  perform: () => Promise<T>,
  boundMs: number,
): Promise<T> {
  const from = run.started.length;
  let out: T;
  try {
    out = await current.run(run, perform);
  } catch (err) {
    // The action's own failure decides; its requests still in flight are let finish first.
    await untilEnded(run.started.slice(from), boundMs);
    throw err;
  }
  const left = run.started.slice(from).filter((s) => !s.done);
  if (left.length === 0) return out;
  const unanswered = await untilEnded(left, boundMs);
  const failures = left.flatMap((s) => (s.failure === undefined ? [] : [s.failure]));
  const retryable = failures.find((f) => outcomeOfError('', f).status === 'retry');
  const failure = retryable ?? failures[0];
  if (failure !== undefined) throw leftInFlight(failure);
  if (unanswered > 0) throw leftInFlight(new UnansweredRequestsError(unanswered, boundMs));
  return out;
}

/** Failures of requests the action did not wait for: the delivery's outcome, though the action threw nothing. */
const LEFT_IN_FLIGHT = new WeakSet<object>();

function leftInFlight(err: unknown): unknown {
  if (typeof err === 'object' && err !== null) LEFT_IN_FLIGHT.add(err);
  return err;
}

/**
 * Whether `err` is the failure of a request the action left in flight rather than something the
 * action threw: it decides the outcome all the same, but is not among what the action threw
 * (RunResult.thrown, which the conformance run compares with Segment's own tests).
 */
export function wasLeftInFlight(err: unknown): boolean {
  return typeof err === 'object' && err !== null && LEFT_IN_FLIGHT.has(err);
}

/** Waits for `requests` to end, at most `boundMs`; resolves with how many had not. */
async function untilEnded(requests: readonly StartedRequest[], boundMs: number): Promise<number> {
  const pending = requests.filter((s) => !s.done);
  if (pending.length === 0) return 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, boundMs));
  });
  try {
    await Promise.race([Promise.all(pending.map((s) => s.ended)), bound]);
  } finally {
    clearTimeout(timer);
  }
  return pending.filter((s) => !s.done).length;
}
