/**
 * The console's overview page (docs/console.md): over the chosen range, the studio's `overview`
 * call (core/console/overview.ts, SQL over the warehouse) drawn as charts (uPlot) with the same
 * numbers as tables, for readers of either. The range is kept in the address
 * (`/console?hours=168`).
 */
import type { Overview, Share } from '../../core/console/overview.ts';
import { clearCharts, lineChart } from './charts.ts';
import { $, admin, el, focusableScrollBoxes, noteMissingToken, refusal } from './common.ts';

/** Lines drawn per chart; the other names are summed as one. */
const MAX_SERIES = 6;

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

const hourly = (title: string) => ({ title, xLabel: 'hour (UTC)', yLabel: 'per hour', wholeNumbers: true });

function render(o: Overview): void {
  clearCharts();
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
  const series = [...top.map((e) => ({ name: e.name, values: e.counts }))];
  if (rest.length > 0)
    series.push({
      name: `${rest.length} other event(s)`,
      values: o.hours.map((_, i) => rest.reduce((a, e) => a + (e.counts[i] ?? 0), 0)),
    });
  const x = o.hours.map((h) => Date.parse(h) / 1000);
  const eventsChart = $('events-chart');
  if (o.events.length === 0) eventsChart.replaceChildren(el('p', {}, 'No events were stored in this range.'));
  else lineChart(eventsChart, hourly('Events stored per hour, by name'), x, series);
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
  else
    lineChart(invalidChart, hourly('Invalid events per hour'), x, [{ name: 'invalid', values: o.invalid }]);
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
  const statuses = ['delivered', 'folded', 'skipped', 'rejected', 'failed', 'dead_lettered'];
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

/** Rows shown per breakdown; the rest summed as one. */
const MAX_SHARES = 10;

function shareTable(label: string, shares: readonly Share[]): HTMLElement {
  const top = shares.slice(0, MAX_SHARES);
  const rest = shares.slice(MAX_SHARES).reduce((a, x) => a + x.events, 0);
  const rows: (string | number)[][] = top.map((x) => [x.value || '(not derived)', x.events]);
  if (rest > 0) rows.push([`${shares.length - MAX_SHARES} other(s)`, rest]);
  return el(
    'div',
    { class: 'scroll' },
    rows.length === 0 ? el('p', {}, 'None.') : table(label, [label, 'Events'], rows),
  );
}

function renderAudience(o: Overview): void {
  const a = o.audience;
  $('audience-note').textContent = a.botsIncluded
    ? `Bots counted: ${fmt.format(a.bots)} event(s) flagged enriched.bot are in these tables.`
    : `Bots left out: ${fmt.format(a.bots)} event(s) flagged enriched.bot are not in these tables.`;
  $('audience').replaceChildren(
    shareTable('Country', a.countries),
    shareTable('Device', a.devices),
    shareTable('Channel', a.channels),
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
    bots: $<HTMLInputElement>('include-bots').checked,
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  render(json as Overview);
  renderAudience(json as Overview);
  status.textContent = `From ${from.toISOString().slice(0, 16).replace('T', ' ')} to ${to.toISOString().slice(0, 16).replace('T', ' ')} UTC, in ${Math.round(performance.now() - started)} ms.`;
}

function start(): void {
  noteMissingToken();
  // The wide tables scroll in their boxes: each box a Tab stop, so a keyboard can scroll it.
  focusableScrollBoxes();
  const range = $<HTMLSelectElement>('range');
  const asked = new URLSearchParams(location.search).get('hours');
  if (asked && [...range.options].some((o) => o.value === asked)) range.value = asked;
  range.addEventListener('change', () => void refresh());
  $('include-bots').addEventListener('change', () => void refresh());
  $('refresh').addEventListener('click', () => void refresh());
  void refresh();
}

start();
