/**
 * The studio's rules page (docs/rules.md, experimental): open a rule or write a new one as YAML,
 * try it on the stored events of a period (`rule-test`: how often it would have fired, for whom,
 * sending nothing), see what saving changes (the apply dry run's diff), save, and see its
 * firings (`action_runs`). The address keeps the rule shown (`/rules?rule=high-value-purchase`).
 */
import { parse } from 'yaml';
import type { ResourceVersion } from '../../core/registry.ts';
import { exportYaml } from '../../core/resource-diff.ts';
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
    - publish: { event_name: high_value_customer, fields: { order_value: value } }
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
      $('firings-section').hidden = true;
      history.replaceState(null, '', '/rules');
    }
  });
  $('test').addEventListener('click', () => void test());
  $('check').addEventListener('click', () => void apply(true));
  $('save').addEventListener('click', () => void apply(false));
  void loadList(new URLSearchParams(location.search).get('rule') ?? undefined);
}

start();
