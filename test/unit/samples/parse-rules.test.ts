/**
 * Reading a pasted sample (core/samples/parse.ts), rule by rule: the byte cap counted in UTF-8
 * (one to four bytes a character, exactly at the cap allowed), the format of a refused or empty
 * sample, why each format was chosen, the records key taken only when offered, and the delimiter
 * and quote character of a sample whose format was given.
 */
import assert from 'node:assert/strict';
import { decodeSample, detectFormat, parseSample } from '../../../core/samples/parse.ts';

describe('a sample, rule by rule', () => {
  it('counts the byte cap in UTF-8: one to four bytes a character, the cap itself allowed', () => {
    const fits = (text: string, maxBytes: number) => parseSample(text, { maxBytes }).rows.length > 0;
    for (const [char, bytes] of [
      ['a', 1],
      ['\u007f', 1],
      ['\u0080', 2],
      ['ä', 2],
      ['\u07ff', 2],
      ['\u0800', 3],
      ['€', 3],
      ['\uffff', 3],
      ['😀', 4],
      ['\ud800\udc00', 4],
      ['\udbff\udfff', 4],
    ] as const) {
      const text = `h\n${char.repeat(10)}`;
      const size = 2 + 10 * bytes;
      assert.equal(fits(text, size), true, `${JSON.stringify(char)} at ${size}`);
      assert.equal(fits(text, size - 1), false, `${JSON.stringify(char)} at ${size - 1}`);
    }
  });

  it('names the format of a refused or empty sample', () => {
    const big = parseSample('{"a":1}', { maxBytes: 3 });
    assert.equal(big.format, 'json');
    assert.equal(big.header, false);
    assert.deepEqual([big.columns, big.rows], [[], []]);
    assert.deepEqual(big.problems, [{ message: 'the sample is larger than 3 bytes: paste fewer rows' }]);
    assert.equal(parseSample('{"a":1}', { maxBytes: 3, format: 'ndjson' }).format, 'ndjson');
    assert.equal(parseSample('  ', { format: 'tsv' }).format, 'tsv');
    const empty = parseSample('  ');
    assert.equal(empty.format, 'csv');
    assert.equal(empty.header, false);
    assert.deepEqual([empty.columns, empty.rows], [[], []]);
    assert.equal(parseSample('\ufeff').problems[0]?.message, 'the sample is empty');
  });

  it('says why each format was chosen', () => {
    assert.deepEqual(detectFormat('{"a":1}'), { format: 'json', reason: 'the text is one JSON object' });
    assert.deepEqual(detectFormat('[{"a":1}]'), { format: 'json', reason: 'the text is one JSON array' });
    assert.deepEqual(detectFormat('  {"a":1}  \n{"a":2}'), {
      format: 'ndjson',
      reason: 'the first line is a JSON object and the text is not one JSON value',
    });
    const broken = { format: 'json', reason: 'the text starts like JSON (but does not parse)' };
    assert.deepEqual(detectFormat('{"a":'), broken);
    assert.deepEqual(detectFormat('[{"a":1}\n{"a":2}]x'), broken);
    assert.deepEqual(detectFormat('{"a":\n1}x'), broken);
    assert.deepEqual(detectFormat('a=1&b=2'), {
      format: 'form',
      reason: 'the text is one line of key=value pairs joined by &: a form post',
    });
    assert.equal(detectFormat('a\tb\n1\t2').format, 'tsv');
    assert.deepEqual(detectFormat('\ufeff{"a":1}'), {
      format: 'json',
      reason: 'the text is one JSON object',
    });
    assert.deepEqual(detectFormat('{"a":1}x'), broken);
    assert.deepEqual(detectFormat('[1]\n[2]'), broken);
  });

  it('reads JSON after a byte order mark, with a header', () => {
    const read = parseSample('\ufeff{"a":1}');
    assert.equal(read.header, true);
    assert.deepEqual(read.rows, [{ a: 1 }]);
  });

  it('reads broken JSON as one problem with no rows', () => {
    for (const options of [{}, { format: 'json' as const }]) {
      const read = parseSample('{"a":', options);
      assert.equal(read.format, 'json');
      assert.equal(read.header, true);
      assert.deepEqual(read.columns, []);
      assert.deepEqual(read.rows, []);
      assert.equal(read.problems.length, 1);
      assert.match(read.problems[0]?.message ?? '', /^not valid JSON/);
    }
  });

  it('offers a records key, and reads its items only when asked for that key', () => {
    const text = JSON.stringify({ events: [{ a: 1 }, { a: 2 }] });
    const offered = parseSample(text);
    assert.equal(offered.recordsOffer, 'events');
    assert.equal(offered.records, undefined);
    assert.equal(offered.rows.length, 1);
    const taken = parseSample(text, { records: 'events' });
    assert.equal(taken.records, 'events');
    assert.deepEqual(taken.rows, [{ a: 1 }, { a: 2 }]);
    const other = parseSample(text, { records: 'data' });
    assert.equal(other.records, undefined);
    assert.equal(other.rows.length, 1);
    const none = parseSample('{"a":1}');
    assert.equal('recordsOffer' in none, false);
    assert.equal('records' in none, false);
  });

  it('reads base64 JSON inside NDJSON lines as columns', () => {
    const ue = Buffer.from('{"plan":"gold"}').toString('base64');
    const read = parseSample(`{"ue":"${ue}"}\n{"ue":"${ue}"}\n`);
    assert.equal(read.format, 'ndjson');
    assert.equal(read.header, true);
    assert.deepEqual(read.columns, ['ue.plan']);
  });

  it('reads a form as a form: one row with a header', () => {
    const read = parseSample('a=1&b=2');
    assert.equal(read.header, true);
    assert.deepEqual(read.rows, [{ a: '1', b: '2' }]);
  });

  it('finds the delimiter with the given quote character when the format was given', () => {
    // Quoted by ', the semicolons in the second record are hidden: ; and , tie, and ; is listed first.
    const text = "a,b;c\n'x;y;z',1;2\n";
    assert.equal(parseSample(text, { format: 'csv', quoteChar: "'" }).delimiter, ';');
    assert.equal(parseSample(text, { format: 'csv' }).delimiter, ',');
    assert.equal(parseSample('a;b\n1;2\n', { delimiter: '|' }).delimiter, '|');
    assert.equal(parseSample('a;b\n1;2\n', { format: 'tsv' }).delimiter, '\t');
  });

  it('finds the delimiter with the given quote character when the format is detected too', () => {
    // The same text, no format given: the detection must quote with ' as asked, not with ".
    const text = "a,b;c\n'x;y;z',1;2\n";
    const read = parseSample(text, { quoteChar: "'" });
    assert.equal(read.format, 'csv');
    assert.equal(read.delimiter, ';');
    assert.equal(parseSample(text).delimiter, ',');
  });

  it('decodes UTF-16 big-endian with its mark, and windows-1252 when UTF-8 fails', () => {
    assert.deepEqual(decodeSample(new Uint8Array([0xfe, 0xff, 0x00, 0x41, 0x00, 0xe4])), {
      text: 'Aä',
      encoding: 'utf-16be',
    });
    assert.deepEqual(decodeSample(new Uint8Array([0xff, 0x41])), { text: 'ÿA', encoding: 'windows-1252' });
    assert.deepEqual(decodeSample(new Uint8Array([0xfe, 0x41])), { text: 'þA', encoding: 'windows-1252' });
    assert.deepEqual(decodeSample(new Uint8Array([0x41, 0xfe])), { text: 'Aþ', encoding: 'windows-1252' });
    assert.deepEqual(decodeSample(new Uint8Array([0x41, 0xff])), { text: 'Aÿ', encoding: 'windows-1252' });
  });

  it('decodes UTF-16 with a lone surrogate to a replacement character, never throwing', () => {
    assert.deepEqual(decodeSample(new Uint8Array([0xff, 0xfe, 0x41, 0x00, 0x00, 0xd8])), {
      text: 'A\ufffd',
      encoding: 'utf-16le',
    });
  });
});
