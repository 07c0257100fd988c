/**
 * What the saved definition will enforce on each field, in the creator's field table (docs/studio.md,
 * step 2): read from the very definition "Show what will be saved" writes as YAML, so the page
 * never promises a check the save does not make, nor hides one it does. What a small sample cannot
 * prove (the list of values, a length, a range) is open unless the person tightens it here: "only
 * these values" for a text column the sample shows a few values of, a longest length for text, the
 * smallest and largest value for a number. Browser-only: the page's elements.
 */
import type { FieldSpec } from '../../core/definitions/definitions.ts';
import type { ColumnChoice, Draft } from '../../core/samples/draft.ts';
import type { InferredField } from '../../core/samples/index.ts';
import { dataFieldName } from '../../core/samples/suggest.ts';
import { el, show } from './common.ts';

const NUMERIC = new Set(['number', 'integer']);

/** A field's constraints in words, as its definition holds them. */
export function constraintText(spec: FieldSpec, sample: InferredField | undefined): string {
  const parts: string[] = [spec.type, spec.required ? 'required' : 'optional'];
  if (spec.format) parts.push(`format ${spec.format}`);
  if (spec.enum) parts.push(`one of: ${spec.enum.map(show).join(', ')}`);
  else if (spec.type === 'string' || NUMERIC.has(spec.type)) {
    const seen = sample?.enum;
    parts.push(seen ? `any value (the sample shows ${seen.length}: not proof of a list)` : 'any value');
  }
  if (spec.type === 'string')
    parts.push(spec.maxLength !== undefined ? `at most ${spec.maxLength} characters` : 'any length');
  if (NUMERIC.has(spec.type)) {
    const { minimum: lo, maximum: hi } = spec;
    parts.push(
      lo !== undefined && hi !== undefined
        ? `from ${lo} to ${hi}`
        : lo !== undefined
          ? `at least ${lo}`
          : hi !== undefined
            ? `at most ${hi}`
            : 'any range',
    );
  }
  if (spec.pii) parts.push('personal data');
  return parts.join(' · ');
}

/** A choice without one of its optional keys (a tightening undone). */
function without(choice: ColumnChoice, key: 'enum' | 'minimum' | 'maximum' | 'maxLength'): ColumnChoice {
  const { [key]: _gone, ...rest } = choice;
  return rest;
}

/** A number typed in a bound's input, or undefined while it is empty or not a number. */
const bound = (input: HTMLInputElement): number | undefined =>
  input.value.trim() === '' || !Number.isFinite(input.valueAsNumber) ? undefined : input.valueAsNumber;

/**
 * The controls that tighten one column's field, each labelled: "only these values" when the
 * sample shows a few, a longest length for text, bounds for a number. `edit` hears each change
 * as a function of the column's current choice.
 */
export function tightenControls(
  f: InferredField,
  choice: ColumnChoice,
  edit: (change: (c: ColumnChoice) => ColumnChoice) => void,
): { inputs: HTMLInputElement[]; cell: HTMLElement } {
  const pairs: [HTMLInputElement, string][] = [];
  const number = (key: 'minimum' | 'maximum' | 'maxLength', label: string, words: string) => {
    const input = el('input', { type: 'number', class: 'bound', 'aria-label': `${f.name}: ${label}` });
    const value = choice[key];
    if (value !== undefined) input.value = String(value);
    input.addEventListener('input', () => {
      const n = bound(input);
      edit((c) => (n === undefined ? without(c, key) : { ...c, [key]: n }));
    });
    pairs.push([input, words]);
  };
  const values = f.type === 'string' ? f.enum : undefined;
  if (values) {
    const only = el('input', {
      type: 'checkbox',
      'aria-label': `${f.name}: allow only ${values.join(', ')}`,
    });
    only.checked = choice.enum !== undefined;
    only.addEventListener('change', () =>
      edit((c) => (only.checked ? { ...c, enum: values } : without(c, 'enum'))),
    );
    pairs.push([only, `only ${values.map(show).join(', ')}`]);
  }
  if (f.type === 'string') number('maxLength', 'at most how many characters', 'longest');
  if (NUMERIC.has(f.type)) {
    number('minimum', 'smallest value allowed', 'min');
    number('maximum', 'largest value allowed', 'max');
  }
  return {
    inputs: pairs.map(([input]) => input),
    cell: el(
      'span',
      { class: 'tighten' },
      ...pairs.map(([input, words]) => el('label', { class: 'pair' }, input, ` ${words}`)),
    ),
  };
}

/** Fills each row's "Saved as" with its field's constraints in the draft's definition. */
export function showConstraints(
  table: HTMLElement,
  draft: Draft,
  choices: readonly ColumnChoice[],
  fields: readonly InferredField[],
  catalogue: string | undefined,
): void {
  const specs = draft.definition.spec['fields'] as FieldSpec[];
  choices.forEach((c, i) => {
    const cell = table.querySelector<HTMLElement>(`tbody tr:nth-child(${i + 1}) .saved-as`);
    if (!cell) return;
    const target = c.target === 'event_data' ? (c.field ?? dataFieldName(c.column)) : undefined;
    const spec = target !== undefined ? specs.find((s) => s.name === target) : undefined;
    cell.textContent =
      c.target === 'skip'
        ? 'not saved'
        : catalogue
          ? `the ${catalogue} event's own checks`
          : spec
            ? constraintText(spec, fields[i])
            : target !== undefined
              ? 'not saved (a vendor delivery field)'
              : `${c.target}: the context's own checks`;
  });
}
