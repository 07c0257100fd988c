/**
 * Values that may or may not have to be waited for: a cached secret, a loaded client, a
 * definition read once. The hot paths (`forward`, `store`, the gateway) run inside the functions
 * framework's per-request `domain`, where every promise costs CPU in async hooks, so a value
 * already at hand is used at once and only a value still loading is chained with `then`.
 * One place for the `x instanceof Promise ? x.then(f) : f(x)` habit, so it reads the same
 * everywhere and cannot drift (e.g. a rejection handler forgotten on one side).
 */

/** A value, or a promise of it while it still loads. */
export type MaybePromise<T> = T | Promise<T>;

/** Whether the value still has to be waited for (a real `Promise`; thenables are taken as values). */
export function isPending<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/**
 * `next(value)` now when the value is at hand (no promise made), after it resolves otherwise.
 * `onRejected` handles the value's rejection only, as the second argument of `then` does: an
 * error thrown by `next` is not passed to it (synchronously it reaches the caller). When `next`
 * always returns a promise, so does this.
 */
export function andThen<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => Promise<R>,
  onRejected?: (err: unknown) => MaybePromise<R>,
): Promise<R>;
export function andThen<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
  onRejected?: (err: unknown) => MaybePromise<R>,
): MaybePromise<R>;
export function andThen<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
  onRejected?: (err: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  return value instanceof Promise ? value.then(next, onRejected) : next(value);
}

/** The value as a promise: the same promise when it is one, a resolved one otherwise. */
export function asPromise<T>(value: MaybePromise<T>): Promise<T> {
  return value instanceof Promise ? value : Promise.resolve(value);
}
