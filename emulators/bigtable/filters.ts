/**
 * RowFilter, as google.bigtable.v2 defines it, applied to one row's cells. A filter is compiled
 * once per request (its regular expressions checked then: a malformed one is INVALID_ARGUMENT
 * before any row is read), then run on each row. Regular expressions are RE2 (re2js), matched
 * against the whole key, qualifier or value as bytes (Bigtable's full-match semantics); family
 * names as text.
 * `sink` is refused (UNIMPLEMENTED), never ignored.
 */
import { RE2JS } from 're2js';
import { invalid, unsupported } from './errors.ts';

/** One cell of a row being read: family, qualifier (latin1), timestamp, value, labels. */
export interface ReadCell {
  readonly family: string;
  readonly qualifier: string;
  readonly ts: bigint;
  readonly value: Buffer;
  readonly labels: readonly string[];
}

/** A compiled filter: a row's key and its cells (in read order) to the cells it keeps. */
export type Filter = (key: string, cells: readonly ReadCell[]) => ReadCell[];

type Obj = Record<string, unknown>;

const bytesOf = (v: unknown): Buffer =>
  Buffer.isBuffer(v) ? v : Buffer.from((v as string | undefined) ?? '');

function compile(text: string, what: string): RE2JS {
  try {
    return RE2JS.compile(text);
  } catch (err) {
    throw invalid(
      `Invalid ${what} regular expression "${text}": ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** A pattern over text (family names). */
const textRegex = (pattern: unknown, what: string): RE2JS => compile(bytesOf(pattern).toString('utf8'), what);

/**
 * A pattern over bytes (row keys, qualifiers, values): pattern and subject both read one
 * character a byte (Latin-1), so a pattern of raw bytes matches exactly those bytes, as Bigtable's
 * do; read as UTF-8 instead, every invalid byte would become U+FFFD and 0xFE would match 0xFF.
 * `\C` (any one byte), which Bigtable's RE2 has and re2js lacks, becomes `(?s:.)`.
 */
function bytesRegex(pattern: unknown, what: string): RE2JS {
  const text = bytesOf(pattern).toString('latin1');
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1] as string;
      out += next === 'C' ? '(?s:.)' : c + next;
      i++;
    } else out += c;
  }
  return compile(out, what);
}

/** Bytes comparison of latin1 strings (their order is the bytes' order). */
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The read order: family, qualifier, newest first. */
function sortCells(cells: ReadCell[]): ReadCell[] {
  return cells.sort(
    (a, b) =>
      cmp(a.family, b.family) || cmp(a.qualifier, b.qualifier) || (a.ts > b.ts ? -1 : a.ts < b.ts ? 1 : 0),
  );
}

/** A range's bound of latin1 strings: [start, startOpen, end, endOpen] (undefined: unbounded). */
function inRange(
  x: string,
  r: Obj,
  startClosed: string,
  startOpen: string,
  endClosed: string,
  endOpen: string,
): boolean {
  const sc = r[startClosed];
  const so = r[startOpen];
  const ec = r[endClosed];
  const eo = r[endOpen];
  const s = (v: unknown) => bytesOf(v).toString('latin1');
  if (sc != null && cmp(x, s(sc)) < 0) return false;
  if (so != null && cmp(x, s(so)) <= 0) return false;
  if (ec != null && cmp(x, s(ec)) > 0) return false;
  if (eo != null && cmp(x, s(eo)) >= 0) return false;
  return true;
}

/** Compiles a RowFilter (null or absent: every cell). */
export function compileFilter(f: Obj | null | undefined): Filter {
  if (!f) return (_k, cells) => [...cells];
  const kind = f['filter'] as string | undefined;
  const arg = kind === undefined ? undefined : f[kind];
  switch (kind) {
    case undefined:
      throw invalid('A RowFilter must set one filter.');
    case 'chain': {
      const parts = (((arg as Obj)['filters'] as Obj[]) ?? []).map(compileFilter);
      return (k, cells) => parts.reduce((acc, p) => p(k, acc), [...cells]);
    }
    case 'interleave': {
      const parts = (((arg as Obj)['filters'] as Obj[]) ?? []).map(compileFilter);
      return (k, cells) => sortCells(parts.flatMap((p) => p(k, cells)));
    }
    case 'condition': {
      const c = arg as Obj;
      const predicate = compileFilter(c['predicateFilter'] as Obj | null);
      const yes = c['trueFilter'] ? compileFilter(c['trueFilter'] as Obj) : () => [];
      const no = c['falseFilter'] ? compileFilter(c['falseFilter'] as Obj) : () => [];
      return (k, cells) => (predicate(k, cells).length > 0 ? yes(k, cells) : no(k, cells));
    }
    case 'sink':
      throw unsupported('The sink filter');
    case 'passAllFilter':
      return (_k, cells) => [...cells];
    case 'blockAllFilter':
      return () => [];
    case 'rowKeyRegexFilter': {
      const re = bytesRegex(arg, 'row key');
      return (k, cells) => (re.matches(k) ? [...cells] : []);
    }
    case 'rowSampleFilter': {
      const p = Number(arg);
      if (!(p > 0 && p < 1)) throw invalid(`row_sample_filter must be in (0, 1), not ${p}.`);
      return (_k, cells) => (Math.random() < p ? [...cells] : []);
    }
    case 'familyNameRegexFilter': {
      const re = textRegex(arg, 'family name');
      return (_k, cells) => cells.filter((c) => re.matches(c.family));
    }
    case 'columnQualifierRegexFilter': {
      const re = bytesRegex(arg, 'column qualifier');
      return (_k, cells) => cells.filter((c) => re.matches(c.qualifier));
    }
    case 'valueRegexFilter': {
      const re = bytesRegex(arg, 'value');
      return (_k, cells) => cells.filter((c) => re.matches(c.value.toString('latin1')));
    }
    case 'columnRangeFilter': {
      const r = arg as Obj;
      const family = r['familyName'] as string;
      return (_k, cells) =>
        cells.filter(
          (c) =>
            c.family === family &&
            inRange(
              c.qualifier,
              r,
              'startQualifierClosed',
              'startQualifierOpen',
              'endQualifierClosed',
              'endQualifierOpen',
            ),
        );
    }
    case 'valueRangeFilter': {
      const r = arg as Obj;
      return (_k, cells) =>
        cells.filter((c) =>
          inRange(
            c.value.toString('latin1'),
            r,
            'startValueClosed',
            'startValueOpen',
            'endValueClosed',
            'endValueOpen',
          ),
        );
    }
    case 'timestampRangeFilter': {
      const r = arg as Obj;
      const start = BigInt((r['startTimestampMicros'] as string) ?? '0');
      const end = BigInt((r['endTimestampMicros'] as string) ?? '0');
      return (_k, cells) => cells.filter((c) => c.ts >= start && (end === 0n || c.ts < end));
    }
    case 'cellsPerRowOffsetFilter': {
      const n = Number(arg);
      return (_k, cells) => cells.slice(n);
    }
    case 'cellsPerRowLimitFilter': {
      const n = Number(arg);
      return (_k, cells) => cells.slice(0, n);
    }
    case 'cellsPerColumnLimitFilter': {
      const n = Number(arg);
      return (_k, cells) => {
        const seen = new Map<string, number>();
        return cells.filter((c) => {
          const col = `${c.family}\u0000${c.qualifier}`;
          const i = seen.get(col) ?? 0;
          seen.set(col, i + 1);
          return i < n;
        });
      };
    }
    case 'stripValueTransformer':
      return (_k, cells) => (arg ? cells.map((c) => ({ ...c, value: Buffer.alloc(0) })) : [...cells]);
    case 'applyLabelTransformer': {
      const label = String(arg);
      if (!/^[a-z0-9-]{1,15}$/.test(label))
        throw invalid(`Invalid label "${label}": it must match [a-z0-9\\-]+ and be at most 15 characters.`);
      return (_k, cells) =>
        cells.map((c) => {
          if (c.labels.length > 0)
            throw invalid('A cell may carry at most one label (apply_label_transformer).');
          return { ...c, labels: [label] };
        });
    }
    default:
      throw unsupported(`The ${kind} filter`);
  }
}

export { sortCells };
