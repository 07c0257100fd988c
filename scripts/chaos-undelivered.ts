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

type Query = <T>(sql: string, params?: Record<string, unknown>) => Promise<T[]>;

/** The trail of up to `limit` events the destination has no `delivered` row for. */
export async function undeliveredTrail(input: {
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
export function formatUndelivered(list: readonly Undelivered[]): string[] {
  if (list.length === 0) return [];
  const out = ['', 'not delivered (each ledger row, times received, log lines naming it):'];
  for (const u of list) {
    out.push(`  ${u.destination} ${u.eventId}: received ${u.received}×, ${u.ledger.length} ledger rows`);
    for (const l of u.ledger) out.push(`    ledger: ${l}`);
    for (const l of u.log) out.push(`    log: ${l.slice(0, 300)}`);
  }
  return out;
}
