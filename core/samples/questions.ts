/**
 * What each of the creator's guesses rests on, and the questions it asks where two readings
 * compete (docs/creator-inference.md#evidence-and-questions): the person's phone or the
 * business's (`From` or `To`, payer or payee), the sale's total or a fee named like a value
 * (PayPal's `transaction_fee.value`). A question's first option is what the columns' guesses
 * already say; the page shows the others beside it. Pure.
 */
import { notTheValue } from './amounts.ts';
import { nameWords } from './names.ts';
import type { Role } from './roles.ts';
import type { InferredField } from './sample.ts';
import { suggestMappings } from './suggest.ts';

/** What a column's guess rests on, each part in words the page shows. */
export interface Evidence {
  /** What the column's name says (or that it says nothing the creator knows). */
  readonly name: string;
  /** The type read from the values (`string (phone)`, `timestamp, RFC 3339`). */
  readonly type: string;
  /** What the values look like: the first of them, and how many differ. */
  readonly shape: string;
  /** Where it sits in the payload, and whose it is there. */
  readonly position: string;
}

/**
 * A choice between columns for one target; the first option is the guess, unless the question
 * preselects its no answer (`noneGuessed`).
 */
export interface Question {
  /** The target both would take: `user.phone`, `user.email`, or `value` (an event field). */
  readonly target: string;
  /** For an event field: its name (`value`). */
  readonly field?: string;
  readonly ask: string;
  readonly options: readonly { readonly column: string; readonly why: string }[];
  /**
   * Set when the guess is the no answer ("No" to one column, "None of these" to several): no
   * column takes the target until the person picks one, every option's column being guessed as
   * an event field under its own name. Any question may preselect it; `why` is the page's words.
   */
  readonly noneGuessed?: { readonly why: string };
}

const isName = (reason: string) => /name|names /.test(reason);

/** A value as the evidence writes it: text quoted, at most 40 characters. */
function shown(v: unknown): string {
  const text = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** The evidence of one column's guess: its suggestion's reason, its inferred field, its role. */
export function evidenceOf(f: InferredField, reason: string, roleWhy: string): Evidence {
  const leaf = f.name.slice(f.name.lastIndexOf('.') + 1);
  const parent = f.name.includes('.') ? f.name.slice(0, f.name.lastIndexOf('.')) : '';
  return {
    name: isName(reason) ? reason : `"${leaf}" names no field the creator knows`,
    type: `${f.type}${f.format ? ` (${f.format}${f.loose ? ', loosely written' : ''})` : ''}${f.pattern ? `, ${f.pattern}` : ''}`,
    shape:
      f.distinct === 0
        ? 'always empty'
        : `${shown(f.examples[0])}${f.distinct > 1 ? `, ${f.distinct} different values` : ', one value in the sample'}`,
    position:
      parent === ''
        ? `at the top of the payload${roleWhy ? `; ${roleWhy}` : ''}`
        : roleWhy || `inside ${parent}`,
  };
}

/** A column as questionsFor reads it: its guess now, and whose it is. */
export interface QuestionColumn {
  readonly field: InferredField;
  readonly target: string;
  readonly guessed?: string;
  readonly role: { readonly role: Role; readonly why: string };
  /** The target the column takes on its name and values alone (suggest.ts), before roles. */
  readonly alone: string;
}

const LABEL: Readonly<Record<string, string>> = {
  'user.phone': 'phone number',
  'user.email': 'e-mail address',
};

/**
 * The questions for a payload's columns: a person's phone or e-mail taken from one column while
 * another would take it but is the business's (the page asks whose it is, the person's
 * preselected), a person's id known by its name only (the page asks whether it is), and the value taken from a total while a fee, tax or shipping amount ends in a
 * value's name (the total preselected).
 */
export function questionsFor(columns: readonly QuestionColumn[]): Question[] {
  const out: Question[] = [];
  for (const target of ['user.phone', 'user.email']) {
    const chosen = columns.find((c) => c.target === target);
    const rivals = columns.filter(
      (c) => c.alone === target && c.target !== target && c.role.role === 'business',
    );
    if (!chosen || rivals.length === 0) continue;
    out.push({
      target,
      ask: `Whose ${LABEL[target]} is the person's? Both columns hold one.`,
      options: [
        { column: chosen.field.name, why: chosen.role.why || 'the payload’s own: the person’s' },
        ...rivals.map((r) => ({ column: r.field.name, why: r.role.why })),
      ],
    });
  }
  // An e-mail address known by its values alone (Chargebee's `user`, who made the change): an
  // address is not yet the person's, so the page asks, the guess preselected.
  const inQuestion = new Set(out.flatMap((q) => q.options.map((o) => o.column)));
  for (const c of columns)
    if (c.target === 'user.email' && !inQuestion.has(c.field.name) && !mailNamed(c.field.name))
      out.push({
        target: c.target,
        ask: `Is ${c.field.name} the person's e-mail address? Its values are addresses, but nothing in its name says whose.`,
        options: [
          { column: c.field.name, why: 'e-mail addresses, under a name that says nothing of an e-mail' },
        ],
      });
  // A person's id named as one (`hidden.user_id`) inside an object that is not the person's own:
  // its name is the only evidence of whose it is, so the page asks, the guess preselected.
  for (const c of columns)
    if ((c.target === 'user_id' || c.target === 'user.external_id') && c.role.role === 'other')
      out.push({
        target: c.target,
        ask: `Is ${c.field.name} the person's id? Its name says so, but it sits in an object that is not the person's.`,
        options: [{ column: c.field.name, why: `named as the person's id; ${c.role.why}` }],
      });
  const value = columns.find((c) => c.target === 'event_data' && c.guessed === 'value');
  const fees = columns.filter((c) => {
    if (c === value || c.field.distinct === 0) return false;
    const leaf = nameWords(c.field.name.slice(c.field.name.lastIndexOf('.') + 1));
    return (
      notTheValue(c.field.name) !== undefined && leaf.length === 1 && VALUE_LEAVES.has(leaf[0] as string)
    );
  });
  if (value && fees.length > 0)
    out.push({
      target: 'event_data',
      field: 'value',
      ask: 'Which amount is the event’s value? The others end in a value’s name but are named as something else.',
      options: [
        {
          column: value.field.name,
          why: 'the total: named as the amount, no fee, tax or shipping in its name',
        },
        ...fees.map((c) => ({
          column: c.field.name,
          why: `"${notTheValue(c.field.name)}" in its name: a part of the total or a charge, not the value`,
        })),
      ],
    });
  return out;
}

/**
 * Whether a column's name, or an object around it, names an e-mail (`data.email.from`,
 * `Correo electrónico`): its name alone, without its values, would take the person's e-mail.
 */
function mailNamed(column: string): boolean {
  if (nameWords(column).some((w) => /^(e?mail|emails)$/.test(w))) return true;
  return suggestMappings([{ name: column, type: 'string' }])[0]?.target === 'user.email';
}

/** Leaves that alone would name an amount: `transaction_fee.value`, `paypal_fee.value`. */
const VALUE_LEAVES = new Set(['value', 'amount', 'total']);
