/**
 * Translators (docs/translators.md): a payload in a translator's format becomes one raw event per
 * row, in the gateway's input contract (normalised and validated by the gateway afterwards, like
 * any event). Pure: bytes in, events and row problems out; never throws, whatever the input.
 *
 * Parsing reuses the creator's readers (core/samples/): CSV by papaparse (quotes, doubled quotes,
 * delimiters and newlines inside quotes, CRLF); JSON records are kept as they are, and sources
 * read them by dotted paths (`properties.revenue`), whole objects and lists included.
 */
import { createHash } from 'node:crypto';
import type { TranslatorField, TranslatorSpec } from '../../schemas/translator.ts';
import { shown } from '../definitions/event-validator.ts';
import { parseForm } from '../formats/form.ts';
import { setField } from '../formats/records.ts';
import { parseDelimited } from '../samples/csv.ts';
import { readJson } from '../samples/json.ts';
import type { FieldViolation } from '../validation.ts';
import { fieldPlan, fieldsFor, readSource, readSources } from './cases.ts';
import type { RequestHeaders } from './headers.ts';
import { applyTransforms, readPath } from './transforms.ts';

export interface TranslateInput {
  /** The translator's name: part of every derived event_id. */
  readonly translator: string;
  readonly spec: TranslatorSpec;
  /** The event each row becomes (spec.event, unless a field targets event_name). */
  readonly eventName: string;
  /** The payload, inflated. */
  readonly body: Uint8Array;
  /** The request's Content-Type (its charset is read). */
  readonly contentType: string;
  /** Without a `key`, ids derive from this (the `Idempotency-Key` header) or the body's digest. */
  readonly idempotencyKey?: string;
  /** The request's headers a `header:` source may read (headers.ts `readableHeaders`). */
  readonly headers?: RequestHeaders;
  /**
   * Top-level fields every JSON record has unless it sets them: the call type of Segment's
   * single-call paths (`/v1/identify` bodies need not say `type: identify`).
   */
  readonly defaults?: Readonly<Record<string, unknown>>;
}

export interface TranslatedRow {
  /** 0-based data row (the header is not a row). */
  readonly row: number;
  readonly event: Record<string, unknown>;
}

export type TranslateResult =
  | {
      readonly ok: true;
      readonly rows: TranslatedRow[];
      readonly problems: FieldViolation[];
      readonly total: number;
    }
  | { readonly ok: false; readonly violations: FieldViolation[] };

/** Rows per payload unless the translator sets `max_rows`. */
export const DEFAULT_MAX_ROWS = 50_000;

/** The media type a translator's endpoint reads, by format. */
export const TRANSLATOR_MEDIA: Readonly<Record<TranslatorSpec['format']['type'], string>> = {
  csv: 'text/csv',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  form: 'application/x-www-form-urlencoded',
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

interface Parsed {
  readonly records: Record<string, unknown>[];
  /** Per record: a problem that makes the row unusable (a ragged CSV record, an NDJSON line). */
  readonly problems: Map<number, string>;
  /** Values of CSV cells are text: an empty cell is absent. */
  readonly cells: boolean;
}

function decode(body: Uint8Array, charset: string): { text: string } | { why: string } {
  if (charset === 'latin1' || charset === 'iso-8859-1')
    return { text: new TextDecoder('latin1').decode(body) };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body) };
  } catch {
    return {
      why: 'is not UTF-8; declare charset=iso-8859-1 (or the translator’s charset: latin1) if it is Latin-1',
    };
  }
}

function parse(
  spec: TranslatorSpec,
  text: string,
  defaults: Readonly<Record<string, unknown>> = {},
): Parsed | { why: string } {
  const format = spec.format;
  if (format.type === 'csv') {
    const header = format.header ?? format.columns === undefined;
    const result = parseDelimited(text, {
      delimiter: format.delimiter ?? ',',
      quoteChar: format.quote ?? '"',
      header,
    });
    const names = header ? result.columns : (format.columns ?? result.columns);
    const records = header
      ? result.rows
      : result.rows.map((r) => {
          const out: Record<string, unknown> = {};
          result.columns.forEach((c, i) => {
            const name = names[i];
            if (name !== undefined) setField(out, name, r[c]);
          });
          return out;
        });
    const problems = new Map<number, string>();
    // A short record is read with its missing cells empty (spreadsheets drop trailing empty
    // cells); a long one, or one papaparse could not read (an unclosed quote), is not the row.
    for (const p of result.problems) {
      if (p.row === undefined || /the missing ones are empty/.test(p.message)) continue;
      if (!problems.has(p.row))
        problems.set(p.row, `${p.message.replace(/: the extra ones.*$/, '')} (line ${p.line ?? '?'})`);
    }
    return { records, problems, cells: true };
  }
  if (format.type === 'form') {
    const read = parseForm(text, format.max_depth);
    return 'why' in read ? read : { records: [read.record], problems: new Map(), cells: false };
  }
  if (format.type === 'ndjson') {
    const problems = new Map<number, string>();
    const records: Record<string, unknown>[] = [];
    text.split('\n').forEach((raw, i) => {
      if (raw.trim() === '') return;
      const read = readJson(raw);
      const row = records.length;
      if ('problem' in read || !isObject(read.value)) {
        problems.set(
          row,
          `line ${i + 1} ${'problem' in read ? read.problem.message : 'is not a JSON object'}`,
        );
        records.push({});
      } else records.push(read.value);
    });
    return { records, problems, cells: false };
  }
  const read = readJson(text);
  if ('problem' in read) return { why: read.problem.message };
  let value: unknown = read.value;
  const inherited: Record<string, unknown> = {};
  if (format.records !== undefined) {
    if (!isObject(value)) return { why: `expected an object holding ${format.records}, got ${shown(value)}` };
    for (const name of format.inherit ?? []) if (Object.hasOwn(value, name)) inherited[name] = value[name];
    const at = readPath(value, format.records);
    if (Array.isArray(at)) value = at;
    else if (at !== undefined) return { why: `expected a list at ${format.records}, got ${shown(at)}` };
    else if (format.single !== true)
      return { why: `expected a list at ${format.records}; the body has none` };
    // else: a body without the list is one record (Segment's /v1/track beside /v1/batch).
  }
  const list = Array.isArray(value) ? value : [value];
  const problems = new Map<number, string>();
  const records = list.map((item, i) => {
    if (!isObject(item)) {
      problems.set(i, `is not a JSON object: ${shown(item)}`);
      return {};
    }
    return { ...defaults, ...inherited, ...item };
  });
  return { records, problems, cells: false };
}

/** Puts a value at a dotted target path of the event (`user.email`), creating groups. */
function place(event: Record<string, unknown>, target: string, value: unknown): void {
  const parts = target.split('.');
  const last = parts.pop() as string;
  let at = event;
  for (const p of parts) {
    const next = at[p];
    if (isObject(next)) at = next;
    else {
      const created: Record<string, unknown> = {};
      setField(at, p, created);
      at = created;
    }
  }
  setField(at, last, value);
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** One row's field value through its transforms, or why it does not fit. */
function fieldValue(
  f: TranslatorField,
  record: Record<string, unknown>,
  cells: boolean,
  headers?: RequestHeaders,
): { value: unknown } | { why: string } {
  // The first source that is present (a CSV cell cannot say null: an empty one is absent).
  const value = f.source === undefined ? f.value : readSources(record, f.source, headers, cells);
  if (value === undefined || value === null) return { value: f.default };
  const step = applyTransforms(value, f.transforms ?? [], record);
  if (!step.ok) return { why: step.why };
  return { value: step.value === null || step.value === undefined ? f.default : step.value };
}

/** Translates a payload; every row that cannot become an event is named in `problems`. */
export function translate(input: TranslateInput): TranslateResult {
  try {
    return translateUnsafe(input);
  } catch (err) {
    // Not expected for any input: the endpoint answers a structured error, never a 500.
    return {
      ok: false,
      violations: [{ field: '(body)', description: `could not be translated: ${String(err)}` }],
    };
  }
}

function translateUnsafe(input: TranslateInput): TranslateResult {
  const { spec } = input;
  const [media = '', ...params] = input.contentType
    .toLowerCase()
    .split(';')
    .map((s) => s.trim());
  const want = TRANSLATOR_MEDIA[spec.format.type];
  if (media !== want)
    return {
      ok: false,
      violations: [
        { field: '(content-type)', description: `this translator reads ${want}, got ${media || '(none)'}` },
      ],
    };
  const declared = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  const charset = declared ?? (spec.format.type === 'csv' ? (spec.format.charset ?? 'utf-8') : 'utf-8');
  const decoded = decode(input.body, charset);
  if ('why' in decoded) return { ok: false, violations: [{ field: '(body)', description: decoded.why }] };
  const text = decoded.text.charCodeAt(0) === 0xfeff ? decoded.text.slice(1) : decoded.text;
  if (text.trim() === '') return { ok: false, violations: [{ field: '(body)', description: 'is empty' }] };
  const parsed = parse(spec, text, input.defaults);
  if ('why' in parsed) return { ok: false, violations: [{ field: '(body)', description: parsed.why }] };
  const max = spec.max_rows ?? DEFAULT_MAX_ROWS;
  const total = parsed.records.length;
  if (total === 0) return { ok: false, violations: [{ field: '(body)', description: 'has no rows' }] };
  if (total > max)
    return {
      ok: false,
      violations: [{ field: '(body)', description: `has ${total} rows; at most ${max} per request` }],
    };

  // With a key, ids come from the key and the body's digest: a retry (same key, same body) gets
  // the same ids, a key reused with another body other ids, stored and delivered as their own.
  const base =
    input.idempotencyKey !== undefined
      ? `key:${input.idempotencyKey}:body:${digest(text)}`
      : `body:${digest(text)}`;
  const rows: TranslatedRow[] = [];
  const problems: FieldViolation[] = [];
  const plan = fieldPlan(spec);
  parsed.records.forEach((record, row) => {
    const at = `rows[${row}]`;
    const broken = parsed.problems.get(row);
    if (broken) {
      problems.push({ field: at, description: broken });
      return;
    }
    const event: Record<string, unknown> = { event_name: input.eventName };
    let bad = false;
    for (const f of fieldsFor(plan, record, input.headers, parsed.cells)) {
      const got = fieldValue(f, record, parsed.cells, input.headers);
      if ('why' in got) {
        problems.push({ field: `${at}.${f.target}`, description: got.why });
        bad = true;
      } else if (got.value !== undefined && got.value !== null) place(event, f.target, got.value);
    }
    if (bad) return;
    if (event['event_id'] === undefined) {
      if (spec.key) {
        // A key part that is a list takes its first present path (a fallback, not more parts).
        const values = spec.key.map((k) => {
          const v = [k]
            .flat()
            .map((p) => readSource(record, p, input.headers))
            .find((x) => x !== undefined && x !== null);
          return v === undefined || v === null ? '' : String(v);
        });
        if (values.every((v) => v.trim() === '')) {
          problems.push({
            field: `${at}.${[spec.key[0] ?? ''].flat()[0]}`,
            description: 'the key is empty: the row has no identity',
          });
          return;
        }
        event['event_id'] = digest(`${input.translator}\u0000${JSON.stringify(values)}`).slice(0, 32);
      } else event['event_id'] = digest(`${input.translator}\u0000${base}\u0000${row}`).slice(0, 32);
    }
    rows.push({ row, event });
  });
  return { ok: true, rows, problems, total };
}
