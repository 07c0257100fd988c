/**
 * Reading a pasted sample (docs/creator-inference.md): its bytes decoded, its format detected
 * (CSV, TSV, JSON, NDJSON, a form post), its records read into rows. Pure and web-standard only
 * (it is bundled for the browser too); bad input is reported as problems, never thrown.
 */
import { detectDelimiter, parseDelimited } from './csv.ts';
import { withEncodedColumns } from './encoded.ts';
import { formRows, looksLikeForm } from './form.ts';
import { jsonRows, ndjsonRows, readJson, recordsPath } from './json.ts';
import type { ParsedSample, SampleFormat } from './sample.ts';

export type { ParsedSample, SampleFormat, SampleProblem } from './sample.ts';

/** Samples above this many bytes (UTF-8) are refused: the studio reads them in the browser. */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export interface DetectedFormat {
  readonly format: SampleFormat;
  readonly delimiter?: string;
  readonly reason: string;
}

export interface ParseOptions {
  /** Skip detection and read the text as this format. */
  readonly format?: SampleFormat;
  /** CSV/TSV field delimiter (default: detected; a tab for TSV). */
  readonly delimiter?: string;
  /** CSV/TSV quote character (default `"`). */
  readonly quoteChar?: string;
  /** Whether the first CSV/TSV record names the columns (default `auto`: see csv.ts). */
  readonly header?: boolean | 'auto';
  readonly maxBytes?: number;
  /** JSON: the key of the array whose items are the rows (see `ParsedSample.recordsOffer`). */
  readonly records?: string;
}

export type SampleEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** The UTF-8 length of a string, without encoding it. */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return (end < 0 ? text : text.slice(0, end)).trim();
}

/** Detection, keeping the parsed JSON value so it is not parsed twice. */
function detect(text: string, quoteChar = '"'): DetectedFormat & { json?: { value: unknown } } {
  const head = text.trimStart();
  if (head[0] === '{' || head[0] === '[') {
    const read = readJson(text);
    if ('value' in read)
      return {
        format: 'json',
        reason: `the text is one JSON ${head[0] === '{' ? 'object' : 'array'}`,
        json: read,
      };
    const line = firstLine(head);
    if (head[0] === '{' && line !== head && 'value' in readJson(line))
      return {
        format: 'ndjson',
        reason: 'the first line is a JSON object and the text is not one JSON value',
      };
    return { format: 'json', reason: 'the text starts like JSON (but does not parse)' };
  }
  if (looksLikeForm(head))
    return { format: 'form', reason: 'the text is one line of key=value pairs joined by &: a form post' };
  const { delimiter, reason } = detectDelimiter(text, quoteChar);
  return { format: delimiter === '\t' ? 'tsv' : 'csv', delimiter, reason };
}

/**
 * The format of a sample and why: JSON, NDJSON, a form post, or CSV/TSV with the delimiter its
 * first records agree on.
 */
export function detectFormat(text: string): DetectedFormat {
  const { json: _, ...found } = detect(stripBom(text));
  return found;
}

/** Reads a sample into rows. Never throws: what is wrong is in `problems`. */
export function parseSample(input: string, options: ParseOptions = {}): ParsedSample {
  const text = stripBom(input);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (text.length > maxBytes || utf8Length(text) > maxBytes) {
    const format = options.format ?? detectFormat(text.slice(0, 64 * 1024)).format;
    const message = `the sample is larger than ${maxBytes} bytes: paste fewer rows`;
    return { format, header: false, columns: [], rows: [], problems: [{ message }] };
  }
  if (text.trim() === '') {
    const format = options.format ?? 'csv';
    return { format, header: false, columns: [], rows: [], problems: [{ message: 'the sample is empty' }] };
  }
  const quoteChar = options.quoteChar ?? '"';
  const found = options.format ? undefined : detect(text, quoteChar);
  const format = options.format ?? (found as DetectedFormat).format;
  if (format === 'json') {
    const read = found?.json ?? readJson(text);
    if ('problem' in read) return { format, header: true, columns: [], rows: [], problems: [read.problem] };
    const offer = recordsPath(read.value);
    const records = options.records !== undefined && options.records === offer ? offer : undefined;
    return {
      format,
      header: true,
      ...(offer ? { recordsOffer: offer } : {}),
      ...(records ? { records } : {}),
      ...withEncodedColumns(jsonRows(read.value, records)),
    };
  }
  if (format === 'ndjson') return { format, header: true, ...withEncodedColumns(ndjsonRows(text)) };
  if (format === 'form') return { format, header: true, ...formRows(text) };
  const delimiter =
    options.delimiter ??
    (format === 'tsv' ? '\t' : (found?.delimiter ?? detectDelimiter(text, quoteChar).delimiter));
  const header = options.header ?? 'auto';
  return { format, delimiter, ...parseDelimited(text, { delimiter, quoteChar, header }) };
}

/**
 * Decodes an uploaded file: UTF-8 (with or without a BOM), UTF-16 with a BOM, and otherwise
 * windows-1252, the usual encoding of spreadsheets saved as CSV on Windows, when the bytes are
 * not valid UTF-8.
 */
export function decodeSample(bytes: Uint8Array): { text: string; encoding: SampleEncoding } {
  const [a, b] = [bytes[0], bytes[1]];
  const decode = (encoding: SampleEncoding, fatal = false) =>
    // TextDecoder drops the BOM of its own encoding.
    ({ text: new TextDecoder(encoding, { fatal }).decode(bytes), encoding });
  if (a === 0xff && b === 0xfe) return decode('utf-16le');
  if (a === 0xfe && b === 0xff) return decode('utf-16be');
  try {
    return decode('utf-8', true);
  } catch {
    return decode('windows-1252');
  }
}
