/**
 * The functions framework runs each request inside a `node:domain`, so that an exception thrown
 * in the request's callbacks answers that one request with 500 instead of ending the instance.
 * While a domain is active, every async resource the request creates (each promise, socket
 * write, timer, outbound request) is tagged with it by async hooks and given a destroy hook, and
 * every callback enters and leaves it: in `forward` and `store` that was the largest single item
 * of their CPU per push in profiles under the functions framework (about a sixth of `forward`'s).
 *
 * Our handlers leave no error uncaught: failures are results, and their promise chains end in
 * an answer or reject into the framework's own `.catch` of the returned promise, which still
 * answers that request with 500 — no domain is needed for that. What the domain alone still
 * caught — a throw inside a raw event callback — now reaches the framework's
 * `uncaughtException` handler, which answers and restarts the instance; a push not acknowledged
 * is redelivered by Pub/Sub, so nothing is lost.
 */

/** The active domain, as `node:domain` sets it on `process` (not in Node's types). */
interface DomainHolder {
  readonly domain?: { exit(): void } | null;
}

/** Steps out of the request's domain: what this request creates from here on is not tracked by it. */
export function leaveRequestDomain(): void {
  (process as DomainHolder).domain?.exit();
}
