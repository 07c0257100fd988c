/**
 * CSV and TSV samples: the delimiter guessed from the first records, the records read by
 * papaparse (quotes, doubled quotes, delimiters and newlines inside quotes, CRLF), the header
 * row recognised, ragged rows reported. Cells stay the strings they were.
 */
import Papa from 'papaparse';
import { setField } from '../formats/records.ts';
import { uniqueNames } from './names.ts';
import type { SampleProblem } from './sample.ts';
import { isTypedText } from './values.ts';

/** The delimiters a sample is tried with; the first listed wins a tie. */
const CANDIDATES = ['\t', ';', ',', '|'] as const;
/** How much of the text the delimiter guess reads. */
const SCAN_RECORDS = 50;
const SCAN_CHARS = 64 * 1024;
/** Header detection looks at this many records below the first. */
const HEADER_LOOKAHEAD = 50;

/** The delimiter the first records agree on, and why. */
export function detectDelimiter(text: string, quoteChar = '"'): { delimiter: string; reason: string } {
  const records: number[][] = [];
  let counts = CANDIDATES.map(() => 0);
  let inQuotes = false;
  let fieldStart = true;
  let blank = true;
  const end = Math.min(text.length, SCAN_CHARS);
  for (let i = 0; i < end && records.length < SCAN_RECORDS; i++) {
    const ch = text[i] as string;
    if (inQuotes) {
      if (ch === quoteChar) {
        if (text[i + 1] === quoteChar) i++;
        else inQuotes = false;
      }
      continue;
    }
    if (ch === quoteChar && fieldStart) {
      inQuotes = true;
      blank = false;
      continue;
    }
    if (ch === '\n' || ch === '\r') {
      if (!blank) records.push(counts);
      counts = CANDIDATES.map(() => 0);
      fieldStart = true;
      blank = true;
      continue;
    }
    const c = CANDIDATES.indexOf(ch as (typeof CANDIDATES)[number]);
    if (c >= 0) counts[c] = (counts[c] as number) + 1;
    fieldStart = c >= 0;
    // A record of delimiters only (`;;;`, a spreadsheet's empty row) says nothing.
    if (c < 0 && ch !== ' ') blank = false;
  }
  // A record cut off by the scan limit would count short; one read to the end is whole.
  if (!blank && end === text.length) records.push(counts);
  let best: { c: number; share: number; first: number } | undefined;
  CANDIDATES.forEach((_, c) => {
    const first = records[0]?.[c] ?? 0;
    if (first === 0) return;
    const share = records.filter((r) => r[c] === first).length / records.length;
    if (!best || share > best.share || (share === best.share && first > best.first))
      best = { c, share, first };
  });
  if (!best) return { delimiter: ',', reason: 'no delimiter in the first line: one column' };
  const delimiter = CANDIDATES[best.c] as string;
  const name = delimiter === '\t' ? 'tab' : `"${delimiter}"`;
  return {
    delimiter,
    reason: `${name} splits ${Math.round(best.share * 100)}% of the first ${records.length} records into ${best.first + 1} fields`,
  };
}

/**
 * Header rule (`auto`): the first record is a header when its cells are all non-empty, unique
 * and none reads as a number, date, time, e-mail or URL; and either a cell below it does read as
 * one of those, or (all text) none of its names recurs as a value in its own column.
 */
export function looksLikeHeader(records: readonly (readonly string[])[]): boolean {
  const [first, ...rest] = records;
  if (!first || first.length === 0) return false;
  const names = first.map((c) => c.trim());
  if (names.some((n) => n === '' || isTypedText(n)) || new Set(names).size !== names.length) return false;
  const below = rest.slice(0, HEADER_LOOKAHEAD);
  if (below.some((r) => r.some((cell, i) => i < names.length && isTypedText(cell.trim())))) return true;
  return !below.some((r) => r.some((cell, i) => cell.trim() === names[i]));
}

export interface DelimitedOptions {
  readonly delimiter: string;
  readonly quoteChar: string;
  readonly header: boolean | 'auto';
}

export interface DelimitedResult {
  header: boolean;
  columns: string[];
  rows: Record<string, unknown>[];
  problems: SampleProblem[];
}

interface RawRecord {
  cells: string[];
  line: number;
  errors: string[];
}

/** Reads the records with their 1-based starting lines; blank records (only delimiters) are dropped. */
function readRecords(text: string, options: DelimitedOptions): RawRecord[] {
  const records: RawRecord[] = [];
  const newline = text.includes('\n') ? '\n' : '\r';
  let line = 1;
  let start = 0;
  Papa.parse<string[]>(text, {
    delimiter: options.delimiter,
    quoteChar: options.quoteChar,
    escapeChar: options.quoteChar,
    skipEmptyLines: false,
    step: (result) => {
      const cells = result.data;
      if (cells.some((c) => c.trim() !== ''))
        records.push({ cells, line, errors: result.errors.map((e) => e.message) });
      // The next record starts where this one ended; count the lines in between.
      const end = result.meta.cursor;
      for (let i = text.indexOf(newline, start); i >= 0 && i < end; i = text.indexOf(newline, i + 1)) line++;
      start = end;
    },
  });
  return records;
}

/** Parses CSV or TSV text into rows keyed by column; never throws. */
export function parseDelimited(text: string, options: DelimitedOptions): DelimitedResult {
  // A byte order mark is dropped by the decoder only at the very start: one after a line break
  // (files joined end to end, a header after blank lines) would stay in that record's first cell.
  const records = readRecords(text.replace(/(^|[\r\n])\uFEFF/g, '$1'), options);
  const header =
    options.header === 'auto' ? looksLikeHeader(records.map((r) => r.cells)) : options.header === true;
  const first = records[0]?.cells ?? [];
  const columns = header ? uniqueNames(first.map((c) => c.trim())) : first.map((_, i) => `column_${i + 1}`);
  const rows: Record<string, unknown>[] = [];
  const problems: SampleProblem[] = [];
  for (const record of header ? records.slice(1) : records) {
    const index = rows.length;
    const row: Record<string, unknown> = {};
    record.cells.forEach((cell, i) => {
      const name = columns[i];
      if (name !== undefined) setField(row, name, cell);
    });
    rows.push(row);
    for (const message of record.errors) problems.push({ row: index, line: record.line, message });
    const n = record.cells.length;
    if (n !== columns.length)
      problems.push({
        row: index,
        line: record.line,
        message:
          n < columns.length
            ? `has ${n} fields, expected ${columns.length}: the missing ones are empty`
            : `has ${n} fields, expected ${columns.length}: the extra ones are ignored`,
      });
  }
  const head = records[0];
  if (header && head) for (const message of head.errors) problems.push({ line: head.line, message });
  return { header, columns, rows, problems };
}
