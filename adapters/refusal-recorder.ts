/**
 * The gateway's refusal recorder (docs/console.md#live-events): the sampler of core/console/live-events.ts
 * in front of a small buffer that goes to the ops table `gateway_refusals` once a second through
 * insertAll (adapters/bigquery-rest.ts: the same request on the BigQuery emulator and on Google
 * Cloud). Recording costs the request a map lookup and, for a sampled refusal, a
 * push; the write happens off the request. Best effort by design: a row that cannot be written
 * is counted and logged, never retried into memory, and the log line of gateway/server.ts stays.
 */
import { randomBytes } from 'node:crypto';
import {
  createRefusalSampler,
  DEFAULT_REFUSAL_SAMPLING,
  REFUSALS_TABLE,
  type RefusalEvent,
  type RefusalRow,
  type RefusalSampling,
  refusalRow,
} from '../core/console/live-events.ts';
import { createRestInsertAll } from './bigquery-rest.ts';
import type { InsertAll } from './bigquery-writer.ts';
import { cachedCredentials } from './google-credentials.ts';
import { loadOnce } from './load-once.ts';

export interface RefusalRecorder {
  /** Called by the gateway for each refused request; never throws, never waits. */
  record(e: RefusalEvent): void;
  /** Writes what is buffered now (tests, shutdown). */
  flush(): Promise<void>;
  /** Stops the timer after a last flush. */
  close(): Promise<void>;
  /** Rows written, left out by the sampler, and lost to write failures or a full buffer. */
  readonly figures: { written: number; sampledOut: number; lost: number };
}

export interface RefusalRecorderOptions {
  readonly insertAll: InsertAll;
  readonly sampling?: RefusalSampling;
  readonly flushMs?: number;
  /** Rows held at most between flushes (the sampler's burst keeps it far below). */
  readonly maxBuffered?: number;
  readonly clock?: () => number;
  /** Names this instance in its rows: the Cloud Run revision when there is one. */
  readonly instance?: string;
  readonly log?: (entry: Record<string, unknown>) => void;
}

/** A recorder writing to `gateway_refusals` (the insertAll is bound to the ops dataset). */
export function createRefusalRecorder(o: RefusalRecorderOptions): RefusalRecorder {
  const sampler = createRefusalSampler(o.sampling ?? DEFAULT_REFUSAL_SAMPLING);
  const now = o.clock ?? Date.now;
  const instance = `${o.instance ?? 'gateway'}/${randomBytes(4).toString('hex')}`;
  const maxBuffered = o.maxBuffered ?? 1000;
  const log = o.log ?? (() => {});
  const figures = { written: 0, sampledOut: 0, lost: 0 };
  let buffer: RefusalRow[] = [];
  let writing: Promise<void> = Promise.resolve();
  let seq = 0;

  const flush = (): Promise<void> => {
    if (buffer.length === 0) return writing;
    const rows = buffer;
    buffer = [];
    writing = writing.then(async () => {
      try {
        const rejected = await o.insertAll(
          REFUSALS_TABLE,
          rows.map((r) => ({
            insertId: `${instance}/${seq++}`,
            json: r as unknown as Record<string, unknown>,
          })),
        );
        figures.written += rows.length - rejected.length;
        figures.lost += rejected.length;
        if (rejected.length > 0)
          log({ severity: 'WARNING', message: `gateway_refusals refused a row: ${rejected[0]?.message}` });
      } catch (err) {
        figures.lost += rows.length;
        log({ severity: 'WARNING', message: `gateway_refusals not written: ${(err as Error).message}` });
      }
    });
    return writing;
  };
  const timer = setInterval(() => void flush(), o.flushMs ?? 1000);
  timer.unref();

  return {
    record(e) {
      const at = now();
      const represents = sampler.admit(e, at);
      if (represents === 0) {
        figures.sampledOut++;
        return;
      }
      if (buffer.length >= maxBuffered) {
        figures.lost++;
        return;
      }
      buffer.push(refusalRow(e, represents, at, instance));
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
    figures,
  };
}

/**
 * tabledata.insertAll over BigQuery's REST API, without the BigQuery client: the gateway does not
 * carry that client (its bundle loads google-auth-library only, docs/google-wire.md). The request
 * goes where Google's client would send it: BIGQUERY_EMULATOR_HOST when set (no credentials),
 * else https://bigquery.googleapis.com/bigquery/v2 with application-default credentials, through
 * the same REST insertAll as the warehouse writers (adapters/bigquery-rest.ts). Rows are
 * independent here (skipInvalidRows): a refused row is counted lost, the others are written.
 */
export function restInsertAll(o: {
  readonly project: string;
  readonly dataset: string;
  readonly emulatorHost?: string | undefined;
}): InsertAll {
  // google-auth-library is loaded on the first refusal written, not at cold start.
  const auth = loadOnce(() =>
    import('google-auth-library').then(
      ({ GoogleAuth }) => new GoogleAuth({ scopes: ['https://www.googleapis.com/auth/bigquery.insertdata'] }),
    ),
  );
  return createRestInsertAll({
    baseUrl: o.emulatorHost ?? 'https://bigquery.googleapis.com/bigquery/v2',
    project: o.project,
    dataset: o.dataset,
    skipInvalidRows: true,
    // Best effort, off the request path: a write that cannot finish in 10 s is counted lost.
    timeoutMs: 10_000,
    ...(o.emulatorHost
      ? {}
      : {
          credentials: cachedCredentials({
            getRequestHeaders: async () => (await auth()).getRequestHeaders(),
          }),
        }),
  });
}
