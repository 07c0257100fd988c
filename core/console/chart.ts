/**
 * Which chart a query's result makes (the console's SQL page, docs/console.md). Two shapes are
 * drawn, the ones dashboards return most:
 * - a time column first, then numbers: one line per number column (`hour, events, users`);
 * - a time, a text and a number column: one line per text value, pivoted (`hour, event_name,
 *   events`), the busiest values first, the rest summed as one line; a time without a row for a
 *   value is zero for it (GROUP BY leaves out empty groups).
 * Anything else is a table only. Pure.
 */

export interface ChartSeries {
  readonly name: string;
  /** Aligned with `x`; null where the result has no row for that time. */
  readonly values: readonly (number | null)[];
}

export interface Chart {
  /** Seconds since the epoch, ascending. */
  readonly x: readonly number[];
  readonly series: readonly ChartSeries[];
  readonly xColumn: string;
}

/** Lines drawn at most; other pivoted values are summed as one. */
export const MAX_LINES = 6;

/** ISO dates and timestamps as BigQuery gives them (`2026-11-23`, `2026-11-23T04:00:00.000Z`, `2026-11-23 04:00:00`). */
const TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}| UTC)?)?$/;

function seconds(v: unknown): number | undefined {
  if (typeof v !== 'string' || !TIME.test(v)) return undefined;
  const text = v.length === 10 ? `${v}T00:00:00Z` : v.replace(' UTC', 'Z').replace(' ', 'T');
  const ms = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

const isNumber = (v: unknown): boolean =>
  (typeof v === 'number' && Number.isFinite(v)) ||
  (typeof v === 'string' && v !== '' && Number.isFinite(Number(v)));

/** The chart a result makes, or undefined when it makes none. */
export function chartOf(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
): Chart | undefined {
  const [xColumn, ...rest] = columns;
  if (xColumn === undefined || rest.length === 0 || rows.length < 2) return undefined;
  const xs = rows.map((r) => seconds(r[xColumn]));
  if (xs.some((x) => x === undefined)) return undefined;
  const numeric = (c: string) => rows.every((r) => r[c] === null || isNumber(r[c]));
  const times = [...new Set(xs as number[])].sort((a, b) => a - b);
  const at = new Map(times.map((t, i) => [t, i]));

  if (rest.every(numeric)) {
    return {
      xColumn,
      x: times,
      series: rest.map((c) => {
        const values: (number | null)[] = times.map(() => null);
        rows.forEach((r, i) => {
          const slot = at.get(xs[i] as number) as number;
          if (r[c] !== null) values[slot] = (values[slot] ?? 0) + Number(r[c]);
        });
        return { name: c, values };
      }),
    };
  }
  const [label, value] = rest;
  if (rest.length !== 2 || label === undefined || value === undefined || !numeric(value)) return undefined;
  const byLabel = new Map<string, (number | null)[]>();
  rows.forEach((r, i) => {
    const name = String(r[label] ?? '(null)');
    let values = byLabel.get(name);
    if (!values) {
      // A GROUP BY has no row where a value had nothing: zero, not a gap.
      values = times.map(() => 0);
      byLabel.set(name, values);
    }
    const slot = at.get(xs[i] as number) as number;
    if (r[value] !== null) values[slot] = (values[slot] ?? 0) + Number(r[value]);
  });
  const total = (v: readonly (number | null)[]) => v.reduce<number>((a, b) => a + (b ?? 0), 0);
  const ranked = [...byLabel]
    .map(([name, values]) => ({ name, values }))
    .sort((a, b) => total(b.values) - total(a.values) || a.name.localeCompare(b.name));
  const shown = ranked.slice(0, MAX_LINES);
  const others = ranked.slice(MAX_LINES);
  if (others.length > 0)
    shown.push({
      name: `${others.length} other ${label} value(s)`,
      values: times.map((_, i) => others.reduce((a, s) => a + (s.values[i] ?? 0), 0)),
    });
  return { xColumn, x: times, series: shown };
}
