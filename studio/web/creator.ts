/**
 * The studio's payload creator, in the browser (docs/studio.md): a pasted sample → its format and
 * fields (core/samples, the same inference the tests check) → a name and a mapping per column →
 * the EventDefinition and Translator (core/samples/draft.ts), every sample row translated and
 * validated with the translator's own module as the person edits → saved through the admin API.
 *
 * Everything from the sample is put on the page as text (textContent, option values), never as
 * HTML, so a hostile cell stays a string.
 */
import { stringify } from 'yaml';
import { definedEvent, definedEvents } from '../../core/defined-events.ts';
import { normalizeEvent, normalizeOptions } from '../../core/event.ts';
import { PLATFORM_TYPES, STANDARD_EVENTS } from '../../core/platforms/standard-events.ts';
import type { PlannedChange } from '../../core/registry.ts';
import {
  type ColumnChoice,
  type Draft,
  draftResources,
  type PlatformChoice,
} from '../../core/samples/draft.ts';
import {
  CONTEXT_TARGETS,
  type InferredField,
  inferFields,
  type ParsedSample,
  parseSample,
  suggestMappings,
} from '../../core/samples/index.ts';
import { translate } from '../../core/translate/index.ts';
import { eventNameProblem, lookupEvent, nearCatalogueName } from '../../schemas/catalogue.ts';
import {
  $,
  admin,
  type DestinationPayload,
  diffView,
  el,
  noteMissingToken,
  payloadBlocks,
  refusal,
  rowsTable,
  show,
} from './common.ts';

const TARGETS = ['event_data', ...CONTEXT_TARGETS.filter((t) => t !== 'event_name'), 'skip'];

interface State {
  sample?: ParsedSample;
  text: string;
  fields: InferredField[];
  choices: ColumnChoice[];
  draft?: Draft;
  /** The sample's rows as events (what the translator makes of them). */
  events: unknown[];
  /** A translate token made on this page (its secret is shown once, kept for this page). */
  token?: string;
}
const state: State = { text: '', fields: [], choices: [], events: [] };

const MEDIA = {
  csv: 'text/csv',
  tsv: 'text/csv',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
} as const;

function readSample(): void {
  const text = $<HTMLTextAreaElement>('sample').value;
  const format = $<HTMLSelectElement>('format').value;
  const sample = parseSample(text, format === 'auto' ? {} : { format: format as ParsedSample['format'] });
  state.sample = sample;
  state.text = text;
  state.fields = inferFields(sample);
  const suggestions = suggestMappings(
    state.fields.map((f) => ({ name: f.name, type: f.type, ...(f.format ? { format: f.format } : {}) })),
  );
  state.choices = suggestions.map((s) => ({
    column: s.column,
    target: s.target,
    ...(s.field ? { field: s.field } : {}),
  }));
  $('detected').textContent =
    `Read as ${sample.format.toUpperCase()}${sample.delimiter ? ` (delimiter ${JSON.stringify(sample.delimiter)})` : ''}${sample.header ? ', with a header row' : ''}: ${sample.rows.length} row(s), ${sample.columns.length} column(s).`;
  const problems = $('problems');
  problems.replaceChildren(
    ...sample.problems
      .slice(0, 10)
      .map((p) => el('li', {}, `${p.line ? `line ${p.line}: ` : ''}${p.message}`)),
  );
  $('fields-section').hidden = sample.columns.length === 0;
  $('save-section').hidden = sample.columns.length === 0;
  $('platforms-section').hidden = sample.columns.length === 0;
  renderFields();
  update();
}

function renderFields(): void {
  const table = $<HTMLTableElement>('fields');
  const head = el(
    'tr',
    {},
    ...['Column', 'Found', 'Examples', 'Goes to', 'Field name', 'Required', 'Personal data'].map((h) =>
      el('th', { scope: 'col' }, h),
    ),
  );
  const rows = state.fields.map((f, i) => {
    const choice = state.choices[i] as ColumnChoice;
    const target = el('select', { 'aria-label': `Where ${f.name} goes`, 'data-column': f.name });
    for (const t of TARGETS) {
      const o = el(
        'option',
        { value: t },
        t === 'event_data' ? 'event field' : t === 'skip' ? 'leave out' : t,
      );
      if (t === choice.target) o.selected = true;
      target.append(o);
    }
    const name = el('input', {
      type: 'text',
      'aria-label': `Field name for ${f.name}`,
      value: choice.field ?? '',
    });
    name.disabled = choice.target !== 'event_data';
    const required = el('input', { type: 'checkbox', 'aria-label': `${f.name} is required` });
    required.checked = choice.required === true;
    const pii = el('input', { type: 'checkbox', 'aria-label': `${f.name} is personal data` });
    pii.checked = choice.pii ?? (f.format === 'email' || f.format === 'phone');
    // Name, required and personal data are a field's: only an event field has them here (the
    // context's own fields, user.email…, are hashed per the settings).
    const enable = () => {
      const data = state.choices[i]?.target === 'event_data';
      for (const input of [name, required, pii]) input.disabled = !data;
      name.placeholder = data ? '' : '—';
      if (!data) name.value = '';
      else if (name.value === '') name.value = state.choices[i]?.field ?? '';
    };
    const set = (next: Partial<ColumnChoice>) => {
      state.choices[i] = { ...(state.choices[i] as ColumnChoice), ...next };
      enable();
      update();
    };
    target.addEventListener('change', () => set({ target: target.value }));
    name.addEventListener('input', () => set({ field: name.value }));
    required.addEventListener('change', () => set({ required: required.checked }));
    pii.addEventListener('change', () => set({ pii: pii.checked }));
    state.choices[i] = { ...choice, pii: pii.checked };
    enable();
    const found = `${f.type}${f.format ? ` (${f.format})` : ''}${f.pattern ? `, ${f.pattern}` : ''}${f.nullable ? ', sometimes empty' : ''}`;
    return el(
      'tr',
      {},
      el('th', { scope: 'row' }, f.name),
      el('td', {}, found),
      el('td', {}, f.examples.map(show).join(' · ')),
      el('td', {}, target),
      el('td', {}, name),
      el('td', {}, required),
      el('td', {}, pii),
    );
  });
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
}

/** The name rule, catalogue names, platform names and near misses, as the person types. */
function checkName(name: string): { ok: boolean; text: string; cls: string } {
  if (name === '') return { ok: false, text: 'Give the event a name (snake_case).', cls: 'warn' };
  const problem = eventNameProblem(name);
  if (problem) return { ok: false, text: `The name ${problem}.`, cls: 'err' };
  if (lookupEvent(name))
    return { ok: false, text: `${name} is a built-in catalogue event: it cannot be redefined.`, cls: 'err' };
  const near = nearCatalogueName(name);
  if (near)
    return { ok: false, text: `Too close to the catalogue event "${near}": did you mean it?`, cls: 'err' };
  if (/^(purchase|lead|contact|subscribe|search)s?$/i.test(name.replace(/_/g, '')))
    return {
      ok: true,
      text: 'This reads like a platform event name: map it to the platform below instead.',
      cls: 'warn',
    };
  return { ok: true, text: `${name} is a good name.`, cls: 'ok' };
}

function update(): void {
  const sample = state.sample;
  if (!sample) return;
  const eventName = $<HTMLInputElement>('event-name').value.trim();
  const name = checkName(eventName);
  const check = $('name-check');
  check.textContent = name.text;
  check.className = name.cls;
  const zone = $<HTMLInputElement>('zone').value.trim() || 'UTC';
  const draft = draftResources({
    eventName: eventName || 'unnamed_event',
    description: $<HTMLInputElement>('description').value.trim(),
    translatorName: `${(eventName || 'unnamed_event').replace(/_/g, '-')}-${sample.format}`,
    sample,
    fields: state.fields,
    choices: state.choices,
    zone,
    platforms: platformChoice(),
  });
  state.draft = draft;
  refreshValueOptions(draft);
  const dataFields = (draft.definition.spec['fields'] as unknown[]).length;
  $<HTMLButtonElement>('check').disabled = true;
  $<HTMLButtonElement>('save').disabled = true;
  $('plan').replaceChildren();
  $('payloads').replaceChildren();
  // Checking every row of a large sample takes a moment (10,000 rows: about 3 s on a slow
  // machine): once typing pauses, not on every key.
  clearTimeout(rowCheckTimer);
  const rowCheck = $('row-check');
  rowCheck.textContent = `Checking the ${sample.rows.length} sample rows…`;
  rowCheck.className = '';
  pendingRowCheck = () => {
    pendingRowCheck = undefined;
    if (state.draft !== draft) return;
    const refused = validateRows(draft);
    renderPreview(sample, refused);
    const bad = refused.size;
    rowCheck.textContent =
      dataFields === 0
        ? 'Keep at least one column as an event field.'
        : bad === 0
          ? `All ${sample.rows.length} sample rows fit the definition.`
          : `${bad} of ${sample.rows.length} sample rows would be refused: see the marked rows.`;
    rowCheck.className = dataFields === 0 || bad > 0 ? 'warn' : 'ok';
    $<HTMLButtonElement>('check').disabled = !name.ok || dataFields === 0;
  };
  rowCheckTimer = setTimeout(() => pendingRowCheck?.(), 250);
}

let rowCheckTimer: ReturnType<typeof setTimeout> | undefined;
let pendingRowCheck: (() => void) | undefined;

/** Runs a waiting row check now: what needs the sample's events must see the current draft's. */
function flushRowCheck(): void {
  clearTimeout(rowCheckTimer);
  pendingRowCheck?.();
}

/** What step 3 says: the platforms' events, the value and currency, consent at collection. */
function platformChoice(): PlatformChoice {
  const events: PlatformChoice['events'] = {};
  for (const type of PLATFORM_TYPES) {
    const v = $<HTMLSelectElement>(`platform-${type}`).value.trim();
    if (v) events[type] = v;
  }
  const valueField = $<HTMLSelectElement>('value-field').value;
  const currencyField = $<HTMLSelectElement>('currency-field').value;
  const code = $<HTMLInputElement>('currency-code').value.trim().toUpperCase();
  const consentGranted = $<HTMLInputElement>('consent-granted').checked;
  const mapsConsent = state.choices.some((c) => c.target.startsWith('consent.'));
  $('consent-note').textContent =
    consentGranted || mapsConsent
      ? ''
      : 'Meta and TikTok receive an event only with consent to ads and ad user data, GA4 with consent to analytics: map consent columns above, or tick the box if it was given when the data was collected.';
  return {
    events,
    ...(valueField ? { valueField } : {}),
    ...(valueField && currencyField ? { currency: { field: currencyField } } : {}),
    ...(valueField && !currencyField && /^[A-Z]{3}$/.test(code) ? { currency: { code } } : {}),
    ...(consentGranted ? { consentGranted } : {}),
  };
}

/** The value and currency lists offer the definition's number and text fields. */
function refreshValueOptions(draft: Draft): void {
  const fields = draft.definition.spec['fields'] as { name: string; type: string; format?: string }[];
  const fill = (id: string, none: string, keep: (f: { type: string; format?: string }) => boolean) => {
    const select = $<HTMLSelectElement>(id);
    const current = select.value;
    const names = fields.filter(keep).map((f) => f.name);
    select.replaceChildren(
      el('option', { value: '' }, none),
      ...names.map((n) => {
        const o = el('option', { value: n }, n);
        o.selected = n === current;
        return o;
      }),
    );
  };
  fill('value-field', 'no value', (f) => f.type === 'number' || f.type === 'integer');
  fill('currency-field', 'the code →', (f) => f.type === 'string');
}

/** Each destination's exact request for the first sample row (the same code as `preview`). */
async function previewPayloads(): Promise<void> {
  flushRowCheck();
  const draft = state.draft;
  const out = $('payloads');
  const event = state.events[0];
  if (!draft || event === undefined) {
    out.replaceChildren(el('p', { class: 'warn' }, 'No sample row makes an event yet.'));
    return;
  }
  const { status, json } = await admin('/v1/admin/preview', {
    definition: { name: draft.definition.name, spec: draft.definition.spec },
    event,
  });
  if (status !== 200) {
    out.replaceChildren(...refusal(status, json));
    return;
  }
  const list = (json as { destinations: DestinationPayload[] }).destinations;
  out.replaceChildren(el('p', {}, 'For the first sample row, nothing is sent now:'), ...payloadBlocks(list));
}

/** Every sample row through the translator and the gateway's checks: row → reasons. */
function validateRows(draft: Draft): Map<number, string> {
  const out = new Map<number, string>();
  const spec = draft.definition.spec as { fields: [] };
  const defined = definedEvents([definedEvent(draft.definition.name, '0.0', spec)]);
  const r = translate({
    translator: draft.translator.name,
    spec: draft.translator.spec,
    eventName: draft.definition.name,
    body: new TextEncoder().encode(state.text),
    contentType: MEDIA[state.sample?.format ?? 'csv'],
  });
  state.events = r.ok ? r.rows.map((row) => row.event) : [];
  if (!r.ok) {
    out.set(-1, r.violations.map((v) => v.description).join('; '));
    return out;
  }
  const add = (row: number, why: string) => out.set(row, out.has(row) ? `${out.get(row)}; ${why}` : why);
  for (const p of r.problems)
    add(
      Number(/rows\[(\d+)\]/.exec(p.field)?.[1] ?? -1),
      `${p.field.replace(/^rows\[\d+\]\.?/, '')}: ${p.description}`,
    );
  const options = normalizeOptions({ name: 'studio', project: 'studio', region: 'europe-west1' });
  for (const row of r.rows) {
    const n = normalizeEvent(row.event, {
      options,
      now: Date.now(),
      newId: () => 'preview',
      defined,
      checkWindow: false,
    });
    if (!n.ok)
      for (const v of n.violations)
        add(row.row, `${v.field}: ${v.description.replace(/ \([a-z0-9_]+@0\.0\)$/, '')}`);
  }
  return out;
}

function renderPreview(sample: ParsedSample, refused: Map<number, string>): void {
  const columns = sample.columns;
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, '#'),
    ...columns.map((c) => el('th', { scope: 'col' }, c)),
    el('th', { scope: 'col' }, 'Check'),
  );
  // The first 50 rows, and the first 50 refused ones beyond them, so every mark is on screen.
  const shown = [
    ...Array.from({ length: Math.min(50, sample.rows.length) }, (_, i) => i),
    ...[...refused.keys()]
      .filter((i) => i >= 50)
      .sort((a, b) => a - b)
      .slice(0, 50),
  ];
  const body = shown.map((i) => {
    const row = sample.rows[i] ?? {};
    const why = refused.get(i);
    return el(
      'tr',
      why ? { class: 'bad' } : {},
      el('td', {}, String(i + 1)),
      ...columns.map((c) => el('td', {}, show(row[c] ?? ''))),
      why ? el('td', { class: 'why' }, why) : el('td', { class: 'ok' }, 'fits'),
    );
  });
  const table = el(
    'table',
    { 'aria-label': 'The sample as read' },
    el('thead', {}, head),
    el('tbody', {}, ...body),
  );
  $('preview').replaceChildren(table);
}

async function checkSave(dryRun: boolean): Promise<void> {
  const draft = state.draft;
  if (!draft) return;
  const documents = [draft.definition, draft.translator];
  const { status, json } = await admin('/v1/admin/apply', { documents, dryRun });
  const plan = $('plan');
  if (status !== 200) {
    plan.replaceChildren(...refusal(status, json));
    $<HTMLButtonElement>('save').disabled = true;
    return;
  }
  const changes = (json as { changes: (PlannedChange & { diff?: string })[] }).changes;
  plan.replaceChildren(
    el(
      'ul',
      {},
      ...changes.map((c) =>
        el(
          'li',
          {},
          `${c.kind}/${c.name}: ${dryRun ? 'would be ' : ''}${c.change} ${c.version}${c.previous ? ` (was ${c.previous})` : ''}${c.breaking ? ` — a new major version: ${c.breaking.join('; ')}` : ''}`,
          // An update shows what changes against the saved version first.
          ...(c.diff && c.previous ? [diffView(c.diff, `Changes to ${c.kind}/${c.name}`)] : []),
        ),
      ),
    ),
  );
  const yaml = $('yaml');
  yaml.textContent = documents.map((d) => stringify(d)).join('---\n');
  yaml.hidden = false;
  $<HTMLButtonElement>('save').disabled = !dryRun;
  if (!dryRun) {
    const config = (await (await fetch('/config.json')).json().catch(() => ({}))) as { gatewayUrl?: string };
    const endpoint = `${config.gatewayUrl ?? '{gateway}'}/v1/translators/${draft.translator.name}`;
    $('endpoint').textContent = endpoint;
    const type = MEDIA[state.sample?.format ?? 'csv'];
    $('curl').textContent =
      `curl -sS -X POST '${endpoint}' \\\n  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: ${type}' \\\n  --data-binary @your-file`;
    $('live').hidden = false;
  }
}

/** A translate:<name> token for the saved translator, shown once. */
async function makeToken(): Promise<void> {
  const draft = state.draft;
  if (!draft) return;
  const { status, json } = await admin('/v1/admin/tokens', { translator: draft.translator.name });
  if (status !== 200) {
    $('send-status').replaceChildren(...refusal(status, json));
    return;
  }
  state.token = (json as { secret: string }).secret;
  $('token').textContent = state.token;
  $('token-once').hidden = false;
  $<HTMLButtonElement>('make-token').disabled = true;
  $<HTMLButtonElement>('send-samples').disabled = false;
}

/** The sample through the live endpoint, then what the warehouse holds as it arrives. */
async function sendSamples(): Promise<void> {
  const draft = state.draft;
  if (!draft || !state.token) return;
  const since = new Date(Date.now() - 5_000).toISOString();
  const status = $('send-status');
  status.textContent = 'Sending…';
  const sent = await admin('/v1/admin/send', {
    translator: draft.translator.name,
    token: state.token,
    contentType: MEDIA[state.sample?.format ?? 'csv'],
    text: state.text,
  });
  if (sent.status !== 200) {
    status.replaceChildren(...refusal(sent.status, sent.json));
    return;
  }
  const gateway = sent.json as {
    status: number;
    body: { messageIds?: (string | null)[]; invalidRows?: number };
  };
  if (gateway.status !== 200) {
    status.replaceChildren(...refusal(gateway.status, gateway.body));
    return;
  }
  const published = (gateway.body.messageIds ?? []).filter((m) => m !== null).length;
  const refused = gateway.body.invalidRows ?? 0;
  status.textContent = `The endpoint accepted ${published} row(s)${refused ? `, refused ${refused}` : ''}. Waiting for the warehouse…`;
  const deadline = Date.now() + 60_000;
  let last = '';
  let looks = 0;
  for (;;) {
    looks += 1;
    const got = await admin('/v1/admin/arrivals', { event: draft.definition.name, since });
    if (got.status === 200) {
      const a = got.json as { stored: Record<string, unknown>[]; deliveries: Record<string, unknown>[] };
      renderArrivals(a);
      // Done when every row is stored and the ledger stopped changing between two looks (an
      // event no destination takes may never have a ledger row: then after a few looks).
      const now = JSON.stringify(a.deliveries);
      const settled = now === last && (a.deliveries.length > 0 || looks >= 5);
      last = now;
      if (a.stored.length >= published && settled) {
        status.textContent = `${a.stored.length} row(s) stored in events.${draft.definition.name}; deliveries below.`;
        return;
      }
    }
    if (Date.now() > deadline) {
      status.textContent = 'Still arriving: the rows and deliveries so far are below.';
      return;
    }
    await new Promise((r) => setTimeout(r, 1500));
  }
}

function renderArrivals(a: {
  stored: Record<string, unknown>[];
  deliveries: Record<string, unknown>[];
}): void {
  const fields = ((state.draft?.definition.spec['fields'] as { name: string }[] | undefined) ?? []).map(
    (f) => f.name,
  );
  $('arrivals').replaceChildren(
    el('h4', {}, `Stored (events.${state.draft?.definition.name ?? ''})`),
    el('div', { class: 'scroll' }, rowsTable('Stored rows', a.stored, ['event_id', 'event_time', ...fields])),
    el('h4', {}, 'Deliveries'),
    rowsTable('Deliveries by destination', a.deliveries, ['destination', 'status', 'events', 'reason']),
  );
}

function start(): void {
  noteMissingToken();
  $('read').addEventListener('click', readSample);
  $('file').addEventListener('change', async () => {
    const file = $<HTMLInputElement>('file').files?.[0];
    if (file) {
      $<HTMLTextAreaElement>('sample').value = await file.text();
      readSample();
    }
  });
  for (const type of PLATFORM_TYPES) {
    // A platform without event names (Google Ads: each conversion goes to an action id) is a text field.
    if (STANDARD_EVENTS[type].length === 0) continue;
    $(`platform-${type}`).replaceChildren(
      el('option', { value: '' }, 'not sent'),
      ...STANDARD_EVENTS[type].map((e) => el('option', { value: e }, e)),
    );
  }
  for (const id of ['event-name', 'description', 'zone', 'currency-code'])
    $(id).addEventListener('input', update);
  for (const id of [
    ...PLATFORM_TYPES.map((t) => `platform-${t}`),
    'value-field',
    'currency-field',
    'consent-granted',
  ])
    $(id).addEventListener('change', update);
  $('preview-payloads').addEventListener('click', () => void previewPayloads());
  $('make-token').addEventListener('click', () => void makeToken());
  $('send-samples').addEventListener('click', () => void sendSamples());
  $('check').addEventListener('click', () => void checkSave(true));
  $('save').addEventListener('click', () => void checkSave(false));
}

start();
