/**
 * The creator's catalogue targets (docs/studio.md, step 2): rows can become a built-in catalogue
 * event (`purchase`, `lead`, …) instead of an event defined here. The catalogue event's fields
 * become slots, each filled from a column of the sample; a required slot left empty is an error
 * naming it, and the save is held back until it is filled. What is saved is the Translator alone,
 * with `event: <catalogue name>`: the catalogue's schema stays in code and no EventDefinition
 * redefines it (the registry refuses one: core/registry/resources.ts). Browser-only: the page's
 * elements, the catalogue's typebox schemas, no node module.
 */
import { mayBeTheValue } from '../../core/samples/amounts.ts';
import { CURRENCY_CODES } from '../../core/samples/codes.ts';
import type { Draft } from '../../core/samples/draft.ts';
import type { InferredField } from '../../core/samples/index.ts';
import { fieldName } from '../../core/samples/names.ts';
import { CATALOGUE, lookupEvent } from '../../schemas/catalogue.ts';
import { RESOURCE_NAME_PATTERN } from '../../schemas/resource.ts';
import type { TranslatorField, TranslatorTransform } from '../../schemas/translator.ts';
import { $, el } from './common.ts';

/** One field of a catalogue event, as a slot a column fills. */
export interface Slot {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
}

/** What the person chose: the column per slot, and which number slots hold minor units (cents). */
interface SlotChoice {
  column: string;
  minor: boolean;
}

const slotChoices = new Map<string, SlotChoice>();
let onChange: () => void = () => {};

/** The catalogue event chosen as the rows' target, or undefined for an event of their own. */
export function catalogueTarget(): string | undefined {
  const v = $<HTMLSelectElement>('target-event').value;
  return v && lookupEvent(v) ? v : undefined;
}

/** A catalogue event's fields as slots, the required ones first. */
export function slotsOf(event: string): Slot[] {
  const schema = lookupEvent(event)?.schema as
    | { properties: Record<string, { type?: string; description?: string }>; required?: string[] }
    | undefined;
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties)
    .map(([name, p]) => ({
      name,
      type: p.type ?? 'json',
      required: required.has(name),
      description: p.description ?? '',
    }))
    .sort((a, b) => Number(b.required) - Number(a.required));
}

/** Column leaves that name a slot, strongest first: the order's total before any part of it. */
const SLOT_NAMES: Readonly<Record<string, readonly string[]>> = {
  transaction_id: ['transaction_id', 'order_id', 'identifier', 'order_number', 'number', 'id'],
  value: ['value', 'total', 'amount_total', 'grand_total', 'total_price', 'amount'],
  currency: ['currency', 'currency_code'],
  tax: ['tax', 'total_tax', 'tax_total'],
  shipping: ['shipping', 'shipping_total', 'total_shipping'],
  coupon: ['coupon', 'discount_code'],
};

const leaf = (column: string) => column.slice(column.lastIndexOf('.') + 1).toLowerCase();

/** A first guess per slot from the columns' names (shallowest column first); the person changes it. */
function guessSlot(slot: Slot, fields: readonly InferredField[]): string {
  const names = SLOT_NAMES[slot.name] ?? [slot.name];
  const byDepth = [...fields].sort((a, b) => a.name.split('.').length - b.name.split('.').length);
  // A fee, tax or shipping amount is never the value, whatever its leaf (PayPal's
  // `resource.transaction_fee.value`), nor a column of times (a `value` of epoch seconds): the
  // same rule as the guesses' (core/samples/amounts.ts).
  const fits = (f: InferredField) => slot.name !== 'value' || mayBeTheValue(f);
  for (const n of names) {
    const hit = byDepth.find((f) => leaf(f.name) === n && f.distinct > 0 && fits(f));
    if (hit) return hit.name;
  }
  return '';
}

/** Whether a vendor's amount reads as minor units: a whole number beside a currency column. */
const looksMinor = (f: InferredField | undefined, fields: readonly InferredField[]) =>
  f?.type === 'integer' && fields.some((x) => leaf(x.name) === 'currency');

/** Shows the target choice's slots for the sample's columns (or hides them for an own event). */
export function renderSlots(fields: readonly InferredField[]): void {
  const target = catalogueTarget();
  const box = $('slots');
  const name = $<HTMLInputElement>('event-name');
  box.hidden = !target;
  $('own-event').hidden = target !== undefined;
  name.disabled = target !== undefined;
  if (!target) {
    box.replaceChildren();
    return;
  }
  name.value = target;
  const slots = slotsOf(target);
  for (const slot of slots)
    if (!slotChoices.has(slot.name)) {
      const column = guessSlot(slot, fields);
      const f = fields.find((x) => x.name === column);
      // A vendor writes every amount of an order alike: the total, its tax and its shipping in cents together.
      slotChoices.set(slot.name, { column, minor: slot.type === 'number' && looksMinor(f, fields) });
    }
  const rows = slots.map((slot) => {
    const choice = slotChoices.get(slot.name) as SlotChoice;
    const select = el('select', { 'aria-label': `Column for ${slot.name}`, 'data-slot': slot.name });
    select.append(el('option', { value: '' }, slot.required ? '— choose a column —' : 'not mapped'));
    for (const f of fields) {
      const o = el('option', { value: f.name }, f.name);
      o.selected = f.name === choice.column;
      select.append(o);
    }
    select.addEventListener('change', () => {
      choice.column = select.value;
      onChange();
    });
    const cell = el('td', {}, select);
    if (slot.type === 'number') {
      const minor = el('input', { type: 'checkbox', 'aria-label': `${slot.name} is in minor units (cents)` });
      minor.checked = choice.minor;
      minor.addEventListener('change', () => {
        choice.minor = minor.checked;
        onChange();
      });
      cell.append(el('label', { class: 'units' }, minor, ' in cents (minor units)'));
    }
    // Two columns, the meaning under the field's name: the table fits a phone's width.
    return el(
      'tr',
      {},
      el(
        'th',
        { scope: 'row' },
        slot.name,
        slot.required ? ' (required)' : '',
        el('span', { class: 'hint meaning' }, slot.description),
      ),
      cell,
    );
  });
  box.replaceChildren(
    el(
      'p',
      { class: 'hint' },
      `${target} is a catalogue event: its schema is built in (it is not redefined here), each row fills its fields from the columns below, and the other kept columns travel as extra event data.`,
    ),
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        { 'aria-label': `Fields of ${target}` },
        el('thead', {}, el('tr', {}, ...['Field', 'From column'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, ...rows),
      ),
    ),
    fixedRow(),
    el('ul', { id: 'slot-errors', class: 'problems' }),
  );
}

/** The one currency typed for every record, for amounts in cents with no currency column. */
let fixedCode = '';

/** The fixed currency's box: what cents are scaled by, and the currency, when no column holds one. */
function fixedRow(): HTMLElement {
  const input = el('input', {
    id: 'slot-currency',
    class: 'code',
    type: 'text',
    size: '4',
    maxlength: '3',
    spellcheck: 'false',
    placeholder: 'USD',
    value: fixedCode,
  });
  input.addEventListener('input', () => {
    fixedCode = input.value.trim().toUpperCase();
    onChange();
  });
  return el(
    'div',
    { class: 'row' },
    el('label', { for: 'slot-currency' }, 'No column holds the currency: every record is in'),
    input,
  );
}

/** The fixed code when it is an ISO 4217 code in use. */
const fixed = () => (CURRENCY_CODES.has(fixedCode) ? fixedCode : undefined);

/** The target select's options (a new event, then the catalogue), and who hears of a change. */
export function startTargets(changed: () => void): void {
  onChange = changed;
  $('target-event').replaceChildren(
    el('option', { value: '' }, 'a new event of its own (defined here)'),
    ...CATALOGUE.map((e) => el('option', { value: e.name }, `${e.name}: ${e.description}`)),
  );
}

/** Forgets the slots' choices (a new sample or another target). */
export function resetSlots(): void {
  slotChoices.clear();
  fixedCode = '';
}

/** Each required slot without a column, as the sentence the page shows. */
export function slotErrors(): string[] {
  const target = catalogueTarget();
  if (!target) return [];
  const slots = slotsOf(target);
  const missing = slots
    .filter((s) => s.required && !slotChoices.get(s.name)?.column && !(s.name === 'currency' && fixed()))
    .map((s) => `${s.name} is required by ${target}: choose the column that holds it.`);
  // Cents become units by their currency's decimals: without a currency column or a typed code
  // there is nothing to scale by, and no currency is assumed for the person.
  const currency = slots.some((s) => s.name === 'currency') ? slotChoices.get('currency')?.column : undefined;
  const cents = slots.filter((s) => slotChoices.get(s.name)?.minor && slotChoices.get(s.name)?.column);
  if (!currency && !fixed() && cents.length > 0)
    missing.push(
      `${cents.map((s) => s.name).join(', ')} in cents need the currency they are in: choose the currency column, type the one currency every record is in, or untick "in cents".`,
    );
  return missing;
}

/** The transforms that make a column's values fit a slot's type. */
function slotTransforms(
  slot: Slot,
  f: InferredField | undefined,
  choice: SlotChoice,
  currency: string | undefined,
): TranslatorTransform[] {
  const text = f?.text === true || f?.type === 'string';
  if (slot.type === 'number') {
    if (choice.minor)
      return [
        ...(text ? (['number'] as const) : []),
        // Without a currency column or a typed code, slotErrors refuses the save: none is assumed.
        ...(currency
          ? [{ major_units: { source: currency } }]
          : fixed()
            ? [{ major_units: { currency: fixed() as string } }]
            : []),
      ];
    return text ? ['number'] : [];
  }
  if (slot.type === 'integer') return text ? ['integer'] : [];
  if (slot.name === 'currency') return ['trim', 'uppercase'];
  if (slot.type === 'string' && (f?.type === 'integer' || f?.type === 'number')) return ['string'];
  return [];
}

/**
 * The draft for a catalogue target: the translator alone, `event` the catalogue name, each filled
 * slot a field read from its column (the column's own event-data field dropped), the other columns
 * as they were chosen. Undefined when the rows become an event of their own.
 */
export function catalogueDraft(
  draft: Draft,
  fields: readonly InferredField[],
  personal: ReadonlySet<string> = new Set(),
): { event: string; translator: Draft['translator'] } | undefined {
  const target = catalogueTarget();
  if (!target) return undefined;
  const slots = slotsOf(target);
  const filled = slots.filter((s) => slotChoices.get(s.name)?.column);
  const used = new Set(filled.map((s) => slotChoices.get(s.name)?.column));
  const slotNames = new Set(slots.map((s) => s.name));
  const currency = slotChoices.get('currency')?.column || undefined;
  const isContext = (t: string) => /^(event_|user|anonymous_id|page\.|consent\.|campaign\.|device\.)/.test(t);
  const kept = draft.translator.spec.fields.flatMap((t): TranslatorField[] => {
    if (isContext(t.target)) return [t];
    const source = 'source' in t ? t.source : undefined;
    // A slotted column is read as its slot; another column the guesses named like a slot
    // (`order_number` as `transaction_id`) keeps its values under its own name, not lost.
    if (typeof source === 'string' && used.has(source)) return [];
    // A catalogue event has no definition of ours to mark a field personal: a column kept beside
    // its slots that the person ticked as personal data (an organizer's e-mail) is stored as its
    // SHA-256 (trimmed, lower-cased), never in clear (#94).
    if (typeof source === 'string' && personal.has(source) && !slotNames.has(t.target))
      return [
        {
          ...t,
          transforms: [
            ...(t.transforms ?? []),
            ...(fields.find((f) => f.name === source)?.type === 'string' ? [] : ['string' as const]),
            'sha256',
          ],
        },
      ];
    if (!slotNames.has(t.target)) return [t];
    const own = typeof source === 'string' ? fieldName(source) : undefined;
    return own && !slotNames.has(own) ? [{ ...t, target: own }] : [];
  });
  const slotFields: TranslatorField[] = filled.map((s) => {
    const choice = slotChoices.get(s.name) as SlotChoice;
    const f = fields.find((x) => x.name === choice.column);
    const transforms = slotTransforms(s, f, choice, currency);
    return { target: s.name, source: choice.column, ...(transforms.length > 0 ? { transforms } : {}) };
  });
  // No currency column: the typed code is every record's currency.
  const code = fixed();
  if (!currency && code && slotNames.has('currency')) slotFields.push({ target: 'currency', value: code });
  // Several senders may each make purchases: the translator (its endpoint) has a name of its own.
  const own = $<HTMLInputElement>('translator-name').value.trim();
  const format = draft.translator.name.slice(draft.translator.name.lastIndexOf('-') + 1);
  return {
    event: target,
    translator: {
      ...draft.translator,
      name: new RegExp(RESOURCE_NAME_PATTERN).test(own) ? own : `${target.replace(/_/g, '-')}-${format}`,
      spec: { ...draft.translator.spec, event: target, fields: [...slotFields, ...kept] },
    },
  };
}
