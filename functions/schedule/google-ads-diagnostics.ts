/**
 * The `GoogleAdsDiagnostics` job of the scheduler (docs/delivery.md, "Google Ads' later
 * diagnostics"): Data Manager accepts a conversion at once (`{requestId}`, a `delivered` row whose
 * `platform_ref` is that id) and processes it later, so a conversion Google then refuses (a click
 * outside the conversion window: `PROCESSING_ERROR_REASON_EVENT_TOO_OLD`) would look delivered for
 * ever. One instance per `google_ads` destination, every hour: it reads the request ids of the
 * deliveries recorded between two hours and one hour before its slot (each request is asked about
 * once, an hour after its upload, when Google has usually processed it), asks
 * `requestStatus:retrieve` for each with the destination's credentials, and writes a `rejected`
 * row tied to the attempt (same event, destination, attempt and `platform_ref`) for each request
 * Google reports failed. A success writes nothing; a request Google has not processed yet is
 * counted as pending and not asked again (`eventbus sync request-status` reads any id by hand).
 */
import {
  DIAGNOSIS_REASON,
  type DiagnosisAttempt,
  diagnosisEntry,
  type LedgerEntry,
} from '../../core/delivery/ledger.ts';
import {
  CREDENTIALS_ROLE,
  DATA_MANAGER_SCOPE,
  GOOGLE_ADS_BASE_URL,
} from '../../core/platforms/google-ads/driver.ts';
import {
  isProcessed,
  readRequestStatus,
  requestFailure,
  requestStatusUrl,
} from '../../core/platforms/google-ads/request-status.ts';
import { answerColumns } from '../../core/platforms/platform-answer.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import type { Job } from './runner.ts';

export const DIAGNOSTICS_KIND = 'GoogleAdsDiagnostics';

/** How long after its upload a request is asked about, and the width of each run's window. */
export const DIAGNOSIS_DELAY_MS = 60 * 60_000;
/** Requests asked about in one chunk; the rest in the next chunks of the run. */
export const DIAGNOSES_PER_CHUNK = 200;

export interface DiagnosticsDeps {
  readonly settings: Readonly<Settings>;
  readonly project: string;
  readonly dataset: string;
  readonly ledgerTable: string;
  /** Runs one SELECT with string parameters. */
  readonly query: (
    sql: string,
    params: Readonly<Record<string, string>>,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** A secret's value by name (the destination's `credentials`), undefined when it has none. */
  readonly secret: (name: string) => Promise<string | undefined>;
  /** An OAuth access token for the credentials (empty: the function's own account), as forward's. */
  readonly accessToken: (credentials: string, scope: string, fresh: boolean) => Promise<string>;
  /** A GET with headers: the answer's status and body. */
  readonly get: (
    url: string,
    headers: Readonly<Record<string, string>>,
  ) => Promise<{ readonly status: number; readonly body: string }>;
  readonly writeLedger: (entries: readonly LedgerEntry[]) => Promise<void>;
}

/**
 * The delivered attempts of one destination in a window whose `platform_ref` is a request id, and
 * the request ids already diagnosed in it (a chunk retried after its write must not ask again).
 */
export function diagnosisQueries(project: string, dataset: string, table: string) {
  const ledger = tableRef(project, dataset, table);
  return {
    attempts: [
      'SELECT event_id, event_name, payload_digest, attempt, replay, platform_ref',
      `FROM ${ledger}`,
      "WHERE destination = @destination AND status = 'delivered' AND platform_ref IS NOT NULL",
      '  AND recorded_at >= TIMESTAMP(@from) AND recorded_at < TIMESTAMP(@to)',
      'ORDER BY platform_ref',
    ].join('\n'),
    diagnosed: [
      'SELECT DISTINCT platform_ref',
      `FROM ${ledger}`,
      "WHERE destination = @destination AND status = 'rejected' AND platform_ref IS NOT NULL",
      `  AND STARTS_WITH(reason, '${DIAGNOSIS_REASON}') AND recorded_at >= TIMESTAMP(@from)`,
    ].join('\n'),
  };
}

/** A ledger row of the attempts query, as the diagnosis row needs it. */
function attemptOf(row: Readonly<Record<string, unknown>>, destination: string): DiagnosisAttempt {
  return {
    event_id: String(row['event_id']),
    event_name: String(row['event_name']),
    destination,
    attempt: row['attempt'] === null || row['attempt'] === undefined ? null : Number(row['attempt']),
    replay: row['replay'] === true,
    payload_digest: typeof row['payload_digest'] === 'string' ? row['payload_digest'] : null,
    platform_ref: String(row['platform_ref']),
  };
}

const googleAds = (s: Readonly<Settings>): Readonly<Destination>[] =>
  (s.destinations ?? []).filter(
    (d) => d.type === 'google_ads' && d.enabled !== false && d.test_mode !== true,
  );

export function googleAdsDiagnosticsJob(deps: DiagnosticsDeps): Job {
  const destinations = googleAds(deps.settings);
  const sql = diagnosisQueries(deps.project, deps.dataset, deps.ledgerTable);
  return {
    kind: DIAGNOSTICS_KIND,
    scheduled: () =>
      Promise.resolve(
        destinations.map((d) => ({ kind: DIAGNOSTICS_KIND, name: d.id, schedule: { every: '1h' } })),
      ),
    async chunk(ctx) {
      const d = destinations.find((x) => x.id === ctx.run.name);
      if (!d) return { done: true, summary: { skipped: 'no such google_ads destination' } };
      const slot = Date.parse(ctx.run.slot);
      const end = (Number.isFinite(slot) ? slot : ctx.now.getTime()) - DIAGNOSIS_DELAY_MS;
      const params = {
        destination: d.id,
        from: new Date(end - DIAGNOSIS_DELAY_MS).toISOString(),
        to: new Date(end).toISOString(),
      };
      const [rows, done] = await Promise.all([
        deps.query(sql.attempts, params),
        deps.query(sql.diagnosed, params),
      ]);
      const diagnosed = new Set(done.map((r) => String(r['platform_ref'])));
      // One request per id: a conversion is one request, but a retried write may repeat a row.
      const byRef = new Map<string, DiagnosisAttempt>();
      for (const r of rows) {
        const a = attemptOf(r, d.id);
        if (!diagnosed.has(a.platform_ref) && !byRef.has(a.platform_ref)) byRef.set(a.platform_ref, a);
      }
      // The cursor is the last request id asked, not an offset: the ids an earlier chunk found
      // failed are in `diagnosed` now and left out of byRef, which would shift every offset.
      const after = typeof ctx.cursor === 'string' ? ctx.cursor : '';
      const left = [...byRef.values()]
        .filter((a) => a.platform_ref > after)
        .sort((x, y) => (x.platform_ref < y.platform_ref ? -1 : 1));
      const batch = left.slice(0, DIAGNOSES_PER_CHUNK);
      const credentialsName = d.secrets?.[CREDENTIALS_ROLE];
      let credentials = '';
      try {
        credentials = credentialsName ? ((await deps.secret(credentialsName)) ?? '') : '';
      } catch (err) {
        // Not readable by this function (a grant missing): said in the run's log, not retried every hour.
        return { done: true, summary: { skipped: `credentials unreadable: ${(err as Error).message}` } };
      }
      let token = batch.length > 0 ? await deps.accessToken(credentials, DATA_MANAGER_SCOPE, false) : '';
      const entries: LedgerEntry[] = [];
      const counts = { asked: 0, failed: 0, pending: 0, unanswered: 0 };
      for (const a of batch) {
        const url = requestStatusUrl(a.platform_ref, d.base_url ?? GOOGLE_ADS_BASE_URL);
        let res = await deps.get(url, { authorization: `Bearer ${token}` });
        if (res.status === 401) {
          token = await deps.accessToken(credentials, DATA_MANAGER_SCOPE, true);
          res = await deps.get(url, { authorization: `Bearer ${token}` });
        }
        counts.asked++;
        // Throttled or Google down: the chunk fails and the scheduler tries it again.
        if (res.status === 429 || res.status >= 500)
          throw new Error(`requestStatus:retrieve answered ${res.status} for ${d.id}`);
        if (res.status !== 200) {
          counts.unanswered++;
          continue;
        }
        let statuses: ReturnType<typeof readRequestStatus>;
        try {
          statuses = readRequestStatus(JSON.parse(res.body));
        } catch {
          statuses = [];
        }
        if (!isProcessed(statuses)) {
          counts.pending++;
          continue;
        }
        const failure = requestFailure(statuses);
        if (!failure) continue;
        counts.failed++;
        entries.push(
          diagnosisEntry({
            attempt: a,
            reason: `google ads ${failure.reason}`,
            response: answerColumns({ excerpt: failure.excerpt }).platform_response,
            now: ctx.now,
          }),
        );
      }
      if (entries.length > 0) {
        await ctx.fence();
        await deps.writeLedger(entries);
      }
      const summary = { window: `${params.from}/${params.to}`, requests: byRef.size, ...counts };
      const last = batch.at(-1);
      return last && left.length > batch.length
        ? { done: false, cursor: last.platform_ref, summary }
        : { done: true, summary };
    },
  };
}
