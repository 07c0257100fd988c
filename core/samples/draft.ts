/**
 * The creator's result (docs/creator-inference.md): from a parsed sample, its inferred fields and
 * what a person chose per column, the EventDefinition and the Translator that `apply` saves. Pure
 * and web-standard: the studio runs it in the browser, tests run it here.
 */

import type { TranslatorField, TranslatorSpec, TranslatorTransform } from '../../schemas/translator.ts';
import type { FieldSpec } from '../definitions.ts';
import { type PlatformType, VALUE_TARGETS } from '../platforms/standard-events.ts';
import { fieldName } from './names.ts';
import type { InferredField, ParsedSample } from './sample.ts';

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
   * The people in this data consented to ads and ad user data when it was collected (the
   * platforms' default consent): every row carries it, so the platforms receive it. Without it,
   * consent comes from columns mapped to `consent.*`, and a row without it is not sent.
   */
  readonly consentGranted?: boolean;
}

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
    out[type] = Object.keys(fields).length > 0 ? { event, fields } : { event };
  }
  return out;
}

/** The consent every row carries when the person says it was given at collection. */
export const GRANTED_CONSENT = ['consent.ads', 'consent.ad_user_data', 'consent.ad_personalization'] as const;

export interface Draft {
  readonly definition: {
    kind: 'EventDefinition';
    name: string;
    description?: string;
    spec: Record<string, unknown>;
  };
  readonly translator: { kind: 'Translator'; name: string; description?: string; spec: TranslatorSpec };
}

/** Whether a sample's values are text (CSV cells) rather than typed JSON values. */
const isText = (sample: ParsedSample) => sample.format === 'csv' || sample.format === 'tsv';

const ISO = new Set(['ISO 8601', 'RFC 3339']);

/** The transforms that read a column's values as its inferred type. */
export function transformsFor(f: InferredField, sample: ParsedSample, zone: string): TranslatorTransform[] {
  const text = isText(sample);
  if (f.pattern === 'decimal_comma') return [{ decimal: ',' }];
  if (f.pattern === 'epoch_millis') return [{ epoch: 'millis' }];
  if (f.pattern === 'epoch_seconds') return [{ epoch: 'seconds' }];
  if (f.type === 'date' && f.pattern && !ISO.has(f.pattern)) return [{ date: f.pattern }];
  if (f.type === 'timestamp' && f.pattern && !ISO.has(f.pattern))
    return [{ timestamp: f.pattern, ...(f.pattern.includes('Z') ? {} : { zone }) }];
  if (!text) return [];
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
  for (const c of input.choices) {
    const f = byColumn.get(c.column);
    if (!f || c.target === 'skip') continue;
    if (c.target === 'event_id') {
      key.push(c.column);
      continue;
    }
    // A date column as the event's time: midnight of that day in the zone.
    const transforms =
      c.target === 'event_time' && f.type === 'date'
        ? [{ timestamp: f.pattern && !ISO.has(f.pattern) ? f.pattern : 'YYYY-MM-DD', zone }]
        : transformsFor(f, input.sample, zone);
    const target = c.target === 'event_data' ? (c.field ?? fieldName(c.column)) : c.target;
    tFields.push({ target, source: c.column, ...(transforms.length > 0 ? { transforms } : {}) });
    if (c.target !== 'event_data') continue;
    specFields.push({
      name: target,
      type: f.type === 'json' ? 'json' : f.type,
      ...(c.required ? { required: true } : {}),
      ...(c.description ? { description: c.description } : {}),
      ...(f.format && f.type === 'string' ? { format: f.format } : {}),
      ...(f.enum && f.type === 'string' ? { enum: [...f.enum] } : {}),
      ...(c.pii ? { pii: true } : {}),
    });
  }
  const format: TranslatorSpec['format'] =
    input.sample.format === 'json'
      ? { type: 'json' }
      : input.sample.format === 'ndjson'
        ? { type: 'ndjson' }
        : {
            type: 'csv',
            delimiter: input.sample.delimiter ?? (input.sample.format === 'tsv' ? '\t' : ','),
            header: input.sample.header,
            ...(input.sample.header ? {} : { columns: [...input.sample.columns] }),
          };
  if (input.platforms?.consentGranted)
    for (const target of GRANTED_CONSENT)
      if (!tFields.some((t) => t.target === target)) tFields.push({ target, value: 'granted' });
  const mappings = input.platforms ? platformMappings(input.platforms) : {};
  // A key folds re-sent rows only with an event_time from the payload (the translator's rule).
  const keyed = key.length > 0 && tFields.some((t) => t.target === 'event_time');
  return {
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
        fields: keyed ? tFields : [...tFields, ...key.map((k) => ({ target: 'event_id', source: k }))],
        ...(keyed ? { key } : {}),
      },
    },
  };
}
