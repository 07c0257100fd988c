/**
 * The studio's live events page (docs/console.md#live-events): the `live` call polled every
 * three seconds while the tab is visible and not paused, its refused requests and stored events
 * shown newest first, filtered by the text and the lists asked for.
 */
import { $, admin, el, focusableScrollBoxes, noteMissingToken, refusal, rowsTable } from './common.ts';

const POLL_MS = 3000;
let timer: number | undefined;
let paused = false;

interface LiveAnswer {
  readonly refused: readonly Record<string, unknown>[];
  readonly accepted: readonly Record<string, unknown>[];
}

const time = (v: unknown): string => (typeof v === 'string' ? new Date(v).toLocaleTimeString() : '');

/** The columns of the refused table; the answer's message and field violations are shown whole. */
const REFUSED_COLUMNS = ['at', 'status', 'reason', 'source', 'path', 'message', 'fields', 'size', 'count'];
const WHOLE = new Set(['message', 'fields']);

function refusedTable(rows: LiveAnswer['refused']): HTMLElement {
  if (rows.length === 0) return el('p', { class: 'hint' }, 'No refused request in this window.');
  const table = rowsTable(
    'Refused requests',
    rows.map((r) => ({
      ...r,
      at: time(r['refused_at']),
      count: Number(r['represents'] ?? 1) > 1 ? `×${r['represents']}` : '',
    })),
    REFUSED_COLUMNS,
  );
  // The table cuts a cell at 80 characters; the sender's message and every field are kept whole
  // (the gateway already bounded them), a violation a line, as the console shows an answer.
  table.querySelectorAll('tbody tr').forEach((tr, i) => {
    REFUSED_COLUMNS.forEach((c, j) => {
      if (!WHOLE.has(c)) return;
      const cell = tr.children[j] as HTMLElement;
      const v = rows[i]?.[c];
      cell.textContent = typeof v === 'string' ? v : '';
      cell.className = 'whole';
    });
  });
  return table;
}

const ACCEPTED_COLUMNS = ['at', 'event_name', 'from', 'event_id'];

/** Stored events; each event id links to the debugger's view of the event (its trace). */
function acceptedTable(rows: LiveAnswer['accepted']): HTMLElement {
  if (rows.length === 0) return el('p', { class: 'hint' }, 'No event stored in this window.');
  const table = rowsTable(
    'Stored events',
    rows.map((r) => ({ ...r, at: time(r['received_at']), from: r['translator'] || r['source'] || '' })),
    ACCEPTED_COLUMNS,
  );
  const column = ACCEPTED_COLUMNS.indexOf('event_id');
  table.querySelectorAll('tbody tr').forEach((tr, i) => {
    const id = rows[i]?.['event_id'];
    const cell = tr.children[column] as HTMLElement | undefined;
    if (typeof id !== 'string' || !cell) return;
    cell.replaceChildren(
      el(
        'a',
        { href: `/debugger?event=${encodeURIComponent(id)}`, 'aria-label': `Trace of ${id} in the debugger` },
        id,
      ),
    );
  });
  return table;
}

async function refresh(): Promise<void> {
  const only = $<HTMLSelectElement>('only').value;
  const minutes = Number($<HTMLSelectElement>('window').value);
  const filter = $<HTMLInputElement>('filter').value.trim();
  const status = $('live-status');
  const { status: code, json } = await admin('/v1/admin/live', {
    since: new Date(Date.now() - minutes * 60_000).toISOString(),
    ...(filter ? { filter } : {}),
    ...(only ? { only } : {}),
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const answer = json as LiveAnswer;
  $('refused-section').hidden = only === 'accepted';
  $('accepted-section').hidden = only === 'refused';
  $('refused').replaceChildren(refusedTable(answer.refused));
  $('accepted').replaceChildren(acceptedTable(answer.accepted));
  status.textContent = `Updated ${new Date().toLocaleTimeString()}${paused ? ' (paused)' : ', every 3 seconds'}.`;
}

function schedule(): void {
  window.clearTimeout(timer);
  if (paused || document.hidden) return;
  timer = window.setTimeout(() => {
    void refresh().finally(schedule);
  }, POLL_MS);
}

function start(): void {
  noteMissingToken();
  focusableScrollBoxes();
  const again = () => {
    void refresh().finally(schedule);
  };
  $('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    again();
  });
  for (const id of ['only', 'window']) $(id).addEventListener('change', again);
  $('filter').addEventListener('input', again);
  $('pause').addEventListener('click', () => {
    paused = !paused;
    $('pause').textContent = paused ? 'Resume' : 'Pause';
    $('pause').setAttribute('aria-pressed', String(paused));
    again();
  });
  document.addEventListener('visibilitychange', schedule);
  again();
}

start();
