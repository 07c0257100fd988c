/**
 * The studio's per-destination debugger (docs/console.md#debugger): `destination-attempts` for one
 * destination (from `?destination=`, as the destinations page links it), filtered by status and
 * reason, as a table of attempts; picking one shows its detail: the ledger's record, what the
 * platform answered, the request the destination gets (preview's, identifiers as kinds), the
 * event as stored (identifiers as kinds), and for callers who may apply, "Send this event again":
 * `replay-start` with the one-event slice the answer gives. Each attempt's event shows its trace
 * as a waterfall (`event-trace`); `?event=<id>` (as live events link a stored event) opens the
 * event's view: its trace, above the attempts.
 */
import { $, admin, el, focusableScrollBoxes, noteMissingToken, refusal } from './common.ts';
import { showEventTrace } from './waterfall.ts';

interface SentRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

interface Sent {
  readonly outcome: string;
  readonly reason?: string;
  readonly dropped?: string;
  readonly request?: SentRequest;
  /** A catalogue destination's actions may make several requests, in order. */
  readonly requests?: readonly SentRequest[];
}

interface Attempt {
  readonly recorded_at: string;
  readonly event_id: string;
  readonly event_name: string;
  readonly status: string;
  readonly http_status: number | null;
  readonly reason: string | null;
  readonly attempt: number | null;
  readonly replay: boolean;
  readonly identifiers: readonly string[];
  readonly platform_ref: string | null;
  readonly platform_events_received: number | null;
  readonly platform_response: unknown;
  readonly event: Record<string, unknown> | null;
  readonly sent: Sent | null;
  readonly resend: Record<string, unknown> | null;
}

interface Answer {
  readonly destination: string;
  readonly destinations: readonly { id: string; type: string }[];
  readonly since: string;
  readonly can_resend: boolean;
  readonly attempts: readonly Attempt[];
}

let current: { answer: Answer; attempt: Attempt } | undefined;

const utc = (iso: string): string => `${iso.slice(0, 19).replace('T', ' ')}`;
const json = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));
const STATUS_CLASS: Readonly<Record<string, string>> = {
  delivered: 'ok',
  skipped: 'hint',
  rejected: 'err',
  failed: 'warn',
  dead_lettered: 'err',
};

/** A block of text a keyboard can reach and scroll sideways. */
const block = (label: string, text: string): HTMLElement =>
  el('pre', { tabindex: '0', 'aria-label': label }, text);

function platformSummary(a: Attempt): string {
  const parts = [
    a.platform_ref ? `ref ${a.platform_ref}` : '',
    a.platform_events_received === null ? '' : `${a.platform_events_received} received`,
  ].filter(Boolean);
  return parts.join(', ');
}

function attemptsTable(answer: Answer): HTMLElement {
  if (answer.attempts.length === 0)
    return el(
      'p',
      { class: 'hint' },
      `No attempt to ${answer.destination} matches, since ${utc(answer.since)} UTC.`,
    );
  return el(
    'table',
    { 'aria-label': 'Attempts' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        // What tells the story first, so a phone shows it before the table scrolls.
        ...['status', 'time (UTC)', 'event', 'HTTP', 'platform', 'reason', 'replay'].map((h) =>
          el('th', { scope: 'col' }, h),
        ),
      ),
    ),
    el(
      'tbody',
      {},
      ...answer.attempts.map((a) => {
        const open = el(
          'button',
          {
            type: 'button',
            class: 'link',
            'aria-label': `Details of ${a.event_id} at ${utc(a.recorded_at)}`,
          },
          a.event_id,
        );
        const failed = a.status !== 'delivered' && a.status !== 'skipped';
        const row = el(
          'tr',
          {},
          el('td', {}, el('span', { class: STATUS_CLASS[a.status] ?? '' }, a.status)),
          el('td', {}, utc(a.recorded_at)),
          el('td', { class: 'event' }, open, el('span', { class: 'hint name' }, a.event_name)),
          el('td', {}, a.http_status === null ? '' : String(a.http_status)),
          el('td', {}, platformSummary(a)),
          el('td', failed ? { class: 'why' } : {}, a.reason ?? ''),
          el('td', {}, a.replay ? 'replay' : ''),
        );
        open.addEventListener('click', () => {
          for (const r of row.parentElement?.children ?? []) r.classList.remove('current');
          row.classList.add('current');
          detail(answer, a);
        });
        return row;
      }),
    ),
  );
}

function sentBlock(sent: Sent | null): HTMLElement[] {
  if (!sent)
    return [el('p', { class: 'hint' }, 'The stored event was not found, so the request cannot be rebuilt.')];
  if (sent.outcome !== 'send' || !sent.request)
    return [el('p', { class: 'warn' }, `Not sent (${sent.outcome}): ${sent.reason ?? ''}`)];
  const all = sent.requests && sent.requests.length > 0 ? sent.requests : [sent.request];
  return [
    ...all.map((r, i) => {
      const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`);
      const title = all.length > 1 ? `What was sent (${i + 1} of ${all.length})` : 'What was sent';
      return block(title, `${r.method} ${r.url}\n${headers.join('\n')}\n\n${json(r.body)}`);
    }),
    ...(sent.dropped ? [el('p', { class: 'warn' }, `Left out: ${sent.dropped}`)] : []),
  ];
}

/** Shows one attempt: the ledger's record, the platform's answer, the request, the event. */
function detail(answer: Answer, a: Attempt): void {
  current = { answer, attempt: a };
  const trace = el('div', { class: 'trace' });
  const facts: [string, string][] = [
    ['Ledger status', `${a.status}${a.replay ? ' (replay)' : ''}`],
    ['Recorded', `${utc(a.recorded_at)} UTC`],
    ['Event', `${a.event_name} ${a.event_id}`],
    ['Attempt', a.attempt === null ? '–' : String(a.attempt)],
    ['HTTP status', a.http_status === null ? '–' : String(a.http_status)],
    ['Reason', a.reason ?? '–'],
    ['Identifiers sent', a.identifiers.length > 0 ? a.identifiers.join(', ') : '–'],
    ['Platform ref', a.platform_ref ?? '–'],
    ['Events received', a.platform_events_received === null ? '–' : String(a.platform_events_received)],
  ];
  $('detail').replaceChildren(
    el('dl', { class: 'facts' }, ...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])),
    el('h3', {}, 'Its trace'),
    trace,
    el('h3', {}, "The platform's answer"),
    a.platform_response === null
      ? el('p', { class: 'hint' }, 'None recorded (no answer, or a row from before the ledger kept it).')
      : block("The platform's answer", json(a.platform_response)),
    el('h3', {}, 'What was sent'),
    el(
      'p',
      { class: 'hint' },
      'Rebuilt from the stored event by preview, as at the attempt: credentials redacted, identifiers as kinds.',
    ),
    ...sentBlock(a.sent),
    el('h3', {}, 'The event as stored'),
    a.event
      ? block('The event as stored', json(a.event))
      : el(
          'p',
          { class: 'hint' },
          'Not found in the events table (erased, or older than the debugger reads).',
        ),
  );
  void showEventTrace(trace, a.event_id);
  $('resend-row').hidden = !(answer.can_resend && a.resend);
  $('resend-status').replaceChildren();
  $('detail-section').hidden = false;
  $('h2').textContent = `Attempt: ${a.event_id}`;
  $('h2').focus();
}

async function resend(): Promise<void> {
  if (!current?.attempt.resend) return;
  const { attempt, answer } = current;
  const status = $('resend-status');
  status.textContent = `Asking the scheduler to send ${attempt.event_id} to ${answer.destination} again…`;
  const r = await admin('/v1/admin/replay-start', attempt.resend);
  if (r.status !== 200) {
    status.replaceChildren(...refusal(r.status, r.json));
    return;
  }
  const id = (r.json as { replay: { id: string } }).replay.id;
  status.replaceChildren(
    el(
      'p',
      {},
      `Replay ${id} started: ${attempt.event_id} to ${answer.destination}. The scheduler sends it within a minute; its ledger row shows here marked replay (Show again). `,
      el('a', { href: '/replays' }, 'Follow it on the replays page'),
      '.',
    ),
  );
}

async function load(): Promise<void> {
  const status = $('attempts-status');
  const select = $<HTMLSelectElement>('destination');
  const limit = $<HTMLInputElement>('attempt-limit').value.trim();
  const destination = select.value || new URLSearchParams(location.search).get('destination');
  const body: Record<string, unknown> = {
    // Without one, the answer is the environment's first destination's.
    ...(destination ? { destination } : {}),
    status: $<HTMLSelectElement>('status').value,
    reason: $<HTMLInputElement>('reason').value,
    ...(limit === '' ? {} : { limit: /^\d+$/.test(limit) ? Number(limit) : limit }),
  };
  status.textContent = 'Reading the ledger…';
  const r = await admin('/v1/admin/destination-attempts', body);
  if (r.status !== 200) {
    status.replaceChildren(...refusal(r.status, r.json));
    return;
  }
  const answer = r.json as Answer;
  if (select.options.length === 0) {
    select.replaceChildren(
      ...answer.destinations.map((d) => el('option', { value: d.id }, `${d.id} (${d.type})`)),
    );
    select.value = answer.destination;
  }
  const params = new URLSearchParams(location.search);
  params.set('destination', answer.destination);
  history.replaceState(null, '', `?${params.toString()}`);
  $('attempts').replaceChildren(attemptsTable(answer));
  $('detail-section').hidden = true;
  const n = answer.attempts.length;
  status.textContent = `${n} attempt${n === 1 ? '' : 's'} to ${answer.destination} since ${utc(answer.since)} UTC, newest first.`;
}

noteMissingToken();
focusableScrollBoxes();
$('show').addEventListener('click', () => void load());
$('destination').addEventListener('change', () => void load());
$('reason').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') void load();
});
$('resend').addEventListener('click', () => void resend());
const eventId = new URLSearchParams(location.search).get('event');
if (eventId) {
  $('event-section').hidden = false;
  $('he').textContent = `Event ${eventId}: its trace`;
  void showEventTrace($('event-trace'), eventId);
}
void load();
