/**
 * How long a call waits for a query job, and how long a job lasts: `timeoutMs` (jobs.query,
 * jobs.getQueryResults; jobs.insert does not wait, it answers a query job RUNNING) and the
 * emulator's `jobLatencyMs` floor that makes local jobs last as long as BigQuery's do
 * (docs/bigquery-emulator.md, running jobs).
 */
import type { Emulator } from './state.ts';

/** How long a call waits for a running job: `timeoutMs` (BigQuery's default is 10 s). */
export function timeoutOf(raw: unknown): number {
  const n = raw === undefined || raw === null ? 10_000 : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : 10_000;
}

export const delay = (ms: number): Promise<'timeout'> =>
  new Promise((resolve) => setTimeout(() => resolve('timeout'), ms).unref());

/** 'done' when `run` settles (either way) within `ms`, else 'timeout'. */
export function settledWithin(run: Promise<unknown>, ms: number): Promise<'done' | 'timeout'> {
  const settled = run.then(
    () => 'done' as const,
    () => 'done' as const,
  );
  return Promise.race([settled, delay(ms)]);
}

/**
 * A query job that lasts at least the emulator's `jobLatencyMs` (0 unless configured): DuckDB
 * answers in milliseconds what BigQuery answers in seconds, so code that handles running jobs
 * (`jobComplete: false`, a RUNNING job, a client's timeout) is exercised locally only with it.
 */
export function atLeast<T>(em: Pick<Emulator, 'jobLatencyMs'>, run: Promise<T>): Promise<T> {
  if (em.jobLatencyMs <= 0) return run;
  const floor = new Promise((resolve) => setTimeout(resolve, em.jobLatencyMs));
  return Promise.all([run, floor.catch(() => undefined)]).then(([result]) => result);
}
