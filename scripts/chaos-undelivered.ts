import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the chaos run (scripts/chaos.ts) prints for an acknowledged event a destination never got:
 * every ledger row of it, the times the destination received it, and the environment's log lines
 * that name it. A run that ends short of every delivery then says where each event stopped, in
 * CI as much as on a desk, where the numbers alone said only "127 of 132".
 */

export interface Undelivered {
  readonly destination: string;
  readonly eventId: string;
  /** Its ledger rows, oldest first, one line each (status, attempt, reason, when). */
  readonly ledger: readonly string[];
  /** How many times the destination received it. */
  readonly received: number;
  /** The environment's output lines that name it (at most the last 20). */
  readonly log: readonly string[];
}

/**
 * Every service's log (the supervisor writes one file per service under `<data dir>/logs`), each
 * line prefixed with its file's name, so the lines that name an event or a stop say whose they are.
 */
function serviceLogs(dir: string): string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.log'));
  } catch {
    return '';
  }
  return names
    .map((n) =>
      readFileSync(join(dir, n), 'utf8')
        .split('\n')
        .map((l) => `${n}: ${l}`)
        .join('\n'),
    )
    .join('\n');
}

/** The lines that say how services stopped: a drain, a SIGKILL after the grace, a failed ledger write. */
function stopLines(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => /stopping: \d+ push|did not stop within|ledger write failed/.test(l))
    .slice(-40);
}

type Query = <T>(sql: string, params?: Record<string, unknown>) => Promise<T[]>;

/**
 * For each destination, the trail of up to ten acknowledged events it has no `delivered` row for;
 * with any, how the services stopped. The logs are read only then.
 */
export async function undeliveredReport(input: {
  readonly q: Query;
  readonly destinations: readonly string[];
  readonly acknowledged: ReadonlySet<string>;
  readonly received: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly supervisorOutput: string;
  readonly logDir: string;
}): Promise<{ undelivered: Undelivered[]; stops: string[] }> {
  const undelivered: Undelivered[] = [];
  let output: string | undefined;
  for (const d of input.destinations) {
    const rows = await input.q<{ event_id: string }>(
      `SELECT DISTINCT event_id FROM events.deliveries
       WHERE destination = @d AND status = 'delivered' AND event_id IN UNNEST(@ids)`,
      { d, ids: [...input.acknowledged] },
    );
    const delivered = new Set(rows.map((r) => r.event_id));
    if (delivered.size >= input.acknowledged.size) continue;
    output ??= `${input.supervisorOutput}\n${serviceLogs(input.logDir)}`;
    undelivered.push(
      ...(await undeliveredTrail({
        q: input.q,
        destination: d,
        acknowledged: input.acknowledged,
        delivered,
        received: input.received.get(d) ?? new Map(),
        output,
      })),
    );
  }
  return { undelivered, stops: output === undefined ? [] : stopLines(output) };
}

/** The trail of up to `limit` events the destination has no `delivered` row for. */
async function undeliveredTrail(input: {
  readonly q: Query;
  readonly destination: string;
  readonly acknowledged: ReadonlySet<string>;
  readonly delivered: ReadonlySet<string>;
  readonly received: ReadonlyMap<string, number>;
  readonly output: string;
  readonly limit?: number;
}): Promise<Undelivered[]> {
  const missing = [...input.acknowledged]
    .filter((id) => !input.delivered.has(id))
    .slice(0, input.limit ?? 10);
  if (missing.length === 0) return [];
  const rows = await input.q<Record<string, unknown>>(
    `SELECT event_id, status, attempt, reason, http_status, recorded_at FROM events.deliveries
     WHERE destination = @d AND event_id IN UNNEST(@ids) ORDER BY recorded_at`,
    { d: input.destination, ids: missing },
  );
  const lines = input.output.split('\n');
  return missing.map((eventId) => ({
    destination: input.destination,
    eventId,
    ledger: rows
      .filter((r) => r['event_id'] === eventId)
      .map((r) =>
        [
          r['status'],
          `attempt ${r['attempt'] ?? '-'}`,
          r['http_status'] ?? '',
          r['reason'] ?? '',
          timeText(r['recorded_at']),
        ]
          .filter((c) => c !== '')
          .join(' '),
      ),
    received: input.received.get(eventId) ?? 0,
    log: lines.filter((l) => l.includes(eventId)).slice(-20),
  }));
}

function timeText(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (v && typeof v === 'object' && 'value' in v) return String((v as { value: unknown }).value);
  return String(v ?? '');
}

/** The trails as text under the run's table. */
export function formatUndelivered(list: readonly Undelivered[], stops: readonly string[] = []): string[] {
  if (list.length === 0) return [];
  const out = ['', 'not delivered (each ledger row, times received, log lines naming it):'];
  for (const u of list) {
    out.push(`  ${u.destination} ${u.eventId}: received ${u.received}×, ${u.ledger.length} ledger rows`);
    for (const l of u.ledger) out.push(`    ledger: ${l}`);
    for (const l of u.log) out.push(`    log: ${l.slice(0, 300)}`);
  }
  if (stops.length > 0) out.push('how services stopped:', ...stops.map((l) => `  ${l.slice(0, 300)}`));
  return out;
}
