/**
 * One endpoint, several event types, on the creator's page (docs/studio.md, step 2;
 * core/samples/multi-type.ts): when the sample's rows are told apart by a discriminator (a
 * `type`, `event` or `topic` column holding several values), the page offers one event per type.
 * Each type is then a view of its own: its rows, its fields and guesses, its column choices, its
 * event name and its step 3 controls; the person maps one type at a time (the "Mapping for type"
 * choice), and what is saved is every type's definition and ONE translator that names each row's
 * event by the discriminator. Browser-only: the page's elements.
 */
import {
  type ColumnChoice,
  type Draft,
  draftResources,
  type PlatformChoice,
} from '../../core/samples/draft.ts';
import {
  eventNameGuess,
  type Guesses,
  guessChoices,
  type InferredField,
  inferFields,
  type ParsedSample,
  type TimeWindow,
} from '../../core/samples/index.ts';
import { discriminatorOf, draftMultiType, rowsByType } from '../../core/samples/multi-type.ts';
import { $, el } from './common.ts';
import { checkName } from './creator-checks.ts';
import { PLATFORM_CONTROL_IDS } from './creator-platforms.ts';
import { fieldNameProblems } from './creator-questions.ts';

/** One event type of the sample, as the page maps it. */
export interface TypeView {
  readonly value: string;
  readonly sample: ParsedSample;
  fields: InferredField[];
  guesses: Guesses;
  choices: ColumnChoice[];
  whys: string[];
  eventName: string;
  autoName: string;
  /** The step 3 controls' values while this type was shown (none yet: not sent anywhere). */
  controls?: Record<string, string>;
  /** Its draft as last made: while shown, or from its guesses before it ever was. */
  draft: Draft;
  /** Its own description, the choices as drafted (minor units applied) and step 3's platforms. */
  description?: string;
  drafted?: ColumnChoice[];
  platforms?: PlatformChoice;
}

export interface Types {
  readonly discriminator: string;
  readonly views: TypeView[];
  current: number;
}

/** The guesses as the first choices, a person's details ticked as personal data. */
export function guessedChoices(g: Guesses, fields: readonly InferredField[]): ColumnChoice[] {
  return g.columns.map((c, i) => {
    const f = fields[i];
    const pii = c.personal === true || f?.format === 'email' || f?.format === 'phone';
    return { column: c.column, target: c.target, ...(c.field ? { field: c.field } : {}), pii };
  });
}

/** The step 3 controls one type keeps of its own: the platforms' events, value, currency, consent. */
const CONTROLS = [
  'description',
  ...PLATFORM_CONTROL_IDS,
  'value-field',
  'currency-field',
  'currency-code',
  'action-source',
  'consent-analytics',
  'consent-ads',
  'consent-ad_user_data',
  'consent-ad_personalization',
];

export function keepControls(): Record<string, string> {
  return Object.fromEntries(CONTROLS.map((id) => [id, $<HTMLInputElement>(id).value]));
}

/** The type's own description and step 3 values back; a type never shown has none and is sent to no platform. */
export function restoreControls(saved: Record<string, string> | undefined): void {
  for (const id of saved ? CONTROLS : ['description', ...PLATFORM_CONTROL_IDS]) {
    const input = $<HTMLInputElement | HTMLSelectElement>(id);
    input.value = saved?.[id] ?? '';
  }
}

/**
 * The sample's types when it has a discriminator (and the page offers the choice): shows the
 * offer, ticked the first time this discriminator is seen; undefined when it has none.
 */
export function offerTypes(sample: ParsedSample, allowed: boolean, lastOffer: string | undefined) {
  const discriminator = allowed ? discriminatorOf(sample) : undefined;
  const box = $<HTMLInputElement>('multi');
  $('multi-type').hidden = discriminator === undefined;
  if (!discriminator) return { offer: undefined, groups: undefined };
  if (discriminator !== lastOffer) box.checked = true;
  const groups = rowsByType(sample, discriminator);
  $('multi-discriminator').textContent = discriminator;
  $('multi-count').textContent = `${groups.size} type${groups.size === 1 ? '' : 's'}`;
  $('multi-pick').hidden = !box.checked;
  return { offer: discriminator, groups: box.checked ? groups : undefined };
}

/** Each group of rows as a type of its own, drafted from its guesses. */
export function typeViews(
  discriminator: string,
  groups: Map<string, ParsedSample>,
  window: TimeWindow,
  zone: string,
): Types {
  const views = [...groups].map(([value, sample]): TypeView => {
    const fields = inferFields(sample);
    const guessed = guessChoices(fields, sample.rows, { window });
    // A type told by a header (`header:X-Shopify-Topic`) is named from the header's value
    // (`orders/create` → `orders_create`), mended as a column's value is to a name the registry takes.
    const named = guessed.eventName || !discriminator.startsWith('header:');
    const fromHeader = named ? undefined : eventNameGuess(value, discriminator);
    const guesses: Guesses = fromHeader ? { ...guessed, eventName: fromHeader } : guessed;
    const choices = guessedChoices(guesses, fields);
    const eventName = guesses.eventName?.name ?? '';
    const draft = draftResources({
      eventName: eventName || 'unnamed_event',
      translatorName: 'types',
      sample,
      fields,
      choices,
      zone,
    });
    const whys = guesses.columns.map((c) => c.why);
    return { value, sample, fields, guesses, choices, whys, eventName, autoName: eventName, draft };
  });
  const select = $<HTMLSelectElement>('multi-current');
  select.replaceChildren(
    ...views.map((v, i) =>
      el(
        'option',
        { value: String(i) },
        `${v.value} (${v.sample.rows.length} row${v.sample.rows.length === 1 ? '' : 's'})`,
      ),
    ),
  );
  return { discriminator, views, current: 0 };
}

/** The endpoint's one translator and every type's definition. */
export function joinTypes(t: Types, translatorName: string) {
  return draftMultiType({
    translatorName,
    discriminator: t.discriminator,
    types: t.views.map((v) => ({ value: v.value, draft: v.draft })),
  });
}

/** The translator's default name: the first type's event and how many more there are. */
export const typesTranslatorName = (t: Types, format: string): string =>
  `${(t.views[0]?.eventName || 'unnamed_event').replace(/_/g, '-')}-and-${t.views.length - 1}-more-${format}`;

/** What holds the save back in the types not shown: a name to give or fix, names taken twice, field names. */
export function typeProblems(t: Types): string[] {
  const out: string[] = [];
  const seen = new Map<string, string>();
  t.views.forEach((v, i) => {
    const name = checkName(v.eventName);
    if (i !== t.current && !name.ok) out.push(`Type ${v.value}: ${name.text}`);
    const other = seen.get(v.eventName);
    if (v.eventName && other !== undefined)
      out.push(`Types ${other} and ${v.value} are both named ${v.eventName}: each type needs its own event.`);
    seen.set(v.eventName, v.value);
    if (i !== t.current) out.push(...fieldNameProblems(v.choices).map((p) => `Type ${v.value}: ${p}`));
  });
  return out;
}
