/**
 * The Google Sheets API stand-in (issue #78): the `spreadsheets.values` methods Segment's
 * google-sheets actions call, as Google's API reference documents them
 * (developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values):
 * - `GET /v4/spreadsheets/{id}/values/{range}`: `{range, majorDimension: "ROWS", values?}`
 *   (`values` left out when the range is empty, as Google does);
 * - `POST /v4/spreadsheets/{id}/values/{range}:append?valueInputOption=RAW|USER_ENTERED`: the rows
 *   go under the last row of the table the range starts, answered with `{spreadsheetId,
 *   tableRange?, updates: {updatedRange, updatedRows, updatedColumns, updatedCells}}`;
 * - `POST /v4/spreadsheets/{id}/values:batchUpdate` `{valueInputOption, data: [{range, values}]}`.
 * Every call needs `Authorization: Bearer <token>` the OAuth stand-in (oauth.ts) issued and that
 * has not expired: a missing one is 401 `UNAUTHENTICATED` "missing required authentication
 * credential", an expired or unknown one 401 "invalid authentication credentials", in Google's
 * error shape `{error: {code, message, status}}` with `WWW-Authenticate: Bearer`. A spreadsheet must
 * be created first (`POST /_standin/sheets/spreadsheets {id, sheets?}`, default one sheet `Sheet1`):
 * another id is 404 NOT_FOUND, a range naming a sheet it lacks 400 "Unable to parse range".
 * Values are kept as given (RAW; USER_ENTERED is not parsed here).
 */
import type { OAuthStandIn } from './oauth.ts';
import type { Answer } from './server.ts';

/** Where spreadsheets are created and read back, under the capturing stand-in's own paths. */
export const SPREADSHEETS_PATH = '/_standin/sheets/spreadsheets';

export interface SheetsStandIn {
  /** Creates (or empties) a spreadsheet; returns a problem, or undefined. */
  create(body: unknown): string | undefined;
  /** A spreadsheet's sheets and their rows, for a test; undefined when there is none. */
  dump(id: string): Record<string, string[][]> | undefined;
  /** Answers a request to sheets.googleapis.com (404 for a path that is not one of its methods). */
  handle(req: {
    method: string;
    path: string;
    query: Readonly<Record<string, string>>;
    headers: Readonly<Record<string, string>>;
    body: unknown;
  }): Answer;
}

const VALUE_INPUT = new Set(['RAW', 'USER_ENTERED']);

function googleError(
  code: number,
  status: string,
  message: string,
  headers?: Record<string, string>,
): Answer {
  return { status: code, body: { error: { code, message, status } }, ...(headers ? { headers } : {}) };
}

/** A1 column letters → 0-based index (`A` → 0, `AA` → 26). */
function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}
/** 0-based index → A1 column letters. */
function columnLetters(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A range in A1 notation: its sheet, first cell and (open) end; 0-based, end inclusive. */
interface Range {
  readonly sheet: string;
  readonly col: number;
  readonly row: number;
  readonly endCol: number;
  readonly endRow: number;
}

/** `Sheet1!A2:A`, `'My sheet'!B3:D`, `Sheet1!A1:C1`, `Sheet1!A2`; undefined when it is not one. */
export function parseRange(text: string): Range | undefined {
  const m =
    /^(?:'((?:[^']|'')+)'|([^!']+))!([A-Za-z]{1,3})([0-9]{1,7})?(?::([A-Za-z]{1,3})([0-9]{1,7})?)?$/.exec(
      text,
    );
  if (!m) return undefined;
  const sheet = m[1] !== undefined ? m[1].replace(/''/g, "'") : (m[2] as string);
  const col = columnIndex(m[3] as string);
  const row = m[4] === undefined ? 0 : Number(m[4]) - 1;
  const endCol = m[5] === undefined ? col : columnIndex(m[5]);
  const endRow =
    m[5] === undefined
      ? m[4] === undefined
        ? Number.MAX_SAFE_INTEGER
        : row
      : m[6] === undefined
        ? Number.MAX_SAFE_INTEGER
        : Number(m[6]) - 1;
  if (row < 0 || endCol < col || endRow < row) return undefined;
  return { sheet, col, row, endCol, endRow };
}

const a1 = (sheet: string, col: number, row: number, endCol: number, endRow: number) =>
  `${/^[A-Za-z0-9_]+$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`}!${columnLetters(col)}${row + 1}:${columnLetters(endCol)}${endRow + 1}`;

const cell = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

export function createSheetsStandIn(oauth: OAuthStandIn): SheetsStandIn {
  const books = new Map<string, Map<string, string[][]>>();

  const authorized = (headers: Readonly<Record<string, string>>): Answer | undefined => {
    const m = /^Bearer\s+(\S+)$/i.exec(headers['authorization'] ?? '');
    if (!m)
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' },
      );
    if (oauth.accessTokenState(m[1] as string) !== 'valid')
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
      );
    return undefined;
  };

  /** The grid a range names, or the answer refusing it. */
  const gridOf = (id: string, rangeText: string): { grid: string[][]; range: Range } | Answer => {
    const book = books.get(id);
    if (!book) return googleError(404, 'NOT_FOUND', 'Requested entity was not found.');
    const range = parseRange(rangeText);
    const grid = range ? book.get(range.sheet) : undefined;
    if (!range || !grid) return googleError(400, 'INVALID_ARGUMENT', `Unable to parse range: ${rangeText}`);
    return { grid, range };
  };

  /** Writes rows at a range's first cell; the range actually written. */
  const write = (grid: string[][], range: Range, values: string[][]) => {
    let width = 0;
    values.forEach((rowValues, i) => {
      grid[range.row + i] ??= [];
      const row = grid[range.row + i] as string[];
      rowValues.forEach((v, j) => {
        row[range.col + j] = v;
      });
      width = Math.max(width, rowValues.length);
    });
    for (let r = 0; r < grid.length; r++) grid[r] ??= [];
    return { rows: values.length, columns: width, cells: values.reduce((n, r) => n + r.length, 0) };
  };

  const valuesOf = (raw: unknown): string[][] | undefined =>
    Array.isArray(raw) && raw.every(Array.isArray) ? (raw as unknown[][]).map((r) => r.map(cell)) : undefined;

  return {
    create(body) {
      const b = body as { id?: unknown; sheets?: unknown } | undefined;
      if (typeof b?.id !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(b.id))
        return 'expected {id, sheets?: [name…]}';
      const names = Array.isArray(b.sheets) && b.sheets.length > 0 ? b.sheets.map(String) : ['Sheet1'];
      books.set(b.id, new Map(names.map((n) => [n, []])));
      return undefined;
    },

    dump(id) {
      const book = books.get(id);
      return book
        ? Object.fromEntries([...book].map(([n, g]) => [n, g.map((r) => [...r].map((v) => v ?? ''))]))
        : undefined;
    },

    handle({ method, path, query, headers, body }) {
      const m = /^\/v4\/spreadsheets\/([^/]+)\/values(?:\/([^/]+?))?(:append|:batchUpdate)?$/.exec(path);
      if (!m) return googleError(404, 'NOT_FOUND', `no method at ${method} ${path}`);
      const refused = authorized(headers);
      if (refused) return refused;
      const id = decodeURIComponent(m[1] as string);
      const rangeText = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
      const verb = m[3];
      if (method === 'GET' && verb === undefined && rangeText !== undefined) {
        const at = gridOf(id, rangeText);
        if ('status' in at) return at;
        const { grid, range } = at;
        const rows = grid
          .slice(range.row, Math.min(grid.length, range.endRow + 1))
          .map((r) => r.slice(range.col, range.endCol + 1).map((v) => v ?? ''));
        while (rows.length > 0 && (rows.at(-1) as string[]).every((v) => v === '')) rows.pop();
        const trimmed = rows.map((r) => {
          const out = [...r];
          while (out.length > 0 && out.at(-1) === '') out.pop();
          return out;
        });
        return {
          status: 200,
          body: {
            range: a1(
              range.sheet,
              range.col,
              range.row,
              range.endCol,
              Math.min(range.endRow, Math.max(grid.length, range.row + 1) - 1),
            ),
            majorDimension: 'ROWS',
            ...(trimmed.length > 0 ? { values: trimmed } : {}),
          },
        };
      }
      if (method === 'POST' && verb === ':append' && rangeText !== undefined) {
        const option = query['valueInputOption'];
        if (option === undefined || !VALUE_INPUT.has(option))
          return googleError(400, 'INVALID_ARGUMENT', `Invalid valueInputOption: ${option ?? '(none)'}`);
        const values = valuesOf((body as { values?: unknown } | undefined)?.values);
        if (!values)
          return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload: values must be a list of rows');
        const at = gridOf(id, rangeText);
        if ('status' in at) return at;
        const { grid, range } = at;
        // The table the range starts: its rows with a value from its first column on, and their width.
        let last = range.row - 1;
        let tableEnd = range.endCol;
        for (let r = range.row; r < grid.length; r++) {
          const cells = (grid[r] ?? []).slice(range.col);
          if (!cells.some((v) => v !== undefined && v !== '')) continue;
          last = r;
          tableEnd = Math.max(tableEnd, range.col + cells.length - 1);
        }
        const start = { ...range, row: last + 1 };
        const done = write(grid, start, values);
        return {
          status: 200,
          body: {
            spreadsheetId: id,
            ...(last >= range.row
              ? { tableRange: a1(range.sheet, range.col, range.row, tableEnd, last) }
              : {}),
            updates: {
              spreadsheetId: id,
              updatedRange: a1(
                range.sheet,
                range.col,
                start.row,
                range.col + Math.max(done.columns, 1) - 1,
                start.row + done.rows - 1,
              ),
              updatedRows: done.rows,
              updatedColumns: done.columns,
              updatedCells: done.cells,
            },
          },
        };
      }
      if (method === 'POST' && verb === ':batchUpdate' && rangeText === undefined) {
        const b = body as { valueInputOption?: unknown; data?: unknown } | undefined;
        if (typeof b?.valueInputOption !== 'string' || !VALUE_INPUT.has(b.valueInputOption))
          return googleError(
            400,
            'INVALID_ARGUMENT',
            `Invalid valueInputOption: ${String(b?.valueInputOption ?? '(none)')}`,
          );
        const data = Array.isArray(b.data) ? (b.data as { range?: unknown; values?: unknown }[]) : undefined;
        if (!data) return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload: data must be a list');
        const responses: unknown[] = [];
        let rows = 0;
        let cells = 0;
        for (const d of data) {
          const values = valuesOf(d.values);
          if (typeof d.range !== 'string' || !values)
            return googleError(
              400,
              'INVALID_ARGUMENT',
              'Invalid JSON payload: each data entry has a range and values',
            );
          const at = gridOf(id, d.range);
          if ('status' in at) return at;
          const done = write(at.grid, at.range, values);
          rows += done.rows;
          cells += done.cells;
          responses.push({
            spreadsheetId: id,
            updatedRange: d.range,
            updatedRows: done.rows,
            updatedColumns: done.columns,
            updatedCells: done.cells,
          });
        }
        return {
          status: 200,
          body: {
            spreadsheetId: id,
            totalUpdatedRows: rows,
            totalUpdatedCells: cells,
            totalUpdatedSheets: new Set(data.map((d) => parseRange(String(d.range))?.sheet)).size,
            responses,
          },
        };
      }
      return googleError(404, 'NOT_FOUND', `no method at ${method} ${path}`);
    },
  };
}
