/**
 * The studio's payload creator, in the browser (docs/studio.md): a pasted sample → its format and
 * fields (core/samples, the same inference the tests check) → a name and a mapping per column →
 * the EventDefinition and Translator (core/samples/draft.ts), every sample row translated and
 * validated with the translator's own module as the person edits → saved through the admin API.
 * Its parts in their own files: a catalogue event as the target (creator-targets.ts), the value,
 * currency and minor units (creator-amounts.ts), how the sender proves itself (creator-auth.ts),
 * the question about old times (creator-time.ts), the name and row checks (creator-checks.ts),
 * and the saved source's URL and tries (creator-live.ts).
 *
 * Everything from the sample is put on the page as text (textContent, option values), never as
 * HTML, so a hostile cell stays a string.
 */
import { stringify } from 'yaml';
import { definedEvent, definedEvents } from '../../core/definitions/defined-events.ts';
import { normalizeEvent, normalizeOptions } from '../../core/event.ts';
import { META_ACTION_SOURCES } from '../../core/platforms/meta/target.ts';
import type { PlannedChange } from '../../core/registry/registry.ts';
import {
  answerQuestion,
  CONSENT_PURPOSES,
  type ColumnChoice,
  type Draft,
  draftResources,
  type PlatformChoice,
  retarget,
} from '../../core/samples/draft.ts';
import {
  CONTEXT_TARGETS,
  type Guesses,
  guessChoices,
  type InferredField,
  inferFields,
  type ParsedSample,
  parseSample,
  type TimeWindow,
} from '../../core/samples/index.ts';
import { offeredScheme } from '../../core/samples/sender-scheme.ts';
import { translate } from '../../core/translate/index.ts';
import { keyedBySignature } from '../../core/translate/signature-header.ts';
import type { DestinationType, Settings } from '../../schemas/settings.ts';
import {
  $,
  admin,
  type DestinationPayload,
  diffView,
  el,
  noteMissingToken,
  payloadBlocks,
  refusal,
  show,
} from './common.ts';
import {
  minorProblem,
  refreshValueOptions,
  showAmountGuesses,
  showMinorOffer,
  startAmounts,
  valueChoice,
  withMinorUnits,
} from './creator-amounts.ts';
import { authProblem, authSpec, offerScheme, renderAuth, startAuth } from './creator-auth.ts';
import { byColumn, checkName, identityNote, renderPreview, type Saved } from './creator-checks.ts';
import { consentWarning } from './creator-consent.ts';
import { showConstraints, tightenControls } from './creator-constraints.ts';
import { offerTypes, sampleHeaders } from './creator-headers.ts';
import { goLive, startLive } from './creator-live.ts';
import { PLATFORM_CONTROL_IDS, platformEvents, renderPlatformControls } from './creator-platforms.ts';
import { fieldNameProblems, showQuestions } from './creator-questions.ts';
import {
  catalogueDraft,
  catalogueTarget,
  renderSlots,
  resetSlots,
  slotErrors,
  startTargets,
} from './creator-targets.ts';
import { showTimeQuestion, timeBlock } from './creator-time.ts';
import {
  guessedChoices,
  joinTypes,
  keepControls,
  restoreControls,
  type Types,
  type TypeView,
  typeProblems,
  typesTranslatorName,
  typeViews,
} from './creator-types.ts';
import { counted, fitTarget, rowCheckPending, rowCheckVerdict } from './creator-wording.ts';

const TARGETS = ['event_data', ...CONTEXT_TARGETS.filter((t) => t !== 'event_name'), 'skip'];

interface State {
  /** The rows being mapped: the whole sample, or the shown type's rows when it has several types. */
  sample?: ParsedSample;
  /** The whole sample as read (what the translator reads and the preview shows). */
  whole?: ParsedSample;
  /** Its event types, when it has several and one event per type is chosen (creator-types.ts). */
  types?: Types;
  /** The discriminator the sample offered last (its checkbox keeps the person's choice). */
  typesOffer?: string;
  text: string;
  fields: InferredField[];
  choices: ColumnChoice[];
  draft?: Draft;
  /** The sample's rows as events (what the translator makes of them). */
  events: unknown[];
  /** Why each column goes where it was guessed to (in column order). */
  whys: string[];
  guesses?: Guesses;
  /** The event name the page filled in from a guess (replaced by the next guess, unless edited). */
  autoName: string;
  /** The records key the sample offered last (its checkbox keeps the person's choice). */
  offer?: string;
  /** The environment's settings limits (the gateway's event_time window). */
  limits: NonNullable<Settings['limits']>;
  /** The answer to the blocking question about times outside the window (`column`, `arrival`, `fix`). */
  timeAnswer?: string;
}
const state: State = { text: '', fields: [], choices: [], events: [], whys: [], autoName: '', limits: {} };

/** Keys that hold one event per item when a body is an object around a list (GA4, Meta, batches). */
const RECORD_KEYS = /^(events|data|batch|records|rows|items_?list)$/;

/** The gateway's normalize options for this environment: its limits, so its window. */
const gatewayOptions = () =>
  normalizeOptions({
    name: 'studio',
    project: 'studio',
    region: 'europe-west1',
    limits: state.limits,
  } as Settings);

function timeWindow(): TimeWindow {
  const o = gatewayOptions();
  return { now: Date.now(), pastMs: o.eventTimePastMs, futureMs: o.eventTimeFutureMs };
}

const MEDIA = {
  csv: 'text/csv',
  tsv: 'text/csv',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  form: 'application/x-www-form-urlencoded',
} as const;

/** What the page says it read: a form post by what it is, the others by format and header. */
function readAs(sample: ParsedSample): string {
  if (sample.format === 'form')
    return `Read as a form post (${MEDIA.form}), bracketed keys as nested fields: ${counted(sample.rows.length, 'row')}, ${counted(sample.columns.length, 'column')}.`;
  return `Read as ${sample.format.toUpperCase()}${sample.delimiter ? ` (delimiter ${JSON.stringify(sample.delimiter)})` : ''}${sample.header ? ', with a header row' : ''}: ${counted(sample.rows.length, 'row')}, ${counted(sample.columns.length, 'column')}.`;
}

function readSample(): void {
  const text = $<HTMLTextAreaElement>('sample').value;
  const format = $<HTMLSelectElement>('format').value;
  const options = format === 'auto' ? {} : { format: format as ParsedSample['format'] };
  let sample = parseSample(text, options);
  // An object around one list of objects (GA4's events[], Meta's data[]), or a batch nested under
  // envelopes (Okta's data.events): offer its items as rows.
  const offer = sample.recordsOffer;
  const box = $<HTMLInputElement>('records');
  $('records-row').hidden = !offer;
  // A batch nested under envelopes (`data.events`) is ticked by its own name, as a top-level one.
  if (offer && offer !== state.offer) box.checked = RECORD_KEYS.test(offer.slice(offer.lastIndexOf('.') + 1));
  if (offer) state.offer = offer;
  else delete state.offer;
  if (offer) {
    $('records-key').textContent = offer;
    if (box.checked) sample = parseSample(text, { ...options, records: offer });
  }
  state.whole = sample;
  state.text = text;
  // Several event types told apart by a discriminator: one event per type, unless untold.
  const { offer: typesOffer, groups } = offerTypes(sample, catalogueTarget() === undefined, state.typesOffer);
  if (typesOffer) state.typesOffer = typesOffer;
  else delete state.typesOffer;
  const zone = $<HTMLInputElement>('zone').value.trim() || 'UTC';
  if (typesOffer && groups) {
    state.types = typeViews(typesOffer, groups, timeWindow(), zone);
    showType(0);
  } else {
    delete state.types;
    state.sample = sample;
    state.fields = inferFields(sample);
    const guesses = guessChoices(state.fields, sample.rows, { window: timeWindow() });
    state.guesses = guesses;
    state.choices = guessedChoices(guesses, state.fields);
    state.whys = guesses.columns.map((g) => g.why);
    showGuessed(guesses);
  }
  offerScheme(offeredScheme(sample.rows));
  $('detected').textContent = readAs(sample);
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
  renderSlots(state.fields);
  update();
}

/** The guesses of the rows being mapped: the name, time, questions and amounts. */
function showGuessed(guesses: Guesses): void {
  delete state.timeAnswer;
  resetSlots();
  showGuesses(guesses);
  showQuestions(guesses.questions, (q, column) => {
    state.choices = answerQuestion(q, column, state.choices);
    const asked = new Set(q.options.map((o) => o.column));
    state.fields.forEach((f, i) => {
      if (asked.has(f.name)) state.whys[i] = `your answer to “${q.ask}”`;
    });
    renderFields();
    update();
  });
  showAmountGuesses(guesses);
}

/** Shows one event type of the sample to map: its rows, guesses, choices, name and platforms. */
function showType(index: number): void {
  const types = state.types;
  const view = types?.views[index];
  if (!types || !view) return;
  types.current = index;
  $<HTMLSelectElement>('multi-current').value = String(index);
  state.sample = view.sample;
  state.fields = view.fields;
  state.guesses = view.guesses;
  state.choices = view.choices;
  state.whys = view.whys;
  $<HTMLInputElement>('event-name').value = view.eventName;
  state.autoName = view.autoName;
  showGuessed(view.guesses);
  restoreControls(view.controls);
}

/** Keeps what the person did to the type shown, then shows another. */
function switchType(): void {
  const types = state.types;
  const view = types?.views[types.current];
  if (!types || !view) return;
  view.choices = state.choices;
  view.whys = state.whys;
  view.eventName = $<HTMLInputElement>('event-name').value.trim();
  view.autoName = state.autoName;
  view.controls = keepControls();
  showType(Number($<HTMLSelectElement>('multi-current').value));
  renderFields();
  renderSlots(state.fields);
  update();
}

function renderFields(): void {
  const table = $<HTMLTableElement>('fields');
  const head = el(
    'tr',
    {},
    ...[
      'Column',
      'Goes to',
      'Why',
      'Found',
      'Saved as (what the definition checks)',
      'Examples',
      'Field name',
      'Required',
      'Personal data',
    ].map((h) => el('th', { scope: 'col' }, h)),
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
    const guessed = state.guesses?.columns[i];
    pii.checked = choice.pii ?? (guessed?.personal === true || f.format === 'email' || f.format === 'phone');
    // Name, required and personal data are a field's: only an event field has them here (the
    // context's own fields, user.email…, are hashed per the settings).
    // What a sample cannot prove, tightened only by the person (creator-constraints.ts).
    const tighten = tightenControls(f, choice, (change) => {
      state.choices[i] = change(state.choices[i] as ColumnChoice);
      update();
    });
    const enable = () => {
      const data = state.choices[i]?.target === 'event_data';
      for (const input of [name, required, pii, ...tighten.inputs]) input.disabled = !data;
      name.placeholder = data ? '' : '—';
      if (!data) name.value = '';
      else if (name.value === '') name.value = state.choices[i]?.field ?? '';
    };
    const set = (next: Partial<ColumnChoice>) => {
      state.choices[i] = { ...(state.choices[i] as ColumnChoice), ...next };
      enable();
      update();
    };
    // Moving a column off the event's id says it is not the event's (draft.ts `retarget`).
    target.addEventListener('change', () => {
      state.choices[i] = retarget(state.choices[i] as ColumnChoice, target.value);
      set({});
    });
    name.addEventListener('input', () => {
      set({ field: name.value });
      // The save's own rule (core/translate/spec.ts), as the person types: a refused name is marked.
      const bad = fieldNameProblems([state.choices[i] as ColumnChoice]);
      name.setAttribute('aria-invalid', String(bad.length > 0));
      name.title = bad[0] ?? '';
    });
    required.addEventListener('change', () => set({ required: required.checked }));
    pii.addEventListener('change', () => set({ pii: pii.checked }));
    state.choices[i] = { ...choice, pii: pii.checked };
    enable();
    const found =
      f.distinct === 0
        ? 'always empty'
        : `${f.type}${f.format ? ` (${f.format})` : ''}${f.pattern ? `, ${f.pattern}` : ''}${f.text ? ', written as text: converted' : ''}${f.nullable ? ', sometimes empty' : ''}`;
    const why = el('td', { class: 'guess' }, el('span', {}, state.whys[i] ?? ''), ' ', evidenceLine(i));
    // The guess's reason stands until the person changes the column: then it is theirs.
    target.addEventListener('change', () => {
      why.textContent = 'your choice';
    });
    return el(
      'tr',
      { 'data-column': f.name },
      el('th', { scope: 'row' }, f.name),
      el('td', {}, target),
      why,
      el('td', {}, found),
      el('td', {}, el('span', { class: 'saved-as' }), tighten.cell),
      el('td', {}, f.examples.map(show).join(' · ')),
      el('td', {}, name),
      el('td', {}, required),
      el('td', {}, pii),
    );
  });
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
  filterFields();
}

/** What a column's guess rests on, and how sure it is, under its why (until the person changes it). */
function evidenceLine(i: number): HTMLElement | string {
  const g = state.guesses?.columns[i];
  if (!g || state.whys[i] !== g.why) return '';
  const e = g.evidence;
  // Its own line, so it never runs into the why ("matches50% sure", #94).
  return el(
    'div',
    { class: 'hint evidence' },
    `${Math.round(g.confidence * 100)}% sure. Name: ${e.name}. Type: ${e.type}. Values: ${e.shape}. Position: ${e.position}.`,
  );
}

/** Shows only the columns whose name, or where they go (`user.`), holds the search text. */
function filterFields(): void {
  const q = $<HTMLInputElement>('field-search').value.trim().toLowerCase();
  const rows = [...$('fields').querySelectorAll<HTMLTableRowElement>('tbody tr')];
  let shown = 0;
  rows.forEach((row, i) => {
    const f = state.fields[i];
    const c = state.choices[i];
    const hit =
      q === '' ||
      (f?.name.toLowerCase().includes(q) ?? false) ||
      (c !== undefined && c.target !== 'event_data' && c.target.startsWith(q));
    row.hidden = !hit;
    if (hit) shown++;
  });
  const kept = state.choices.filter((c) => c.target !== 'skip').length;
  $('field-count').textContent = `${shown} of ${counted(rows.length, 'column')} shown, ${kept} kept.`;
}

/** "Leave out all but…": every column the search hides is left out; the ones shown keep their choice. */
function keepShown(): void {
  const rows = [...$('fields').querySelectorAll<HTMLTableRowElement>('tbody tr')];
  for (const row of rows) {
    const select = row.querySelector('select');
    if (!row.hidden || !select || select.value === 'skip') continue;
    select.value = 'skip';
    select.dispatchEvent(new Event('change'));
  }
  filterFields();
}

/** The event name, event time, consent and action source guesses, each with why. */
function showGuesses(g: Guesses): void {
  const input = $<HTMLInputElement>('event-name');
  if (input.value.trim() === '' || input.value === state.autoName) {
    input.value = g.eventName?.name ?? '';
    state.autoName = input.value;
  }
  $('name-guess').textContent = g.eventName
    ? `Name guessed ${g.eventName.why}: change it if you like.`
    : 'No column names the event: give it a name.';
  $('time-guess').textContent = `Event time: ${g.eventTime.why}.`;
  showTimeQuestion(g.eventTime, update);
  const candidates = state.fields.filter(
    (f) => f.type === 'boolean' || g.consent.some((c) => c.column === f.name),
  );
  for (const purpose of CONSENT_PURPOSES) {
    const select = $<HTMLSelectElement>(`consent-${purpose}`);
    select.replaceChildren(
      el('option', { value: '' }, 'not in the event'),
      el('option', { value: 'granted' }, 'given when the data was collected'),
      ...candidates.map((f) => el('option', { value: `column:${f.name}` }, `from ${f.name}`)),
    );
  }
  $('consent-guess').textContent =
    g.consent.length > 0
      ? `${g.consent.map((c) => c.why).join('; ')}: choose it for the purposes it covers (yes/true → granted, else denied).`
      : '';
  const source = $<HTMLSelectElement>('action-source');
  source.replaceChildren(...META_ACTION_SOURCES.map((v) => el('option', { value: v }, v)));
  source.value = g.actionSource.value;
  $('action-why').textContent = `Guessed: ${g.actionSource.why}.`;
}

function saved(draft: Draft): Saved {
  const personal = new Set(
    state.choices.filter((c) => c.pii && c.target === 'event_data').map((c) => c.column),
  );
  const cat = catalogueDraft(draft, state.fields, personal);
  const joined = state.types && !cat ? joinTypes(state.types, typesName()) : undefined;
  const base = cat?.translator ?? joined?.translator ?? draft.translator;
  const auth = authSpec();
  const translator = auth ? { ...base, spec: keyedBySignature({ ...base.spec, auth }) } : base;
  return cat
    ? { event: cat.event, catalogue: true, translator, documents: [translator] }
    : joined
      ? {
          event: translator.spec.event,
          events: joined.definitions.map((d) => d.name),
          catalogue: false,
          translator,
          documents: [...joined.definitions, translator],
        }
      : {
          event: draft.definition.name,
          catalogue: false,
          translator,
          documents: [draft.definition, translator],
        };
}

/** The endpoint's name for several types: the one typed, else one made from the types' events. */
const typesName = () =>
  $<HTMLInputElement>('translator-name').value.trim() ||
  (state.types ? typesTranslatorName(state.types, state.whole?.format ?? 'json') : '');

/** Why the draft cannot be saved yet beyond its rows: unfilled slots, the time question, the auth. */
function blockers(): string[] {
  return [
    ...slotErrors(),
    ...(state.types && !catalogueTarget() ? typeProblems(state.types) : []),
    ...(catalogueTarget() ? [] : fieldNameProblems(state.choices)),
    ...[timeBlock(), authProblem(), catalogueTarget() ? undefined : minorProblem()].filter(
      (b): b is string => b !== undefined,
    ),
  ];
}

function update(): void {
  const sample = state.sample;
  if (!sample) return;
  const target = catalogueTarget();
  const types = target ? undefined : state.types;
  $('translator-name-row').hidden = target === undefined && types === undefined;
  // A catalogue target sends per the catalogue's own platform mappings: step 3's events are a definition's.
  $('platform-events').hidden = target !== undefined;
  $('action-source-row').hidden = target !== undefined;
  showMinorOffer(target === undefined);
  $('catalogue-platforms').hidden = target === undefined;
  const eventName = $<HTMLInputElement>('event-name').value.trim();
  const name = target ? { ok: true, text: '', cls: 'ok' } : checkName(eventName);
  const check = $('name-check');
  check.textContent = name.text;
  check.className = name.cls;
  const zone = $<HTMLInputElement>('zone').value.trim() || 'UTC';
  const description = $<HTMLInputElement>('description').value.trim();
  const drafted = withMinorUnits(state.choices);
  const platforms = platformChoice();
  const draft = draftResources({
    eventName: eventName || 'unnamed_event',
    description,
    translatorName: `${(eventName || 'unnamed_event').replace(/_/g, '-')}-${sample.format}`,
    sample,
    fields: state.fields,
    choices: drafted,
    zone,
    platforms,
  });
  state.draft = draft;
  if (types) redraftTypes(types, { draft, eventName, description, drafted, platforms }, zone);
  $('identity-note').textContent = identityNote(draft, saved(draft).translator.spec);
  showConstraints($('fields'), draft, state.choices, state.fields, target);
  refreshValueOptions(draft, state.choices);
  renderAuth(saved(draft).translator.name);
  const blocked = blockers();
  $('slot-errors')?.replaceChildren(...slotErrors().map((e) => el('li', { class: 'err' }, e)));
  const dataFields = target ? 1 : (draft.definition.spec['fields'] as unknown[]).length;
  // Whether the draft may be checked is known now (the name, the fields, the blockers), not only
  // after the row check: a field left by a click (its change event re-drafts) must not disable
  // the very button that click lands on, or the first click on it does nothing (#94).
  const checkable = name.ok && dataFields > 0 && blocked.length === 0;
  $<HTMLButtonElement>('check').disabled = !checkable;
  $<HTMLButtonElement>('save').disabled = true;
  $('plan').replaceChildren();
  $('payloads').replaceChildren();
  // Checking every row of a large sample takes a moment (10,000 rows: about 3 s on a slow
  // machine): once typing pauses, not on every key.
  clearTimeout(rowCheckTimer);
  const rowCheck = $('row-check');
  // Every row of the sample, whatever type is shown: the one translator reads them all.
  const whole = state.whole ?? sample;
  const rows = whole.rows.length;
  rowCheck.textContent = rowCheckPending(rows);
  rowCheck.className = '';
  pendingRowCheck = () => {
    pendingRowCheck = undefined;
    if (state.draft !== draft) return;
    const refused = validateRows(draft);
    renderPreview(whole, refused);
    const bad = refused.size;
    const fit = fitTarget(target, types?.views.length);
    rowCheck.textContent = [
      dataFields === 0 ? 'Keep at least one column as an event field.' : rowCheckVerdict(rows, bad, fit),
      ...blocked,
    ].join(' ');
    rowCheck.className = dataFields === 0 || bad > 0 || blocked.length > 0 ? 'warn' : 'ok';
    $<HTMLButtonElement>('check').disabled = !checkable;
  };
  rowCheckTimer = setTimeout(() => pendingRowCheck?.(), 250);
}

/**
 * The shown type takes the draft just made and what it was made from; every other type is drafted
 * again from its own choices, name and platforms, with what all types share (the time zone).
 */
function redraftTypes(
  types: Types,
  shown: Pick<TypeView, 'draft' | 'eventName' | 'description' | 'drafted' | 'platforms'>,
  zone: string,
): void {
  types.views.forEach((v, i) => {
    if (i === types.current) {
      Object.assign(v, shown, { choices: state.choices });
      return;
    }
    v.draft = draftResources({
      eventName: v.eventName || 'unnamed_event',
      ...(v.description ? { description: v.description } : {}),
      translatorName: 'types',
      sample: v.sample,
      fields: v.fields,
      choices: v.drafted ?? v.choices,
      zone,
      ...(v.platforms ? { platforms: v.platforms } : {}),
    });
  });
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
  const events = platformEvents() as PlatformChoice['events'];
  const consent: NonNullable<PlatformChoice['consent']> = {};
  for (const purpose of CONSENT_PURPOSES) {
    const v = $<HTMLSelectElement>(`consent-${purpose}`).value;
    if (v === 'granted') consent[purpose] = 'granted';
    else if (v.startsWith('column:')) consent[purpose] = { column: v.slice('column:'.length) };
  }
  const mapped = new Set(state.choices.filter((c) => c.target.startsWith('consent.')).map((c) => c.target));
  const has = (p: string) => p in consent || mapped.has(`consent.${p}`);
  // Each chosen platform's own purposes (its facts), so none is left out of the warning.
  $('consent-note').textContent = consentWarning(Object.keys(events) as DestinationType[], has);
  const actionSource = $<HTMLSelectElement>('action-source').value;
  return {
    events,
    ...valueChoice(),
    ...(Object.keys(consent).length > 0 ? { consent } : {}),
    ...(events.meta_capi && actionSource ? { actionSource } : {}),
  };
}

/** Each destination's exact request for the first sample row (the same code as `preview`). */
async function previewPayloads(): Promise<void> {
  flushRowCheck();
  const draft = state.draft;
  const out = $('payloads');
  // With several types, the first row of the type shown, under its own definition.
  const event = state.types
    ? state.events.find((e) => (e as { event_name?: unknown }).event_name === draft?.definition.name)
    : state.events[0];
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
  const which = state.types
    ? `For the first sample row of ${draft.definition.name}`
    : 'For the first sample row';
  out.replaceChildren(el('p', {}, `${which}, nothing is sent now:`), ...payloadBlocks(list));
}

/** Every sample row through the translator and the gateway's checks: row → reasons. */
function validateRows(draft: Draft): Map<number, string> {
  const out = new Map<number, string>();
  const s = saved(draft);
  // A catalogue event is checked against the catalogue's schema, which the gateway holds in code;
  // several types each against its own definition.
  const defined = definedEvents(
    (s.documents as Draft['definition'][])
      .filter((d) => d.kind === 'EventDefinition')
      .map((d) => definedEvent(d.name, '0.0', d.spec as { fields: [] })),
  );
  const r = translate({
    translator: s.translator.name,
    spec: s.translator.spec,
    eventName: s.event,
    body: new TextEncoder().encode(state.text),
    contentType: MEDIA[state.whole?.format ?? 'csv'],
    headers: sampleHeaders(),
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
  // The gateway's own check with this environment's limits: the event_time window included.
  const options = gatewayOptions();
  for (const row of r.rows) {
    const n = normalizeEvent(row.event, { options, now: Date.now(), newId: () => 'preview', defined });
    if (!n.ok)
      for (const v of n.violations)
        add(row.row, `${v.field}: ${v.description.replace(/ \([a-z0-9_]+@0\.0\)$/, '')}`);
  }
  return out;
}

async function checkSave(dryRun: boolean): Promise<void> {
  flushRowCheck();
  const draft = state.draft;
  if (!draft) return;
  const s = saved(draft);
  const documents = s.documents;
  const { status, json } = await admin('/v1/admin/apply', { documents, dryRun });
  const plan = $('plan');
  if (status !== 200) {
    // Named by column for one event; several types' documents are named as the API names them.
    plan.replaceChildren(...refusal(status, state.types ? json : byColumn(json, draft, s)));
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
    // A catalogue event's columns are its slots (what the translator fills), a defined one's its fields.
    // Several types: every type's fields, each once.
    const fields = s.catalogue
      ? s.translator.spec.fields.map((f) => f.target).filter((t) => !/[.]|^event_/.test(t))
      : [
          ...new Set(
            (s.documents as Draft['definition'][])
              .filter((d) => d.kind === 'EventDefinition')
              .flatMap((d) => (d.spec['fields'] as { name: string }[]).map((f) => f.name)),
          ),
        ];
    goLive(
      { ...s, fields, contentType: MEDIA[state.whole?.format ?? 'csv'], text: state.text },
      config.gatewayUrl ?? '{gateway}',
    );
  }
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
  // Step 3's controls, as each platform's facts declare them.
  renderPlatformControls();
  for (const id of ['event-name', 'description', 'zone', 'currency-code'])
    $(id).addEventListener('input', update);
  for (const id of [...PLATFORM_CONTROL_IDS, 'action-source', ...CONSENT_PURPOSES.map((p) => `consent-${p}`)])
    $(id).addEventListener('change', update);
  $('records').addEventListener('change', readSample);
  $('field-search').addEventListener('input', filterFields);
  $('keep-shown').addEventListener('click', keepShown);
  // The gateway's limits (its event_time window), so the rows are checked as the endpoint will.
  void admin('/v1/admin/limits', {}).then(({ status, json }) => {
    if (status === 200) state.limits = (json as { limits: State['limits'] }).limits ?? {};
  });
  $('preview-payloads').addEventListener('click', () => void previewPayloads());
  startLive();
  startAuth(update);
  startAmounts(update);
  startTargets(update);
  // One event per type, or one event for every row; which type's mapping is shown.
  $('multi').addEventListener('change', readSample);
  $('multi-current').addEventListener('change', switchType);
  $('target-event').addEventListener('change', () => {
    // A catalogue event is one event: a sample of several types is read again as one.
    if (state.typesOffer) {
      readSample();
      return;
    }
    resetSlots();
    renderSlots(state.fields);
    update();
  });
  $('translator-name').addEventListener('input', update);
  $('check').addEventListener('click', () => void checkSave(true));
  $('save').addEventListener('click', () => void checkSave(false));
}

start();
