/**
 * What one value can be (core/samples/values.ts), rule by rule: each value votes for every reading
 * it fits, exactly once, and for none it does not. infer.ts counts these votes over a column, so a
 * vote too many makes a column of mixed values look typed, and one too few loses a reading.
 */
import assert from 'node:assert/strict';
import { inferFields, parseSample } from '../../../core/samples/index.ts';
import { isEmptyValue, isTypedText, valueVotes } from '../../../core/samples/values.ts';

const votes = (v: unknown): string[] => {
  const out: string[] = [];
  valueVotes(v, out);
  return out;
};

/** Each value with the readings it votes for, in the order it votes. */
function holds(cases: readonly (readonly [unknown, readonly string[]])[]): void {
  const line = (v: unknown, k: readonly string[]) =>
    `${typeof v === 'string' ? JSON.stringify(v) : String(v)} → ${k.join(' ')}`;
  const wrong = cases.filter(([v, want]) => line(v, votes(v)) !== line(v, want));
  assert.deepEqual(
    wrong.map(([v]) => line(v, votes(v))),
    wrong.map(([v, want]) => line(v, want)),
  );
}

const NUMBER = ['int.', 'num.', 'int,', 'num,'];

describe("the creator's readings of one value", () => {
  it('a JSON value votes as its own type: a finite number, a boolean, an object or a list', () => {
    holds([
      [5, ['int.', 'int,', 'num.', 'num,']],
      [-0, ['int.', 'int,', 'num.', 'num,']],
      [1.5, ['num.', 'num,']],
      [Number.NaN, []],
      [Number.POSITIVE_INFINITY, []],
      [true, ['bool']],
      [false, ['bool']],
      [{}, ['json']],
      [[], ['json']],
      [null, []],
      [undefined, []],
      [10n, []],
    ]);
  });

  it('whole numbers as text read with either decimal mark, and 0 and 1 as a flag too', () => {
    holds([
      ['0', [...NUMBER, 'bool01']],
      ['1', [...NUMBER, 'bool01']],
      ['-1', [...NUMBER, 'bool01']],
      ['+1', [...NUMBER, 'bool01']],
      ['2', NUMBER],
      ['10', NUMBER],
      ['42', NUMBER],
      [' 42 ', NUMBER],
      ['-5', NUMBER],
      ['+5', NUMBER],
      ['123456789012345', NUMBER],
      ['+123456', NUMBER],
      ['1234567', NUMBER],
    ]);
  });

  it('leading zeros, a + before seven digits or more than 15 digits are ids, not amounts', () => {
    holds([
      ['01', []],
      ['00', []],
      ['-01', []],
      ['1234567890123456', []],
      ['+1234567', ['phone']],
      ['+123456789012345', ['phone']],
      ['+1234567890123456', []],
      ['0301234567', ['phone']],
    ]);
  });

  it('a decimal part is read with its own mark, and one group of three with both', () => {
    holds([
      ['1.5', ['num.']],
      ['-1.5', ['num.']],
      ['.5', ['num.']],
      ['.25', ['num.']],
      ['12e3', ['num.']],
      ['1.5e-10', ['num.']],
      ['-.5', ['num.']],
      ['1.', ['num.']],
      ['1e5', ['num.']],
      ['1E5', ['num.']],
      ['1.5e-3', ['num.']],
      ['1.5E+3', ['num.']],
      ['1.2345', ['num.']],
      ['12.34', ['num.']],
      ['1.234', ['num.', 'int,', 'num,']],
      ['12.345', ['num.', 'int,', 'num,']],
      ['-1.234', ['num.', 'int,', 'num,']],
      ['1,5', ['num,']],
      ['-1,5', ['num,']],
      ['12,3', ['num,']],
      ['1,2345', ['num,']],
      ['1234,567', ['num,']],
      ['1,234', ['num,', 'int.', 'num.']],
      ['+1,234', ['num,', 'int.', 'num.']],
      ['1e', []],
      ['1.5.', []],
      ['1,5,', []],
      ['1..5', []],
    ]);
  });

  it('grouped thousands: the separator is never the decimal mark, and each reading votes once', () => {
    holds([
      ['1,234,567', ['int.', 'num.']],
      ['-1,234,567', ['int.', 'num.']],
      ['1.234.567', ['int,', 'num,', 'phone']],
      ['1 234 567', [...NUMBER, 'phone']],
      ["1'234'567", NUMBER],
      ['1\u00a0234', NUMBER],
      ['1\u202f234', NUMBER],
      ['999 999', NUMBER],
      ['1,234.56', ['num.']],
      ['12,345.6', ['num.']],
      ['1 234.56', ['num.']],
      ["1'234.56", ['num.']],
      ['1.234,56', ['num,']],
      ['1 234,56', ['num,']],
      ['1,234,56', []],
      ['1.234.56', []],
      ['1,2345,678', []],
      ['1234,567,890', []],
      ['1,234 567', []],
      ['1 234 5678', ['phone']],
    ]);
  });

  it('a column of grouped decimals beside words is text, as one of plain decimals is', () => {
    // Half the values are numbers: no number reading has the share a type needs.
    const type = (a: string) =>
      inferFields(parseSample(JSON.stringify([{ price: a }, { price: 'on request' }])))[0]?.type;
    assert.deepEqual(['1.5', '1,234.56', '1.234,56', '1 234.56'].map(type), [
      'string',
      'string',
      'string',
      'string',
    ]);
  });

  it('an ISO 8601 date or time votes only for a real day and a real time, with its exact shape', () => {
    holds([
      ['2024-03-01', ['date:YYYY-MM-DD']],
      ['2024-02-29', ['date:YYYY-MM-DD']],
      ['2000-02-29', ['date:YYYY-MM-DD']],
      ['2023-02-28', ['date:YYYY-MM-DD']],
      ['2023-02-29', []],
      ['1900-02-29', []],
      ['2024-04-30', ['date:YYYY-MM-DD']],
      ['2024-04-31', []],
      ['2024-06-31', []],
      ['2024-09-31', []],
      ['2024-11-31', []],
      ['2024-01-31', ['date:YYYY-MM-DD']],
      ['2024-03-31', ['date:YYYY-MM-DD']],
      ['2024-05-31', ['date:YYYY-MM-DD']],
      ['2024-12-31', ['date:YYYY-MM-DD']],
      ['2024-12-32', []],
      ['2024-13-01', []],
      ['2024-00-10', []],
      ['2024-01-00', []],
      ['2024-03-01T10:20:30Z', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01t10:20:30z', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01T10:20:30+01:00', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01T10:20:30-08:00', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01T10:20:30.123Z', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01T10:20:30.123456789Z', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01T10:20:30.1234567890Z', []],
      ['2024-03-01T23:59:60Z', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01T00:00:00Z', ['ts:ISO 8601', 'ts:RFC 3339']],
      ['2024-03-01T24:00:00Z', []],
      ['2024-03-01T23:60:00Z', []],
      ['2024-03-01T23:59:61Z', []],
      ['2024-03-01T10:20:30+0100', ['ts:ISO 8601', 'ts:YYYY-MM-DDTHH:mm:ssZ']],
      ['2024-03-01T10:20:30+01', ['ts:ISO 8601', 'ts:YYYY-MM-DDTHH:mm:ssZ']],
      ['2024-03-01T10:20:30', ['ts:ISO 8601', 'ts:YYYY-MM-DDTHH:mm:ss']],
      ['2024-03-01T10:20:30.5', ['ts:ISO 8601', 'ts:YYYY-MM-DDTHH:mm:ss.SSS']],
      ['2024-03-01 10:20:30', ['ts:ISO 8601', 'ts:YYYY-MM-DD HH:mm:ss']],
      ['2024-03-01 10:20:30Z', ['ts:ISO 8601', 'ts:YYYY-MM-DD HH:mm:ssZ']],
      ['2024-03-01T10:20Z', ['ts:ISO 8601', 'ts:YYYY-MM-DDTHH:mmZ']],
      ['2024-03-01T10:20', ['ts:ISO 8601', 'ts:YYYY-MM-DDTHH:mm']],
      ['2024-03-01 10:20:30.123 +01', ['ts:ISO 8601', 'ts:YYYY-MM-DD HH:mm:ss.SSS Z']],
      ['2018-01-04 15:51:23 -0800', ['ts:ISO 8601', 'ts:YYYY-MM-DD HH:mm:ss Z']],
      ['2024-03-01T10:20:30 Z', ['ts:ISO 8601', 'ts:YYYY-MM-DDTHH:mm:ss Z']],
      ['2024-03-01T10', []],
      ['2024-03-01T10:2', []],
      ['2024-03-01X10:20', []],
      ['2024-03-01T10:20:30+1', []],
      ['02024-03-01', ['phone']],
      ['2024-03-01 ', ['date:YYYY-MM-DD']],
    ]);
  });

  it('a date of numbers votes for each order it is a real date in: day or month first, year first', () => {
    holds([
      ['01.03.2024', ['date:DD.MM.YYYY', 'date:MM.DD.YYYY']],
      ['1.3.2024', ['date:DD.MM.YYYY', 'date:MM.DD.YYYY']],
      ['13.03.2024', ['date:DD.MM.YYYY']],
      ['03/13/2024', ['date:MM/DD/YYYY']],
      ['31/04/2024', []],
      ['13/13/2024', []],
      ['29-02-2023', []],
      ['29-02-2024', ['date:DD-MM-YYYY']],
      ['2024/03/01', ['date:YYYY/MM/DD']],
      ['2024.3.1', ['date:YYYY.MM.DD']],
      ['2024-3-1', ['date:YYYY-MM-DD']],
      ['2024/02/30', []],
      ['2024/03/001', []],
      ['2024/13/01', []],
      ['1.3.24', []],
      ['01.03.24', []],
      ['001.03.2024', []],
      ['01.03.20245', ['phone']],
      ['01/03-2024', ['phone']],
      ['01.03.2024 10:20', ['ts:DD.MM.YYYY HH:mm', 'ts:MM.DD.YYYY HH:mm']],
      ['01.03.2024 10:20:30', ['ts:DD.MM.YYYY HH:mm:ss', 'ts:MM.DD.YYYY HH:mm:ss']],
      ['01.03.2024T10:20', ['ts:DD.MM.YYYY HH:mm', 'ts:MM.DD.YYYY HH:mm']],
      ['01.03.2024, 10:20', ['ts:DD.MM.YYYY HH:mm', 'ts:MM.DD.YYYY HH:mm']],
      ['2024/03/01 9:05', ['ts:YYYY/MM/DD HH:mm']],
      ['01.03.2024 25:00', []],
      ['01.03.2024 23:60', []],
      ['01.03.2024 23:59:61', []],
      ['01.03.2024 10', ['phone']],
    ]);
  });

  it('a phone number: 7 to 15 digits with a prefix or a separator, never an IPv4 address or a date', () => {
    holds([
      ['+49 30 1234567', ['phone']],
      ['+49 (30) 123 45 67', ['phone']],
      ['030 1234567', ['phone']],
      ['(030) 1234567', ['phone']],
      ['(030) 123456', ['phone']],
      ['030/123456', ['phone']],
      ['030.1234567', ['num.', 'phone']],
      ['12-34-56-78', ['phone']],
      ['123-4567', ['phone']],
      ['123-456', []],
      ['030-123456789012', ['phone']],
      ['030-1234567890123', []],
      ['1/2/3/4/5/6', []],
      ['192.168.1.1', []],
      ['10.0.0.100', []],
      ['01.23.45.67.89', ['phone']],
      ['123.45.67.890', []],
      ['2023-02-29', []],
      ['+49 30 12345x67', []],
      ['(030) 123:4567', []],
    ]);
  });

  it('a phone number with its extension after a space, never an extension alone or a size', () => {
    holds([
      ['731-620-9877 x6155', ['phone']],
      ['+1 415 555 2671 ext. 12', ['phone']],
      ['(030) 1234567 ext 3', ['phone']],
      ['731-620-9877 x1234567', []],
      ['x6155', []],
      [' ext. 12', []],
      ['123 x45', []],
      ['1920 x 1080', []],
    ]);
  });

  it('words: yes and no in several languages, on and off as a switch, country and currency codes', () => {
    holds([
      ['true', ['bool']],
      ['Yes', ['bool']],
      ['FALSE', ['bool']],
      ['verdadero', ['bool']],
      ['falsch', ['bool']],
      ['sí', ['bool']],
      ['n', ['bool']],
      ['no', ['bool', 'country']],
      ['NO', ['bool', 'country']],
      ['on', ['boolSwitch']],
      ['On', ['boolSwitch']],
      ['OFF', ['boolSwitch']],
      ['onx', []],
      ['maybe', []],
      ['de', ['country']],
      ['DE', ['country']],
      ['d1', []],
      ['uk', []],
      ['usd', ['currencyAnyCase']],
      ['Usd', ['currencyAnyCase']],
      ['USD', ['currencyAnyCase', 'currency']],
      ['all', ['currencyAnyCase']],
      ['xyz', []],
      ['EURO', []],
    ]);
  });

  it('a uuid, an e-mail address and a web address, each only whole', () => {
    holds([
      ['550e8400-e29b-41d4-a716-446655440000', ['uuid']],
      ['f47ac10b-58cc-4372-a567-0e02b2c3d479', ['uuid']],
      ['F47AC10B-58CC-4372-A567-0E02B2C3D479', ['uuid']],
      ['f47ac10b-58cc-4372-a567-0e02b2c3d47', []],
      ['f47ac10b-58cc-4372-a567-0e02b2c3d47g', []],
      ['f47ac10b58cc4372a5670e02b2c3d479abcd', []],
      ['g47ac10b-58cc-4372-a567-0e02b2c3d479', []],
      ['a@b.co', ['email']],
      ['#sales@example.com', ['email']],
      ['ada@example.com.', []],
      ['ada.lovelace@example.com', ['email']],
      ['ada@mail.example.co.uk', ['email']],
      ['jürgen@müller.de', ['email']],
      ['ada@ex-ample.de', ['email']],
      ['a@b', []],
      ['a@b.c', []],
      ['a@b.c1', []],
      ['a@.de', []],
      ['@b.de', []],
      ['Ada <a@b.co>', []],
      ['a b@c.de', []],
      ['a;b@c.de', []],
      ['a@b@c.de', []],
      [`${'a'.repeat(308)}@example.com`, ['email']],
      [`${'a'.repeat(309)}@example.com`, []],
      ['https://example.com/x', ['url']],
      ['http://example.com', ['url']],
      ['HTTP://EXAMPLE.COM', ['url']],
      ['Https://example.com/a?b=c#d', ['url']],
      ['http://', []],
      ['here: https://example.com', []],
      ['http:///x', []],
      ['ftp://x.org', []],
      ['https://ex ample.com', []],
      ['hello', []],
      ['Hello world', []],
    ]);
  });

  it('text that opens with { or [ votes json only when it parses to an object or a list', () => {
    holds([
      ['{"a":1}', ['json']],
      ['{}', ['json']],
      ['[1]', ['json']],
      ['[]', ['json']],
      [' [1] ', ['json']],
      ['[', []],
      ['{x}', []],
      ['"x"', []],
    ]);
  });

  it('an empty cell is nothing, blanks or a database null marker, also padded', () => {
    const empty = [
      null,
      undefined,
      '',
      ' ',
      '\t\n',
      'null',
      'NULL',
      '\\N',
      ' null',
      'null ',
      '\u00a0null\u00a0',
      '\u00a0null',
      'null\u00a0',
      ' NULL ',
    ];
    const full = [0, false, {}, [], 'Null', 'nul', 'nulls', 'x', 'abcde', ' abcde ', '\\n', 'N', ' x '];
    assert.deepEqual(
      empty.filter((v) => !isEmptyValue(v)),
      [],
    );
    assert.deepEqual(
      full.filter((v) => isEmptyValue(v)),
      [],
    );
  });

  it('header detection takes a number, a date, an e-mail or an address as typed, never a word or a code', () => {
    const typed = [
      '0',
      '42',
      '1.5',
      '2024-03-01',
      '01.03.2024',
      '+49 30 1234567',
      'a@b.co',
      'https://example.com',
      '550e8400-e29b-41d4-a716-446655440000',
    ];
    const words = ['true', 'on', 'de', 'USD', 'usd', '{"a":1}', 'name', ''];
    assert.deepEqual(
      typed.filter((s) => !isTypedText(s)),
      [],
    );
    assert.deepEqual(
      words.filter((s) => isTypedText(s)),
      [],
    );
  });
});
