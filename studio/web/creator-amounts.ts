/**
 * The creator's money guesses on the page (docs/studio.md, steps 2 and 3;
 * docs/creator-inference.md#guesses). The minor-units offer is shown with its why and applied
 * only while its box is ticked: the value column then gets `majorUnits` (core/samples/draft.ts
 * writes the `major_units` step, the field a number). The platforms' value and currency lists
 * are preselected from the value and currency guesses, following the column when its field is
 * renamed, until the person picks in them; with a currency column guessed, the fixed code is
 * left empty rather than assuming one. Browser-only: the page's elements.
 */

import { CURRENCY_CODES } from '../../core/samples/codes.ts';
import type { ColumnChoice, Draft, PlatformChoice } from '../../core/samples/draft.ts';
import type { Guesses } from '../../core/samples/index.ts';
import { $, el } from './common.ts';

let guesses: Guesses | undefined;
/** What the page wrote into the code box: replaced by the next guess unless the person typed. */
let autoCode = 'EUR';
/** The lists the person chose in since the sample was read: no longer preselected. */
const picked = new Set<string>();

/** Offers minor units and resets the value and currency preselection for a newly read sample. */
export function showAmountGuesses(g: Guesses): void {
  const offer = g.minorUnits;
  const box = $<HTMLInputElement>('minor-units');
  // The person's tick stands while the offer is about the same column (a sample read again).
  if (offer?.column !== guesses?.minorUnits?.column) box.checked = false;
  guesses = g;
  picked.clear();
  $('minor-offer').hidden = !offer;
  $('minor-column').textContent = offer?.column ?? '';
  $('minor-why').textContent = offer ? `Offered because ${offer.why}.` : '';
  $('minor-fixed').hidden = !offer || offer.majorUnits !== undefined;
  const code = $<HTMLInputElement>('currency-code');
  if (code.value === autoCode) {
    code.value = g.currency ? '' : 'EUR';
    autoCode = code.value;
  }
}

/** Whether the offer is taken: ticked, and shown (a catalogue target scales in its slots instead). */
const minorTaken = () => $<HTMLInputElement>('minor-units').checked && !$('minor-offer').hidden;

/** Shows the offer for an event of its own only: a catalogue target's slots have their own box. */
export function showMinorOffer(ownEvent: boolean): void {
  $('minor-offer').hidden = !ownEvent || guesses?.minorUnits === undefined;
}

/** The one currency typed for cents that no column names the currency of, when it is a code in use. */
function fixedCurrency(): string | undefined {
  const code = $<HTMLInputElement>('minor-currency').value.trim().toUpperCase();
  return CURRENCY_CODES.has(code) ? code : undefined;
}

/**
 * The person's column choices, with the value column scaled from minor units when the offer is
 * taken: by the currency column, or (no column holds one) by the one currency typed beside the
 * offer, the translator's `major_units: { currency }`.
 */
export function withMinorUnits(choices: readonly ColumnChoice[]): ColumnChoice[] {
  const offer = guesses?.minorUnits;
  if (!offer || !minorTaken()) return [...choices];
  const code = fixedCurrency();
  const majorUnits = offer.majorUnits ?? (code ? { currency: code } : undefined);
  if (!majorUnits) return [...choices];
  return choices.map((c) => (c.column === offer.column ? { ...c, majorUnits } : c));
}

/** Why the save waits on the minor-units offer: taken without a currency column, and no code typed. */
export function minorProblem(): string | undefined {
  const offer = guesses?.minorUnits;
  if (!offer || offer.majorUnits || !minorTaken() || fixedCurrency()) return undefined;
  return `The amounts in ${offer.column} are in cents: type the currency they are all in (an ISO 4217 code, EUR, USD…), or untick.`;
}

/** The event field a guessed column is kept as now (the person may have renamed it), if it is one. */
function fieldOf(column: string | undefined, choices: readonly ColumnChoice[]): string | undefined {
  const c = choices.find((x) => x.column === column);
  return c?.target === 'event_data' ? c.field : undefined;
}

/**
 * The value and currency lists offer the definition's number and text fields; until the person
 * picks, the guessed column's field is selected once the definition has it (Paddle's text total
 * only when the minor-units offer makes it a number).
 */
export function refreshValueOptions(draft: Draft, choices: readonly ColumnChoice[]): void {
  const fields = draft.definition.spec['fields'] as { name: string; type: string }[];
  const fill = (id: string, none: string, keep: (type: string) => boolean, guessed: string | undefined) => {
    const select = $<HTMLSelectElement>(id);
    const names = fields.filter((f) => keep(f.type)).map((f) => f.name);
    const chosen =
      !picked.has(id) && guessed !== undefined && names.includes(guessed) ? guessed : select.value;
    select.replaceChildren(
      el('option', { value: '' }, none),
      ...names.map((n) => {
        const o = el('option', { value: n }, n);
        o.selected = n === chosen;
        return o;
      }),
    );
  };
  fill(
    'value-field',
    'no value',
    (t) => t === 'number' || t === 'integer',
    fieldOf(guesses?.value?.column, choices),
  );
  fill('currency-field', 'the code →', (t) => t === 'string', fieldOf(guesses?.currency?.column, choices));
}

/** The value and currency part of step 3's choice: a currency column over the fixed code. */
export function valueChoice(): Pick<PlatformChoice, 'valueField' | 'currency'> {
  const valueField = $<HTMLSelectElement>('value-field').value;
  const currencyField = $<HTMLSelectElement>('currency-field').value;
  const code = $<HTMLInputElement>('currency-code').value.trim().toUpperCase();
  if (!valueField) return {};
  if (currencyField) return { valueField, currency: { field: currencyField } };
  return /^[A-Z]{3}$/.test(code) ? { valueField, currency: { code } } : { valueField };
}

/** Listens to the offer's box and notes a pick in the value and currency lists. */
export function startAmounts(changed: () => void): void {
  $('minor-units').addEventListener('change', changed);
  $('minor-currency').addEventListener('input', () => {
    // The platforms' fixed code follows the cents' currency until the person types one there.
    const code = $<HTMLInputElement>('currency-code');
    const typed = fixedCurrency();
    if (typed && code.value === autoCode) {
      code.value = typed;
      autoCode = typed;
    }
    changed();
  });
  for (const id of ['value-field', 'currency-field'])
    $(id).addEventListener('change', () => {
      picked.add(id);
      changed();
    });
}
