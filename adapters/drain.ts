/**
 * A function that is told to stop (SIGTERM) finishes the pushes it holds before it exits
 * (docs/delivery.md, "The chaos run"). The functions framework exits at once on SIGTERM, in-flight
 * request or not: a `forward` stopped between a platform's answer and its ledger row has sent
 * without a record, and the redelivery sends again; a `store` stopped mid-write leaves the push to
 * be redelivered. Cloud Run gives an instance 10 s after SIGTERM; the local supervisor 5 s before
 * SIGKILL.
 *
 * `drainOnStop(handler)` counts the requests in flight: a request is in flight until its answer
 * has gone (or its connection closed) and the promise its handler returned has settled, so a push
 * whose sender hung up is still waited for while it works. On SIGTERM, a request that arrives is
 * answered 503 at once (nothing done: Pub/Sub pushes it again, to another instance), and the
 * process exits once the count is zero, or after DRAIN_MS whatever it is. The framework's own
 * SIGTERM listener is set after the function's module is loaded, so it is taken off at the first
 * request; a SIGTERM before any request finds nothing in flight either way.
 */
import type { Request, Response } from '@google-cloud/functions-framework';

/** How long a stopping process waits for its pushes: under the supervisor's grace and Cloud Run's. */
export const DRAIN_MS = 4_000;

type Handler = (req: Request, res: Response) => unknown;

export interface DrainOptions {
  /** Names the function in the log line. */
  readonly component: string;
  readonly drainMs?: number;
  /** Ends the process (tests replace it). */
  readonly exit?: (code: number) => void;
  /**
   * What each answer waits for before it is sent (adapters/metrics.ts, flushBeforeAnswer): a
   * request-billed instance's CPU is throttled once it has answered, so telemetry queued for a
   * sampled or failed push leaves first. Undefined from it: the answer goes at once.
   */
  readonly beforeAnswer?: (() => Promise<unknown> | undefined) | undefined;
}

const STOPPING_BODY = JSON.stringify({
  error: {
    code: 503,
    message: 'This instance is stopping; the push is answered for redelivery.',
    status: 'UNAVAILABLE',
  },
});

export function drainOnStop(handler: Handler, options: DrainOptions): Handler {
  const drainMs = options.drainMs ?? DRAIN_MS;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const before = options.beforeAnswer;
  let inFlight = 0;
  // Requests whose answer is not yet decided: the last of them waits for the exports.
  let unanswered = 0;
  let stopping = false;
  let owned = false;
  let idle: (() => void) | undefined;

  const onStop = (): void => {
    if (stopping) return;
    stopping = true;
    console.log(
      JSON.stringify({
        severity: 'INFO',
        message: `stopping: ${inFlight} push(es) in flight, waiting up to ${drainMs} ms for them`,
        component: options.component,
      }),
    );
    const timer = setTimeout(() => exit(0), drainMs);
    timer.unref();
    if (inFlight === 0) exit(0);
    else
      idle = () => {
        clearTimeout(timer);
        exit(0);
      };
  };
  process.on('SIGTERM', onStop);

  const done = (): void => {
    inFlight--;
    if (inFlight === 0) idle?.();
  };

  return (req, res) => {
    if (!owned) {
      // The framework's listener (registered after this module loaded) would exit at once.
      owned = true;
      for (const l of process.listeners('SIGTERM')) if (l !== onStop) process.removeListener('SIGTERM', l);
    }
    if (stopping) {
      res.status(503).set('content-type', 'application/json').send(STOPPING_BODY);
      return undefined;
    }
    inFlight++;
    // Done once its answer has gone (or its connection closed) AND the handler's own work has
    // settled: a push whose sender hung up (Pub/Sub stopped, a timeout) is still being worked on,
    // and forward's ledger row comes after the platform's answer and the claim's settlement. A
    // stop counted on the closed connection alone exited between the two, leaving a delivery
    // with no `delivered` row, only the `folded` one of its redelivery.
    let parts = 2;
    let answerDone = false;
    const part = (): void => {
      parts--;
      if (parts === 0) done();
    };
    const settle = (): void => {
      if (answerDone) return;
      answerDone = true;
      part();
    };
    res.once('finish', settle);
    res.once('close', settle);
    if (before) {
      unanswered++;
      let open = true;
      const answered = (): number => {
        if (open) {
          open = false;
          unanswered--;
        }
        return unanswered;
      };
      res.once('close', answered);
      holdAnswer(res, before, answered);
    }
    let work: unknown;
    try {
      work = handler(req, res);
    } catch (err) {
      part();
      throw err;
    }
    if (
      work !== null &&
      typeof work === 'object' &&
      typeof (work as PromiseLike<unknown>).then === 'function'
    )
      (work as PromiseLike<unknown>).then(part, part);
    else part();
    return work;
  };
}

/**
 * Makes `res.end` wait for `before` when it has something to wait for and this answer is the
 * last of the instance's requests in flight. Cloud Run allocates a request-billed instance CPU
 * while any request is being handled: while another push is in flight, an export in progress keeps
 * running, and the last push to answer waits for everything queued or in progress. So under load
 * no answer waits (holding every answer for a shared export capped the pushes in flight and cut
 * throughput to a few hundred a second), and an instance that goes idle still exports first.
 * What to wait for is asked on the next turn of the event loop, not at the call: a hop's first
 * span ends just after its handler has answered (adapters/tracing.ts, runHop), and its spans are
 * queued only then.
 */
function holdAnswer(res: Response, before: () => Promise<unknown> | undefined, answered: () => number): void {
  const end = res.end as (...a: unknown[]) => Response;
  res.end = function (this: Response, ...args: unknown[]) {
    setImmediate(() => {
      // Another request still to answer keeps the CPU: this one need not wait.
      const wait = answered() > 0 ? undefined : before();
      if (wait === undefined) end.apply(this, args);
      else void wait.then(() => end.apply(this, args));
    });
    return this;
  } as Response['end'];
}
