/**
 * The console's SQL page (docs/console.md): a query through the studio's `sql` call (a single
 * SELECT under the bytes cap), its rows as a table and, when they are a time series, as a chart
 * (core/console/chart.ts); saved queries are the registry's `Query` resources, opened and saved
 * through the admin API. The address keeps the saved query shown (`/sql?query=daily_purchases`).
 * Beside it, the schema browser (the `schema` call): datasets, tables and views with their
 * columns; a name clicked goes into the query at the cursor.
 */
import { chartOf } from '../../core/console/chart.ts';
import type { SchemaDataset, SchemaTable } from '../../core/console/schema.ts';
import { clearCharts, lineChart } from './charts.ts';
import { $, admin, el, noteMissingToken, refusal, rowsTable } from './common.ts';

type Row = Record<string, unknown>;
const SHOWN = 1000;

async function run(): Promise<void> {
  const status = $('sql-status');
  const query = $<HTMLTextAreaElement>('query').value;
  status.textContent = 'Running…';
  const { status: code, json } = await admin('/v1/admin/sql', {
    query,
    maxRows: Number($<HTMLSelectElement>('max-rows').value),
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const r = json as { columns: string[]; rows: Row[]; truncated: boolean; ms: number };
  status.textContent = `${r.rows.length} row(s)${r.truncated ? ' (the first ones: raise "Rows" for more)' : ''} in ${r.ms} ms.`;
  $('result-section').hidden = false;
  clearCharts();
  const chart = chartOf(r.columns, r.rows);
  const target = $('sql-chart');
  if (chart) {
    lineChart(
      target,
      { title: '', xLabel: `${chart.xColumn} (UTC)`, yLabel: '', wholeNumbers: false },
      chart.x,
      chart.series,
    );
    $('chart-note').textContent = '';
  } else {
    target.replaceChildren();
    $('chart-note').textContent =
      'A chart is drawn when the first column is a date or time and the others are numbers, or a text then a number (one line per text).';
  }
  $('sql-rows').replaceChildren(
    r.rows.length === 0
      ? el('p', {}, 'No rows.')
      : rowsTable('Result rows', r.rows.slice(0, SHOWN), r.columns),
    ...(r.rows.length > SHOWN ? [el('p', { class: 'hint' }, `The first ${SHOWN} rows are shown.`)] : []),
  );
}

async function loadSaved(select?: string): Promise<void> {
  const saved = $<HTMLSelectElement>('saved');
  const { status, json } = await admin('/v1/admin/resources/Query');
  if (status !== 200) return;
  const names = (json as { resources: { name: string; deleted?: boolean }[] }).resources
    .filter((r) => !r.deleted)
    .map((r) => r.name);
  saved.replaceChildren(el('option', { value: '' }, '—'), ...names.map((n) => el('option', { value: n }, n)));
  if (select && names.includes(select)) {
    saved.value = select;
    await open(select);
  }
}

async function open(name: string): Promise<void> {
  const { status, json } = await admin(`/v1/admin/resources/Query/${encodeURIComponent(name)}`);
  if (status !== 200) {
    $('sql-status').replaceChildren(...refusal(status, json));
    return;
  }
  const doc = json as { version: string; spec: { sql: string } };
  $<HTMLTextAreaElement>('query').value = doc.spec.sql;
  $<HTMLInputElement>('save-name').value = name;
  history.replaceState(null, '', `/sql?query=${encodeURIComponent(name)}`);
  $('sql-status').textContent = `Opened ${name} (version ${doc.version}).`;
}

async function save(): Promise<void> {
  const name = $<HTMLInputElement>('save-name').value.trim();
  const status = $('sql-status');
  const { status: code, json } = await admin('/v1/admin/apply', {
    documents: [{ kind: 'Query', name, spec: { sql: $<HTMLTextAreaElement>('query').value } }],
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const c = (json as { changes: { change: string; version: string }[] }).changes[0];
  status.textContent = `Query/${name}: ${c?.change} ${c?.version}.`;
  history.replaceState(null, '', `/sql?query=${encodeURIComponent(name)}`);
  await loadSaved();
  $<HTMLSelectElement>('saved').value = name;
}

/** Puts text into the query where the cursor is (replacing a selection), and keeps the focus. */
function insertAtCursor(text: string): void {
  const q = $<HTMLTextAreaElement>('query');
  const at = q.selectionStart ?? q.value.length;
  q.setRangeText(text, at, q.selectionEnd ?? at, 'end');
  q.focus();
}

let datasets: SchemaDataset[] = [];

async function loadSchema(): Promise<void> {
  const status = $('schema-status');
  status.textContent = 'Reading the table list…';
  const { status: code, json } = await admin('/v1/admin/schema', {});
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  datasets = (json as { datasets: SchemaDataset[] }).datasets;
  renderSchema();
}

/** A name button: inserts `text` into the query. */
function nameButton(label: string, text: string, what: string): HTMLElement {
  const b = el('button', { type: 'button', class: 'link', 'aria-label': `Insert ${what} ${text}` }, label);
  b.addEventListener('click', () => insertAtCursor(text));
  return b;
}

function tableBlock(dataset: string, t: SchemaTable, needle: string, open: boolean): HTMLElement {
  const ref = `${dataset}.${t.name}`;
  const columns = needle
    ? t.columns.filter((c) => t.name.toLowerCase().includes(needle) || c.name.toLowerCase().includes(needle))
    : t.columns;
  const details = el(
    'details',
    { 'data-table': ref },
    el('summary', {}, `${t.name} `, el('span', { class: 'type' }, t.kind)),
    el('p', {}, nameButton(ref, ref, t.kind)),
    ...(t.description ? [el('p', { class: 'hint' }, t.description)] : []),
    el(
      'ul',
      { 'aria-label': `Columns of ${ref}` },
      ...columns.map((c) =>
        el(
          'li',
          {},
          nameButton(c.name, c.name, 'column'),
          ' ',
          el('span', { class: 'type' }, c.type),
          ...(c.description ? [el('span', { class: 'hint' }, ` — ${c.description}`)] : []),
        ),
      ),
    ),
  );
  details.open = open;
  return details;
}

function renderSchema(): void {
  const needle = $<HTMLInputElement>('schema-filter').value.trim().toLowerCase();
  const shown = datasets.map((d) => ({
    name: d.name,
    tables: d.tables.filter(
      (t) =>
        !needle ||
        t.name.toLowerCase().includes(needle) ||
        t.columns.some((c) => c.name.toLowerCase().includes(needle)),
    ),
  }));
  const count = shown.reduce((n, d) => n + d.tables.length, 0);
  $('schema-status').textContent = `${count} table(s) and view(s)${needle ? ` matching "${needle}"` : ''}.`;
  $('schema').replaceChildren(
    ...shown.map((d) =>
      el(
        'div',
        {},
        el('h3', {}, `Dataset ${d.name}`),
        ...(d.tables.length === 0 ? [el('p', {}, 'Nothing here.')] : []),
        // A filter that matches a few tables shows their columns at once.
        ...d.tables.map((t) => tableBlock(d.name, t, needle, needle !== '' && count <= 5)),
      ),
    ),
  );
}

function start(): void {
  noteMissingToken();
  $('run').addEventListener('click', () => void run());
  $('save').addEventListener('click', () => void save());
  $('query').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run();
    }
  });
  $('saved').addEventListener('change', () => {
    const name = $<HTMLSelectElement>('saved').value;
    if (name) void open(name);
  });
  $('schema-filter').addEventListener('input', renderSchema);
  void loadSchema();
  void loadSaved(new URLSearchParams(location.search).get('query') ?? undefined);
}

start();
