/**
 * The destination page's reconciliation (docs/console.md#reconciliation): per destination, a
 * table of its last 14 days, each day four bars (permitted → sent → accepted → counted, scaled to
 * the day's permitted), the ratios between them, and the top reasons of each gap, each linking to
 * the debugger on that destination and event. With two days or more, the same four figures as
 * lines over the days (charts.ts). "Counted" reads "not reported by the platform" where the
 * platform publishes no count, and "not read yet" before its first read.
 */
import type {
  DestinationReconciliation,
  Gap,
  ReconciliationDay,
} from '../../core/console/reconciliation-chart.ts';
import { type LineSeries, lineChart } from './charts.ts';
import { el } from './common.ts';

const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(1)} %`);

/** What each gap is, in the page's words. */
const GAP_LABEL: Readonly<Record<Gap, string>> = {
  skipped: 'skipped before sending (not permitted)',
  unsent: 'permitted, not sent',
  refused: 'sent, refused by the platform',
};

/** One figure: its name, a bar scaled to `max` and its number, or why there is none (no bar). */
function bar(name: string, value: number | null, max: number, missing: string): HTMLElement {
  if (value === null)
    return el(
      'div',
      { class: 'funnel-step' },
      el('span', { class: 'funnel-name' }, name),
      el('span', { class: 'funnel-missing hint' }, missing),
    );
  return el(
    'div',
    { class: 'funnel-step' },
    el('span', { class: 'funnel-name' }, name),
    el('progress', {
      max: String(Math.max(1, max)),
      value: String(value),
      'aria-label': `${name}: ${value}`,
    }),
    el('span', { class: 'funnel-value' }, String(value)),
  );
}

function reasons(destination: string, d: ReconciliationDay): HTMLElement {
  if (d.reasons.length === 0) return el('p', { class: 'hint' }, 'No skipped, unsent or refused event.');
  return el(
    'ul',
    { class: 'gap-reasons', 'aria-label': `${destination} ${d.day}: reasons for the gaps` },
    ...d.reasons.map((r) =>
      el(
        'li',
        {},
        `${GAP_LABEL[r.gap]}: `,
        el(
          'a',
          {
            href: `/debugger?destination=${encodeURIComponent(destination)}&event=${encodeURIComponent(r.sample_event_id)}`,
            'aria-label': `${r.reason}, ${r.events} event${r.events === 1 ? '' : 's'}: open ${r.sample_event_id} in the debugger`,
          },
          el('span', { class: 'why' }, r.reason),
        ),
        ` (${r.events} event${r.events === 1 ? '' : 's'})`,
      ),
    ),
  );
}

function dayRow(destination: string, d: ReconciliationDay): HTMLElement {
  const counted = d.not_reported ? 'not reported by the platform' : 'not read yet';
  const ratios = [
    `sent ${pct(d.sent_ratio)} of permitted`,
    `accepted ${pct(d.accepted_ratio)} of sent`,
    ...(d.counted === null ? [] : [`counted ${pct(d.counted_ratio)} of accepted`]),
  ];
  const short = d.counted !== null && d.counted < d.accepted;
  return el(
    'tr',
    {},
    el('th', { scope: 'row' }, d.day),
    el(
      'td',
      {},
      bar('permitted', d.permitted, d.permitted, ''),
      bar('sent', d.sent, d.permitted, ''),
      bar('accepted', d.accepted, d.permitted, ''),
      bar('counted', d.counted, d.permitted, counted),
      el('p', { class: short ? 'warn ratios' : 'hint ratios' }, ratios.join(' · ')),
      ...(d.counted_source && !d.not_reported
        ? [el('p', { class: 'hint' }, `counted by ${d.counted_source}`)]
        : []),
      reasons(destination, d),
    ),
  );
}

/** Each destination's days as a table, newest first, and its lines when it has two days or more. */
export function reconciliation(list: readonly DestinationReconciliation[]): HTMLElement[] {
  if (list.length === 0)
    return [el('p', { class: 'hint' }, 'No destination has sent anything in the last 14 days.')];
  return list.flatMap((r) => {
    const chart = el('div', { class: 'chart' });
    const parts: HTMLElement[] = [
      el('h3', {}, `${r.destination} (${r.platform})`),
      el(
        'table',
        { 'aria-label': `${r.destination}: reconciliation per day`, class: 'funnel' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'col' }, 'day (UTC)'),
            el('th', { scope: 'col' }, 'permitted → sent → accepted → counted'),
          ),
        ),
        el('tbody', {}, ...[...r.days].reverse().map((d) => dayRow(r.destination, d))),
      ),
    ];
    if (r.days.length < 2) return parts;
    // Drawn once the element is in the page (uPlot measures its width).
    queueMicrotask(() => {
      const series: LineSeries[] = (['permitted', 'sent', 'accepted', 'counted'] as const).map((k) => ({
        name: k,
        values: r.days.map((d) => d[k]),
      }));
      lineChart(
        chart,
        { title: `${r.destination}: per day`, xLabel: 'day', yLabel: 'events', wholeNumbers: true },
        r.days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000),
        series,
      );
    });
    return [...parts, chart];
  });
}
