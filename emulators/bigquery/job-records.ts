/**
 * The emulator's job records: a finished job's resource (query, copy, load or extract), a query
 * job kept while it runs, the job's labels as BigQuery takes them, and jobs.list over the kept
 * records. What runs a job is in jobs.ts.
 */
import { type Access, creatorOf } from './access.ts';
import { ApiError } from './errors.ts';
import {
  dmlStats,
  type Emulator,
  etag,
  type JobRecord,
  type Json,
  MAX_KEPT_JOBS,
  nowMs,
  paginate,
  type QueryResult,
} from './state.ts';

/** Keeps a job's record, forgetting the oldest beyond MAX_KEPT_JOBS. */
export function keepJob(em: Emulator, jobId: string, rec: JobRecord): void {
  em.jobs.set(jobId, rec);
  while (em.jobs.size > MAX_KEPT_JOBS) {
    const oldest = em.jobs.keys().next().value as string;
    em.jobs.delete(oldest);
  }
}

/** A finished query job's resource, with its statistics (or its error). */
export function jobResource(
  em: Emulator,
  projectId: string,
  jobId: string,
  cfg: Json,
  result: QueryResult | undefined,
  error: ApiError | undefined,
  location: string,
  labels?: Json,
): Json {
  const stats: Json = {
    totalBytesProcessed: '0',
    cacheHit: false,
    statementType: result?.statementType ?? 'SELECT',
  };
  if (result?.dmlAffected !== undefined) {
    stats['numDmlAffectedRows'] = String(result.dmlAffected);
    stats['dmlStats'] = dmlStats(result);
  }
  if (result?.fields.length) stats['schema'] = { fields: result.fields };
  return doneJob(
    em,
    { projectId, jobId, location },
    { jobType: 'QUERY', query: cfg, ...(labels ? { labels } : {}) },
    { totalBytesProcessed: '0', query: stats },
    error,
  );
}

/** A finished job's resource (query, copy, load or extract): DONE, with its error if it failed. */
export function doneJob(
  em: Emulator,
  ref: { projectId: string; jobId: string; location: string },
  configuration: Json,
  statistics: Json,
  error: ApiError | undefined,
): Json {
  const now = nowMs();
  const { projectId, jobId, location } = ref;
  return {
    kind: 'bigquery#job',
    etag: etag(),
    id: `${projectId}:${location}.${jobId}`,
    selfLink: `${em.baseUrl}/bigquery/v2/projects/${projectId}/jobs/${jobId}?location=${location}`,
    jobReference: { projectId, jobId, location },
    configuration,
    status: error
      ? { state: 'DONE', errorResult: error.errorProto(), errors: [error.errorProto()] }
      : { state: 'DONE' },
    statistics: { creationTime: now, startTime: now, endTime: now, ...statistics },
    user_email: 'emulator@localhost',
  };
}

/** Labels as BigQuery takes them: lowercase keys and values, at most 64 of them. */
export function validLabels(raw: unknown): Json | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new ApiError('invalid', 'labels must be an object');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > 64) throw new ApiError('invalid', 'A job may have at most 64 labels');
  for (const [k, v] of entries) {
    if (!/^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u.test(k))
      throw new ApiError('invalid', `Invalid label key "${k}": lowercase letters, digits, _ and - only`);
    if (typeof v !== 'string' || !/^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u.test(v))
      throw new ApiError(
        'invalid',
        `Invalid label value for "${k}": lowercase letters, digits, _ and - only`,
      );
  }
  return raw as Json;
}

/**
 * Keeps a query job that is still running: RUNNING until `run` settles, then DONE with its result
 * or its error (as jobs.get and getQueryResults answer from then on).
 */
export function keepRunning(
  em: Emulator,
  ref: { projectId: string; jobId: string; location: string },
  cfg: Json,
  labels: Json | undefined,
  run: Promise<QueryResult>,
  access: Access | undefined,
): JobRecord {
  const { projectId, jobId, location } = ref;
  const rec: JobRecord = {
    resource: {
      ...jobResource(em, projectId, jobId, cfg, undefined, undefined, location, labels),
      status: { state: 'RUNNING' },
    },
    ...creatorOf(access),
  };
  let stopped: (() => void) | undefined;
  const cancelled = new Promise<'cancelled'>((resolve) => {
    stopped = () => resolve('cancelled');
  });
  const finish = (apply: () => void) => {
    // A job cancelled first stays cancelled: its late result is dropped, as BigQuery drops it.
    if (rec.cancelled) return;
    apply();
  };
  rec.running = Promise.race([
    run.then(
      (result) =>
        finish(() => {
          rec.result = result;
          rec.resource = jobResource(em, projectId, jobId, cfg, result, undefined, location, labels);
        }),
      (e: unknown) =>
        finish(() => {
          rec.error =
            e instanceof ApiError
              ? e
              : new ApiError('backendError', `Internal error in the emulator: ${String(e)}`);
          rec.resource = jobResource(em, projectId, jobId, cfg, undefined, rec.error, location, labels);
        }),
    ),
    cancelled.then(() => undefined),
  ]).finally(() => {
    delete rec.running;
    delete rec.cancel;
  });
  rec.cancel = () => {
    rec.cancelled = true;
    rec.error = new ApiError('stopped', 'Job execution was cancelled: User requested cancellation');
    rec.resource = jobResource(em, projectId, jobId, cfg, undefined, rec.error, location, labels);
    em.cancelledJobs++;
    stopped?.();
  };
  keepJob(em, jobId, rec);
  return rec;
}

/**
 * jobs.cancel: a running query job ends at once, DONE with the `stopped` error BigQuery gives a
 * cancelled job (what getQueryResults and jobs.get answer from then on); a finished one is
 * answered as it is, as BigQuery does ("a job already done cannot be cancelled" is not an error).
 */
export function cancelJob(rec: JobRecord): Json {
  rec.cancel?.();
  return { kind: 'bigquery#jobCancelResponse', job: rec.resource };
}

/** A member's e-mail as BigQuery's `user_email` gives it (`serviceAccount:a@b` → `a@b`). */
const emailOf = (member: string): string => member.slice(member.indexOf(':') + 1);

/** jobs.list, newest first; with `creator`, only the jobs that member created. */
export function listJobs(em: Emulator, projectId: string, query: URLSearchParams, creator?: string): Json {
  const all = [...em.jobs.values()]
    .filter(
      (j) =>
        (j.resource['jobReference'] as Json)['projectId'] === projectId &&
        (creator === undefined || j.creator === creator),
    )
    .reverse()
    .map((j) => ({
      ...j.resource,
      state: (j.resource['status'] as Json | undefined)?.['state'] ?? 'DONE',
      // Who ran it, as BigQuery's jobs.list says (with IAM on, the member of the port it came in on).
      ...(j.creator !== undefined ? { user_email: emailOf(j.creator) } : {}),
    }));
  const { page, next } = paginate(all, query);
  return { kind: 'bigquery#jobList', etag: etag(), jobs: page, ...(next ? { nextPageToken: next } : {}) };
}
