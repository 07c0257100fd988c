/**
 * One endpoint, several event types (docs/creator-inference.md, "Several event types"): a vendor
 * sends a payment, a renewal and a refund to one URL and says which by a discriminator (its
 * `type` or `event` field, or a topic header such as `X-Shopify-Topic`). The sample's rows are
 * grouped by that discriminator, each group drafted as its own event (draft.ts, its own mapping
 * and definition), and the drafts joined into ONE translator: the discriminator's value names the
 * event (a lookup, so a type the sample never showed is refused by name, never stored as another
 * type), the fields every type maps alike are shared, and each type's own fields are a case of
 * its own (`spec.cases`). Pure.
 */
import type { TranslatorCase, TranslatorField, TranslatorSpec } from '../../schemas/translator.ts';
import type { Draft } from './draft.ts';
import type { ParsedSample } from './sample.ts';

/** Top-level names a vendor gives the event type. */
const DISCRIMINATOR = /^(type|event|event_type|eventtype|topic|action|kind|event_name|trigger)$/i;

/**
 * The column that tells the sample's event types apart: a top-level `type`/`event`/`topic`…
 * column that every row fills with text, and that takes at least two values; else undefined
 * (one type: one event, as before).
 */
export function discriminatorOf(sample: ParsedSample): string | undefined {
  return sample.columns.find((c) => {
    if (c.includes('.') || !DISCRIMINATOR.test(c)) return false;
    const values = sample.rows.map((r) => r[c]);
    return values.every((v) => typeof v === 'string' && v !== '') && new Set(values).size >= 2;
  });
}

/**
 * The sample's rows by the discriminator's value, in order of first appearance; each group with
 * the columns its own rows have (a renewal's plan is no column of a payment's).
 */
export function rowsByType(sample: ParsedSample, discriminator: string): Map<string, ParsedSample> {
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of sample.rows) {
    const value = String(row[discriminator]);
    groups.set(value, [...(groups.get(value) ?? []), row]);
  }
  const out = new Map<string, ParsedSample>();
  for (const [value, rows] of groups)
    out.set(value, {
      ...sample,
      rows,
      columns: sample.columns.filter((c) => rows.some((r) => Object.hasOwn(r, c))),
    });
  return out;
}

/** One event type of the endpoint: the discriminator's value and the draft made from its rows. */
export interface TypeDraft {
  readonly value: string;
  readonly draft: Draft;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The one translator (and each type's definition) for an endpoint that sends several types.
 * `discriminator` is a body path or a `header:` source. The translator's `key` is the types'
 * common key where they all have the same one; else none (each row's id from the body's digest).
 */
export function draftMultiType(input: {
  readonly translatorName: string;
  readonly discriminator: string;
  readonly types: readonly TypeDraft[];
}): { definitions: Draft['definition'][]; translator: Draft['translator'] } {
  const [first, ...rest] = input.types;
  if (!first) throw new Error('draftMultiType needs at least one type');
  const specs = input.types.map((t) => t.draft.translator.spec);
  const shared = first.draft.translator.spec.fields.filter((f) =>
    rest.every((t) => t.draft.translator.spec.fields.some((g) => same(f, g))),
  );
  const naming: TranslatorField = {
    target: 'event_name',
    source: input.discriminator,
    transforms: [
      { lookup: Object.fromEntries(input.types.map((t) => [t.value, t.draft.translator.spec.event])) },
    ],
  };
  const cases = input.types.flatMap((t): TranslatorCase[] => {
    const own = t.draft.translator.spec.fields.filter((f) => !shared.some((g) => same(f, g)));
    return own.length > 0 ? [{ when: { source: input.discriminator, equals: t.value }, fields: own }] : [];
  });
  const key = specs.every((s) => same(s.key, first.draft.translator.spec.key))
    ? first.draft.translator.spec.key
    : undefined;
  const spec: TranslatorSpec = {
    event: first.draft.translator.spec.event,
    format: first.draft.translator.spec.format,
    events: [...new Set(specs.map((s) => s.event))],
    fields: [naming, ...shared],
    ...(cases.length > 0 ? { cases } : {}),
    ...(key ? { key } : {}),
  };
  return {
    definitions: input.types.map((t) => t.draft.definition),
    translator: {
      kind: 'Translator',
      name: input.translatorName,
      description: `Made with the studio's creator: ${input.types.length} event types by ${input.discriminator}.`,
      spec,
    },
  };
}
