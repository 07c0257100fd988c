/**
 * tabledata.insertAll over BigQuery's REST API, sent by our own keep-alive HTTP client
 * (adapters/http-sender.ts) with the BigQuery client's own configuration: its endpoint
 * (`https://bigquery.googleapis.com/bigquery/v2`, or BIGQUERY_EMULATOR_HOST as the client reads
 * it), its project and its credentials (application-default, cached as headers:
 * adapters/google-credentials.ts).
 *
 * Why not the client's `table.request`: every call goes through @google-cloud/common's request
 * stack (project-id token replacement, an authorisation pass, retry-request, teeny-request and
 * node-fetch), ~1.3 ms of CPU per insertAll request against ~0.26 ms for the same request and
 * answer over node:http, measured in one process against a loopback server. `store` writes a
 * request per micro-batch and `forward` one per ledger batch, so that was a tenth of their CPU.
 *
 * Retried like Google's client: a network error, 408, 429 and 5xx are tried again (100 ms
 * doubling, 4 attempts in all by default, within the deadline); an insertAll may be sent twice
 * safely (rows carry their insertId, and events_dedup folds what best-effort de-duplication lets
 * through).
 * A 401 drops the cached credentials and is tried once more.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { InsertRow, RowRejection } from '../core/warehouse/rows.ts';
import { cachedCredentials } from './google-credentials.ts';
import type { CallCredentials } from './grpc-unary.ts';
import { createHttpSender, type Sender } from './http-sender.ts';

/**
 * One insertAll request. Resolves with the per-row errors BigQuery returned (indices into
 * `rows`, including `stopped` rows that failed only because another row was invalid);
 * rejects when the request as a whole failed. (The batching writer's InsertAll.)
 */
export type RestInsertAll = (
  table: string,
  rows: readonly InsertRow[],
  /** The same rows already serialised (JSON text each), when the caller has them. */
  texts?: readonly string[],
) => Promise<readonly RowRejection[]>;

export interface RestInsertAllOptions {
  /** The API's base, `…/bigquery/v2` or an emulator's origin; paths start with `/projects/`. */
  readonly baseUrl: string;
  /** The project the dataset is in. */
  readonly project: string | (() => Promise<string>);
  readonly dataset: string;
  /** Headers that authorise a call; none for an emulator. */
  readonly credentials?: CallCredentials;
  readonly send?: Sender;
  /** The whole call, retries included (default 60 s). */
  readonly timeoutMs?: number;
  /**
   * Attempts in all (default 4). 1 for a caller whose own retry is better: `store` answers the
   * push non-2xx at once, and Pub/Sub redelivers it with the subscription's backoff.
   */
  readonly attempts?: number;
  /** Write the valid rows of a request whose other rows are refused (default: all or nothing). */
  readonly skipInvalidRows?: boolean;
  /** Waits between attempts (tests shorten it). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** All-or-nothing per request by default, unknown fields are errors (the batcher resends stopped rows). */
const bodyHead = (skipInvalidRows: boolean) =>
  `{"skipInvalidRows":${skipInvalidRows},"ignoreUnknownValues":false,"rows":[`;
/** insertAll answers list every refused row: up to 50,000 of them. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const RETRIED = new Set([408, 429, 500, 502, 503, 504]);

interface InsertAllAnswer {
  readonly insertErrors?: readonly {
    readonly index?: number;
    readonly errors?: readonly { readonly reason?: string; readonly message?: string }[];
  }[];
}

export function createRestInsertAll(o: RestInsertAllOptions): RestInsertAll {
  const send = o.send ?? createHttpSender({ maxResponseBytes: MAX_ANSWER_BYTES });
  const total = o.timeoutMs ?? 60_000;
  const attempts = o.attempts ?? 4;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const base = o.baseUrl.replace(/\/+$/, '');
  const head = bodyHead(o.skipInvalidRows ?? false);
  let project: Promise<string> | undefined;
  const projectOf = () => {
    project ??= typeof o.project === 'string' ? Promise.resolve(o.project) : o.project();
    project.catch(() => {
      project = undefined; // asked again on the next call
    });
    return project;
  };
  const fixed = {
    'content-type': 'application/json',
    'user-agent': 'eventbus',
    'x-goog-api-client': `gl-node/${process.versions.node} eventbus/1`,
  };
  return async (table, rows, texts) => {
    const url = `${base}/projects/${encodeURIComponent(await projectOf())}/datasets/${encodeURIComponent(o.dataset)}/tables/${encodeURIComponent(table)}/insertAll?prettyPrint=false`;
    const body = `${head}${(texts ?? rows.map((r) => JSON.stringify(r))).join(',')}]}`;
    const deadline = Date.now() + total;
    let reauthorised = false;
    for (let attempt = 1, delay = 100; ; attempt++, delay *= 2) {
      const auth = o.credentials ? await o.credentials.headers() : undefined;
      const answer = await send(
        { method: 'POST', url, redactedUrl: url, headers: auth ? { ...fixed, ...auth } : fixed, body },
        Math.max(1, deadline - Date.now()),
      );
      const status = answer.kind === 'response' ? answer.status : 0;
      if (answer.kind === 'response' && status >= 200 && status < 300)
        return rejectionsOf(table, rows, answer.body);
      if (status === 401 && o.credentials && !reauthorised) {
        o.credentials.invalidate();
        reauthorised = true;
        continue;
      }
      const why =
        answer.kind === 'response'
          ? `answered HTTP ${status}: ${errorMessage(answer.body)}`
          : `failed: ${answer.message}`;
      const again =
        (status === 0 || RETRIED.has(status)) && attempt < attempts && Date.now() + delay < deadline;
      if (!again) throw new Error(`insertAll into ${table} ${why}`);
      await sleep(delay);
    }
  };
}

/**
 * insertAll with a BigQuery client's endpoint, project and credentials. Credentials go only
 * over TLS: an emulator's plaintext endpoint gets none, as the client sends it none.
 */
export function insertAllThrough(
  bigquery: BigQuery,
  dataset: string,
  options: Pick<RestInsertAllOptions, 'attempts'> = {},
): RestInsertAll {
  const baseUrl = bigquery.baseUrl;
  return createRestInsertAll({
    ...options,
    baseUrl,
    dataset,
    project:
      bigquery.projectId && !bigquery.projectId.includes('{{')
        ? bigquery.projectId
        : () => bigquery.getProjectId(),
    ...(baseUrl.startsWith('https:') ? { credentials: cachedCredentials(bigquery.authClient) } : {}),
  });
}

function rejectionsOf(table: string, rows: readonly InsertRow[], text: string): readonly RowRejection[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // Anything but a JSON object is not a confirmation that the rows were written.
  if (parsed === null || typeof parsed !== 'object')
    throw new Error(`insertAll into ${table}: unexpected answer`);
  const rejections = ((parsed as InsertAllAnswer).insertErrors ?? []).map((e) => {
    const first = e.errors?.[0];
    return {
      index: e.index ?? -1,
      reason: first?.reason ?? 'invalid',
      message: first?.message ?? 'row rejected',
    };
  });
  // A rejection we cannot pin to a row cannot be answered per caller: fail the request.
  const bad = rejections.find((r) => !Number.isInteger(r.index) || r.index < 0 || r.index >= rows.length);
  if (bad)
    throw new Error(
      `insertAll into ${table} answered errors for unknown rows: ${bad.reason}: ${bad.message}`,
    );
  return rejections;
}

/** The message of a Google API error body, or the start of whatever came. */
function errorMessage(text: string): string {
  try {
    const m = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof m === 'string') return m;
  } catch {
    // not JSON
  }
  return text.slice(0, 200) || '(no body)';
}
