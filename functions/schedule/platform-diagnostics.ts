/**
 * The `PlatformDiagnostics` job of the scheduler (docs/delivery.md, "What the platforms report per
 * dataset"): what a platform says about a dataset as a whole, which no delivery's answer carries.
 * One instance per enabled `meta_capi` destination with `config.diagnostics: true`, once a day: it
 * asks Meta's Dataset Quality API about the destination's pixel with the destination's access
 * token (core/platforms/meta/dataset-quality.ts) and writes one `platform_diagnostics` row per
 * event and metric (Event Match Quality, each match key's coverage, event coverage, dedup rate…).
 * A run writes a day's figures once: the insertId is the destination, day, event and metric, and
 * what the day already holds is not written again (a retried chunk, a run by hand). What the
 * platform refuses (a token without access, an unknown pixel, an outage) is logged and the run
 * ends: tomorrow's asks again.
 */
import { createHash } from 'node:crypto';
import {
  DIAGNOSTICS_SECRET,
  datasetQualityUrl,
  diagnosticsEnabled,
  diagnosticsVersion,
  readDatasetQuality,
} from '../../core/platforms/meta/dataset-quality.ts';
import { answerColumns, scrubText } from '../../core/platforms/platform-answer.ts';
import { configText } from '../../core/platforms/prepare.ts';
import { PLATFORM_DIAGNOSTICS_TABLE } from '../../core/warehouse/platform-diagnostics.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import type { Job } from './runner.ts';

export const PLATFORM_DIAGNOSTICS_KIND = 'PlatformDiagnostics';

/** A row of `platform_diagnostics`, as written. */
export interface PlatformDiagnosticRow {
  readonly reported_at: string;
  readonly destination: string;
  readonly platform: string;
  readonly dataset: string;
  readonly event_name: string;
  readonly metric: string;
  readonly value: number | null;
  readonly detail: string | null;
  readonly source: string;
}

export interface PlatformDiagnosticsDeps {
  readonly settings: Readonly<Settings>;
  readonly project: string;
  /** The ops dataset, which holds `platform_diagnostics`. */
  readonly ops: string;
  /** Runs one SELECT with string parameters. */
  readonly query: (
    sql: string,
    params: Readonly<Record<string, string>>,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** A secret's value by name, undefined when it has none. */
  readonly secret: (name: string) => Promise<string | undefined>;
  /** A GET: the answer's status and body. */
  readonly get: (url: string) => Promise<{ readonly status: number; readonly body: string }>;
  /** Streams rows with their insertIds; throws when one is refused. */
  readonly write: (
    rows: readonly { readonly insertId: string; readonly row: PlatformDiagnosticRow }[],
  ) => Promise<void>;
  readonly log: (entry: Readonly<Record<string, unknown>>) => void;
}

/** The (event, metric) pairs a destination's day already holds. */
export function reportedQuery(project: string, ops: string): string {
  return [
    'SELECT DISTINCT event_name, metric',
    `FROM ${tableRef(project, ops, PLATFORM_DIAGNOSTICS_TABLE)}`,
    'WHERE destination = @destination',
    '  AND reported_at >= TIMESTAMP(@from) AND reported_at < TIMESTAMP(@to)',
  ].join('\n');
}

/** The insertId of a day's metric: the same for every run of that day. */
export function diagnosticInsertId(destination: string, day: string, event: string, metric: string): string {
  return createHash('sha256').update(`${destination}\n${day}\n${event}\n${metric}`).digest('hex');
}

/** Why Meta refused, in a line the log may keep (its Graph error's code and message, scrubbed). */
function refusal(status: number, body: string, token: string): string {
  let error: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(body) as { error?: Record<string, unknown> };
    error = parsed.error ?? {};
  } catch {
    // Not a Graph error: the status says enough.
  }
  const code = typeof error['code'] === 'number' ? ` (#${error['code']})` : '';
  const message = typeof error['message'] === 'string' ? `: ${scrubText(error['message'], [token])}` : '';
  return `dataset_quality answered ${status}${code}${message}`;
}

const enabled = (s: Readonly<Settings>): Readonly<Destination>[] =>
  (s.destinations ?? []).filter((d) => d.enabled !== false && diagnosticsEnabled(d));

export function platformDiagnosticsJob(deps: PlatformDiagnosticsDeps): Job {
  const destinations = enabled(deps.settings);
  const sql = reportedQuery(deps.project, deps.ops);
  return {
    kind: PLATFORM_DIAGNOSTICS_KIND,
    scheduled: () =>
      Promise.resolve(
        destinations.map((d) => ({
          kind: PLATFORM_DIAGNOSTICS_KIND,
          name: d.id,
          schedule: { every: '1d' },
        })),
      ),
    async chunk(ctx) {
      const d = destinations.find((x) => x.id === ctx.run.name);
      if (!d) return { done: true, summary: { skipped: 'no such destination with diagnostics on' } };
      const skip = (why: string) => {
        deps.log({ component: 'schedule', kind: PLATFORM_DIAGNOSTICS_KIND, destination: d.id, error: why });
        return { done: true, summary: { skipped: why } };
      };
      const secretName = d.secrets?.[DIAGNOSTICS_SECRET];
      let token: string | undefined;
      try {
        token = secretName ? await deps.secret(secretName) : undefined;
      } catch (err) {
        return skip(`access token unreadable: ${(err as Error).message}`);
      }
      if (!token) return skip('no access token');
      let res: { readonly status: number; readonly body: string };
      try {
        res = await deps.get(datasetQualityUrl(d, token));
      } catch (err) {
        return skip(`dataset_quality unreachable: ${scrubText((err as Error).message, [token])}`);
      }
      if (res.status !== 200) return skip(refusal(res.status, res.body, token));
      let metrics: ReturnType<typeof readDatasetQuality>;
      try {
        metrics = readDatasetQuality(JSON.parse(res.body));
      } catch {
        metrics = undefined;
      }
      if (!metrics) return skip('dataset_quality answered a body without `web`');

      const day = ctx.now.toISOString().slice(0, 10);
      const from = `${day}T00:00:00.000Z`;
      const to = new Date(Date.parse(from) + 86_400_000).toISOString();
      const reported = new Set(
        (await deps.query(sql, { destination: d.id, from, to })).map(
          (r) => `${String(r['event_name'])}\n${String(r['metric'])}`,
        ),
      );
      const source = `meta dataset_quality ${diagnosticsVersion(d)}`;
      const dataset = configText(d, 'pixel_id') ?? '';
      const rows = metrics
        .filter((m) => !reported.has(`${m.event_name}\n${m.metric}`))
        .map((m) => ({
          insertId: diagnosticInsertId(d.id, day, m.event_name, m.metric),
          row: {
            reported_at: ctx.now.toISOString(),
            destination: d.id,
            platform: d.type,
            dataset,
            event_name: m.event_name,
            metric: m.metric,
            value: m.value,
            // Bounded and scrubbed as the ledger's platform_response is.
            detail: m.detail ? answerColumns({ excerpt: m.detail }, [token]).platform_response : null,
            source,
          } satisfies PlatformDiagnosticRow,
        }));
      if (rows.length > 0) {
        await ctx.fence();
        await deps.write(rows);
      }
      const events = new Set(metrics.map((m) => m.event_name)).size;
      return {
        done: true,
        summary: { day, events, metrics: metrics.length, written: rows.length, already: reported.size },
      };
    },
  };
}
