/**
 * The console's overview page (docs/console.md): over the chosen range, the studio's `overview`
 * call (core/console/overview.ts, SQL over the warehouse) drawn as charts (uPlot) with the same
 * numbers as tables, for readers of either. The range is kept in the address
 * (`/console?hours=168`).
 */
import uPlot from 'uplot';
import type { Overview } from '../../core/console/overview.ts';
import { $, admin, el, noteMissingToken, refusal } from './common.ts';

/** Distinct at a glance and for the common kinds of colour blindness (Okabe–Ito). */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#999999'];
/** Lines drawn per chart; the other names are summed as one. */
const MAX_SERIES = 6;

/** Steps between a count axis's ticks: whole numbers only. */
const COUNT_STEPS = [1, 2, 5]
  .flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6].map((p) => m * p))
  .sort((a, b) => a - b);

const charts: uPlot[] = [];

function table(label: string, head: string[], rows: (string | number)[][]): HTMLElement {
  return el(
    'table',
    { 'aria-label': label },
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, String(c)))))),
  );
}

const figure = (label: string, value: string, note = '') =>
  el(
    'div',
    { class: 'figure' },
    el('span', { class: 'label' }, label),
    el('strong', {}, value),
    note ? el('span', { class: 'note' }, note) : '',
  );

const fmt = new Intl.NumberFormat('en');
const ms = (v: number | null) => (v === null ? '—' : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`);

/** A line chart of hourly series into `target`, replacing what was there. */
function lineChart(
  target: HTMLElement,
  label: string,
  hours: readonly string[],
  series: { name: string; counts: readonly number[] }[],
): void {
  const x = hours.map((h) => Date.parse(h) / 1000);
  const opts: uPlot.Options = {
    title: label,
    width: Math.max(280, target.clientWidth),
    height: 260,
    // The page speaks UTC, and so do the axes; counts are whole numbers.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [{}, { label: 'per hour', size: 60, incrs: COUNT_STEPS }],
    series: [
      { label: 'hour (UTC)' },
      ...series.map((s, i) => ({
        label: s.name,
        stroke: PALETTE[i % PALETTE.length] as string,
        width: 2,
        points: { show: hours.length <= 48 },
      })),
    ],
  };
  target.replaceChildren();
  charts.push(new uPlot(opts, [x, ...series.map((s) => [...s.counts])], target));
}

function render(o: Overview): void {
  for (const c of charts.splice(0)) c.destroy();
  const dead = o.deadLetters.reduce((a, d) => a + d.deliveries, 0);
  const all = o.totals.events + o.totals.invalid;
  $('figures').replaceChildren(
    figure('Events stored', fmt.format(o.totals.events)),
    figure(
      'Invalid events',
      fmt.format(o.totals.invalid),
      all > 0 ? `${((o.totals.invalid / all) * 100).toFixed(1)}% of what arrived` : '',
    ),
    figure(
      'Dead letters',
      fmt.format(dead),
      dead > 0 ? o.deadLetters.map((d) => `${d.destination}: ${d.deliveries}`).join(', ') : '',
    ),
    figure(
      'Receipt to storage',
      `p50 ${ms(o.latency.p50_ms)}`,
      `p99 ${ms(o.latency.p99_ms)}, max ${ms(o.latency.max_ms)}`,
    ),
  );

  const top = o.events.slice(0, MAX_SERIES);
  const rest = o.events.slice(MAX_SERIES);
  const series = [...top.map((e) => ({ name: e.name, counts: e.counts }))];
  if (rest.length > 0)
    series.push({
      name: `${rest.length} other event(s)`,
      counts: o.hours.map((_, i) => rest.reduce((a, e) => a + (e.counts[i] ?? 0), 0)),
    });
  const eventsChart = $('events-chart');
  if (o.events.length === 0) eventsChart.replaceChildren(el('p', {}, 'No events were stored in this range.'));
  else lineChart(eventsChart, 'Events stored per hour, by name', o.hours, series);
  $('events-table').replaceChildren(
    table(
      'Events per hour',
      ['Hour (UTC)', ...o.events.map((e) => e.name)],
      o.hours
        .map((h, i) => [h.slice(0, 13).replace('T', ' '), ...o.events.map((e) => e.counts[i] ?? 0)])
        .filter((r) => r.slice(1).some((v) => v !== 0)),
    ),
  );

  const invalidChart = $('invalid-chart');
  if (o.totals.invalid === 0)
    invalidChart.replaceChildren(el('p', { class: 'ok' }, 'No invalid events in this range.'));
  else lineChart(invalidChart, 'Invalid events per hour', o.hours, [{ name: 'invalid', counts: o.invalid }]);
  $('reasons').replaceChildren(
    o.reasons.length === 0
      ? el('p', {}, 'None.')
      : table(
          'Top reasons',
          ['Reason', 'Field', 'What is wrong', 'Events'],
          o.reasons.map((r) => [r.reason, r.path, r.message, r.events]),
        ),
  );

  const destinations = [...new Set(o.deliveries.map((d) => d.destination))];
  const statuses = ['delivered', 'skipped', 'rejected', 'failed', 'dead_lettered'];
  const count = (d: string, s: string) =>
    o.deliveries.find((x) => x.destination === d && x.status === s)?.deliveries ?? 0;
  $('deliveries').replaceChildren(
    destinations.length === 0
      ? el('p', {}, 'No deliveries were recorded in this range.')
      : table(
          'Deliveries by destination and status',
          ['Destination', ...statuses],
          destinations.map((d) => [d, ...statuses.map((s) => count(d, s))]),
        ),
  );
}

async function refresh(): Promise<void> {
  const hours = Number($<HTMLSelectElement>('range').value);
  history.replaceState(null, '', `/console?hours=${hours}`);
  const to = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
  const from = new Date(to.getTime() - hours * 3_600_000);
  const status = $('overview-status');
  status.textContent = 'Querying the warehouse…';
  const started = performance.now();
  const { status: code, json } = await admin('/v1/admin/overview', {
    from: from.toISOString(),
    to: to.toISOString(),
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  render(json as Overview);
  status.textContent = `From ${from.toISOString().slice(0, 16).replace('T', ' ')} to ${to.toISOString().slice(0, 16).replace('T', ' ')} UTC, in ${Math.round(performance.now() - started)} ms.`;
}

function start(): void {
  noteMissingToken();
  const range = $<HTMLSelectElement>('range');
  const asked = new URLSearchParams(location.search).get('hours');
  if (asked && [...range.options].some((o) => o.value === asked)) range.value = asked;
  range.addEventListener('change', () => void refresh());
  $('refresh').addEventListener('click', () => void refresh());
  let resizing: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => {
      for (const c of charts)
        c.setSize({ width: Math.max(280, c.root.parentElement?.clientWidth ?? 280), height: 260 });
    }, 150);
  });
  void refresh();
}

start();
