/**
 * An event's trace as a waterfall (docs/observability.md#reading-a-trace-in-the-studio): the
 * `event-trace` answer drawn as one row per span, in tree order, its name indented under its
 * parent, its service and duration beside it, its bar offset and sized by time on a shared axis,
 * an error marked in words as well as colour, and the hop's key attributes (kinds and codes, no
 * event value) in a line under it. Bars are placed through the CSS object model, which the pages'
 * policy allows (no inline style attribute is written).
 */
import type { EventTrace } from '../debugger-api.ts';
import { admin, el, refusal } from './common.ts';

/** Short names of the key attributes, as the row under a bar shows them. */
const SHORT: Readonly<Record<string, string>> = {
  'eventbus.destination': 'destination',
  'eventbus.verdict': 'verdict',
  'eventbus.reason': 'reason',
  'eventbus.status': 'status',
  'eventbus.refused': 'refused',
  'eventbus.table': 'table',
  'eventbus.rows': 'rows',
  'eventbus.replay': 'replay',
  'eventbus.claim.answer': 'claim',
  'http.response.status_code': 'HTTP',
  'server.address': 'host',
  'eventbus.sent_headers': 'headers sent (credentials redacted)',
};

const ms = (v: number): string => (v >= 100 ? `${Math.round(v)} ms` : `${v.toFixed(v >= 10 ? 1 : 2)} ms`);

/** The waterfall of an answer, or its "no trace recorded" words. */
export function waterfallView(t: EventTrace): HTMLElement {
  const w = t.waterfall;
  if (!w || w.rows.length === 0)
    return el('p', { class: 'hint no-trace' }, t.no_trace ?? 'No trace recorded for this event.');
  const total = w.totalMs > 0 ? w.totalMs : 1;
  const errors = w.rows.filter((r) => r.error).length;
  const list = el('ol', { class: 'waterfall', 'aria-label': `Trace ${w.traceId}, ${w.rows.length} spans` });
  for (const r of w.rows) {
    const label = el(
      'div',
      { class: 'span-label' },
      el('span', { class: 'span-name' }, r.name),
      r.service ? el('span', { class: 'hint' }, r.service) : '',
      el('span', { class: 'span-ms' }, ms(r.durationMs)),
      r.error ? el('span', { class: 'err' }, 'error') : '',
    );
    label.style.paddingInlineStart = `${Math.min(r.depth, 8) * 0.9}rem`;
    const bar = el('div', { class: r.error ? 'bar error' : 'bar', 'aria-hidden': 'true' });
    bar.style.marginInlineStart = `${(r.offsetMs / total) * 100}%`;
    bar.style.width = `${Math.max((r.durationMs / total) * 100, 0.4)}%`;
    // A first delivery is the usual case: only a replay says so.
    const attrs = Object.entries(r.attributes)
      .filter(([k, v]) => !(k === 'eventbus.replay' && v === 'false'))
      .map(([k, v]) => `${SHORT[k] ?? k} ${v}`);
    const under = el('div', { class: 'span-attrs hint' }, attrs.join(' · '));
    under.style.paddingInlineStart = label.style.paddingInlineStart;
    list.append(
      el(
        'li',
        { class: r.error ? 'span error' : 'span', 'data-span': r.name },
        label,
        el('div', { class: 'track' }, bar),
        ...(attrs.length > 0 ? [under] : []),
      ),
    );
  }
  return el(
    'div',
    {},
    el(
      'p',
      { class: 'hint' },
      `Trace ${w.traceId}: ${w.rows.length} spans over ${ms(w.totalMs)}${errors > 0 ? `, ${errors} in error` : ''}. Bars start at the span's start and last its duration, on one axis from the first span's start.`,
    ),
    axis(w.totalMs),
    list,
  );
}

/** The time axis over the bars: the first start, the middle and the last end. */
function axis(totalMs: number): HTMLElement {
  return el(
    'div',
    { class: 'waterfall-axis', 'aria-hidden': 'true' },
    el('span', {}, ''),
    el(
      'div',
      { class: 'ticks' },
      el('span', {}, '0 ms'),
      el('span', {}, ms(totalMs / 2)),
      el('span', {}, ms(totalMs)),
    ),
  );
}

/** Reads an event's trace into `target` (a status line while it is read, a refusal if refused). */
export async function showEventTrace(target: HTMLElement, eventId: string): Promise<void> {
  target.replaceChildren(el('p', { class: 'hint', role: 'status' }, `Reading the trace of ${eventId}…`));
  const r = await admin('/v1/admin/event-trace', { event_id: eventId });
  if (r.status !== 200) {
    target.replaceChildren(...refusal(r.status, r.json));
    return;
  }
  target.replaceChildren(waterfallView(r.json as EventTrace));
}
