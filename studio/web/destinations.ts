/**
 * The studio's destination health page (docs/console.md#destination-health): the
 * `destination-health` call over a range, as a table per destination (totals by status, failure
 * rate, latency to delivery, the breaker as the ledger shows it), the top errors with a sample
 * event linked to the explorer, and each destination's hours as a table (a chart of a few points
 * says less than its numbers). Below them, the Alert resources with a button that test-fires each
 * (`alert-test`: the scheduler sends a test message through the alert's connection). Each
 * destination's name opens its debugger (debugger.ts).
 * The reconciliation of the last 14 days per destination (reconciliation.ts).
 * Each alert says whether it is firing, clear or was never evaluated, and since when.
 */
import type { AlertStatus } from '../../core/alerts/status.ts';
import type { DestinationHealth, MatchShare } from '../../core/console/destination-health.ts';
import type { DestinationReconciliation } from '../../core/console/reconciliation-chart.ts';
import { MATCH_GUIDANCE } from '../../core/platforms/standard-events.ts';
import { clearCharts } from './charts.ts';
import { $, admin, el, focusableScrollBoxes, noteMissingToken, refusal } from './common.ts';
import { reconciliation } from './reconciliation.ts';

const HOUR = 3_600_000;
const STATUSES = ['delivered', 'folded', 'skipped', 'rejected', 'failed', 'dead_lettered'] as const;

interface HealthAnswer {
  readonly destinations: readonly DestinationHealth[];
  readonly errors: readonly Record<string, unknown>[];
  readonly types: Readonly<Record<string, string>>;
  /** Each webhook destination's format and key rotation state, in words. */
  readonly signing?: Readonly<Record<string, string>>;
  readonly match: { readonly since: string; readonly shares: readonly MatchShare[] };
  readonly reconciliation: readonly DestinationReconciliation[];
}

/** What each platform says matters most for matching (its folder's standard-events.ts), by destination type. */
const GUIDANCE: Readonly<Record<string, string | undefined>> = MATCH_GUIDANCE;

const ms = (v: number | null): string =>
  v === null ? '–' : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`;
const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(1)} %`);

function table(
  label: string,
  head: readonly string[],
  rows: readonly (readonly (Node | string)[])[],
): HTMLElement {
  return el(
    'table',
    { 'aria-label': label },
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c))))),
  );
}

function breakerCell(b: DestinationHealth['breaker']): HTMLElement {
  const text = b === 'open' ? 'held back' : b === 'closed' ? 'sending' : 'no attempts';
  return el('span', { class: b === 'open' ? 'err' : b === 'closed' ? 'ok' : 'hint' }, text);
}

function destinations(list: readonly DestinationHealth[]): HTMLElement {
  if (list.length === 0) return el('p', { class: 'hint' }, 'No destination and no ledger row in this range.');
  return table(
    'Destinations',
    // What needs attention first, so a phone shows it before the table scrolls.
    ['destination', 'breaker', 'failure rate', ...STATUSES, 'replayed', 'p50', 'p95', 'max'],
    list.map((d) => [
      // Each destination opens its debugger: its last attempts, what was sent, what it answered.
      el(
        'a',
        {
          href: `/debugger?destination=${encodeURIComponent(d.destination)}`,
          'aria-label': `${d.destination}: open its debugger`,
        },
        d.destination,
      ),
      breakerCell(d.breaker),
      el('span', { class: (d.failure_rate ?? 0) > 0.05 ? 'err' : '' }, pct(d.failure_rate)),
      ...STATUSES.map((s) => String(d.totals[s])),
      String(d.totals.replayed),
      ms(d.latency.p50_ms),
      ms(d.latency.p95_ms),
      ms(d.latency.max_ms),
    ]),
  );
}

/** How each webhook signs: its format and where its key rotation stands (one line each). */
function signing(byId: Readonly<Record<string, string>>): HTMLElement[] {
  return Object.entries(byId).map(([id, how]) => el('p', { class: 'hint' }, `Webhook ${id} signs: ${how}.`));
}

function errors(rows: HealthAnswer['errors']): HTMLElement {
  if (rows.length === 0)
    return el('p', { class: 'hint' }, 'No rejected, failed or dead-lettered row in this range.');
  return table(
    'Top errors',
    ['destination', 'status', 'reason', 'rows', 'events', 'HTTP', 'sample'],
    rows.map((r) => {
      const id = String(r['sample_event_id'] ?? '');
      return [
        String(r['destination']),
        String(r['status']),
        el('span', { class: 'why' }, String(r['reason'] || '(none)')),
        String(r['rows_recorded']),
        String(r['events']),
        r['http_status'] == null ? '' : String(r['http_status']),
        id ? el('a', { href: `/explorer?event_id=${encodeURIComponent(id)}` }, id) : '',
      ];
    }),
  );
}

function hours(list: readonly DestinationHealth[]): HTMLElement[] {
  return list
    .filter((d) => d.hours.length > 0)
    .map((d) =>
      el(
        'details',
        {},
        el(
          'summary',
          {},
          `${d.destination}: ${d.hours.length} hour${d.hours.length === 1 ? '' : 's'} with rows`,
        ),
        el(
          'div',
          // Focusable, so a keyboard can scroll a table wider than a phone.
          {
            class: 'scroll',
            tabindex: '0',
            role: 'region',
            'aria-label': `${d.destination} by hour, scrollable`,
          },
          table(
            `${d.destination} by hour`,
            ['hour (UTC)', ...STATUSES, 'held back'],
            d.hours.map((h) => [
              String(h['hour']).slice(0, 16).replace('T', ' '),
              ...STATUSES.map((s) => String(h[s] ?? 0)),
              String(h['held_back'] ?? 0),
            ]),
          ),
        ),
      ),
    );
}

function match(answer: HealthAnswer): { warnings: HTMLElement[]; table: HTMLElement } {
  const shares = answer.match.shares;
  const dropped = shares.filter((m) => m.dropped);
  const warnings = dropped.map((m) =>
    el(
      'p',
      { class: 'warn', role: 'alert' },
      `${m.destination} · ${m.event_name}: ${m.identifier} fell from ${pct(m.before)} to ${pct(m.recent)} of delivered requests.`,
    ),
  );
  const types = [...new Set(shares.map((m) => answer.types[m.destination] ?? ''))];
  warnings.push(...types.flatMap((t) => (GUIDANCE[t] ? [el('p', { class: 'hint' }, GUIDANCE[t])] : [])));
  if (shares.length === 0)
    return {
      warnings,
      table: el('p', { class: 'hint' }, 'No delivered request with identifiers recorded in this range.'),
    };
  return {
    warnings,
    table: table(
      'Match quality',
      [
        'destination',
        'event',
        'identifier',
        `since ${answer.match.since.slice(0, 16).replace('T', ' ')}`,
        'before',
        '',
      ],
      shares.map((m) => [
        m.destination,
        m.event_name,
        m.identifier,
        pct(m.recent),
        pct(m.before),
        m.dropped ? el('span', { class: 'warn' }, 'dropped') : '',
      ]),
    ),
  };
}

async function load(): Promise<void> {
  const hoursBack = Number($<HTMLSelectElement>('range').value);
  const to = new Date(Math.ceil(Date.now() / HOUR) * HOUR);
  const from = new Date(to.getTime() - hoursBack * HOUR);
  const status = $('health-status');
  status.textContent = 'Reading the ledger…';
  const { status: code, json } = await admin('/v1/admin/destination-health', {
    from: from.toISOString(),
    to: to.toISOString(),
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const answer = json as HealthAnswer;
  $('destinations').replaceChildren(destinations(answer.destinations), ...signing(answer.signing ?? {}));
  $('errors').replaceChildren(errors(answer.errors));
  clearCharts();
  $('reconciliation').replaceChildren(...reconciliation(answer.reconciliation));
  $('hours').replaceChildren(...hours(answer.destinations));
  const m = match(answer);
  $('match-warnings').replaceChildren(...m.warnings);
  $('match').replaceChildren(m.table);
  status.textContent = `${from.toISOString().slice(0, 16).replace('T', ' ')} to ${to.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
}

/** Asks the scheduler for a test message of one alert, and says in the status line what came of it. */
async function testAlert(name: string): Promise<void> {
  const status = $('alert-status');
  status.textContent = `Asking the scheduler to test ${name}…`;
  const { status: code, json } = await admin('/v1/admin/alert-test', { name });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const r = json as { started: string; version: string };
  status.textContent = `Test of ${name} ${r.version} started (${r.started}): its connection gets a message within a minute.`;
}

async function loadAlerts(): Promise<void> {
  const { status: code, json } = await admin('/v1/admin/resources/Alert');
  if (code !== 200) {
    $('alert-status').replaceChildren(...refusal(code, json));
    return;
  }
  const live = (
    json as { resources: { name: string; version: string; deleted?: boolean }[] }
  ).resources.filter((r) => !r.deleted);
  if (live.length === 0) {
    $('alerts').replaceChildren(el('p', { class: 'hint' }, 'No alert yet.'));
    return;
  }
  // Where each stands (the scheduler's `alert_states`); the list still shows when that read fails.
  const states = await admin('/v1/admin/alert-status', { alerts: live.map((a) => a.name) });
  const byName = new Map(
    states.status === 200
      ? (states.json as { alerts: AlertStatus[] }).alerts.map((s) => [s.alert, s] as const)
      : [],
  );
  $('alerts').replaceChildren(
    table(
      'Alerts',
      // The version sits under the name, so the test button stays in sight at 390 px.
      ['alert', 'state', 'since', 'test'],
      live.map((a) => {
        const s = byName.get(a.name);
        const button = el(
          'button',
          { type: 'button', 'aria-label': `Send a test message of ${a.name}` },
          'Send a test',
        );
        button.addEventListener('click', () => void testAlert(a.name));
        const state = s
          ? el('span', { class: s.state === 'firing' ? 'err' : s.state === 'clear' ? 'ok' : 'hint' }, s.state)
          : 'unknown';
        const since = s?.since ? `${s.since.slice(0, 16).replace('T', ' ')} UTC` : '';
        const alert = el(
          'span',
          {},
          el('span', { class: 'name' }, a.name),
          el('span', { class: 'hint version' }, `version ${a.version}`),
        );
        return [alert, state, since, button];
      }),
    ),
  );
}

noteMissingToken();
focusableScrollBoxes();
$('range').addEventListener('change', () => void load());
void load();
void loadAlerts();
