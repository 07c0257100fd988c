/**
 * What the studio's pages share: the admin token of the tab, calls to the admin API, refusals
 * in the gateway's error envelope, the page's navigation, and building elements. Everything
 * from samples, events and resources goes on a page as text (textContent, attribute values),
 * never as HTML.
 */
import type { PreviewResult } from '../../core/delivery/preview.ts';

export const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

/** The admin token: from the link `npm start` prints (#token=…), kept for this tab only. */
export function adminToken(): string | undefined {
  const m = /token=([^&]+)/.exec(location.hash);
  if (m?.[1]) {
    sessionStorage.setItem('eventbus-admin-token', decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem('eventbus-admin-token') ?? undefined;
}

interface ApiErrorBody {
  error?: { message?: string; details?: { fieldViolations?: { field: string; description: string }[] }[] };
}

/** An admin API refusal as a paragraph and its field violations as a list. */
export function refusal(status: number, json: unknown): HTMLElement[] {
  const e = (json as ApiErrorBody).error;
  const list = (e?.details ?? []).flatMap((d) => d.fieldViolations ?? []);
  return [
    el('p', { class: 'err' }, e?.message ?? `The studio answered ${status}.`),
    el('ul', {}, ...list.map((v) => el('li', {}, `${v.field}: ${v.description}`))),
  ];
}

/** A call to the admin API with the tab's token (behind IAP, the signed header does instead). */
export async function admin(
  path: string,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): Promise<{ status: number; json: unknown }> {
  const token = adminToken();
  const res = await fetch(path, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => ({})) };
}

/** A value shortened for a table cell. */
export const show = (v: unknown): string => {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

/** A unified diff as lines marked added, removed or context (classes add / del / hunk). */
export function diffView(diff: string, label: string): HTMLElement {
  const pre = el('pre', { class: 'diff', 'aria-label': label });
  for (const line of diff.split('\n')) {
    const cls = line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+') && !line.startsWith('+++')
        ? 'add'
        : line.startsWith('-') && !line.startsWith('---')
          ? 'del'
          : '';
    pre.append(el('span', cls ? { class: cls } : {}, `${line}\n`));
  }
  return pre;
}

/** The studio's pages, in the order the navigation shows them. */
const PAGES = [
  { href: '/console', label: 'Overview' },
  { href: '/explorer', label: 'Events' },
  { href: '/live', label: 'Live events' },
  { href: '/destinations', label: 'Destinations' },
  { href: '/debugger', label: 'Debugger' },
  { href: '/sql', label: 'SQL' },
  { href: '/replays', label: 'Replays' },
  { href: '/rules', label: 'Rules' },
  { href: '/', label: 'Create an event' },
  { href: '/resources', label: 'Definitions and translators' },
] as const;

/** Fills the page's navigation (`<nav id="pages">`), marking the current page. */
function renderNav(): void {
  const nav = document.getElementById('pages');
  if (!nav) return;
  nav.replaceChildren(
    ...PAGES.map((p) =>
      el('a', { href: p.href, ...(p.href === location.pathname ? { 'aria-current': 'page' } : {}) }, p.label),
    ),
  );
}

/**
 * Makes the page's scroll boxes (`.scroll`, a table wider than a phone) reachable by Tab and named
 * after their section's heading, so a keyboard can scroll them (axe's scrollable-region-focusable).
 */
export function focusableScrollBoxes(): void {
  for (const box of document.querySelectorAll<HTMLElement>('.scroll')) {
    const heading = box.closest('section')?.querySelector('h2')?.textContent ?? 'Table';
    box.setAttribute('tabindex', '0');
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', `${heading}, scrollable`);
  }
}

/** Starts a page: its navigation, and a note when the tab has no token saying how to get one. */
export function noteMissingToken(): void {
  renderNav();
  if (adminToken()) return;
  const auth = $('auth');
  auth.textContent = 'Open the studio from the link `npm start` prints (it carries the admin token).';
  auth.hidden = false;
}

/** One destination's preview, as the admin API answers it. */
export interface DestinationPayload {
  readonly id: string;
  readonly type: string;
  readonly result: PreviewResult;
}

/** Each destination's request (method, URL, headers, body) or why it gets none. */
export function payloadBlocks(list: readonly DestinationPayload[]): HTMLElement[] {
  return list.map((d) => {
    const r = d.result;
    const head = `${d.id} (${d.type}): `;
    if (r.outcome !== 'send')
      return el(
        'div',
        { class: 'payload' },
        el('h3', {}, `${head}not sent`),
        el('p', { class: 'warn' }, r.outcome === 'invalid_event' ? 'the event is invalid' : r.reason),
      );
    const headers = Object.entries(r.request.headers).map(([k, v]) => `${k}: ${v}`);
    const body =
      typeof r.request.body === 'string' ? r.request.body : JSON.stringify(r.request.body, null, 2);
    return el(
      'div',
      { class: 'payload' },
      el('h3', {}, `${head}sends`),
      // Focusable: a long body scrolls sideways, and the keyboard must reach it to scroll it.
      el('pre', { tabindex: '0' }, `${r.request.method} ${r.request.url}\n${headers.join('\n')}\n\n${body}`),
      ...(r.dropped ? [el('p', { class: 'warn' }, `Left out: ${r.dropped}`)] : []),
    );
  });
}

/** Rows as a table with the given columns (values shortened for a cell). */
export function rowsTable(
  label: string,
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
): HTMLElement {
  return el(
    'table',
    { 'aria-label': label },
    el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...columns.map((c) => el('td', {}, show(r[c] ?? '')))))),
  );
}
