/**
 * Reads one trace through Cloud Trace API v1, `GET {endpoint}/v1/projects/{p}/traces/{traceId}`
 * (docs/observability.md#reading-a-trace-in-the-studio): the studio's waterfall. The endpoint is
 * configuration, not a `local` switch: Google's by default, called with the workload's Google
 * credentials (scope trace.readonly; its account holds roles/cloudtrace.user); locally the
 * supervisor points CLOUD_TRACE_EMULATOR_HOST at the receiver, which answers the same API from
 * the spans it holds, and, as Google's clients do for an emulator host, no credentials go there.
 */

import { parseV1Trace, TRACE_ID, type V1Trace } from '../core/tracing/cloud-trace-v1.ts';
import { cachedCredentials } from './google-credentials.ts';
import type { CallCredentials } from './grpc-unary.ts';

export const CLOUD_TRACE_ENDPOINT = 'https://cloudtrace.googleapis.com';
export const TRACE_READ_SCOPE = 'https://www.googleapis.com/auth/trace.readonly';
/** How long one read may take before it is answered as unavailable. */
const READ_TIMEOUT_MS = 10_000;

/** A trace, or why there is none, in Google's error terms (`NOT_FOUND`, `PERMISSION_DENIED`, …). */
export type TraceRead =
  | { readonly ok: true; readonly trace: V1Trace }
  | { readonly ok: false; readonly http: number; readonly status: string; readonly message: string };

export type TraceReader = (project: string, traceId: string) => Promise<TraceRead>;

export interface TraceReaderOptions {
  /** CLOUD_TRACE_EMULATOR_HOST: the API at this URL, without credentials. */
  readonly endpoint?: string | undefined;
  /** Google credentials for Google's endpoint (tests give their own); default ADC. */
  readonly credentials?: CallCredentials;
  readonly timeoutMs?: number;
}

/** A reader; it never throws: a refusal, a timeout or a bad answer comes back as `ok: false`. */
export function createTraceReader(options: TraceReaderOptions = {}): TraceReader {
  const base = (options.endpoint || CLOUD_TRACE_ENDPOINT).replace(/\/$/, '');
  let credentials = options.endpoint ? undefined : options.credentials;
  const headers = async (): Promise<Readonly<Record<string, string>>> => {
    if (options.endpoint) return {};
    credentials ??= await googleCredentials();
    return credentials.headers();
  };
  return async (project, traceId) => {
    if (!TRACE_ID.test(traceId))
      return failed(400, 'INVALID_ARGUMENT', 'a trace id is 32 lowercase hex digits');
    const url = `${base}/v1/projects/${encodeURIComponent(project)}/traces/${traceId}`;
    try {
      const res = await fetch(url, {
        headers: { accept: 'application/json', ...(await headers()) },
        signal: AbortSignal.timeout(options.timeoutMs ?? READ_TIMEOUT_MS),
      });
      const body = (await res.json().catch(() => undefined)) as unknown;
      if (res.status === 401) credentials?.invalidate();
      if (!res.ok) return refusedBy(res.status, body);
      const trace = parseV1Trace(body);
      return trace
        ? { ok: true, trace }
        : failed(502, 'UNAVAILABLE', 'Cloud Trace answered something not a trace');
    } catch (err) {
      const name = (err as Error).name;
      return failed(
        503,
        'UNAVAILABLE',
        name === 'TimeoutError'
          ? `Cloud Trace did not answer within ${options.timeoutMs ?? READ_TIMEOUT_MS} ms`
          : `Cloud Trace could not be reached: ${(err as Error).message}`,
      );
    }
  };
}

async function googleCredentials(): Promise<CallCredentials> {
  const { GoogleAuth } = await import('google-auth-library');
  return cachedCredentials(new GoogleAuth({ scopes: [TRACE_READ_SCOPE] }));
}

const failed = (http: number, status: string, message: string): TraceRead => ({
  ok: false,
  http,
  status,
  message,
});

/** Google's error JSON (`{error: {code, message, status}}`) as a read's failure. */
function refusedBy(http: number, body: unknown): TraceRead {
  const e = (body as { error?: { message?: unknown; status?: unknown } } | undefined)?.error;
  const status =
    typeof e?.status === 'string'
      ? e.status
      : http === 404
        ? 'NOT_FOUND'
        : http === 403
          ? 'PERMISSION_DENIED'
          : http === 401
            ? 'UNAUTHENTICATED'
            : 'UNAVAILABLE';
  return failed(http, status, typeof e?.message === 'string' ? e.message : `Cloud Trace answered ${http}`);
}
