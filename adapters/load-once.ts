/**
 * A value that is loaded once, on demand (clients, services): the first call starts the load,
 * calls meanwhile share it, and once it has loaded the value itself is returned, not a promise,
 * so a hot path that finds it ready creates no promise (inside the functions framework's
 * per-request domain each one costs CPU). A failed load is forgotten: the next call retries.
 */
import { isPending } from '../core/maybe-async.ts';

export function loadOnce<T>(load: () => Promise<T>): () => T | Promise<T> {
  let ready: { readonly value: T } | undefined;
  let loading: Promise<T> | undefined;
  return () => {
    if (ready) return ready.value;
    loading ??= load().then(
      (value) => {
        ready = { value };
        return value;
      },
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    );
    return loading;
  };
}

/** Starts a load in the background (at cold start, after the module); its failure is retried by the next use. */
export function warmInBackground<T>(get: () => T | Promise<T>): void {
  setImmediate(() => {
    const got = get();
    if (isPending(got)) got.catch(() => undefined);
  });
}
