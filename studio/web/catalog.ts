/**
 * The studio's catalogue of Segment Action Destinations (docs/studio.md#catalogue): the list from
 * the `catalog` call, searched and filtered in the page (name, category, auth kind, actions);
 * a destination opened with `catalog-entry` becomes a form generated from its settings fields
 * and one action's fields (required ones marked, presets filled in, choices as selects;
 * catalog-form.ts reads it), which writes the `segment_action` settings YAML to paste into the
 * environment's settings, and previews the requests a stored event becomes (`catalog-preview`:
 * the runtime with a recording stand-in, nothing sent).
 */
import { stringify } from 'yaml';
import { isOAuth } from '../../core/platforms/segment-action/auth-kind.ts';
import type {
  CatalogAction,
  CatalogEntry,
  CatalogField,
  CatalogSetting,
} from '../../core/platforms/segment-action/catalog.ts';
import { suggestAction } from '../../core/platforms/segment-action/suggest.ts';
import {
  destinationOf,
  formFields,
  idOf,
  isJsonField,
  PRESETS,
  runningPresets,
  secretName,
  startText,
  suggestedAction,
} from './catalog-form.ts';
import { $, admin, el, focusableScrollBoxes, noteMissingToken, refusal } from './common.ts';

interface Row {
  readonly slug: string;
  readonly name: string;
  readonly category: string;
  readonly auth: string;
  readonly supported: boolean;
  readonly actions: readonly { readonly key: string; readonly title: string }[];
  readonly search: string;
}

interface Entry extends CatalogEntry {
  readonly supported: boolean;
  /** Why it cannot be configured here, in its user's words (catalog.ts catalogUnsupported). */
  readonly unsupported?: string;
  /** Set when the project's own run of the catalogue made it deliver no ordinary event: why. */
  readonly undelivered?: { readonly why: string; readonly says: string; readonly example?: string };
  /** The secret role of an OAuth destination's access token, where one can be supplied. */
  readonly tokenRole?: string;
  /** An OAuth destination configured with an `oauth2` connection (docs/catalog-destinations.md, "OAuth"). */
  readonly connection?: true;
}

interface CapturedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

let rows: readonly Row[] = [];
let entry: Entry | undefined;

/** What each auth kind means to the person configuring it. */
function authText(auth: string, supported: boolean): string {
  if (isOAuth(auth))
    return supported ? `${auth}: an oauth2 connection` : `${auth}: needs OAuth, not supported`;
  return auth === 'none' ? 'none (nothing to authenticate)' : `${auth}: credentials as secrets`;
}

function renderList(): void {
  const q = $<HTMLInputElement>('c-search').value.trim().toLowerCase();
  const category = $<HTMLSelectElement>('c-category').value;
  const auth = $<HTMLSelectElement>('c-auth').value;
  const shown = rows.filter(
    (r) =>
      (q === '' || r.search.includes(q)) &&
      (category === '' || r.category === category) &&
      (auth === '' || (auth === 'oauth') === isOAuth(r.auth)),
  );
  $('c-status').textContent = `${shown.length} of ${rows.length} destinations.`;
  const list = $('c-list');
  if (shown.length === 0) {
    list.replaceChildren(el('p', { class: 'hint' }, 'No destination matches.'));
    return;
  }
  list.replaceChildren(
    el(
      'table',
      { 'aria-label': 'Destinations of the catalogue' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['destination', 'category', 'auth', 'actions'].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        ...shown.map((r) => {
          const open = el(
            'button',
            { type: 'button', class: 'link', 'aria-label': `Open ${r.name}` },
            r.name,
          );
          open.addEventListener('click', () => void openEntry(r.slug));
          return el(
            'tr',
            {},
            el('td', { class: 'name' }, open, el('span', { class: 'slug' }, r.slug)),
            el('td', {}, r.category),
            el('td', { class: r.supported ? '' : 'warn' }, authText(r.auth, r.supported)),
            el('td', { class: 'actions' }, r.actions.map((a) => a.title).join(', ')),
          );
        }),
      ),
    ),
  );
}

/** One labelled input of the form: a select for choices and booleans, a textarea for JSON, else text. */
function input(
  id: string,
  label: string,
  value: string,
  options: { choices?: CatalogField['choices']; boolean?: boolean; json?: boolean; hint?: string },
): HTMLElement {
  const hintId = `${id}-hint`;
  const described = options.hint ? { 'aria-describedby': hintId } : {};
  let control: HTMLElement;
  if (options.choices || options.boolean) {
    const choices = options.choices ?? [
      { value: 'true', label: 'true' },
      { value: 'false', label: 'false' },
    ];
    const select = el(
      'select',
      { id, ...described },
      el('option', { value: '' }, '(not set)'),
      ...choices.map((c) => el('option', { value: String(c.value) }, c.label || String(c.value))),
    );
    select.value = choices.some((c) => String(c.value) === value) ? value : '';
    control = select;
  } else if (options.json) {
    const area = el('textarea', {
      id,
      rows: value.length > 80 ? '4' : '2',
      spellcheck: 'false',
      ...described,
    });
    area.value = value;
    control = area;
  } else {
    const text = el('input', { id, type: 'text', spellcheck: 'false', autocomplete: 'off', ...described });
    text.value = value;
    control = text;
  }
  return el(
    'div',
    { class: 'field' },
    el('label', { for: id }, label),
    control,
    ...(options.hint ? [el('p', { class: 'hint', id: hintId }, options.hint)] : []),
  );
}

const required = (label: string, yes: boolean): string => (yes ? `${label} (required)` : label);

function settingInput(s: CatalogSetting, id: string): HTMLElement {
  if (s.secret)
    return input(`as-${s.key}`, required(`${s.label}: secret name`, s.required), secretName(id, s.key), {
      hint: `The secret holding it (Secret Manager; locally its emulator). ${s.description ?? ''}`.trim(),
    });
  return input(
    `as-${s.key}`,
    required(s.label, s.required),
    s.default === undefined ? '' : String(s.default),
    {
      ...(s.choices ? { choices: s.choices } : {}),
      boolean: s.type === 'boolean',
      ...(s.description ? { hint: s.description } : {}),
    },
  );
}

function renderSettings(e: Entry): void {
  const id = $<HTMLInputElement>('d-id').value;
  const parts = e.authFields.map((s) => settingInput(s, id));
  if (e.tokenRole)
    parts.push(
      input(`as-${e.tokenRole}`, 'Access token: secret name (required)', secretName(id, e.tokenRole), {
        hint: 'A token the platform takes as a bearer token (a HubSpot private app’s), never refreshed.',
      }),
    );
  if (e.connection)
    parts.push(
      input(CONNECTION_INPUT, 'OAuth connection: its id (required)', id, {
        hint: `An oauth2 connection of the settings holding the client and refresh token: eventbus connect ${e.slug} makes one.`,
      }),
    );
  $('d-settings').replaceChildren(...parts);
}

/** The input of an OAuth destination's connection id. */
const CONNECTION_INPUT = 'as-connection';

function currentAction(): CatalogAction | undefined {
  const key = $<HTMLSelectElement>('d-action').value;
  return entry?.actions.find((a) => a.key === key);
}

/** Whether the form writes Segment's presets (no `actions`) rather than one action. */
const presetsChosen = (): boolean => $<HTMLSelectElement>('d-action').value === PRESETS;

function renderFields(): void {
  const a = currentAction();
  const when = $<HTMLInputElement>('d-when');
  const presets = presetsChosen();
  // With the presets, each brings its own subscription and mapping: nothing to fill in.
  (when.closest('.field') as HTMLElement).hidden = presets;
  if (presets) {
    const running = runningPresets(entry?.presets);
    $('d-action-about').textContent =
      `No actions written: the ${running.length} presets Segment's app enables run — ` +
      running.map((p) => `${p.name}: ${p.action} for ${p.subscribe}`).join('; ');
    when.value = '';
    $('d-fields').replaceChildren();
    return;
  }
  $('d-action-about').textContent = a?.description ?? '';
  // Suggested mappings (suggest.ts): pre-filled, editable; what no rule can fill stays empty.
  const suggested = a ? suggestAction(a) : undefined;
  when.value = suggested?.when ?? '';
  when.placeholder = a?.defaultSubscription ?? 'event names, or a subscription';
  $('d-when-hint').textContent = a?.defaultSubscription
    ? `Empty: the action's own subscription, ${a.defaultSubscription}. Or event names (purchase, sign_up), or a subscription in Segment's language.`
    : suggested?.when
      ? 'This action has no subscription of its own: suggested from the fields its defaults read. Edit it, or name the events (purchase, sign_up).'
      : 'This action has no subscription of its own: name the events (purchase, sign_up) or write a subscription.';
  $('d-fields').replaceChildren(
    ...(a ? formFields(a) : []).map((f) => {
      const from = suggested?.from[f.key];
      const question = suggested?.questions.includes(f.key);
      return input(`af-${f.key}`, required(f.label, f.required), startText(f, suggested?.mapping[f.key]), {
        ...(f.choices ? { choices: f.choices } : {}),
        boolean: f.type === 'boolean' && typeof f.default !== 'object',
        json: isJsonField(f),
        hint: [
          from ? `Suggested: ${from}; edit or clear it.` : '',
          question ? 'Only you know this value: nothing in the event says it.' : '',
          f.conditional ? 'Required in some cases.' : '',
          f.description ?? '',
        ]
          .join(' ')
          .trim(),
      });
    }),
  );
}

function facts(e: Entry): HTMLElement {
  const dl = el('dl', { class: 'facts' });
  const add = (k: string, v: string) => dl.append(el('dt', {}, k), el('dd', {}, v));
  add('Name', e.name);
  add('Slug', e.slug);
  add('Category', e.category ?? 'Other');
  add('Auth', authText(e.auth, e.supported));
  add('Actions', e.actions.map((a) => a.title).join(', '));
  if (e.description) add('About', e.description);
  return dl;
}

async function openEntry(slug: string): Promise<void> {
  const r = await admin('/v1/admin/catalog-entry', { slug });
  const detail = $('catalog-detail');
  if (r.status !== 200) {
    $('d-facts').replaceChildren(...refusal(r.status, r.json));
    detail.hidden = false;
    return;
  }
  entry = r.json as Entry;
  $('d1').textContent = entry.name;
  $('d-facts').replaceChildren(
    facts(entry),
    ...(entry.unsupported === undefined
      ? []
      : [el('p', { class: 'warn', id: 'd-unsupported' }, entry.unsupported)]),
    ...(entry.undelivered === undefined
      ? []
      : [
          el(
            'p',
            { class: 'warn', id: 'd-undelivered' },
            `In this project's own run of the catalogue it delivered none of a site's ordinary events: it ${entry.undelivered.says}.`,
          ),
        ]),
  );
  $<HTMLInputElement>('d-id').value = idOf(entry.slug);
  renderSettings(entry);
  // Segment's presets when it has some (what its app enables when the destination is added);
  // else one action, the one for the sample purchase (catalog-form.ts suggestedAction).
  const presets = runningPresets(entry.presets).length > 0;
  const preferred = presets ? PRESETS : suggestedAction(entry.actions, entry.presets);
  const select = $<HTMLSelectElement>('d-action');
  select.replaceChildren(
    ...(presets ? [el('option', { value: PRESETS }, "Segment's presets (no actions)")] : []),
    ...entry.actions.map((a) => el('option', { value: a.key }, `${a.title} (${a.key})`)),
  );
  if (preferred !== undefined) select.value = preferred;
  renderFields();
  $<HTMLTextAreaElement>('d-yaml').value = '';
  $('d-status').replaceChildren();
  $('p-out').replaceChildren();
  $('p-status').textContent = '';
  detail.hidden = false;
  // One the runtime cannot run gets no form: what it would write, the settings check refuses.
  const runnable = entry.unsupported === undefined;
  $('d-make').hidden = !runnable;
  $('catalog-preview').hidden = !runnable;
  focusableScrollBoxes();
  $('d1').focus();
}

/** The destination the form makes; problems are shown, and the YAML written either way. */
function writeYaml(): Record<string, unknown> | undefined {
  const a = currentAction();
  if (!entry || (!a && !presetsChosen())) return undefined;
  const settings: Record<string, string> = {};
  for (const s of [...entry.authFields.map((f) => f.key), ...(entry.tokenRole ? [entry.tokenRole] : [])])
    settings[s] = ($(`as-${s}`) as HTMLInputElement | null)?.value ?? '';
  const fields: Record<string, string> = {};
  const shown = a ? formFields(a) : [];
  for (const f of shown) fields[f.key] = ($(`af-${f.key}`) as HTMLInputElement | null)?.value ?? '';
  const made = destinationOf(
    {
      id: $<HTMLInputElement>('d-id').value.trim(),
      slug: entry.slug,
      settings,
      action: a?.key ?? PRESETS,
      when: $<HTMLInputElement>('d-when').value,
      fields,
    },
    entry.authFields,
    shown,
    entry.tokenRole,
    entry.connection ? (($(CONNECTION_INPUT) as HTMLInputElement | null)?.value ?? '') : undefined,
  );
  $<HTMLTextAreaElement>('d-yaml').value = stringify({ destinations: [made.destination] });
  const status = $('d-status');
  status.className = made.problems.length > 0 ? 'err' : 'ok';
  status.replaceChildren(
    made.problems.length > 0
      ? el('span', {}, `Check: ${made.problems.join('; ')}`)
      : el('span', {}, 'Written below: paste it into the settings file.'),
  );
  return made.destination;
}

function sampleEvent(): string {
  return JSON.stringify(
    {
      event_name: 'purchase',
      event_id: 'evt_preview_0001',
      event_time: new Date().toISOString(),
      user_id: 'user-123',
      anonymous_id: 'anon-456',
      user: { email: 'ann@example.com', phone: '+4915112345678', first_name: 'Ann' },
      device: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0' },
      event_data: { value: 42.5, currency: 'EUR', transaction_id: 'T-1001' },
    },
    null,
    2,
  );
}

function requestBlock(r: CapturedRequest): HTMLElement {
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`);
  const body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2);
  return el(
    'div',
    { class: 'payload' },
    el('h3', {}, `${r.method} ${r.url}`),
    el('pre', { tabindex: '0', 'aria-label': `${r.method} ${r.url}` }, `${headers.join('\n')}\n\n${body}`),
  );
}

async function preview(): Promise<void> {
  const destination = writeYaml();
  const status = $('p-status');
  const out = $('p-out');
  if (!destination) return;
  let event: unknown;
  try {
    event = JSON.parse($<HTMLTextAreaElement>('p-event').value);
  } catch {
    status.className = 'err';
    status.textContent = 'The stored event is not valid JSON.';
    return;
  }
  status.className = 'hint';
  status.textContent = 'Running the action…';
  const r = await admin('/v1/admin/catalog-preview', { destination, event });
  if (r.status !== 200) {
    status.textContent = '';
    out.replaceChildren(...refusal(r.status, r.json));
    return;
  }
  const answer = r.json as {
    outcomes: { action: string; outcome: { status: string; reason?: string } }[];
    requests: CapturedRequest[];
  };
  status.className = '';
  status.textContent =
    answer.outcomes.length === 0
      ? presetsChosen()
        ? 'None of Segment\'s presets takes this event: pick an action and name the event under "Events it takes".'
        : `The action does not take this event: its subscription (${$<HTMLInputElement>('d-when').value.trim() || currentAction()?.defaultSubscription || 'none'}) does not match it. Name the event under "Events it takes", or pick another action.`
      : answer.outcomes
          .map((o) => `${o.action}: ${o.outcome.status}${o.outcome.reason ? ` (${o.outcome.reason})` : ''}`)
          .join('; ');
  out.replaceChildren(
    ...(answer.requests.length === 0 ? [el('p', { class: 'hint' }, 'No request was made.')] : []),
    ...answer.requests.map(requestBlock),
  );
  focusableScrollBoxes();
}

async function start(): Promise<void> {
  noteMissingToken();
  $<HTMLTextAreaElement>('p-event').value = sampleEvent();
  $('c-search').addEventListener('input', renderList);
  $('c-category').addEventListener('change', renderList);
  $('c-auth').addEventListener('change', renderList);
  $('d-action').addEventListener('change', renderFields);
  $('d-write').addEventListener('click', () => void writeYaml());
  $('p-run').addEventListener('click', () => void preview());
  const r = await admin('/v1/admin/catalog', {});
  if (r.status !== 200) {
    $('c-list').replaceChildren(...refusal(r.status, r.json));
    return;
  }
  const answer = r.json as {
    version: string;
    destinations: Row[];
    unloadable: { slug: string; reason: string }[];
  };
  rows = answer.destinations;
  const categories = [...new Set(rows.map((d) => d.category))].sort();
  $('c-category').append(...categories.map((c) => el('option', { value: c }, c)));
  $('c-unloadable').textContent =
    `From @segment/action-destinations ${answer.version}.` +
    (answer.unloadable.length > 0
      ? ` Not loadable here, so not listed: ${answer.unloadable.map((u) => u.slug).join(', ')}.`
      : '');
  renderList();
  focusableScrollBoxes();
}

void start();
