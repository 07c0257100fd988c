/**
 * The studio's replays page (docs/console.md#replays): start a dead-letter or warehouse-slice
 * replay to one destination (`replay-start`; the scheduler runs it, not this page), and follow the
 * newest replays (`replays`), polled every two seconds while one is queued or running, and stop
 * one (`replay-cancel`). A slice shows what it backfilled (events stored before the destination
 * went live) and why the rest was not sent, the platform's age limit named.
 */
import type { ReplayFigures, ReplayRecord, ReplayState } from '../../core/scheduler/replays.ts';
import { $, admin, el, noteMissingToken, refusal } from './common.ts';

/** A replay as `replays` lists it: its object and where it stands (core/scheduler/replays.ts). */
type Replay = ReplayRecord & {
  readonly state: ReplayState['state'];
  readonly chunk?: number;
  readonly error?: string;
  readonly figures?: ReplayFigures;
};

const POLL_MS = 2000;
let timer: number | undefined;

const source = (): string => ($<HTMLInputElement>('src-slice').checked ? 'slice' : 'dead-letters') as string;

/** A datetime-local value (the person's time zone) as RFC 3339. */
const instant = (id: string): string | undefined => {
  const v = $<HTMLInputElement>(id).value;
  if (!v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? v : d.toISOString();
};

function showSource(): void {
  const slice = source() === 'slice';
  $('slice-options').hidden = !slice;
  $('dead-options').hidden = slice;
}

const when = (iso: string | undefined): string => (iso ? new Date(iso).toLocaleString() : '');

function what(r: Replay): string {
  if (r.source === 'dead-letters') return `dead letters${r.limit ? ` (at most ${r.limit})` : ''}`;
  return `stored events ${when(r.from)} – ${when(r.to)}${r.where ? ` where ${r.where}` : ''}`;
}

function progress(r: Replay): HTMLElement {
  const f = r.figures;
  if (r.state === 'queued')
    return el('div', {}, el('span', {}, 'waiting for the scheduler'), ...stopControl(r));
  if (r.state === 'given up') return el('span', { class: 'err' }, r.error ?? 'given up');
  const counts = f
    ? `${f.read}${f.total !== undefined ? ` of ${f.total}` : ''} read, ${f.republished} sent again${f.backfilled ? ` (${f.backfilled} backfilled)` : ''}, ${f.skipped} skipped, ${f.failed} failed${f.cancelled ? ', cancelled' : ''}`
    : 'starting';
  const cell = el('div', {});
  if (r.state === 'running' && f?.total !== undefined && f.total > 0)
    cell.append(
      el('progress', { max: String(f.total), value: String(f.read), 'aria-label': `replay ${r.id}` }),
      ' ',
    );
  cell.append(el('span', {}, counts));
  if (f?.went_live && f.backfilled) cell.append(el('p', { class: 'hint' }, `went live ${when(f.went_live)}`));
  const reasons = Object.entries(f?.reasons ?? {});
  if (reasons.length > 0)
    cell.append(
      el(
        'ul',
        { class: 'reasons', 'aria-label': 'Not sent, by reason' },
        ...reasons.map(([reason, n]) => el('li', {}, `${n} not sent: ${reason}`)),
      ),
    );
  if (f?.error) cell.append(el('p', { class: 'err' }, f.error));
  if (r.state === 'running') cell.append(...stopControl(r));
  return cell;
}

/** A queued or running replay's Cancel button, or that it is being cancelled. */
function stopControl(r: Replay): (HTMLElement | string)[] {
  if (r.cancel_requested_at)
    return [el('p', { class: 'hint' }, `cancelling (asked by ${r.cancel_requested_by ?? 'someone'})`)];
  const stop = el('button', { type: 'button', 'aria-label': `cancel replay ${r.id}` }, 'Cancel');
  stop.addEventListener('click', () => void cancel(r.id, stop as HTMLButtonElement));
  return [' ', stop];
}

/** Asks the scheduler to stop a replay before its next chunk; what was sent stays sent. */
async function cancel(id: string, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  const { status, json } = await admin('/v1/admin/replay-cancel', { id });
  if (status !== 200) $('start-status').replaceChildren(...refusal(status, json));
  await refresh();
}

function table(list: readonly Replay[]): HTMLElement {
  const head = ['Requested', 'Destination', 'What', 'By', 'State', 'Progress'];
  return el(
    'table',
    { 'aria-label': 'Replays' },
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      ...list.map((r) =>
        el(
          'tr',
          { 'data-id': r.id },
          el('td', {}, when(r.requested_at)),
          el('td', {}, r.destination),
          el('td', {}, what(r)),
          el('td', {}, r.requested_by),
          el(
            'td',
            {
              class:
                r.state === 'finished'
                  ? 'ok'
                  : r.state === 'given up' || r.state === 'cancelled'
                    ? 'err'
                    : '',
            },
            r.state,
          ),
          el('td', {}, progress(r)),
        ),
      ),
    ),
  );
}

async function refresh(): Promise<void> {
  if (timer !== undefined) window.clearTimeout(timer);
  timer = undefined;
  const { status, json } = await admin('/v1/admin/replays', {});
  if (status !== 200) {
    $('list').replaceChildren(...refusal(status, json));
    return;
  }
  const body = json as { replays: Replay[]; destinations: { id: string; type: string }[] };
  const select = $<HTMLSelectElement>('destination');
  if (select.options.length === 0)
    select.replaceChildren(
      ...body.destinations.map((d) => el('option', { value: d.id }, `${d.id} (${d.type})`)),
    );
  $('list').replaceChildren(
    body.replays.length === 0 ? el('p', { class: 'hint' }, 'No replay yet.') : table(body.replays),
  );
  if (body.replays.some((r) => r.state === 'queued' || r.state === 'running'))
    timer = window.setTimeout(() => void refresh(), POLL_MS);
}

async function start(): Promise<void> {
  const button = $<HTMLButtonElement>('start');
  const out = $('start-status');
  const body: Record<string, unknown> = {
    destination: $<HTMLSelectElement>('destination').value,
    source: source(),
  };
  if (body['source'] === 'slice') {
    body['from'] = instant('from');
    body['to'] = instant('to');
    const where = $<HTMLInputElement>('where').value.trim();
    if (where) body['where'] = where;
  } else {
    const limit = $<HTMLInputElement>('limit').value.trim();
    if (limit) body['limit'] = /^\d+$/.test(limit) ? Number(limit) : limit;
  }
  button.disabled = true;
  out.replaceChildren(el('p', {}, 'Starting…'));
  try {
    const { status, json } = await admin('/v1/admin/replay-start', body);
    if (status !== 200) {
      out.replaceChildren(...refusal(status, json));
      return;
    }
    const r = (json as { replay: Replay }).replay;
    out.replaceChildren(el('p', { class: 'ok' }, `Replay ${r.id} started: ${what(r)} to ${r.destination}.`));
    await refresh();
  } finally {
    button.disabled = false;
  }
}

noteMissingToken();
for (const id of ['src-dead', 'src-slice']) $(id).addEventListener('change', showSource);
$('start').addEventListener('click', () => void start());
// A slice of the last hour unless said otherwise.
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
$<HTMLInputElement>('from').value = local(new Date(Date.now() - 3_600_000));
$<HTMLInputElement>('to').value = local(new Date());
showSource();
void refresh();
