/**
 * The creator's result (docs/creator-inference.md): from a parsed sample, its inferred fields and
 * what a person chose per column, the EventDefinition and the Translator that `apply` saves. Pure
 * and web-standard: the studio runs it in the browser, tests run it here.
 */

import { CONSENT_PURPOSES, type ConsentPurposeName } from '../../schemas/consent-purposes.ts';
import type { TranslatorField, TranslatorSpec, TranslatorTransform } from '../../schemas/translator.ts';
import type { FieldSpec } from '../definitions/definitions.ts';
import { ACTION_SOURCE_TARGETS, type PlatformType, VALUE_TARGETS } from '../platforms/standard-events.ts';
import { type DeliveryColumn, deliveryColumns, type VendorKey, vendorKey } from './delivery.ts';
import { addressPath } from './email-list.ts';
import type { Question } from './questions.ts';
import type { InferredField, ParsedSample } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** What a person chose for one column. */
export interface ColumnChoice {
  readonly column: string;
  /** `event_data` (a field of the event), a context target (`user.email`, `event_time`), or `skip`. */
  readonly target: string;
  /** For `event_data`: the field's name. */
  readonly field?: string;
  readonly required?: boolean;
  readonly pii?: boolean;
  readonly description?: string;
  /**
   * The only values the person allows (they tightened the field). A sample cannot prove a list:
   * two events show two values of many, so the values seen are never written on their own.
   */
  readonly enum?: readonly string[];
  /** The bounds the person allows a number field (a sample proves none: never guessed). */
  readonly minimum?: number;
  readonly maximum?: number;
  /** The most characters the person allows a text field (never guessed from the sample). */
  readonly maxLength?: number;
  /**
   * The column's amounts are minor units (cents), scaled into major units by the currency read
   * from a column of the record (`source`, a sample column) or fixed (`currency`): the translator's
   * `major_units` step (schemas/translator.ts), the field then a number. Set when the person takes
   * the guesses' `minorUnits` offer, never by a guess alone.
   */
  readonly majorUnits?: { readonly source: string } | { readonly currency: string };
  /**
   * The person said this column is not the event's own id (answered no to a question about it,
   * or moved it off `event_id`): the draft never makes it the key, by the vendor's id or any
   * fallback (#94). Choosing it as `event_id` again clears it.
   */
  readonly notEventId?: true;
}

/**
 * A column's choice with another target, as the person sets it: moving a column off `event_id`
 * says it is not the event's own id (`notEventId`), choosing it as `event_id` takes that back.
 */
export function retarget(c: ColumnChoice, target: string, field?: string): ColumnChoice {
  const { notEventId: _, ...rest } = c;
  const refused = target !== 'event_id' && (c.notEventId === true || c.target === 'event_id');
  return {
    ...rest,
    target,
    ...(field !== undefined ? { field } : {}),
    ...(refused ? { notEventId: true as const } : {}),
  };
}

/** The answer that none of a question's columns takes its target: every one stays an event field. */
export const NONE = '';

/**
 * The choices after answering a question with one of its options' columns, or `NONE`: the column
 * picked takes the target, every other column asked about stays an event field under its own
 * name (one left out stays left out). Answered about the event's id, the columns not picked are marked as not the event's own
 * id, so the draft never falls back on one of them as the key.
 */
export function answerQuestion(
  q: Question,
  column: string,
  choices: readonly ColumnChoice[],
): ColumnChoice[] {
  const asked = new Set(q.options.map((o) => o.column));
  return choices.map((c) => {
    if (!asked.has(c.column)) return c;
    if (c.column === column) return retarget(c, q.target, q.field);
    // A column left out (empty in the sample, empty-detail.ts) stays out when not picked.
    if (c.target === 'skip') return c;
    const kept = retarget(c, 'event_data', dataFieldName(c.column));
    return q.target === 'event_id' ? { ...kept, notEventId: true } : kept;
  });
}

/** Where the event goes beyond the warehouse: a platform's own event per destination type. */
export interface PlatformChoice {
  /** Destination type → the platform's event name (docs/linkage.md); absent: not sent there. */
  readonly events: Partial<Record<PlatformType, string>>;
  /** The event field holding the value the platforms report (a number). */
  readonly valueField?: string;
  /** The currency: an event field holding ISO 4217 codes, or one code for every row. */
  readonly currency?: { readonly field: string } | { readonly code: string };
  /**
   * Consent per purpose (schemas/context.ts): `granted` when the people in this data gave it when
   * it was collected (every row carries it), or a column whose values say it per row (true/yes →
   * granted, anything else → denied). A purpose left out is not in the event, and a destination
   * that needs it skips the event (Meta and TikTok: ads and ad_user_data; GA4: analytics).
   */
  readonly consent?: Partial<Record<ConsentPurposeName, 'granted' | { readonly column: string }>>;
  /** Meta's `action_source` for every event (`website` only with a page URL; else `other`…). */
  readonly actionSource?: string;
}

// The purposes' one list (schemas/consent-purposes.ts).
export { CONSENT_PURPOSES, type ConsentPurposeName as ConsentPurpose };

/** A consent column's values as the context's `granted`/`denied`. */
const CONSENT_LOOKUP: TranslatorTransform = {
  lookup: Object.fromEntries(
    [
      'true',
      'yes',
      'y',
      '1',
      'granted',
      'on',
      'ja',
      'oui',
      'si',
      'sí',
      'opt_in',
      'opted_in',
      'subscribed',
    ].map((k) => [k, 'granted']),
  ),
  otherwise: 'denied',
};

/** A mapping per destination type, in the settings' mapping language (docs/linkage.md). */
export function platformMappings(choice: PlatformChoice): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [type, event] of Object.entries(choice.events) as [PlatformType, string | undefined][]) {
    if (!event) continue;
    const at = VALUE_TARGETS[type];
    const fields: Record<string, unknown> = {};
    if (choice.valueField) {
      fields[at.value] = { from: choice.valueField, transform: ['number'] };
      const c = choice.currency;
      if (c && 'field' in c) fields[at.currency] = { from: c.field };
      else if (c && 'code' in c) fields[at.currency] = { const: c.code.toUpperCase() };
    }
    const where = ACTION_SOURCE_TARGETS[type];
    if (where && choice.actionSource) fields[where] = { const: choice.actionSource };
    out[type] = Object.keys(fields).length > 0 ? { event, fields } : { event };
  }
  return out;
}

export interface Draft {
  readonly definition: {
    kind: 'EventDefinition';
    name: string;
    description?: string;
    spec: Record<string, unknown>;
  };
  readonly translator: { kind: 'Translator'; name: string; description?: string; spec: TranslatorSpec };
  /**
   * The event's identity as drafted (core/samples/delivery.ts): the delivery metadata left out of
   * the event whatever was chosen for it, and the vendor's key where none was chosen; where no
   * column is the key (none chosen, none of the vendor's, or the person refused it), `digest`
   * says each row's event id comes from the request body's digest instead.
   */
  readonly identity: {
    readonly left: readonly DeliveryColumn[];
    readonly key?: VendorKey;
    readonly digest?: string;
  };
}

/** Whether a sample's values are text (CSV cells, form values) rather than typed JSON values. */
const isText = (sample: ParsedSample) =>
  sample.format === 'csv' || sample.format === 'tsv' || sample.format === 'form';

const ISO = new Set(['ISO 8601', 'RFC 3339']);

/** The targets a number stays a number in: an event field, or the event time (epoch values). */
const NUMERIC_TARGET = new Set(['event_data', 'event_time']);

/**
 * A column inside a value that held JSON: the field, and the transforms that read the column's
 * value from it (`[json, {path}]` for a form field, `[base64, json, {path}]` for Snowplow's `ue_px`).
 */
function embeddedSource(
  sample: ParsedSample,
  column: string,
): { source: string; read: TranslatorTransform[] } | undefined {
  const inside = (k: string) => column.startsWith(`${k}.`);
  const form = sample.embedded?.find(inside);
  if (form) return { source: form, read: ['json', { path: column.slice(form.length + 1) }] };
  const b64 = sample.encoded?.find(inside);
  if (b64) return { source: b64, read: ['base64', 'json', { path: column.slice(b64.length + 1) }] };
  return undefined;
}

/** The transforms that read a column's values as its inferred type. */
export function transformsFor(f: InferredField, sample: ParsedSample, zone: string): TranslatorTransform[] {
  const text = isText(sample);
  if (f.pattern === 'decimal_comma') return [{ decimal: ',' }];
  if (f.pattern === 'epoch_millis') return [{ epoch: 'millis' }];
  if (f.pattern === 'epoch_seconds') return [{ epoch: 'seconds' }];
  if (f.type === 'date' && f.pattern && !ISO.has(f.pattern)) return [{ date: f.pattern }];
  if (f.type === 'timestamp' && f.pattern && !ISO.has(f.pattern))
    return [{ timestamp: f.pattern, ...(f.pattern.includes('Z') ? {} : { zone }) }];
  // Currency codes trimmed and in capitals, as the definition's `currency` format and the
  // platforms want them (Stripe sends `usd`); infer.ts's `formatHolds` judges them so too.
  if (f.format === 'currency') return ['trim', 'uppercase'];
  // A JSON number needs nothing; a number written as text ("29.35") is converted.
  if (!text && !f.text) return [];
  if (f.type === 'number') return ['number'];
  if (f.type === 'integer') return ['integer'];
  if (f.type === 'boolean') return ['boolean'];
  if (f.format === 'email') return ['trim', 'lowercase'];
  return [];
}

/**
 * The definition (the event's data fields, typed, with what the person marked) and the translator
 * (every kept column to its target, with the transforms its values need). A column mapped to
 * `event_id` becomes the translator's key instead, so a re-sent file keeps its ids.
 */
export function draftResources(input: {
  readonly eventName: string;
  readonly description?: string;
  readonly translatorName: string;
  readonly sample: ParsedSample;
  readonly fields: readonly InferredField[];
  readonly choices: readonly ColumnChoice[];
  /** Time zone of times written without an offset. */
  readonly zone?: string;
  readonly platforms?: PlatformChoice;
}): Draft {
  const zone = input.zone ?? 'UTC';
  const byColumn = new Map(input.fields.map((f) => [f.name, f]));
  const specFields: FieldSpec[] = [];
  const tFields: TranslatorField[] = [];
  const key: string[] = [];
  // A vendor's delivery is not the event: its attempt counters, delivery times and ids and
  // signatures stay out of the event's fields, so out of its identity (delivery.ts).
  const delivery = deliveryColumns(input.fields);
  const isDelivery = new Set(delivery.map((d) => d.column));
  const left = delivery.filter((d) =>
    input.choices.some((c) => c.column === d.column && c.target !== 'skip'),
  );
  for (const c of input.choices) {
    const f = byColumn.get(c.column);
    if (!f || c.target === 'skip' || isDelivery.has(c.column)) continue;
    if (c.target === 'event_id') {
      key.push(c.column);
      continue;
    }
    // A date column as the event's time: midnight of that day in the zone. A number as a context
    // id (`user_id`, `user.external_id`, a postal code) is the text the context holds, as is an
    // integer beyond 2^53 (an id: the definition refuses it as an integer).
    const unsafe =
      f.type === 'integer' && f.examples.some((v) => typeof v === 'number' && !Number.isSafeInteger(v));
    const transforms: TranslatorTransform[] = c.majorUnits
      ? [{ major_units: c.majorUnits }]
      : c.target === 'event_time' && f.type === 'date'
        ? [{ timestamp: f.pattern && !ISO.has(f.pattern) ? f.pattern : 'YYYY-MM-DD', zone }]
        : unsafe || ((f.type === 'integer' || f.type === 'number') && !NUMERIC_TARGET.has(c.target))
          ? ['string' as const]
          : c.target === 'user.email' && addressPath(f) !== undefined
            ? // A list of addresses fills the person's e-mail with its first (email-list.ts).
              [{ path: addressPath(f) as string }, 'trim' as const, 'lowercase' as const]
            : transformsFor(f, input.sample, zone);
    const target = c.target === 'event_data' ? (c.field ?? dataFieldName(c.column)) : c.target;
    const inside = embeddedSource(input.sample, c.column);
    const read: TranslatorTransform[] = inside ? [...inside.read, ...transforms] : transforms;
    tFields.push({
      target,
      source: inside?.source ?? c.column,
      ...(read.length > 0 ? { transforms: read } : {}),
    });
    if (c.target !== 'event_data') continue;
    const type = c.majorUnits ? 'number' : unsafe ? 'string' : f.type;
    const numeric = type === 'number' || type === 'integer';
    specFields.push({
      name: target,
      type,
      ...(c.required ? { required: true } : {}),
      ...(c.description ? { description: c.description } : {}),
      // A format the sample's own values fail (`loose`) would refuse its rows: never written.
      ...(f.format && !f.loose && f.type === 'string' ? { format: f.format } : {}),
      // What a small sample cannot prove (a list of values, lengths, ranges) stays open unless
      // the person tightened it: the vendor's next batch brings values the sample did not.
      ...(c.enum && c.enum.length > 0 && f.type === 'string' ? { enum: [...c.enum] } : {}),
      ...(numeric && c.minimum !== undefined ? { minimum: c.minimum } : {}),
      ...(numeric && c.maximum !== undefined ? { maximum: c.maximum } : {}),
      ...(type === 'string' && c.maxLength !== undefined ? { maxLength: c.maxLength } : {}),
      ...(c.pii ? { pii: true } : {}),
    });
  }
  const format: TranslatorSpec['format'] =
    input.sample.format === 'json'
      ? { type: 'json', ...(input.sample.records ? { records: input.sample.records } : {}) }
      : input.sample.format === 'ndjson' || input.sample.format === 'form'
        ? { type: input.sample.format }
        : {
            type: 'csv',
            delimiter: input.sample.delimiter ?? (input.sample.format === 'tsv' ? '\t' : ','),
            header: input.sample.header,
            ...(input.sample.header ? {} : { columns: [...input.sample.columns] }),
          };
  for (const [purpose, how] of Object.entries(input.platforms?.consent ?? {})) {
    const target = `consent.${purpose}`;
    if (!how || tFields.some((t) => t.target === target)) continue;
    tFields.push(
      how === 'granted'
        ? { target, value: 'granted' }
        : { target, source: how.column, transforms: ['trim', 'lowercase', CONSENT_LOOKUP] },
    );
  }
  const mappings = input.platforms ? platformMappings(input.platforms) : {};
  // A key folds re-sent rows only with an event_time from the payload (the translator's rule).
  const keyed = key.length > 0 && tFields.some((t) => t.target === 'event_time');
  // None chosen: the vendor's own id (or its object's id and change) is the key, so a retry or a
  // second webhook about the same change is the same event_id (with no payload time, the receive
  // time is a server field, outside the identity: core/identity.ts).
  // A column the person said is not the event's own id is never the key, whatever its name.
  const refused = input.choices.filter((c) => c.notEventId && c.target !== 'event_id').map((c) => c.column);
  const open = input.fields.filter((f) => !refused.includes(f.name));
  const vendor = key.length === 0 ? vendorKey(input.sample, open, delivery) : undefined;
  const digest =
    key.length === 0 && !vendor
      ? `no column is the event's own id${refused.length > 0 ? ` (you said ${refused.join(', ')} ${refused.length > 1 ? 'are' : 'is'} not)` : ''}: each row's event id is made from the request body's digest and the row's place in it, so a retry of the same body is the same event and one whose body changed is another`
      : undefined;
  return {
    identity: { left, ...(vendor ? { key: vendor } : {}), ...(digest ? { digest } : {}) },
    definition: {
      kind: 'EventDefinition',
      name: input.eventName,
      ...(input.description ? { description: input.description } : {}),
      spec: { fields: specFields, ...(Object.keys(mappings).length > 0 ? { mappings } : {}) },
    },
    translator: {
      kind: 'Translator',
      name: input.translatorName,
      description: `Made with the studio's creator from a ${input.sample.format.toUpperCase()} sample.`,
      spec: {
        event: input.eventName,
        format,
        fields:
          keyed || vendor
            ? tFields
            : [
                ...tFields,
                // An event id is text: a vendor's numeric id (WooCommerce's order `id`) made so.
                ...key.map((k): TranslatorField => {
                  const type = byColumn.get(k)?.type;
                  const numeric = type === 'integer' || type === 'number';
                  return { target: 'event_id', source: k, ...(numeric ? { transforms: ['string'] } : {}) };
                }),
              ],
        ...(keyed ? { key } : vendor ? { key: [...vendor.columns] } : {}),
      },
    },
  };
}
