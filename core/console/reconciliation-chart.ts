/**
 * The destination page's reconciliation (docs/console.md#reconciliation): per destination and
 * day of the last RECONCILIATION_DAYS days, permitted → sent → accepted → counted from the view
 * `reconciliation`, and the top reasons of each gap from `reconciliation_gaps`, each with an
 * event to open in the debugger. Read-only SQL: the views' range form over the window's partitions
 * (core/warehouse/reconciliation.ts), run the way the page's other figures are.
 */
import {
  NO_COUNTS,
  type ReconciliationSettings,
  reconciliationRangeSql,
} from '../warehouse/reconciliation.ts';

/** Days the page shows, the newest being the range's last. */
export const RECONCILIATION_DAYS = 14;

/** Reasons shown per destination, day and gap. */
export const TOP_REASONS = 3;

/** The gaps between the figures, and the ledger stages (reconciliation_gaps.stage) behind each. */
export const GAPS = Object.freeze({
  /** Stored events the decision layer held back: before "permitted". */
  skipped: ['skipped'],
  /** permitted → sent. */
  unsent: ['unsent'],
  /** sent → accepted. */
  refused: ['refused', 'refused_later'],
} as const);

export type Gap = keyof typeof GAPS;

export interface GapReason {
  readonly gap: Gap;
  readonly stage: string;
  readonly reason: string;
  readonly events: number;
  readonly sample_event_id: string;
}

export interface ReconciliationDay {
  readonly day: string;
  readonly permitted: number;
  readonly sent: number;
  readonly accepted: number;
  /** The platform's own count; null when not read or when the platform reports none. */
  readonly counted: number | null;
  readonly counted_source: string | null;
  /** True when the platform publishes no count (the page says "not reported by the platform"). */
  readonly not_reported: boolean;
  readonly sent_ratio: number | null;
  readonly accepted_ratio: number | null;
  readonly counted_ratio: number | null;
  /** The top reasons of each gap that day, the most events first. */
  readonly reasons: readonly GapReason[];
}

export interface DestinationReconciliation {
  readonly destination: string;
  readonly platform: string;
  /** Oldest day first; only days the view has a row for. */
  readonly days: readonly ReconciliationDay[];
}

/** The first and last day (YYYY-MM-DD, UTC) of the RECONCILIATION_DAYS ending on `to`'s day. */
export function reconciliationWindow(to: string): { since: string; until: string } {
  const end = new Date(Date.parse(to) - 1);
  const start = new Date(end.getTime() - (RECONCILIATION_DAYS - 1) * 86_400_000);
  return { since: start.toISOString().slice(0, 10), until: end.toISOString().slice(0, 10) };
}

/**
 * The two queries, with @since and @until as YYYY-MM-DD; `ref` quotes a table of the events
 * dataset. They run the views' range form (core/warehouse/reconciliation.ts), which reads only the
 * window's partitions: a filter on the views' `day` would read every one.
 */
export function reconciliationSql(
  settings: ReconciliationSettings,
  ref: (name: string) => string,
): { days: string; gaps: string } {
  const range = reconciliationRangeSql(settings, ref, { from: 'since', to: 'until' });
  return {
    days: [
      'SELECT CAST(day AS STRING) AS day, destination, platform, permitted, sent, accepted, counted,',
      '  counted_source, sent_ratio, accepted_ratio, counted_ratio',
      `FROM (\n${range.days}\n) AS reconciliation`,
      'ORDER BY destination, day',
    ].join('\n'),
    gaps: [
      'SELECT day, destination, stage, reason, events, sample_event_id FROM (',
      '  SELECT CAST(day AS STRING) AS day, destination, stage, reason, events, sample_event_id,',
      '    ROW_NUMBER() OVER (PARTITION BY destination, day, stage ORDER BY events DESC, reason) AS rank',
      `  FROM (\n${range.gaps}\n) AS gaps`,
      `) WHERE rank <= ${TOP_REASONS}`,
      'ORDER BY destination, day, stage, events DESC, reason',
    ].join('\n'),
  };
}

type Row = Record<string, unknown>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const maybe = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function gapOf(stage: string): Gap | undefined {
  return (Object.keys(GAPS) as Gap[]).find((g) => (GAPS[g] as readonly string[]).includes(stage));
}

/** The queries' rows per destination, each day with its top reasons per gap (TOP_REASONS each). */
export function shapeReconciliation(rows: {
  days: readonly Row[];
  gaps: readonly Row[];
}): DestinationReconciliation[] {
  const byDestination = new Map<string, { platform: string; days: ReconciliationDay[] }>();
  for (const r of rows.days) {
    const destination = String(r['destination']);
    const day = String(r['day']).slice(0, 10);
    const source = r['counted_source'] == null ? null : String(r['counted_source']);
    const reasons = rows.gaps
      .filter((g) => g['destination'] === destination && String(g['day']).slice(0, 10) === day)
      .flatMap((g): GapReason[] => {
        const gap = gapOf(String(g['stage']));
        return gap
          ? [
              {
                gap,
                stage: String(g['stage']),
                reason: String(g['reason']),
                events: num(g['events']),
                sample_event_id: String(g['sample_event_id']),
              },
            ]
          : [];
      });
    // refused and refused_later are one gap: keep its TOP_REASONS busiest over both stages.
    const top = (Object.keys(GAPS) as Gap[]).flatMap((gap) =>
      reasons
        .filter((x) => x.gap === gap)
        .sort((a, b) => b.events - a.events || a.reason.localeCompare(b.reason))
        .slice(0, TOP_REASONS),
    );
    const entry = byDestination.get(destination) ?? { platform: String(r['platform']), days: [] };
    entry.days.push({
      day,
      permitted: num(r['permitted']),
      sent: num(r['sent']),
      accepted: num(r['accepted']),
      counted: maybe(r['counted']),
      counted_source: source,
      not_reported: source === NO_COUNTS,
      sent_ratio: maybe(r['sent_ratio']),
      accepted_ratio: maybe(r['accepted_ratio']),
      counted_ratio: maybe(r['counted_ratio']),
      reasons: top,
    });
    byDestination.set(destination, entry);
  }
  return [...byDestination].map(([destination, d]) => ({
    destination,
    platform: d.platform,
    days: d.days.sort((a, b) => a.day.localeCompare(b.day)),
  }));
}
