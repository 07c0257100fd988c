/**
 * The studio's rules page (docs/rules.md, experimental): open a rule or write a new one as YAML,
 * try it on the stored events of a period (`rule-test`: how often it would have fired, for whom,
 * sending nothing), see what saving changes (the apply dry run's diff), save, and see its
 * firings (`action_runs`). The address keeps the rule shown (`/rules?rule=high-value-purchase`).
 * Beside the YAML, a form for the common rule (core/console/rule-form.ts) writes the same
 * document into it, and is filled from it when the rule has that shape.
 */
import { parse, stringify } from 'yaml';
import {
  FORM_OPS,
  type FormAction,
  type FormCondition,
  type FormOp,
  formOf,
  type RuleForm,
  ruleDocument,
} from '../../core/console/rule-form.ts';
import type { ResourceVersion } from '../../core/registry/registry.ts';
import { exportYaml } from '../../core/registry/resource-diff.ts';
import { $, admin, diffView, el, noteMissingToken, refusal, rowsTable } from './common.ts';

const TEMPLATE = `kind: Rule
name: high-value-purchase
description: Tell sales about big orders, once per customer per day
spec:
  trigger:
    event:
      names: [purchase]
      all:
        - { field: value, op: gt, value: 500 }
  once_per: { key: user_id, period: 1d }
  actions:
    - publish: { event_name: high_value_customer }
`;

/** The YAML as a document, or a refusal shown where the person looks. */
function documentOf(): unknown {
  try {
    return parse($<HTMLTextAreaElement>('rule-yaml').value);
  } catch (err) {
    $('rule-status').replaceChildren(
      el('p', { class: 'err' }, `The YAML does not read: ${(err as Error).message}`),
    );
    return undefined;
  }
}

async function loadList(select?: string): Promise<void> {
  const { status, json } = await admin('/v1/admin/resources/Rule');
  if (status !== 200) {
    $('rule-status').replaceChildren(...refusal(status, json));
    return;
  }
  const names = (json as { resources: { name: string; deleted?: boolean }[] }).resources
    .filter((r) => !r.deleted)
    .map((r) => r.name);
  const list = $<HTMLSelectElement>('rule-list');
  list.replaceChildren(
    el('option', { value: '' }, 'a new rule'),
    ...names.map((n) => el('option', { value: n }, n)),
  );
  if (select && names.includes(select)) {
    list.value = select;
    await open(select);
  }
}

async function open(name: string): Promise<void> {
  history.replaceState(null, '', `/rules?rule=${encodeURIComponent(name)}`);
  const { status, json } = await admin(`/v1/admin/resources/Rule/${encodeURIComponent(name)}`);
  if (status !== 200) {
    $('rule-status').replaceChildren(...refusal(status, json));
    return;
  }
  $<HTMLTextAreaElement>('rule-yaml').value = exportYaml([json as ResourceVersion]);
  $('rule-status').textContent = `Opened ${name} ${(json as ResourceVersion).version}.`;
  readYaml(true);
  $('test-result').replaceChildren();
  $('plan').replaceChildren();
  await firings(name);
}

async function firings(name: string): Promise<void> {
  $('firings-section').hidden = false;
  $('firings-name').textContent = name;
  const { status, json } = await admin('/v1/admin/rule-firings', { rule: name });
  if (status !== 200) {
    $('firings').replaceChildren(...refusal(status, json));
    return;
  }
  const { firings: rows, rulesOff } = json as { firings: Record<string, unknown>[]; rulesOff?: boolean };
  $('firings').replaceChildren(
    rulesOff
      ? el(
          'p',
          { class: 'warn' },
          'Rules are off in this environment (settings: experimental.rules): nothing fires.',
        )
      : rows.length === 0
        ? el('p', {}, 'It has not fired yet.')
        : rowsTable('Firings', rows, [
            'recorded_at',
            'version',
            'event_id',
            'once_key',
            'action',
            'status',
            'reason',
          ]),
  );
}

async function test(): Promise<void> {
  const document = documentOf();
  if (document === undefined) return;
  const status = $('rule-status');
  status.textContent = 'Trying it on the stored events…';
  const { status: code, json } = await admin('/v1/admin/rule-test', {
    document,
    hours: Number($<HTMLSelectElement>('hours').value),
  });
  if (code !== 200) {
    status.replaceChildren(...refusal(code, json));
    return;
  }
  const r = json as {
    events: number;
    fired: number;
    skippedOnce: number;
    byKey: { key: string; firings: number }[];
    truncated: boolean;
  };
  status.textContent = `Over ${r.events} stored event(s)${r.truncated ? ' (the first 100,000)' : ''}, it would have fired ${r.fired} time(s)${r.skippedOnce > 0 ? `; once_per would have skipped ${r.skippedOnce} more` : ''}. Nothing was sent.`;
  $('test-result').replaceChildren(
    ...(r.byKey.length > 0 ? [rowsTable('Firings by key', r.byKey, ['key', 'firings'])] : []),
  );
}

async function apply(dryRun: boolean): Promise<void> {
  const document = documentOf();
  if (document === undefined) return;
  const { status, json } = await admin('/v1/admin/apply', { documents: [document], dryRun });
  const plan = $('plan');
  if (status !== 200) {
    plan.replaceChildren(...refusal(status, json));
    $<HTMLButtonElement>('save').disabled = true;
    return;
  }
  const c = (
    json as { changes: { kind: string; name: string; change: string; version: string; diff?: string }[] }
  ).changes[0];
  if (!c) return;
  plan.replaceChildren(
    el('p', {}, `${c.kind}/${c.name}: ${dryRun ? 'would be ' : ''}${c.change} ${c.version}`),
    ...(c.diff ? [diffView(c.diff, `Changes to ${c.kind}/${c.name}`)] : []),
  );
  $<HTMLButtonElement>('save').disabled = !dryRun || c.change === 'unchanged';
  if (dryRun) return;
  await loadList(c.name);
  // Opening the saved version clears the plan: say again what was saved, so it stays in view.
  plan.replaceChildren(el('p', { class: 'ok' }, `${c.kind}/${c.name}: ${c.change} ${c.version}`));
}

const OP_LABELS: Readonly<Record<FormOp, string>> = {
  eq: 'is',
  ne: 'is not',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'is one of',
  not_in: 'is none of',
  exists: 'is present',
  not_exists: 'is missing',
  matches: 'matches (RE2)',
};

const input = (id: string): HTMLInputElement => $<HTMLInputElement>(id);

/** One condition's row: field, operator, value, and a button that removes it. */
function conditionRow(c: FormCondition = { field: '', op: 'eq', value: '' }): HTMLElement {
  const n = $('f-conditions').children.length + 1;
  const text = (part: string, placeholder: string, value: string) => {
    const i = el('input', {
      type: 'text',
      class: `f-${part}`,
      'aria-label': `Condition ${n}: ${part}`,
      placeholder,
      spellcheck: 'false',
      autocomplete: 'off',
    });
    i.value = value;
    return i;
  };
  const field = text('field', 'value', c.field);
  const op = el(
    'select',
    { class: 'f-op', 'aria-label': `Condition ${n}: operator` },
    ...FORM_OPS.map((o) => el('option', { value: o }, OP_LABELS[o])),
  );
  op.value = c.op;
  const value = text('value', '500', c.value);
  const remove = el('button', { type: 'button', 'aria-label': `Remove condition ${n}` }, 'Remove');
  const row = el('div', { class: 'row f-condition' }, field, op, value, remove);
  remove.addEventListener('click', () => row.remove());
  return row;
}

function showActionFields(): void {
  const kind = $<HTMLSelectElement>('f-action').value;
  $('f-connection-pair').hidden = kind === 'publish';
  $('f-event-name-pair').hidden = kind !== 'publish';
  $('f-text-row').hidden = kind !== 'chat';
}

function formValue(): RuleForm {
  const kind = $<HTMLSelectElement>('f-action').value;
  const action: FormAction =
    kind === 'publish'
      ? { kind, event_name: input('f-event-name').value }
      : kind === 'webhook'
        ? { kind, connection: input('f-connection').value }
        : { kind: 'chat', connection: input('f-connection').value, text: input('f-text').value };
  return {
    name: input('f-name').value,
    description: input('f-description').value,
    events: input('f-events').value,
    match: $<HTMLSelectElement>('f-match').value === 'any' ? 'any' : 'all',
    conditions: [...$('f-conditions').querySelectorAll('.f-condition')].map((r) => ({
      field: (r.querySelector('.f-field') as HTMLInputElement).value,
      op: (r.querySelector('.f-op') as HTMLSelectElement).value as FormOp,
      value: (r.querySelector('.f-value') as HTMLInputElement).value,
    })),
    onceKey: input('f-once-key').value,
    oncePeriod: input('f-once-period').value,
    action,
  };
}

function writeYaml(): void {
  $<HTMLTextAreaElement>('rule-yaml').value = stringify(ruleDocument(formValue()));
  $<HTMLButtonElement>('save').disabled = true;
  $('form-status').textContent = 'Written below. Try it, or see what will be saved.';
}

/** Fills the form from the YAML when the form can show it; says why not otherwise. */
function readYaml(quiet = false): void {
  let doc: unknown;
  try {
    doc = parse($<HTMLTextAreaElement>('rule-yaml').value);
  } catch {
    doc = undefined;
  }
  const f = formOf(doc);
  if ('problem' in f) {
    $('form-status').textContent = quiet
      ? ''
      : `The form cannot show this rule: ${f.problem}. Edit the YAML.`;
    return;
  }
  input('f-name').value = f.name;
  input('f-description').value = f.description;
  input('f-events').value = f.events;
  $<HTMLSelectElement>('f-match').value = f.match;
  $('f-conditions').replaceChildren();
  for (const c of f.conditions) $('f-conditions').append(conditionRow(c));
  input('f-once-key').value = f.onceKey;
  input('f-once-period').value = f.oncePeriod || '1d';
  $<HTMLSelectElement>('f-action').value = f.action.kind;
  input('f-connection').value = 'connection' in f.action ? f.action.connection : '';
  input('f-text').value = f.action.kind === 'chat' ? f.action.text : '';
  input('f-event-name').value = f.action.kind === 'publish' ? f.action.event_name : '';
  showActionFields();
  $('form-status').textContent = quiet ? '' : 'The form shows the YAML.';
}

function startForm(): void {
  $('f-add').addEventListener('click', () => {
    const row = conditionRow();
    $('f-conditions').append(row);
    row.querySelector('input')?.focus();
  });
  $('f-action').addEventListener('change', showActionFields);
  $('f-write').addEventListener('click', writeYaml);
  $('f-read').addEventListener('click', () => readYaml());
  readYaml(true);
}

function start(): void {
  noteMissingToken();
  $<HTMLTextAreaElement>('rule-yaml').value = TEMPLATE;
  $('rule-yaml').addEventListener('input', () => {
    $<HTMLButtonElement>('save').disabled = true;
  });
  $('rule-list').addEventListener('change', () => {
    const name = $<HTMLSelectElement>('rule-list').value;
    if (name) void open(name);
    else {
      $<HTMLTextAreaElement>('rule-yaml').value = TEMPLATE;
      readYaml(true);
      $('firings-section').hidden = true;
      history.replaceState(null, '', '/rules');
    }
  });
  startForm();
  $('test').addEventListener('click', () => void test());
  $('check').addEventListener('click', () => void apply(true));
  $('save').addEventListener('click', () => void apply(false));
  void loadList(new URLSearchParams(location.search).get('rule') ?? undefined);
}

start();
