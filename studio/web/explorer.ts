/**
 * The console's events explorer (docs/console.md): events of a range by user or name, and one
 * event whole: its stored row(s), its invalid twin(s), its ledger rows and what each destination
 * gets for it. The address keeps what is shown (`/explorer?event_id=…`, or the list's filters).
 * A list may be narrowed by one property condition (checked and parameterised by the studio),
 * and "Live tail" lists the newest again every few seconds while the tab is shown.
 */
import {
  $,
  admin,
  type DestinationPayload,
  el,
  noteMissingToken,
  payloadBlocks,
  refusal,
  rowsTable,
} from './common.ts';

type Row = Record<string, unknown>;

function remember(params: Record<string, string>): void {
  history.replaceState(null, '', `/explorer?${new URLSearchParams(params)}`);
}

async function list(): Promise<void> {
  const hours = Number($<HTMLSelectElement>('range').value);
  const to = new Date(Date.now() + 86_400_000);
  const from = new Date(Date.now() - hours * 3_600_000);
  const userId = $<HTMLInputElement>('user-id').value.trim();
  const eventName = $<HTMLInputElement>('event-name').value.trim();
  const property = $<HTMLInputElement>('property').value.trim();
  remember({
    hours: String(hours),
    ...(userId ? { user_id: userId } : {}),
    ...(eventName ? { event_name: eventName } : {}),
    ...(property ? { property } : {}),
  });
  const status = $('find-status');
  status.textContent = 'Querying the warehouse…';
  const { status: code, json } = await admin('/v1/admin/explore', {
    from: from.toISOString(),
    to: to.toISOString(),
    ...(userId ? { user_id: userId } : {}),
    ...(eventName ? { event_name: eventName } : {}),
    ...(property ? { property } : {}),
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const events = (json as { events: Row[] }).events;
  status.textContent =
    events.length === 0
      ? `No events happened in this range${userId || eventName || property ? ' with these filters' : ''}.`
      : `${events.length} event(s), the newest first${events.length === 50 ? ' (the first 50)' : ''}.`;
  if ($<HTMLInputElement>('live').checked)
    status.textContent += ` Live: listed at ${new Date().toISOString().slice(11, 19)} UTC.`;
  const columns = [
    'event_id',
    'event_name',
    'event_time',
    'received_at',
    'user_id',
    'source',
    'translator',
    'copies',
  ];
  if (events.length === 0) {
    $('events').replaceChildren();
    return;
  }
  $('events').replaceChildren(
    el(
      'table',
      { 'aria-label': 'Events found' },
      el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)))),
      el(
        'tbody',
        {},
        ...events.map((e) => {
          const open = el('button', { type: 'button', class: 'link' }, String(e['event_id']));
          open.addEventListener('click', () => void show(String(e['event_id'])));
          return el(
            'tr',
            {},
            el('td', {}, open),
            ...columns.slice(1).map((c) => el('td', {}, String(e[c] ?? ''))),
          );
        }),
      ),
    ),
  );
}

async function show(eventId: string): Promise<void> {
  remember({ event_id: eventId });
  $<HTMLInputElement>('event-id').value = eventId;
  const detail = $('detail');
  detail.hidden = false;
  $('detail-id').textContent = eventId;
  const status = $('detail-status');
  status.textContent = 'Querying the warehouse…';
  const { status: code, json } = await admin('/v1/admin/explore', { event_id: eventId });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const a = json as { stored: Row[]; invalid: Row[]; ledger: Row[]; payloads: DestinationPayload[] };
  status.textContent =
    a.stored.length === 0 && a.invalid.length === 0
      ? 'The warehouse has no event with this id.'
      : `Stored ${a.stored.length} time(s)${a.stored.length > 1 ? ' (redelivered copies; events_dedup keeps the first)' : ''}, refused ${a.invalid.length} time(s), ${a.ledger.length} ledger row(s).`;
  $('stored').replaceChildren(
    ...(a.stored.length === 0
      ? [el('p', {}, 'Not stored.')]
      : a.stored.map((r, i) =>
          // Focusable: a wide row scrolls sideways, and the keyboard must reach it to scroll it.
          el(
            'pre',
            { 'aria-label': `Stored row ${i + 1}`, tabindex: '0' },
            JSON.stringify(withJson(r), null, 2),
          ),
        )),
  );
  $('invalid').replaceChildren(
    a.invalid.length === 0
      ? el('p', {}, 'Never refused.')
      : rowsTable(
          'Refused',
          a.invalid.map((r) => ({ ...r, errors: errorsText(r['errors']) })),
          ['received_at', 'reason', 'errors', 'payload'],
        ),
  );
  $('ledger').replaceChildren(
    a.ledger.length === 0
      ? el('p', {}, 'No ledger rows: no destination has decided on it (yet).')
      : rowsTable('Ledger', a.ledger, [
          'recorded_at',
          'destination',
          'status',
          'reason',
          'attempt',
          'http_status',
          'replay',
        ]),
  );
  $('payloads').replaceChildren(
    ...(a.payloads.length === 0
      ? [el('p', {}, 'Nothing to show: the event is not stored, or the studio has no destinations.')]
      : payloadBlocks(a.payloads)),
  );
}

/** A stored row as it reads best: JSON columns as the objects they hold, empty fields left out. */
function withJson(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    let value = v;
    if (typeof v === 'string' && (k === 'event_data' || k === 'attributes')) {
      try {
        value = JSON.parse(v);
      } catch {
        value = v;
      }
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const group = Object.fromEntries(Object.entries(value).filter(([, x]) => x !== null));
      if (Object.keys(group).length > 0) out[k] = group;
    } else if (value !== null) out[k] = value;
  }
  return out;
}

const errorsText = (v: unknown): string =>
  Array.isArray(v)
    ? v.map((e: { path?: string; message?: string }) => `${e.path}: ${e.message}`).join('; ')
    : '';

/** The live tail: the list again every TAIL_MS while the box is ticked and the tab is shown. */
const TAIL_MS = 5000;
let tail: ReturnType<typeof setTimeout> | undefined;

function tailNext(): void {
  clearTimeout(tail);
  if (!$<HTMLInputElement>('live').checked) return;
  tail = setTimeout(async () => {
    if (!document.hidden) await list();
    tailNext();
  }, TAIL_MS);
}

function start(): void {
  noteMissingToken();
  const q = new URLSearchParams(location.search);
  $('by-id').addEventListener('submit', (e) => {
    e.preventDefault();
    const id = $<HTMLInputElement>('event-id').value.trim();
    if (id) void show(id);
  });
  $('by-list').addEventListener('submit', (e) => {
    e.preventDefault();
    void list();
  });
  const range = $<HTMLSelectElement>('range');
  const hours = q.get('hours');
  if (hours && [...range.options].some((o) => o.value === hours)) range.value = hours;
  $<HTMLInputElement>('user-id').value = q.get('user_id') ?? '';
  $<HTMLInputElement>('event-name').value = q.get('event_name') ?? '';
  $<HTMLInputElement>('property').value = q.get('property') ?? '';
  $('live').addEventListener('change', () => {
    if ($<HTMLInputElement>('live').checked) void list();
    tailNext();
  });
  const id = q.get('event_id');
  if (id) void show(id);
  else void list();
}

start();
