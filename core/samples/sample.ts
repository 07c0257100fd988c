/**
 * The shapes the payload creator passes between its steps (docs/creator-inference.md): a parsed
 * sample, the problems found while reading it, and the fields inferred from it. Types only, so
 * every step can share them without importing another.
 */
import type { FIELD_FORMATS, FieldType } from '../definitions/definitions.ts';

/** The text formats a pasted sample can have (`form`: an application/x-www-form-urlencoded body). */
export type SampleFormat = 'csv' | 'tsv' | 'json' | 'ndjson' | 'form';

/**
 * Something wrong with the sample, reported instead of thrown. `row` is the index into
 * `ParsedSample.rows` of the row concerned (when it was kept); `line` is the 1-based line of the
 * text where it starts.
 */
export interface SampleProblem {
  readonly row?: number;
  readonly line?: number;
  readonly message: string;
}

/** A sample read into rows: one record per event, keyed by column name. */
export interface ParsedSample {
  readonly format: SampleFormat;
  /** The field delimiter of CSV and TSV. */
  readonly delimiter?: string;
  /** Whether the first CSV/TSV record named the columns (always true for JSON, NDJSON and forms). */
  readonly header: boolean;
  /** Column names in order of appearance: unique, never empty; nested JSON as dotted paths. */
  readonly columns: readonly string[];
  /** CSV cells stay the strings they were; JSON values keep their JSON types. */
  readonly rows: readonly Record<string, unknown>[];
  readonly problems: readonly SampleProblem[];
  /** JSON: an object holding one array of objects offers that key as the records (`events`). */
  readonly recordsOffer?: string;
  /** JSON: the key whose array items were read as the rows. */
  readonly records?: string;
  /**
   * Form posts: the fields whose text held a JSON object (Unbounce's `data.json`), read as nested
   * columns (`data.json.variant`); a translator reads them with `[json, {path}]` (draft.ts).
   */
  readonly embedded?: readonly string[];
  /**
   * JSON samples: the columns whose every value was base64 of a JSON object (Snowplow's `ue_px`,
   * `cx`), read as nested columns; a translator reads them with `[base64, json, {path}]`.
   */
  readonly encoded?: readonly string[];
}

export type InferredType = Exclude<FieldType, 'array' | 'object'>;
export type InferredFormat = (typeof FIELD_FORMATS)[number];

/** What a column's values look like. */
export interface InferredField {
  readonly name: string;
  readonly type: InferredType;
  readonly format?: InferredFormat;
  /**
   * The values look like `format` but the definition's own check of it refuses some (a phone
   * not in E.164, a country code in lower case): the format is shown and guides the mapping,
   * but is never written into a definition, which would refuse the sample's own rows.
   */
  readonly loose?: true;
  /** How the values are written when that matters to read them: `DD.MM.YYYY`, `decimal_comma`, `epoch_millis`… */
  readonly pattern?: string;
  /** Some values are written as text (`"29.35"`, CSV cells): reading them as the type needs a conversion. */
  readonly text?: boolean;
  /** Some rows have no value (an empty cell, `null`, a missing key). */
  readonly nullable: boolean;
  /** The few values a low-cardinality text column takes, in order of first appearance. */
  readonly enum?: readonly string[];
  /** Up to three distinct values, as they appear. */
  readonly examples: readonly unknown[];
  /** How many distinct non-empty values the column holds. */
  readonly distinct: number;
  /** Indices of the rows whose value does not fit the inferred type. */
  readonly invalid?: readonly number[];
}
