/** core/samples/parse.ts: the payload creator reads pasted samples, messy ones included, without throwing. */
import assert from 'node:assert/strict';
import { parseForm } from '../../../core/formats/form.ts';
import { decodeSample, detectFormat, parseSample } from '../../../core/samples/parse.ts';

const GERMAN_EXPORT =
  '\ufeffE-Mail;Vorname;Betrag;Datum;Notiz\r\n' +
  'anna@example.de;Anna;12,50;01.03.2024;"Hallo;\r\nWelt"\r\n' +
  'ben@example.de;Ben;1.234,00;13.03.2024;"sagte ""ja"""\r\n' +
  ';;;;\r\n' +
  '\r\n';

describe('samples: detecting the format', () => {
  const cases: [string, string, string | undefined][] = [
    ['a,b\n1,2\n', 'csv', ','],
    ['a;b;c\n1,5;2;3\n4,5;5;6\n', 'csv', ';'],
    ['a|b\n1|2\n', 'csv', '|'],
    ['a\tb\n1\t2\n', 'tsv', '\t'],
    ['name\nAnna\n', 'csv', ','],
    ['{"a":1}', 'json', undefined],
    ['  [{"a":1},{"a":2}]\n', 'json', undefined],
    ['{"a":1}\n{"a":2}\n', 'ndjson', undefined],
    ['\ufeff{"a":1}', 'json', undefined],
    ['type=subscribe&data%5Bemail%5D=a%40b.example\n', 'form', undefined],
    ['data[merges][FNAME]=Ann', 'form', undefined],
    ['a=1', 'csv', ','],
    ['a=1&b=2\nc=3&d=4\n', 'csv', ','],
    ['note=two words&b=2', 'csv', ','],
  ];
  for (const [text, format, delimiter] of cases) {
    it(`${JSON.stringify(text.slice(0, 24))} is ${format}${delimiter ? ` with ${JSON.stringify(delimiter)}` : ''}`, () => {
      const found = detectFormat(text);
      assert.equal(found.format, format);
      assert.equal(found.delimiter, delimiter);
      assert.ok(found.reason.length > 0);
    });
  }

  it('is not fooled by delimiters inside quotes or a pipe in one cell', () => {
    assert.equal(detectFormat('a,b\n"x;y;z",1\n"p;q",2\n').delimiter, ',');
    assert.equal(detectFormat("cmd,n\n=cmd|' /C calc'!A0,1\nok,2\n").delimiter, ',');
  });
});

describe('samples: reading CSV and TSV', () => {
  it('reads a German spreadsheet export: BOM, semicolons, CRLF, quoted newline, doubled quotes, empty rows', () => {
    const p = parseSample(GERMAN_EXPORT);
    assert.equal(p.format, 'csv');
    assert.equal(p.delimiter, ';');
    assert.equal(p.header, true);
    assert.deepEqual(p.columns, ['E-Mail', 'Vorname', 'Betrag', 'Datum', 'Notiz']);
    assert.deepEqual(p.rows, [
      {
        'E-Mail': 'anna@example.de',
        Vorname: 'Anna',
        Betrag: '12,50',
        Datum: '01.03.2024',
        Notiz: 'Hallo;\r\nWelt',
      },
      {
        'E-Mail': 'ben@example.de',
        Vorname: 'Ben',
        Betrag: '1.234,00',
        Datum: '13.03.2024',
        Notiz: 'sagte "ja"',
      },
    ]);
    assert.deepEqual(p.problems, []);
  });

  it('keeps hostile cells exactly as they were', () => {
    const hostile = ['<script>alert(1)</script>', "=cmd|' /C calc'!A0", '@SUM(1+1)', '+1+1', '-2+3'];
    const text = `note,n\n${hostile.map((h, i) => `"${h.replace(/"/g, '""')}",${i}`).join('\n')}\n`;
    const p = parseSample(text);
    assert.deepEqual(
      p.rows.map((r) => r.note),
      hostile,
    );
    assert.deepEqual(p.problems, []);
  });

  it('reports ragged rows with their row index and line, keeping what can be kept', () => {
    const p = parseSample('a,b,c\n1,2,3\n4,5\n"multi\nline",7,8,9\n10,11,12\n');
    assert.equal(p.rows.length, 4);
    assert.deepEqual(p.rows[1], { a: '4', b: '5' });
    assert.deepEqual(p.rows[2], { a: 'multi\nline', b: '7', c: '8' });
    assert.deepEqual(p.problems, [
      { row: 1, line: 3, message: 'has 2 fields, expected 3: the missing ones are empty' },
      { row: 2, line: 4, message: 'has 4 fields, expected 3: the extra ones are ignored' },
    ]);
  });

  it('reports an unterminated quote instead of throwing', () => {
    const p = parseSample('a,b\n1,"never closed\n2,3\n');
    assert.equal(p.rows.length, 1);
    assert.ok(p.problems.some((x) => x.row === 0 && x.line === 2 && /quote/i.test(x.message)));
  });

  it('makes empty and repeated header names unique', () => {
    const p = parseSample('amount,,amount,amount_2,\n1,2,3,4,5\n', { header: true });
    assert.deepEqual(p.columns, ['amount', 'column_2', 'amount_3', 'amount_2', 'column_5']);
  });

  it('keeps a column named __proto__ as a field, not a prototype', () => {
    const p = parseSample('__proto__,b\nx,2\n');
    assert.equal(Object.getPrototypeOf(p.rows[0]), Object.prototype);
    assert.deepEqual(Object.entries(p.rows[0] ?? {}), [
      ['__proto__', 'x'],
      ['b', '2'],
    ]);
  });

  const headers: [string, string, boolean][] = [
    ['typed values under text names', 'email,amount\nanna@example.com,12\n', true],
    ['all text, names not repeated below', 'first,last\nAnna,Smith\nBen,Jones\n', true],
    ['a number in the first row', 'anna,12\nben,13\n', false],
    ['an empty cell in the first row', 'a,\n1,2\n', false],
    ['a repeated cell in the first row', 'x,x\n1,2\n', false],
    ['all text, first row recurs below', 'gold,red\nsilver,blue\ngold,green\n', false],
    ['a date in the first row', '2024-03-01,open\n2024-03-02,closed\n', false],
  ];
  for (const [why, text, header] of headers) {
    it(`header auto: ${why} → ${header}`, () => {
      const p = parseSample(text);
      assert.equal(p.header, header);
      if (!header) assert.equal(p.columns[0], 'column_1');
    });
  }

  it('obeys explicit options: header, delimiter, quote character, format', () => {
    const p = parseSample("x;y\n'a;b';c\n", { header: false, delimiter: ';', quoteChar: "'" });
    assert.equal(p.header, false);
    assert.deepEqual(p.rows, [
      { column_1: 'x', column_2: 'y' },
      { column_1: 'a;b', column_2: 'c' },
    ]);
    assert.equal(parseSample('a\tb\n1\t2', { format: 'tsv' }).delimiter, '\t');
    assert.equal(parseSample('{"a":1}', { format: 'csv' }).format, 'csv');
  });

  it('reads TSV with quoted tabs', () => {
    const p = parseSample('name\tnote\nAnna\t"tab\there"\n');
    assert.equal(p.format, 'tsv');
    assert.deepEqual(p.rows, [{ name: 'Anna', note: 'tab\there' }]);
  });
});

describe('samples: byte order marks', () => {
  it('drops a BOM after a line break (files joined end to end), not only at the start', () => {
    const p = parseSample('\uFEFFname,amount\nana,1\n\uFEFFben,2\n\n\uFEFF"cy, jr",3\n', { header: true });
    assert.deepEqual(p.columns, ['name', 'amount']);
    assert.deepEqual(
      p.rows.map((r) => r['name']),
      ['ana', 'ben', 'cy, jr'],
    );
    assert.deepEqual(p.problems, []);
  });
});

describe('samples: reading JSON and NDJSON', () => {
  it('flattens nested objects to dotted paths and keeps arrays whole', () => {
    const p = parseSample(
      JSON.stringify([
        { user: { email: 'a@example.com', address: { city: 'Köln' } }, items: [{ sku: 1 }], meta: {} },
        { user: { email: 'b@example.com' }, value: 9.5, ok: true },
      ]),
    );
    assert.equal(p.format, 'json');
    assert.deepEqual(p.columns, ['user.email', 'user.address.city', 'items', 'meta', 'value', 'ok']);
    assert.deepEqual(p.rows[0], {
      'user.email': 'a@example.com',
      'user.address.city': 'Köln',
      items: [{ sku: 1 }],
      meta: {},
    });
    assert.deepEqual(p.rows[1], { 'user.email': 'b@example.com', value: 9.5, ok: true });
  });

  it('reads one object as one row, and reports array items that are not objects', () => {
    assert.equal(parseSample('{"a":{"b":1}}').rows.length, 1);
    const p = parseSample('[{"a":1}, 2, "x", {"a":3}]');
    assert.equal(p.rows.length, 2);
    assert.deepEqual(
      p.problems.map((x) => x.message),
      ['item 2 of the array is not an object: skipped', 'item 3 of the array is not an object: skipped'],
    );
  });

  it('reports broken JSON with its line instead of throwing', () => {
    // V8 gives the position for this error (not for every one): the line is reported when known.
    const p = parseSample('[\n{"a":1},\n{"a" 1}\n]');
    assert.equal(p.format, 'json');
    assert.equal(p.rows.length, 0);
    assert.equal(p.problems.length, 1);
    assert.match(p.problems[0]?.message ?? '', /^not valid JSON/);
    assert.equal(p.problems[0]?.line, 3);
  });

  it('reads NDJSON, reporting a bad line and a non-object line by number', () => {
    const p = parseSample('{"event":"a","n":1}\r\n\r\n{"event":"b",\n[1,2]\n{"event":"c","user":{"id":7}}\n');
    assert.equal(p.format, 'ndjson');
    assert.deepEqual(p.rows, [
      { event: 'a', n: 1 },
      { event: 'c', 'user.id': 7 },
    ]);
    assert.deepEqual(p.columns, ['event', 'n', 'user.id']);
    assert.deepEqual(
      p.problems.map((x) => [x.line, x.message.split(':')[0]]),
      [
        [3, 'not valid JSON'],
        [4, 'is not a JSON object'],
      ],
    );
  });
});

describe('samples: reading a form post', () => {
  it('reads bracketed keys as nested columns, values decoded and kept as text, as the translator reads them', () => {
    const body =
      'type=subscribe&fired_at=2009-03-26+21%3A35%3A57&data%5Bweb_id%5D=42&data[merges][FNAME]=Ann\r\n';
    const p = parseSample(body);
    assert.equal(p.format, 'form');
    assert.equal(p.header, true);
    assert.deepEqual(p.columns, ['type', 'fired_at', 'data.web_id', 'data.merges.FNAME']);
    assert.deepEqual(p.rows, [
      { type: 'subscribe', fired_at: '2009-03-26 21:35:57', 'data.web_id': '42', 'data.merges.FNAME': 'Ann' },
    ]);
    assert.deepEqual(p.problems, []);
    // The final line end is no part of the last value, for the translator either.
    const read = parseForm(body);
    assert.ok('record' in read);
    assert.equal((read.record['data'] as { merges: { FNAME: string } }).merges.FNAME, 'Ann');
  });

  it('reports keys nested deeper than the translator takes, and reads a form when told to', () => {
    const deep = parseSample('a[b][c][d][e][f][g]=1&x=2');
    assert.equal(deep.format, 'form');
    assert.deepEqual(deep.rows, []);
    assert.match(deep.problems[0]?.message ?? '', /nests 6 levels deep; at most 5/);
    assert.deepEqual(parseSample('a=1', { format: 'form' }).rows, [{ a: '1' }]);
  });
});

describe('samples: limits and encodings', () => {
  it('refuses a sample over the byte cap, counting UTF-8 bytes', () => {
    const p = parseSample(`a\n${'ä'.repeat(60)}`, { maxBytes: 100 });
    assert.deepEqual(p.rows, []);
    assert.match(p.problems[0]?.message ?? '', /larger than 100 bytes/);
    assert.equal(parseSample(`a\n${'a'.repeat(60)}`, { maxBytes: 100 }).rows.length, 1);
  });

  it('reports an empty sample', () => {
    assert.deepEqual(parseSample(' \n\n').problems, [{ message: 'the sample is empty' }]);
  });

  it('decodes UTF-8 with and without BOM, UTF-16 with BOM, and falls back to windows-1252', () => {
    const utf8 = new TextEncoder().encode('Währung;€');
    assert.deepEqual(decodeSample(utf8), { text: 'Währung;€', encoding: 'utf-8' });
    assert.deepEqual(decodeSample(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8])), {
      text: 'Währung;€',
      encoding: 'utf-8',
    });
    const le = [0xff, 0xfe, 0x57, 0x00, 0xe4, 0x00];
    assert.deepEqual(decodeSample(new Uint8Array(le)), { text: 'Wä', encoding: 'utf-16le' });
    const be = [0xfe, 0xff, 0x00, 0x57, 0x00, 0xe4];
    assert.deepEqual(decodeSample(new Uint8Array(be)), { text: 'Wä', encoding: 'utf-16be' });
    // "Währung;€" as Excel on Windows saves it: ä is 0xE4 and € is 0x80, invalid as UTF-8.
    const cp1252 = new Uint8Array([0x57, 0xe4, 0x68, 0x72, 0x75, 0x6e, 0x67, 0x3b, 0x80]);
    assert.deepEqual(decodeSample(cp1252), { text: 'Währung;€', encoding: 'windows-1252' });
  });
});
