/**
 * CSV and TSV samples (core/samples/csv.ts), rule by rule. The delimiter guess, by the reason it
 * gives (share, records read, fields): quotes opening only at a field's start and hiding what is
 * inside (doubled quotes included), records ended by LF, CR or CRLF, blank records and records of
 * delimiters or blanks only saying nothing, the last record counted when read whole and not when
 * the scan cut it, at most 50 records, and the tie-breaks. The header rule's edges (names
 * trimmed, 50 records looked at, cells past the header ignored), the lines a record starts on,
 * and what a header's own error and an empty text give.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { detectDelimiter, looksLikeHeader, parseDelimited } from '../../../core/samples/csv.ts';

/** Each case: why, the text, and the reason the guess gives (its share, records and fields). */
const CASES: { why: string; text: string; reason: string }[] = JSON.parse(
  readFileSync(new URL('./delimiter-cases.json', import.meta.url), 'utf8'),
);

const reason = (text: string) => detectDelimiter(text).reason;
const auto = { delimiter: ',', quoteChar: '"', header: 'auto' } as const;

describe('the delimiter a CSV sample is read with', () => {
  for (const c of CASES)
    it(`${c.why}: ${c.reason}`, () => {
      assert.equal(reason(c.text), c.reason);
    });

  it('reads at most 50 records', () => {
    assert.equal(
      reason(`a;b\n${'1;2\n'.repeat(59)}`),
      '";" splits 100% of the first 50 records into 2 fields',
    );
  });

  it('does not count a record the 64 KiB scan cut off', () => {
    const text = `a;b;c\n${`${'x'.repeat(2000)};1;2\n`.repeat(40)}`;
    assert.equal(reason(text), '";" splits 100% of the first 33 records into 3 fields');
  });

  it('reads with the quote character it is given', () => {
    assert.equal(
      detectDelimiter("a;b\n'x;y';1\n", "'").reason,
      '";" splits 100% of the first 2 records into 2 fields',
    );
    assert.equal(
      detectDelimiter("a;b\n'x;y';1\n").reason,
      '";" splits 50% of the first 2 records into 2 fields',
    );
  });
});

describe('the header rule of a CSV sample', () => {
  it('needs a first record with cells', () => {
    assert.equal(looksLikeHeader([]), false);
    assert.equal(looksLikeHeader([[]]), false);
    assert.equal(looksLikeHeader([['a', 'b']]), true);
  });

  it('compares trimmed names and cells', () => {
    assert.equal(
      looksLikeHeader([
        [' gold', 'red '],
        ['gold', 'blue'],
      ]),
      false,
    );
    assert.equal(
      looksLikeHeader([
        ['gold', 'red'],
        [' gold ', 'blue'],
      ]),
      false,
    );
  });

  it('takes one typed cell in any record below, under a named column only', () => {
    assert.equal(
      looksLikeHeader([
        ['gold', 'n'],
        ['gold', '1'],
        ['silver', 'x'],
      ]),
      true,
    );
    assert.equal(
      looksLikeHeader([
        ['gold', 'red'],
        ['gold', 'blue', '12'],
      ]),
      false,
    );
  });

  it('looks at the 50 records below the first, no further', () => {
    const rows = [
      ['gold', 'red'],
      ...Array.from({ length: 50 }, () => ['silver', 'blue']),
      ['gold', 'green'],
    ];
    assert.equal(looksLikeHeader(rows), true);
    assert.equal(looksLikeHeader(rows.slice(0, 50).concat([['gold', 'green']])), false);
  });
});

describe('the records of a CSV sample', () => {
  it('gives each record the line it starts on, with CR line ends and blank lines', () => {
    assert.deepEqual(parseDelimited('a,b\r1,2\r3\r', auto).problems, [
      { row: 1, line: 3, message: 'has 1 fields, expected 2: the missing ones are empty' },
    ]);
    for (const text of ['a,b\n\n1,2,3\n', '\na,b\n1,2,3\n'])
      assert.deepEqual(parseDelimited(text, auto).problems, [
        { row: 0, line: 3, message: 'has 3 fields, expected 2: the extra ones are ignored' },
      ]);
  });

  it('drops a record of blanks, and trims header names', () => {
    const read = parseDelimited(' a , b \n1,2\n  ,  \n3,4\n', auto);
    assert.deepEqual(read.columns, ['a', 'b']);
    assert.deepEqual(read.rows, [
      { a: '1', b: '2' },
      { a: '3', b: '4' },
    ]);
  });

  it('drops a byte order mark at the very start', () => {
    assert.deepEqual(parseDelimited('\uFEFFa,b\n1,2\n', auto).columns, ['a', 'b']);
  });

  it('reads an empty text as no columns and no rows', () => {
    for (const header of ['auto', false, true] as const)
      assert.deepEqual(parseDelimited(' \n', { ...auto, header }), {
        header: header === true,
        columns: [],
        rows: [],
        problems: [],
      });
  });

  it("reports a header's own error once, without a row", () => {
    assert.deepEqual(parseDelimited('a,"b\n1,2', auto).problems, [
      { line: 1, message: 'Quoted field unterminated' },
    ]);
    assert.deepEqual(parseDelimited('"a,b\n', { ...auto, header: false }).problems, [
      { row: 0, line: 1, message: 'Quoted field unterminated' },
    ]);
  });
});
