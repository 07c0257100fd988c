/**
 * The `PlatformCounts` job of the scheduler (docs/delivery.md, "Counted by the platform"): what
 * each platform's own reporting counted, for the `reconciliation` view. One instance per enabled
 * destination with `config.counts: true` whose platform publishes a count (its `countReads`,
 * core/platforms/<platform>/counts.ts), once a day: it asks for yesterday's and today's counts
 * (a platform's count of a day still grows the next morning) with the destination's own secret or
 * an OAuth token, through the egress gate, and writes one `platform_counts` row per day and event
 * name. `eventbus reconcile` starts a manual run named `<destination>@<day>`, which reads that day
 * only. A later read of a day adds rows (the view takes the newest); a retried chunk writes the
 * same insertIds. What the platform refuses (a token without access, an unknown property, an
 * outage) is logged and the run ends, as the diagnostics job does: tomorrow's reads again. Each
 * run's outcome (read, or why not) is the line its lock keeps for `eventbus reconcile`.
 */
import { createHash } from 'node:crypto';
import type { InsertAll } from '../../adapters/bigquery-writer.ts';
import type { EgressSender } from '../../adapters/egress.ts';
import { countedDestinations, PLATFORM_COUNTS_KIND, runDays } from '../../core/platforms/counted.ts';
import type { CountReads, CountsRequest } from '../../core/platforms/counts.ts';
import { scrubText } from '../../core/platforms/platform-answer.ts';
import { PLATFORM_COUNTS_TABLE } from '../../core/warehouse/reconciliation.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import type { Job } from './runner.ts';

/** A row of `platform_counts`, as written. */
export interface PlatformCountRow {
  readonly day: string;
  readonly reported_at: string;
  readonly destination: string;
  readonly platform: string;
  readonly event_name: string;
  readonly counted: number;
  readonly source: string;
}

export interface PlatformCountsDeps {
  readonly settings: Readonly<Settings>;
  /** A secret's value by name, undefined when it has none. */
  readonly secret: (name: string) => Promise<string | undefined>;
  /** An OAuth access token of the scope for the credentials (empty: the function's own account). */
  readonly accessToken: (credentials: string, scope: string, fresh: boolean) => Promise<string>;
  /** Sends a request through the egress gate: its status and body; throws when refused or unreachable. */
  readonly send: (request: CountsRequest) => Promise<{ readonly status: number; readonly body: string }>;
  /** Streams rows with their insertIds; throws when one is refused. */
  readonly write: (
    rows: readonly { readonly insertId: string; readonly row: PlatformCountRow }[],
  ) => Promise<void>;
  readonly log: (entry: Readonly<Record<string, unknown>>) => void;
}

/** The insertId of a read's row: the same for a retried chunk of one run. */
export function countInsertId(runId: string, day: string, event: string): string {
  return createHash('sha256').update(`${runId}\n${day}\n${event}`).digest('hex');
}

/** Why the platform refused, in a line the log may keep (its error's message, scrubbed). */
function refusal(status: number, body: string, secrets: readonly string[]): string {
  let message = '';
  try {
    const e = (JSON.parse(body) as { error?: { message?: unknown } }).error;
    message = typeof e?.message === 'string' ? `: ${scrubText(e.message, secrets).slice(0, 300)}` : '';
  } catch {
    // Not a JSON error: the status says enough.
  }
  return `answered ${status}${message}`;
}

/** The credential a destination's read carries: its secret, or an OAuth token. */
async function credentialOf(
  deps: PlatformCountsDeps,
  d: Readonly<Destination>,
  reads: CountReads,
  fresh: boolean,
): Promise<string | undefined> {
  const auth = reads.auth;
  if (auth.kind === 'secret') {
    const name = d.secrets?.[auth.role];
    return name ? deps.secret(name) : undefined;
  }
  const name = auth.role ? d.secrets?.[auth.role] : undefined;
  const credentials = name ? ((await deps.secret(name)) ?? '') : '';
  return deps.accessToken(credentials, auth.scope, fresh);
}

/** Reads one destination's counts for some days and writes them; a summary for the run's log. */
export async function readCounts(
  deps: PlatformCountsDeps,
  target: { readonly destination: Readonly<Destination>; readonly reads: CountReads },
  days: readonly string[],
  runId: string,
  now: Date,
  fence: () => Promise<void> = async () => undefined,
): Promise<Record<string, unknown>> {
  const { destination: d, reads } = target;
  const skip = (why: string) => {
    deps.log({ component: 'schedule', kind: PLATFORM_COUNTS_KIND, destination: d.id, error: why });
    return { skipped: why };
  };
  const problem = reads.problem(d);
  if (problem) return skip(problem);
  let credential: string | undefined;
  try {
    credential = await credentialOf(deps, d, reads, false);
  } catch (err) {
    return skip(`credentials unreadable: ${(err as Error).message}`);
  }
  if (!credential) return skip('no credentials');
  const further: Record<string, string> = {};
  for (const role of reads.secrets ?? []) {
    const name = d.secrets?.[role];
    let value: string | undefined;
    try {
      value = name ? await deps.secret(name) : undefined;
    } catch (err) {
      return skip(`secret ${role} unreadable: ${(err as Error).message}`);
    }
    if (!value) return skip(`no ${role} secret`);
    further[role] = value;
  }
  const hidden = Object.values(further);
  const rows: { insertId: string; row: PlatformCountRow }[] = [];
  const counted: Record<string, number> = {};
  for (const day of days) {
    let res: { readonly status: number; readonly body: string };
    try {
      res = await deps.send(reads.request(d, day, credential, further));
      if (res.status === 401 && reads.auth.kind === 'google_oauth') {
        credential = (await credentialOf(deps, d, reads, true)) ?? credential;
        res = await deps.send(reads.request(d, day, credential, further));
      }
    } catch (err) {
      return skip(`unreachable: ${scrubText((err as Error).message, [credential, ...hidden])}`);
    }
    if (res.status !== 200) return skip(refusal(res.status, res.body, [credential, ...hidden]));
    let counts: ReturnType<CountReads['read']>;
    try {
      counts = reads.read(JSON.parse(res.body), day);
    } catch {
      counts = undefined;
    }
    if (!counts) return skip('answered a body that is not a report');
    counted[day] = counts.reduce((n, c) => n + c.counted, 0);
    for (const c of counts)
      rows.push({
        insertId: countInsertId(runId, day, c.event_name),
        row: {
          day,
          reported_at: now.toISOString(),
          destination: d.id,
          platform: d.type,
          event_name: c.event_name,
          counted: c.counted,
          source: reads.source(d),
        },
      });
  }
  if (rows.length > 0) {
    await fence();
    await deps.write(rows);
  }
  return { counted, written: rows.length };
}

/** A run's summary in one line (the lock's `last_outcome`, which `eventbus reconcile` prints). */
export function countsOutcome(summary: Readonly<Record<string, unknown>>): string {
  if (typeof summary['skipped'] === 'string') return `not read: ${summary['skipped']}`;
  const counted = Object.entries((summary['counted'] ?? {}) as Record<string, number>);
  return `read: ${counted.map(([day, n]) => `${n} counted on ${day}`).join(', ') || 'no day asked'}`;
}

/** A counting request through the egress gate; a refusal or a network failure throws. */
export function countsSender(send: EgressSender): PlatformCountsDeps['send'] {
  return async (r) => {
    const res = await send(
      {
        method: r.method,
        url: r.url,
        redactedUrl: r.redactedUrl,
        headers: r.headers ?? {},
        body: r.body ?? '',
      },
      10_000,
    );
    if (res.kind === 'refused') throw new Error(res.reason);
    if (res.kind === 'network_error') throw new Error(res.message);
    return { status: res.status, body: res.body };
  };
}

/** Streams the rows to `platform_counts`; a refused row throws (the chunk is retried). */
export function countsWriter(insert: InsertAll): PlatformCountsDeps['write'] {
  return async (rows) => {
    const refused = await insert(
      PLATFORM_COUNTS_TABLE,
      rows.map((r) => ({ insertId: r.insertId, json: { ...r.row } })),
    );
    if (refused.length > 0) throw new Error(`platform_counts refused a row: ${refused[0]?.message}`);
  };
}

export function platformCountsJob(deps: PlatformCountsDeps): Job {
  const targets = countedDestinations(deps.settings);
  return {
    kind: PLATFORM_COUNTS_KIND,
    scheduled: () =>
      Promise.resolve(
        targets.map((t) => ({
          kind: PLATFORM_COUNTS_KIND,
          name: t.destination.id,
          schedule: { every: '1d' },
        })),
      ),
    async chunk(ctx) {
      const { destination, days } = runDays(ctx.run.name, ctx.now);
      const target = targets.find((t) => t.destination.id === destination);
      if (!target) {
        const why = 'no such destination with counts on';
        return { done: true, summary: { skipped: why }, outcome: `not read: ${why}` };
      }
      const summary = await readCounts(deps, target, days, ctx.runId, ctx.now, ctx.fence);
      return { done: true, summary, outcome: countsOutcome(summary) };
    },
  };
}
