/**
 * Output helpers shared by every CLI command: tables for people, JSON and CSV for scripts.
 * Commands build rows as plain objects and let `printRows` pick the format, so `--format`
 * behaves the same everywhere.
 */
import { type Command, Option } from 'commander';

export type OutputFormat = 'table' | 'json' | 'csv';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'csv'];

/** A failure the CLI reports as `error: <message>` on stderr with the given exit code. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** The `--format <format>` option, limited to the formats a command supports. */
export function formatOption(
  formats: readonly OutputFormat[] = OUTPUT_FORMATS,
  defaultFormat: OutputFormat = 'table',
): Option {
  return new Option('--format <format>', 'output format').choices([...formats]).default(defaultFormat);
}

/** One column of a table or CSV: the row key and, optionally, a header other than the key. */
export interface Column {
  readonly key: string;
  readonly header?: string;
}

export type Row = Readonly<Record<string, unknown>>;

/** Text of one cell: strings as they are, arrays joined by ", ", objects as JSON, nothing as "". */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function columnsOf(rows: readonly Row[], columns?: readonly Column[]): readonly Column[] {
  if (columns) return columns;
  const keys = new Set<string>();
  for (const row of rows) for (const k of Object.keys(row)) keys.add(k);
  return [...keys].map((key) => ({ key }));
}

/** Renders rows as an aligned text table with a header rule; an empty list prints "(none)". */
export function renderTable(rows: readonly Row[], columns?: readonly Column[]): string {
  const cols = columnsOf(rows, columns);
  if (rows.length === 0) return '(none)\n';
  const headers = cols.map((c) => c.header ?? c.key);
  // Multi-line cells would break alignment: show newlines as spaces.
  const cells = rows.map((row) => cols.map((c) => cellText(row[c.key]).replace(/\s*\n\s*/g, ' ')));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (parts: readonly string[]) =>
    parts
      .map((p, i) => p.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')}\n`;
}

/** Quotes one CSV field per RFC 4180 when it holds a comma, quote or line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Renders rows as CSV with a header line (RFC 4180, CRLF-free for shell pipelines). */
export function renderCsv(rows: readonly Row[], columns?: readonly Column[]): string {
  const cols = columnsOf(rows, columns);
  const lines = [cols.map((c) => csvField(c.header ?? c.key)).join(',')];
  for (const row of rows) lines.push(cols.map((c) => csvField(cellText(row[c.key]))).join(','));
  return `${lines.join('\n')}\n`;
}

/** Renders rows in the chosen format: JSON gives the rows as they are (not stringified cells). */
export function renderRows(rows: readonly Row[], format: OutputFormat, columns?: readonly Column[]): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(rows, null, 2)}\n`;
    case 'csv':
      return renderCsv(rows, columns);
    case 'table':
      return renderTable(rows, columns);
  }
}

/** A titled section for multi-table output such as `settings check`. */
export function section(title: string, body: string): string {
  return `${title}\n${body}\n`;
}

/** Where commands write; tests may pass their own sinks. */
export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * Where a command's data goes: the program's configured output (createProgram(io), so tests
 * running the CLI in-process capture it), else stdout.
 */
export function writerOf(command: Command): (text: string) => void {
  return command.configureOutput().writeOut ?? processIo.out;
}

/** Prints rows to stdout in the chosen format. */
export function printRows(
  rows: readonly Row[],
  format: OutputFormat,
  columns?: readonly Column[],
  io: Io = processIo,
): void {
  io.out(renderRows(rows, format, columns));
}

/** Prints any value as indented JSON to stdout. */
export function printJson(value: unknown, io: Io = processIo): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}
