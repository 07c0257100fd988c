/**
 * What the creator says of a draft as the person edits it (docs/studio.md, steps 2 and 4): the
 * event name against the naming rule and the catalogue, the sample rows marked with why one would
 * be refused, a refusal of the save named by the sample's columns, and what makes a row one event.
 */
import type { Draft } from '../../core/samples/draft.ts';
import type { ParsedSample } from '../../core/samples/index.ts';
import { eventNameProblem, lookupEvent, nearCatalogueName } from '../../schemas/catalogue.ts';
import { $, el, show } from './common.ts';

/**
 * What is saved: the definition and its translator, or for a catalogue target the translator
 * alone (creator-targets.ts); either with the sender's authentication as its `spec.auth`.
 */
export interface Saved {
  readonly event: string;
  /** Several types saved as one endpoint: every type's event (the stored rows of each are shown). */
  readonly events?: readonly string[];
  readonly catalogue: boolean;
  readonly translator: Draft['translator'];
  readonly documents: readonly object[];
}

/** The name rule, catalogue names, platform names and near misses, as the person types. */
export function checkName(name: string): { ok: boolean; text: string; cls: string } {
  if (name === '') return { ok: false, text: 'Give the event a name (snake_case).', cls: 'warn' };
  const problem = eventNameProblem(name);
  if (problem) return { ok: false, text: `The name ${problem}.`, cls: 'err' };
  if (lookupEvent(name))
    return {
      ok: false,
      text: `${name} is a built-in catalogue event: it cannot be redefined; to fill it, choose it under "The rows become".`,
      cls: 'err',
    };
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

/** The sample as read, each row marked as fitting or with why it would be refused, beside its number. */
export function renderPreview(sample: ParsedSample, refused: Map<number, string>): void {
  const columns = sample.columns;
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, '#'),
    el('th', { scope: 'col' }, 'Check'),
    ...columns.map((c) => el('th', { scope: 'col' }, c)),
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
      // Beside the row, not after 200 columns: why it would be refused.
      why ? el('td', { class: 'why' }, why) : el('td', { class: 'ok' }, 'fits'),
      ...columns.map((c) => el('td', {}, show(row[c] ?? ''))),
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

/**
 * A refusal's fields named by the sample's columns: `documents[0].spec.fields[5].enum` is the
 * definition's sixth field, made from a column the person can find in the table.
 */
export function byColumn(json: unknown, draft: Draft, s: Saved): unknown {
  const e = (json as { error?: { details?: { fieldViolations?: { field: string }[] }[] } }).error;
  const specFields = draft.definition.spec['fields'] as { name: string }[];
  const source = (target: string) => s.translator.spec.fields.find((f) => f.target === target)?.source;
  const at = s.catalogue ? 0 : 1;
  for (const d of e?.details ?? [])
    for (const v of d.fieldViolations ?? []) {
      const def = s.catalogue ? null : /^documents\[0\]\.spec\.fields\[(\d+)\]\.?(.*)$/.exec(v.field);
      const tr = new RegExp(`^documents\\[${at}\\]\\.spec\\.fields\\[(\\d+)\\]\\.?(.*)$`).exec(v.field);
      const name = def ? specFields[Number(def[1])]?.name : undefined;
      const column = def
        ? name && source(name)
        : tr
          ? s.translator.spec.fields[Number(tr[1])]?.source
          : undefined;
      const rest = (def ?? tr)?.[2];
      if (typeof column === 'string')
        v.field = `column "${column}"${name ? ` (field ${name})` : ''}${rest ? `: ${rest}` : ''}`;
    }
  return json;
}

/**
 * What makes a row one event (core/samples/delivery.ts): the vendor's delivery metadata left out
 * of it, and the vendor's own id as the key, so a retry folds into the first copy; with no key,
 * that each row's id comes from the request body's digest (and which column the person refused),
 * unless the saved translator keys on the signature's message id (`saved`, the spec with its auth).
 */
export function identityNote(draft: Draft, saved: Draft['translator']['spec']): string {
  const { left, key, digest } = draft.identity;
  return [
    ...(left.length > 0
      ? [
          `Left out of the event (the delivery, not the event: a retry changes it): ${left.map((d) => d.why).join('; ')}.`,
        ]
      : []),
    ...(key
      ? [`Each row's event id comes from ${key.columns.join(' + ')}: ${key.why}; a retry is the same event.`]
      : []),
    ...(digest && saved.key
      ? [
          `Each row's event id comes from ${saved.key.flat().join(' + ')}: the signature's message id, the same on every retry.`,
        ]
      : digest
        ? [`No key: ${digest}.`]
        : []),
  ].join(' ');
}
